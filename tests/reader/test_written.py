"""The NCERT pairs written for the reader (tutor/reader/written.py), on a tiny shelf made in the test: an answerable
pair becomes a positive on its evidence sentence's window with the answer's span; a pair to refuse a negative on the
window the gate's ranking picks, never from a held-out chapter; pairs on held-out chapters are refused at load; a pair
whose evidence no shelf sentence holds is reported, not trained on. The shipped file parses and holds only training
chapters."""
from __future__ import annotations

import json

import pytest

from tutor.reader.examples import heldout_chapter
from tutor.reader.written import WRITTEN_PAIRS, load_pairs, written_examples
from tutor.store.shelf import ShelfKey
from tutor.text.sentences import sentence_spans
from tutor.types import Chunk, Hit

TRAINED, HELD = "jabc1", "jabc2"  # heldout_chapter: jabc2 is held out, jabc1 is not
assert not heldout_chapter(TRAINED) and heldout_chapter(HELD)

CURRENT = ("Electric current is the rate of flow of charge. It is measured with an ammeter in the circuit. "
           "The SI unit of electric current is the ampere. A current of one ampere is a flow of one coulomb each "
           "second. Cells in a battery push the charges.")
RESISTANCE = ("Resistance opposes the flow of current in a conductor. The SI unit of resistance is the ohm. "
              "Longer wires have more resistance than short ones of the same metal.")


def _chunk(cid: str, code: str, text: str) -> Chunk:
    spans = tuple((s, e, 1) for s, e in sentence_spans(text))
    return Chunk(cid, "10", "science", "Electricity", code, f"{code}.pdf", 1, 1, "body", "", text, spans)


class _Shelf:
    key = ShelfKey("10", "science")

    def __init__(self, chunks: list[Chunk], order: list[str]):
        self.chunks = chunks
        self.order = order  # the chunk ids search returns, best first

    def search(self, _vec, k: int) -> list[Hit]:
        by_id = {c.chunk_id: c for c in self.chunks}
        return [Hit(by_id[cid], 0.9 - 0.1 * i, i) for i, cid in enumerate(self.order[:k])]


class _Library:
    def __init__(self, shelf: _Shelf):
        self._shelf = shelf

    def keys(self):
        return [self._shelf.key]

    def shelf(self, klass: str, subject: str) -> _Shelf:
        return self._shelf

    def embed_query(self, question: str, shelf) -> list[float]:
        return [0.0]


def _library(order: list[str]) -> _Library:
    return _Library(_Shelf([_chunk("c1", TRAINED, CURRENT), _chunk("c2", HELD, RESISTANCE)], order))


def test_an_answerable_pair_is_a_positive_on_its_evidence_window_with_the_answer_span():
    pair = {"chapter": TRAINED, "chunk": "c1", "question": "Which unit is current measured in?", "expect": "answer",
            "evidence": "The SI unit of electric current is the ampere.", "answer": "the ampere"}
    made = written_examples(_library(["c1"]), [pair])
    (ex,) = made.examples
    assert ex.label == 1 and ex.task == "qa" and ex.group == TRAINED and ex.source == "ncert-written"
    assert "The SI unit of electric current is the ampere." in ex.second
    assert ex.second.startswith("It is measured")  # the sentence before the evidence opens the window
    assert ex.second[ex.span[0]:ex.span[1]] == "the ampere"
    assert made.unmatched == []


def test_the_span_is_in_the_evidence_sentence_not_an_earlier_mention_in_the_window():
    pair = {"chapter": TRAINED, "chunk": "c1", "question": "A current of one what is one coulomb a second?",
            "expect": "answer", "evidence": "A current of one ampere is a flow of one coulomb each second.",
            "answer": "ampere"}
    (ex,) = written_examples(_library(["c1"]), [pair]).examples
    assert ex.second.startswith("The SI unit")  # "ampere" is in the window twice: the first is not the evidence's
    assert ex.span[0] > ex.second.index("A current of one") and ex.second[ex.span[0]:ex.span[1]] == "ampere"


def test_a_pair_to_refuse_is_a_negative_on_the_ranked_window_and_never_on_a_held_out_chapter():
    pair = {"chapter": TRAINED, "question": "What is the SI unit of resistance of a battery?", "expect": "refuse"}
    # the held-out chapter's chunk comes first and answers best by its words: it must not be read
    made = written_examples(_library(["c2", "c1"]), [pair])
    (ex,) = made.examples
    assert ex.label == 0 and ex.span is None and ex.group == TRAINED
    assert "ohm" not in ex.second and ex.second in CURRENT


def test_a_pair_whose_evidence_no_shelf_sentence_holds_is_reported_not_trained_on():
    pair = {"chapter": TRAINED, "chunk": "c1", "question": "Who discovered the electron?", "expect": "answer",
            "evidence": "J. J. Thomson discovered the electron in 1897.", "answer": "J. J. Thomson"}
    made = written_examples(_library(["c1"]), [pair])
    assert made.examples == [] and made.unmatched == ["Who discovered the electron?"]


def test_pairs_on_a_held_out_chapter_are_refused_at_load(tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_text(json.dumps({"chapter": HELD, "question": "q?", "expect": "refuse"}) + "\n")
    with pytest.raises(ValueError, match=HELD):
        load_pairs(path)


def test_the_shipped_pairs_parse_and_are_whole():
    pairs = load_pairs(WRITTEN_PAIRS)  # raises on a held-out chapter
    assert len(pairs) >= 500
    for p in pairs:
        assert p["expect"] in ("answer", "refuse") and p["question"].strip()
        if p["expect"] == "answer":
            assert p["answer"] and p["answer"] in p["evidence"]
