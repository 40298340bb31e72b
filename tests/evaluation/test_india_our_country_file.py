"""tests/data/india-our-country.jsonl, the test of the names check's "our country" (policy home_country), holds what
its README section says: questions that name India about sentences that say "our country", each answer printed in its
evidence sentence on its gold page, and questions to refuse whose answer the chapters do not print."""
from __future__ import annotations

import json
import re

import pytest
from helpers_paths import SHARED_DATA, TEST_DATA

ROWS = [json.loads(line) for line in (TEST_DATA / "india-our-country.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()]
ANSWER = [r for r in ROWS if r["expect"] == "answer"]
REFUSE = [r for r in ROWS if r["expect"] == "refuse"]


def _norm(text: str) -> str:
    return " ".join(text.lower().replace("\u2019", "'").split())


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
    import pypdf

    from tutor.ingest.pdftext import extract_pdf

    missing, no_evidence = [], []
    for r in ANSWER:
        path = SHARED_DATA / "libraries" / r["gold_file"]
        cleaned = {p.page: _norm(p.text) for p in extract_pdf(path).pages}
        raw = [_norm(p.extract_text() or "") for p in pypdf.PdfReader(str(path)).pages]
        if not all(any(_norm(a) in cleaned.get(p, "") for p in r["gold_pages"]) for a in r["answers"]):
            missing.append(r["id"])
        if not any(_norm(r["evidence"]) in raw[p - 1] for p in r["gold_pages"]):
            no_evidence.append(r["id"])
    assert not missing, f"answers not on their gold pages: {missing}"
    assert not no_evidence, f"evidence not in pypdf's text of the gold pages: {no_evidence}"
