"""tests/data/short-answers-fresh.jsonl, the untuned test set of short factual questions, holds what its README
section says: the schema of short-answers.jsonl, split "test", about 60% science, each answer printed in its evidence
sentence and on its gold pages, and no fact already asked by short-answers.jsonl (else it would not be fresh)."""
from __future__ import annotations

import re
from collections import Counter

import pytest
from helpers_paths import SHARED_DATA
from helpers_questions import cleaned_pages, raw_pages, rows
from helpers_questions import norm as _norm

ROWS = rows("short-answers-fresh.jsonl")
OLD = rows("short-answers.jsonl")
FIELDS = {"id", "question", "expect", "class", "subject", "library", "gold_file", "gold_pages", "answers",
          "answer_type", "evidence", "origin", "split"}


def test_the_file_has_the_schema_of_short_answers_and_is_all_test():
    assert len(ROWS) == 60 and len({r["id"] for r in ROWS}) == len(ROWS)
    for r in ROWS:
        assert set(r) == FIELDS, r["id"]
        assert re.fullmatch(r"saf-je(?:sc|ss)\d{3}-\d{2}", r["id"]) and r["id"][4:11] in r["gold_file"], r["id"]
        assert (r["expect"], r["class"], r["library"]) == ("answer", "10", "ncert"), r["id"]
        assert (r["origin"], r["split"]) == ("short-answer-fresh", "test"), r["id"]
        assert r["answer_type"] in {"unit", "name", "date", "number", "term", "place"}, r["id"]
        assert r["answers"] and r["gold_pages"] and r["evidence"], r["id"]
        assert all(_norm(a) in _norm(r["evidence"]) for a in r["answers"]), r["id"]


def test_science_is_about_three_fifths_and_the_chapters_are_spread():
    subjects = Counter(r["subject"] for r in ROWS)
    assert set(subjects) == {"science", "social-science"}
    assert 0.5 <= subjects["science"] / len(ROWS) <= 0.7
    assert len({r["gold_file"] for r in ROWS}) >= 25


def test_no_question_or_fact_of_short_answers_is_asked_again():
    old_questions = {_norm(r["question"]) for r in OLD}
    old_facts = {(r["gold_file"], _norm(a)) for r in OLD for a in r["answers"]}
    assert not [r["id"] for r in ROWS if _norm(r["question"]) in old_questions]
    assert not [r["id"] for r in ROWS if any((r["gold_file"], _norm(a)) in old_facts for a in r["answers"])]


@pytest.mark.slow
@pytest.mark.skipif(not (SHARED_DATA / "libraries" / "ncert").is_dir(), reason=f"no NCERT library at {SHARED_DATA}")
def test_answers_and_evidence_are_on_their_gold_pages():
    missing, copied, no_evidence = [], [], []
    for r in ROWS:
        cleaned, raw = cleaned_pages(r["gold_file"]), raw_pages(r["gold_file"])
        if not all(any(_norm(a) in cleaned.get(p, "") for p in r["gold_pages"]) for a in r["answers"]):
            missing.append(r["id"])
        if _norm(r["question"]) in " ".join(cleaned.values()):
            copied.append(r["id"])
        if not any(_norm(r["evidence"]) in raw[p - 1] for p in r["gold_pages"]):
            no_evidence.append(r["id"])
    assert not missing, f"answers not on their gold pages: {missing}"
    assert not copied, f"questions printed word for word in their chapter: {copied}"
    assert not no_evidence, f"evidence not in pypdf's text of the gold pages: {no_evidence}"
