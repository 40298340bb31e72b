"""The held-apart Hindi and Hinglish test files with checked labels (tests/data/xling-fresh3-*.jsonl to
xling-fresh5-*.jsonl, xling-fresh7-*.jsonl, xling-fresh8-*.jsonl, xling-fresh10-*.jsonl to xling-fresh14-*.jsonl,
xling-fresh15-*.jsonl, xling-fresh16-*.jsonl, issue 34), and the development files written the same way
(xling-fresh6-*.jsonl and xling-fresh9-*.jsonl, halves named: a `split` on every row, 5 tuning and 5 held out of each
kind and subject), hold what tests/data/README.md says: as many questions of each kind and subject as written, in the
script named, each answerable question's key terms on a page of its gold chapter (the first on its gold pages), and
each refusal's absent terms nowhere in its subject's chapters."""
from __future__ import annotations

import re
from collections import Counter

import pytest
from helpers_paths import SHARED_DATA
from helpers_questions import cleaned_pages, raw_pages, rows

FILES = ["xling-fresh3-devanagari.jsonl", "xling-fresh3-hinglish.jsonl", "xling-fresh4-devanagari.jsonl",
         "xling-fresh4-hinglish.jsonl", "xling-fresh5-devanagari.jsonl", "xling-fresh5-hinglish.jsonl",
         "xling-fresh6-devanagari.jsonl", "xling-fresh6-hinglish.jsonl", "xling-fresh7-devanagari.jsonl",
         "xling-fresh7-hinglish.jsonl", "xling-fresh8-devanagari.jsonl", "xling-fresh8-hinglish.jsonl",
         "xling-fresh9-devanagari.jsonl", "xling-fresh9-hinglish.jsonl", "xling-fresh10-devanagari.jsonl",
         "xling-fresh10-hinglish.jsonl", "xling-fresh11-devanagari.jsonl", "xling-fresh11-hinglish.jsonl",
         "xling-fresh12-devanagari.jsonl", "xling-fresh12-hinglish.jsonl", "xling-fresh13-devanagari.jsonl",
         "xling-fresh13-hinglish.jsonl", "xling-fresh14-devanagari.jsonl", "xling-fresh14-hinglish.jsonl",
         "xling-fresh15-devanagari.jsonl", "xling-fresh15-hinglish.jsonl", "xling-fresh16-devanagari.jsonl",
         "xling-fresh16-hinglish.jsonl"]
DEVELOPMENT = ("fresh6", "fresh9")  # development files: each names its halves (`split`)
NCERT = SHARED_DATA / "libraries" / "ncert" / "class-10"


def _hits(term: str, text: str) -> bool:
    """The term as a whole word or phrase of `text` (already lower case, spaces collapsed)."""
    return re.search(r"(?<![a-z0-9])" + re.escape(" ".join(term.lower().split())) + r"(?![a-z0-9])", text) is not None


@pytest.mark.parametrize("name", FILES)
def test_each_file_has_its_kinds_and_subjects_in_its_script(name):
    qs = rows(name)
    kinds = Counter((r["expect"], r["subject"]) for r in qs)
    assert kinds == {("answer", "science"): 10, ("answer", "social-science"): 10, ("refuse", "science"): 10,
                     ("refuse", "social-science"): 10}
    assert len({r["id"] for r in qs}) == len(qs) and len({r["question"] for r in qs}) == len(qs)
    development = any(f"xling-{d}-" in name for d in DEVELOPMENT)
    if development:
        assert Counter((r["expect"], r["subject"], r["split"]) for r in qs) == {
            (e, s, h): 5 for e in ("answer", "refuse") for s in ("science", "social-science")
            for h in ("tuning", "heldout")}
    devanagari = name.endswith("devanagari.jsonl")
    for r in qs:
        assert r["script"] == ("devanagari" if devanagari else "latin") and r["english"], r["id"]
        assert bool(re.search("[\u0900-\u097f]", r["question"])) == devanagari, r["id"]
        if development:  # development: each kind and subject split in halves
            assert r["split"] in ("tuning", "heldout"), r["id"]
        if r["expect"] == "answer":
            assert r["kind"] == "answerable" and r["key_terms"] and r["gold_pages"], r["id"]
            assert r["gold_file"].startswith(f"ncert/class-10/{r['subject']}/"), r["id"]
        else:
            assert r["kind"] == "on-topic-absent" and r["absent_terms"] and r["gold_file"] is None, r["id"]


def test_no_test_question_repeats_one_asked_elsewhere_in_english():
    seen: dict[str, str] = {}
    for name in FILES:
        for r in rows(name):
            key = " ".join(r["english"].lower().split())
            assert key not in seen, f"{r['id']} repeats {seen.get(key)}"
            seen[key] = r["id"]


@pytest.mark.slow
@pytest.mark.skipif(not NCERT.is_dir(), reason=f"no NCERT Class 10 library at {NCERT}")
@pytest.mark.parametrize("name", FILES)
def test_key_terms_are_on_the_gold_pages_and_absent_terms_nowhere_in_the_subject(name):
    """pypdf's text or the project's cleaned extraction (the labels were checked with pdftotext, whose line breaks
    differ): a key term on one of the gold pages in either, an absent term on no page of any chapter in either."""
    misplaced, present = [], []
    for r in rows(name):
        if r["expect"] == "answer":
            raw, cleaned = raw_pages(r["gold_file"]), cleaned_pages(r["gold_file"])
            pages = [raw[p - 1] + " \n " + cleaned.get(p, "") for p in r["gold_pages"]]
            whole = " \n ".join(raw) + " \n " + " \n ".join(cleaned.values())
            if not any(_hits(r["key_terms"][0], t) for t in pages) or not all(_hits(k, whole) for k in r["key_terms"]):
                misplaced.append(r["id"])
            continue
        for pdf in sorted((NCERT / r["subject"]).glob("*.pdf")):
            gold = str(pdf.relative_to(SHARED_DATA / "libraries"))
            text = " \n ".join(raw_pages(gold)) + " \n " + " \n ".join(cleaned_pages(gold).values())
            present += [f"{r['id']}: {k!r} in {pdf.name}" for k in r["absent_terms"] if _hits(k, text)]
    assert not misplaced, f"key terms not on their gold pages: {misplaced}"
    assert not present, f"absent terms found: {present}"
