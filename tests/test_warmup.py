"""Warming the shelves at start (tutor/warmup.py): after it, every shelf is in the library's cache and a first
question loads nothing from the store; a damaged shelf is named, the others still warm.

Real shelves on disk, made by ingesting tiny reportlab PDFs with the HashEmbedder.
"""
from __future__ import annotations

import pytest

from tutor.ingest.builder import discover, ingest
from tutor.retrieval.search import Library
from tutor.store.shelf import ShelfStore
from tutor.testing import HashEmbedder
from tutor.warmup import start_warm_up, warm_library, warm_tutor

from helpers_library import make_library


class CountingStore(ShelfStore):
    """A shelf store that counts the shelves it loads."""

    loads = 0

    def load(self, *args, **kwargs):
        CountingStore.loads += 1
        return super().load(*args, **kwargs)


@pytest.fixture
def library(tmp_path):
    ingest(discover([make_library(tmp_path / "src")]), ShelfStore(tmp_path / "index"), HashEmbedder(), workers=1)
    CountingStore.loads = 0
    return Library(tmp_path / "index", embedder=HashEmbedder(), store=CountingStore(tmp_path / "index"))


def test_after_warm_up_every_shelf_is_cached_and_a_first_question_loads_nothing(library):
    report = warm_library(library)
    assert sorted(report.shelves) == ["10/science", "10/social-science"] and report.failed == {}
    loaded = CountingStore.loads
    assert loaded == 2
    for key in library.keys():
        shelf = library.shelf(key.klass, key.subject)
        assert shelf._lexical is not None  # the lexical index a first search would build
        library.search("How does light bend?", key.klass, key.subject)
    assert CountingStore.loads == loaded  # the questions read the cached shelves


class Tutor:
    """What warm_tutor reads of a Tutor: its library and cross-lingual judge (here one recording what it embeds)."""

    def __init__(self, library):
        self.library = library
        self.cross_judge = self
        self.embedded: list[str] = []

    @property
    def embedder(self):
        return self

    def embed_query(self, texts):
        self.embedded += texts


def test_the_tutor_warm_up_also_loads_the_cross_lingual_embedder_in_a_background_thread(library):
    tutor = Tutor(library)
    thread, report = start_warm_up(tutor)
    thread.join(timeout=60)
    assert report.done and len(report.shelves) == 2 and tutor.embedded == ["warm up"]


def test_a_damaged_shelf_is_named_and_the_others_still_warm(library, tmp_path):
    version = library.store.current_version("10", "science")
    vectors = tmp_path / "index" / "class-10" / "science" / version / "vectors.npy"
    vectors.write_bytes(b"damaged")
    report = warm_tutor(Tutor(library))
    assert report.shelves == ["10/social-science"]
    assert list(report.failed) == ["10/science"] and "Damaged" in report.failed["10/science"]


class PolicyTutor(Tutor):
    """A Tutor with a policy: the warm-up also loads the dictionaries Hindi questions are read with."""

    def __init__(self, library, policy):
        super().__init__(library)
        self.policy = policy


def test_the_warm_up_loads_the_dictionaries_hindi_and_hinglish_questions_are_read_with(library):
    from tutor.policy import load_policy
    from tutor.text import hinglish_dictionary

    hinglish_dictionary._SPELLERS.clear()
    report = warm_tutor(PolicyTutor(library, load_policy()))
    assert {"Devanagari dictionary", "typed spellings", "Hinglish dictionary", "Dakshina", "learnt spelling",
            "senses' cosines", "word commonness"} <= set(report.readings)  # the shipped policy's
    assert hinglish_dictionary._SPELLERS  # the first Hinglish question finds the spelling model built
    off = load_policy().with_values(hinglish_dictionary=False, hindi_typed_english=False,
                                    hindi_sense_by_meaning=False, hinglish_sense_by_meaning=False)
    assert not {"Hinglish dictionary", "typed spellings", "senses' cosines"} & set(
        warm_tutor(PolicyTutor(library, off)).readings)


def test_dictionaries_that_cannot_be_loaded_are_named_and_the_shelves_still_warm(library):
    report = warm_tutor(PolicyTutor(library, object()))  # no policy fields: the loading fails
    assert sorted(report.shelves) == ["10/science", "10/social-science"]
    assert "AttributeError" in report.failed["Hindi readings"] and report.done
