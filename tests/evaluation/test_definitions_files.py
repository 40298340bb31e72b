"""tests/data/definitions-fresh.jsonl and definitions-fresh2.jsonl, the definition questions whose answers should begin
with the book's defining sentence, hold what their README section says: the schema, each `answers` entry the defining
sentence as printed on its gold page, half science, no term asked twice."""
from __future__ import annotations

import re
from collections import Counter

import pytest
from helpers_paths import SHARED_DATA
from helpers_questions import norm, raw_pages, rows

FILES = {"definitions-fresh.jsonl": ("def", "tuning"), "definitions-fresh2.jsonl": ("def2", "test")}
FIELDS = {"id", "question", "expect", "class", "subject", "library", "gold_file", "gold_pages", "answers", "term",
          "origin", "split"}


@pytest.mark.parametrize("name", FILES)
def test_the_schema_and_the_split(name):
    prefix, split = FILES[name]
    got = rows(name)
    assert len(got) == 40 and len({r["id"] for r in got}) == 40
    for r in got:
        assert set(r) == FIELDS, r["id"]
        assert re.fullmatch(rf"{prefix}-je(?:sc|ss)\d{{3}}-\d{{2}}", r["id"]), r["id"]
        assert r["id"].split("-")[1] in r["gold_file"], r["id"]
        assert (r["expect"], r["class"], r["library"], r["split"]) == ("answer", "10", "ncert", split), r["id"]
        assert r["origin"] == name.removesuffix(".jsonl"), r["id"]
        assert len(r["answers"]) == 1 and len(r["gold_pages"]) == 1, r["id"]


@pytest.mark.parametrize("name", FILES)
def test_half_are_science_and_the_chapters_are_spread(name):
    got = rows(name)
    assert Counter(r["subject"] for r in got) == {"science": 20, "social-science": 20}
    for subject in ("science", "social-science"):
        assert len({r["gold_file"] for r in got if r["subject"] == subject}) >= 8


def test_no_term_is_asked_in_both_files():
    terms = [norm(r["term"]) for name in FILES for r in rows(name)]
    assert len(terms) == len(set(terms))


@pytest.mark.slow
@pytest.mark.skipif(not (SHARED_DATA / "libraries" / "ncert").is_dir(), reason=f"no NCERT library at {SHARED_DATA}")
@pytest.mark.parametrize("name", FILES)
def test_each_definition_is_printed_on_its_gold_page(name):
    missing = [r["id"] for r in rows(name)
               if norm(r["answers"][0]) not in raw_pages(r["gold_file"])[r["gold_pages"][0] - 1]]
    assert not missing, f"definitions not in pypdf's text of their gold pages: {missing}"
