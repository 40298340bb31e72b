"""The kind follow-up evaluation (tutor/evaluation/followup_kinds.py) and its data file: tests/data/
followups-kinds.jsonl is well formed (kinds, halves, gold sentences where the book answers and none where it does
not), each gold sentence is on the shelf as the project extracts it, and the scoring counts a cited gold sentence,
a refusal and a false acceptance as the README says."""
from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from helpers_paths import SHARED_DATA, TEST_DATA

from tutor.evaluation.followup_kinds import (
    KindConversation,
    Turn,
    is_kinds_file,
    load_kind_conversations,
    report_lines,
    run_conversation,
    same_sentence,
    score_turn,
    summarise_kinds,
)
from tutor.types import AnswerSentence, TutorAnswer

FILE = TEST_DATA / "followups-kinds.jsonl"
ROWS = [json.loads(line) for line in FILE.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_file_is_well_formed_with_each_kind_both_ways_and_half_held_out():
    assert len(ROWS) >= 40 and len({r["id"] for r in ROWS}) == len(ROWS)
    assert is_kinds_file(FILE) and not is_kinds_file(TEST_DATA / "followups.jsonl")
    turns = [(r, t) for r in ROWS for t in r["turns"]]
    for r, t in turns:
        assert re.fullmatch(r"fk-\d{3}", r["id"]) and r["split"] in ("dev", "heldout") and r["library"] == "ncert"
        assert t["kind"] in ("why", "example", "more", "other") and t["expect"] in ("answer", "refuse")
        assert bool(t["gold"]) == (t["expect"] == "answer") == bool(t["gold_file"]), (r["id"], t["question"])
        assert t["expect"] == "answer" or t.get("absent"), f"{r['id']}: a refusal says what was searched"
        if t["gold_file"]:
            assert t["gold_file"].startswith(f"ncert/class-10/{r['subject']}/")
    kinds = Counter((t["kind"], t["expect"]) for _, t in turns)
    assert all(kinds[(k, e)] >= 3 for k in ("why", "example", "more") for e in ("answer", "refuse"))
    answer, refuse = (sum(v for (_, e), v in kinds.items() if e == x) for x in ("answer", "refuse"))
    assert abs(answer - refuse) <= len(turns) // 5  # about half the book answers
    halves = Counter(r["split"] for r in ROWS)
    assert abs(halves["dev"] - halves["heldout"]) <= 4
    assert len(load_kind_conversations(FILE)) == len(ROWS)


@pytest.mark.slow
@pytest.mark.skipif(not (SHARED_DATA / "libraries" / "ncert").is_dir(), reason=f"no NCERT library at {SHARED_DATA}")
def test_every_gold_sentence_is_in_its_chapter_as_the_project_extracts_it():
    from tutor.ingest.pdftext import extract_pdf

    def squash(text: str) -> str:
        return re.sub(r"[^0-9a-z]+", "", text.lower())

    chapters: dict[str, str] = {}
    missing = []
    for r in ROWS:
        for t in r["turns"]:
            f = t["gold_file"]
            if f and f not in chapters:
                chapters[f] = squash(" ".join(p.text for p in extract_pdf(SHARED_DATA / "libraries" / f).pages))
            missing += [(r["id"], g[:40]) for g in t["gold"] if squash(g) not in chapters[f]]
    assert not missing, f"gold sentences not in their chapter: {missing}"


def answer(*texts: str, refused: bool = False) -> TutorAnswer:
    return TutorAnswer(question="q", klass="10", subject="science", mode="library", answer=" ".join(texts),
                       was_refusal=refused, reason="no_example_in_book" if refused else "answered", message="m",
                       confidence=0.6, sentences=tuple(AnswerSentence(t, (1,)) for t in texts))


GOLD = "This defect may arise due to excessive curvature of the eye lens."


def test_a_gold_sentence_cited_is_right_and_any_other_answer_is_not():
    why = Turn("Why?", "why", "answer", (GOLD,))
    spaced = "This  defect may arise due to excessive curvature of the eye lens ."
    assert score_turn(why, answer(spaced), None) == "right"
    assert score_turn(why, answer("Myopia is near-sightedness."), None) == "other"
    assert score_turn(why, answer(refused=True), None) == "refused"
    none = Turn("Give an example.", "example", "refuse")
    assert score_turn(none, answer(refused=True), None) == "right"
    assert score_turn(none, answer("Anything."), None) == "accepted"


def test_more_is_right_only_with_a_gold_sentence_the_earlier_answer_had_not_given():
    more = Turn("Tell me more.", "more", "answer", (GOLD, "This defect can be corrected by using a concave lens."))
    earlier = answer(GOLD)
    assert score_turn(more, answer(GOLD), earlier) == "other"  # said again
    assert score_turn(more, answer("This defect can be corrected by using a concave lens."), earlier) == "right"
    assert same_sentence("Uses of mirrors Convex mirr ors are used.", "Convex mirrors are used.") is False  # too short
    assert same_sentence("(a) Myopia Myopia is also known as near - sightedness.",
                         "Myopia is also known as near-sightedness.")


class ScriptedTutor:
    """A stand-in for Tutor.ask: the replies in order, recording the `previous` each follow-up was given."""

    def __init__(self, *replies: TutorAnswer) -> None:
        self.replies, self.previous = list(replies), []

    def ask(self, question, klass, subject, previous=None):
        self.previous.append(previous)
        return self.replies.pop(0)


def test_a_conversation_reads_each_follow_up_against_the_last_answered_turn_or_the_last_turn():
    conv = KindConversation("fk-900", "10", "science", "ncert", "dev", "What is myopia?", (
        Turn("Give an example.", "example", "refuse"), Turn("Why does it happen?", "why", "answer", (GOLD,))))
    first, refused, why = answer("Myopia is near-sightedness."), answer(refused=True), answer(GOLD)
    t = ScriptedTutor(first, refused, why)
    rows = run_conversation(conv, t, answered_only=True)
    assert t.previous == [None, first, first]  # the refusal between did not end the conversation
    assert [r["outcome"] for r in rows] == ["right", "right"]
    old = ScriptedTutor(first, refused, why)
    run_conversation(conv, old, answered_only=False)
    assert old.previous == [None, first, refused]  # as the chat did before
    counts = summarise_kinds(rows)
    assert counts["dev"]["why"]["right"] == 1 and counts["all"]["example"]["refused_right"] == 1
    assert "heldout" not in counts


def test_the_report_prints_each_kind_for_each_half_and_setting():
    rows = [{"id": "fk-1", "split": "dev", "kind": "why", "expect": "answer", "outcome": "right", "typed": "Why?",
             "first": "What is myopia?", "reason": "answered", "answer": "This defect ... [1]"},
            {"id": "fk-2", "split": "heldout", "kind": "example", "expect": "refuse", "outcome": "accepted",
             "typed": "Give an example.", "first": "What is presbyopia?", "reason": "answered", "answer": "X [1]"}]
    r = {"conversations": 2, "modes": {"after": summarise_kinds(rows)}, "rows": {"after": rows}}
    lines = report_lines(r, verbose=True)
    assert any(line.split()[:3] == ["after", "dev", "why"] and "1/1" in line for line in lines)
    heldout = next(line for line in lines if line.split()[:3] == ["after", "heldout", "example"])
    assert heldout.split()[-2:] == ["0/1", "1"]  # none refused of one to refuse; one accepted
    assert any("fk-2" in line and "accepted" in line for line in lines)
