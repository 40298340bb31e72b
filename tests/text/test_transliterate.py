"""The Latin -> Devanagari spelling model (tutor/text/transliterate.py), learnt here from a handful of made-up pairs:
it spells words it never saw from the pieces it learnt, only words it is given as listed, and says how sure it is."""
from __future__ import annotations

import math

import pytest

from tutor.text.transliterate import Transliterator, expected_counts, learn, listed, load, save

PAIRS = [("kaam", "काम", 3.0), ("kal", "कल", 2.0), ("maal", "माल", 2.0), ("lam", "लम", 1.0), ("kamal", "कमल", 2.0),
         ("naam", "नाम", 2.0), ("man", "मन", 1.0)]


@pytest.fixture(scope="module")
def model():
    return learn(PAIRS, iterations=6)


def test_the_pieces_learnt_are_the_ones_the_pairs_share(model):
    assert max(model["k"], key=model["k"].get) == "क"
    assert max(model["aa"], key=model["aa"].get) == "ा"
    assert all(abs(sum(row.values()) - 1) < 1e-6 or sum(row.values()) < 1 for row in model.values())


def test_words_never_seen_are_spelt_from_learnt_pieces_and_only_listed_words(model):
    tl = Transliterator(model, listed(["लाल", "लल", "नल", "कमल"]))
    assert tl.spell("laal")[0][0] == "लाल"  # never a pair: l, aa, l put together
    assert tl.spell("nal")[0][0] == "नल"
    assert tl.spell("maan") == []  # माल and मान are not listed: nothing is invented
    assert tl.spell("x1") == [] and tl.spell("कमल") == []  # only Latin letters are read


def test_the_score_is_a_log_probability_per_letter_and_ranks_spellings(model):
    tl = Transliterator(model, listed(["लाल", "लल", "ला", "लल्"]))
    got = tl.spell("laal", n=3)
    assert [w for w, _ in got][0] == "लाल"
    assert all(s <= 0 for _, s in got) and [s for _, s in got] == sorted((s for _, s in got), reverse=True)


def test_a_pair_no_cutting_fits_has_no_likelihood_and_adds_nothing():
    counts: dict = {}
    assert expected_counts("ab", "कख", {("a", "क"): 1.0}, 1.0, counts) == -math.inf
    assert counts == {}


def test_saved_and_loaded_it_spells_the_same(model, tmp_path):
    save(model, tmp_path / "m.tsv.gz")
    first = (tmp_path / "m.tsv.gz").read_bytes()
    save(load(tmp_path / "m.tsv.gz"), tmp_path / "again.tsv.gz")
    assert (tmp_path / "again.tsv.gz").read_bytes() == first  # the same table, the same bytes
    words = listed(["लाल", "लल", "नल"])
    assert Transliterator(load(tmp_path / "m.tsv.gz"), words).spell("laal")[0][0] == "लाल"
