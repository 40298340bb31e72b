"""tests/data/short-answers.jsonl holds what its README says: short factual questions, each answer printed on its gold
pages of the shared NCERT PDF as the project extracts it, in the sentence kept as evidence, halves balanced per
chapter, and no question copied from its chapter."""
from __future__ import annotations

import re
from collections import Counter, defaultdict

import pytest
from helpers_paths import SHARED_DATA
from helpers_questions import cleaned_pages, rows
from helpers_questions import norm as _norm

ROWS = rows("short-answers.jsonl")


def test_the_file_is_well_formed_and_split_in_half_within_each_chapter():
    assert len(ROWS) >= 100 and len({r["id"] for r in ROWS}) == len(ROWS)
    assert {r["subject"] for r in ROWS} == {"science", "social-science"}
    by_chapter = defaultdict(Counter)
    for r in ROWS:
        assert r["expect"] == "answer" and r["answers"] and r["gold_pages"] and r["evidence"]
        assert re.fullmatch(r"sa-je(?:sc|ss)\d{3}-\d{2}", r["id"]) and r["id"][3:10] in r["gold_file"]
        assert all(_norm(a) in _norm(r["evidence"]) for a in r["answers"]), r["id"]
        by_chapter[r["gold_file"]][r["split"]] += 1
    assert all(abs(c["tuning"] - c["heldout"]) <= 1 for c in by_chapter.values())
    split = Counter(r["split"] for r in ROWS)
    assert abs(split["tuning"] - split["heldout"]) <= 1


@pytest.mark.slow
@pytest.mark.skipif(not (SHARED_DATA / "libraries" / "ncert").is_dir(), reason=f"no NCERT library at {SHARED_DATA}")
def test_every_answer_is_on_its_gold_pages_as_the_project_extracts_them():
    missing, copied = [], []
    for r in ROWS:
        pages = cleaned_pages(r["gold_file"])
        if not all(any(_norm(a) in pages.get(p, "") for p in r["gold_pages"]) for a in r["answers"]):
            missing.append(r["id"])
        if _norm(r["question"]) in " ".join(pages.values()):
            copied.append(r["id"])
    assert not missing, f"answers not on their gold pages: {missing}"
    assert not copied, f"questions printed word for word in their chapter: {copied}"
