"""tests/data/india-our-country.jsonl, the test of the names check's "our country" (policy home_country), holds what
its README section says: questions that name India about sentences that say "our country", each answer printed in its
evidence sentence on its gold page, and questions to refuse whose answer the chapters do not print."""
from __future__ import annotations

import re

import pytest
from helpers_paths import SHARED_DATA
from helpers_questions import cleaned_pages, raw_pages, rows
from helpers_questions import norm as _norm

ROWS = rows("india-our-country.jsonl")
ANSWER = [r for r in ROWS if r["expect"] == "answer"]
REFUSE = [r for r in ROWS if r["expect"] == "refuse"]


def test_each_question_names_india_and_each_answer_is_in_an_our_country_sentence():
    assert len(ANSWER) == 8 and len(REFUSE) == 6 and len({r["id"] for r in ROWS}) == len(ROWS)
    for r in ROWS:
        assert "India" in r["question"] and (r["origin"], r["split"], r["library"]) == ("our-country-written", "test",
                                                                                      "ncert"), r["id"]
    for r in ANSWER:
        assert re.fullmatch(r"oc-jess\d{3}-\d{2}", r["id"]) and r["id"][3:10] in r["gold_file"], r["id"]
        assert "our country" in _norm(r["evidence"]) and "india" not in _norm(r["evidence"]), r["id"]
        assert all(_norm(a) in _norm(r["evidence"]) for a in r["answers"]), r["id"]
    assert all(r["gold_file"] is None and r["answers"] is None for r in REFUSE)


@pytest.mark.slow
@pytest.mark.skipif(not (SHARED_DATA / "libraries" / "ncert").is_dir(), reason=f"no NCERT library at {SHARED_DATA}")
def test_answers_and_evidence_are_on_their_gold_pages():
    missing, no_evidence = [], []
    for r in ANSWER:
        cleaned, raw = cleaned_pages(r["gold_file"]), raw_pages(r["gold_file"])
        if not all(any(_norm(a) in cleaned.get(p, "") for p in r["gold_pages"]) for a in r["answers"]):
            missing.append(r["id"])
        if not any(_norm(r["evidence"]) in raw[p - 1] for p in r["gold_pages"]):
            no_evidence.append(r["id"])
    assert not missing, f"answers not on their gold pages: {missing}"
    assert not no_evidence, f"evidence not in pypdf's text of the gold pages: {no_evidence}"
