"""End to end with the real MiniLM model: `ask` on the bundled sample library, and `eval` on a slice of the shared
NCERT questions (skipped where ../shared/data is absent). Marked slow; `make test` still runs them."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers_paths import REPO, TEST_DATA

pytestmark = pytest.mark.slow

ROOT = REPO
SAMPLE = ROOT / "data" / "sample" / "library"
SHARED = ROOT.parent / "shared" / "data"


def run(*args: str, env_extra: dict | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    import os

    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "tutor", *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=900)


@pytest.fixture(scope="module")
def sample_index(tmp_path_factory) -> Path:
    index = tmp_path_factory.mktemp("sample-index")
    r = run("--index-dir", str(index), "ingest", str(SAMPLE), "--quiet")
    assert r.returncode == 0, r.stderr
    return index


def ask(index: Path, tmp: Path, question: str, subject: str, *extra: str) -> dict:
    r = run("--index-dir", str(index), "ask", question, "--class", "10", "--subject", subject, "--json", *extra,
            env_extra={"TUTOR_AUDIT_DB": str(tmp / "audit.sqlite3")})
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_sample_question_gets_a_cited_answer_from_its_chapter(sample_index, tmp_path):
    res = ask(sample_index, tmp_path, "What is the double coincidence of wants?", "social-science")
    assert not res["was_refusal"], res["message"]
    assert res["sentences"] and all(s["citations"] for s in res["sentences"])
    cited = {n for s in res["sentences"] for n in s["citations"]}
    files = {src["file"] for src in res["sources"] if src["n"] in cited}
    assert files == {"soc02.pdf"}
    assert "double coincidence of wants" in res["answer"]
    assert res["llm_called"] is False


def test_off_topic_question_is_refused_with_reason_and_never_answered(sample_index, tmp_path):
    res = ask(sample_index, tmp_path, "Who won the 2011 cricket world cup final?", "science")
    assert res["was_refusal"]
    assert res["answer"] == "I don't know based on the textbooks."
    assert res["reason"] in {"off_topic", "low_confidence", "not_answerable"}
    assert res["sentences"] == [] and res["llm_called"] is False


def test_science_question_on_the_social_science_shelf_names_the_right_subject(sample_index, tmp_path):
    res = ask(sample_index, tmp_path, "How does light bend when it passes from air into glass?", "social-science")
    assert res["was_refusal"]
    assert res["reason"] == "wrong_subject"
    assert "Science" in res["message"]


def test_selected_text_is_the_only_context(sample_index, tmp_path):
    passage = tmp_path / "passage.txt"
    passage.write_text("Collateral is an asset that the borrower owns, such as land or a building. The borrower "
                       "pledges the collateral as a guarantee to the lender until the loan is repaid.")
    res = ask(sample_index, tmp_path, "What is collateral?", "social-science", "--selected-text", str(passage))
    assert not res["was_refusal"], res["message"]
    assert res["mode"] == "selected_text"
    assert [s["chunk_id"] for s in res["sources"]] == ["selection:0000"]
    res = ask(sample_index, tmp_path, "What is refraction of light?", "social-science", "--selected-text", str(passage))
    assert res["was_refusal"] and res["reason"] == "selected_text_insufficient"


def test_every_question_lands_in_the_audit_log(sample_index, tmp_path):
    from tutor.audit.log import AuditLog

    ask(sample_index, tmp_path, "What is the double coincidence of wants?", "social-science")
    ask(sample_index, tmp_path, "Who painted the Mona Lisa?", "science")
    rows = AuditLog(tmp_path / "audit.sqlite3").rows()
    assert [r["decision"] for r in rows] == ["refused", "answered"]


@pytest.mark.skipif(not (SHARED / "questions" / "ncert-class10.jsonl").exists(),
                    reason="../shared/data is absent: the NCERT evaluation slice needs it")
def test_eval_on_a_slice_of_ncert_science_writes_every_key(tmp_path):
    libs = tmp_path / "libraries" / "ncert" / "class-10"
    libs.mkdir(parents=True)
    (libs / "science").symlink_to(SHARED / "libraries" / "ncert" / "class-10" / "science")
    rows = [json.loads(line) for line in (SHARED / "questions" / "ncert-class10.jsonl").read_text().splitlines()]
    science = [r for r in rows if r["subject"] == "science"]
    pick = [r for r in science if r["expect"] == "answer"][:15] + [r for r in science if r["expect"] == "refuse"][:25]
    qfile = tmp_path / "q.jsonl"
    qfile.write_text("\n".join(json.dumps(r) for r in pick))
    out = tmp_path / "eval.json"
    r = run("eval", str(qfile), "--libraries", str(tmp_path / "libraries"), "--eval-index", str(tmp_path / "ix"),
            "--json", str(out))
    assert r.returncode == 0, r.stderr
    rep = json.loads(out.read_text())
    for key in ("questions", "answerable", "unanswerable", "false_acceptance_rate", "false_refusal_rate", "coverage",
                "page_accuracy", "answer_recall", "latency_ms", "refusal_reasons", "by_origin"):
        assert key in rep
    assert rep["questions"] == 40 and rep["answerable"] == 15 and rep["unanswerable"] == 25
    assert 0 <= rep["false_acceptance_rate"] <= 1 and 0 <= rep["coverage"] <= 1
    assert rep["latency_ms"]["p50"] <= rep["latency_ms"]["p95"]
    assert sum(rep["refusal_reasons"].values()) == sum(not i["answered"] for i in rep["items"])
    assert set(rep["by_origin"]) == {r["origin"] for r in pick}


@pytest.mark.skipif(not (SHARED / "libraries" / "ncert" / "class-10" / "science").exists(),
                    reason="../shared/data is absent: the follow-up conversations are about its NCERT chapters")
def test_followups_on_the_ncert_science_chapters_are_resolved_and_checked(tmp_path):
    libs = tmp_path / "libraries" / "ncert" / "class-10"
    libs.mkdir(parents=True)
    (libs / "science").symlink_to(SHARED / "libraries" / "ncert" / "class-10" / "science")
    rows = [json.loads(line) for line in (TEST_DATA / "followups.jsonl").read_text().splitlines()]
    science = [r for r in rows if r["subject"] == "science"]
    qfile = tmp_path / "followups.jsonl"
    qfile.write_text("\n".join(json.dumps(r) for r in science))
    out = tmp_path / "followups.json"
    r = run("followups", str(qfile), "--libraries", str(tmp_path / "libraries"), "--eval-index", str(tmp_path / "ix"),
            "--json", str(out))
    assert r.returncode == 0, r.stderr
    rep = json.loads(out.read_text())
    alone, resolved, shipped = (rep["modes"][m] for m in ("alone", "resolved", "resolved+own-words"))
    assert rep["conversations"] == len(science) and rep["followups_resolved"] >= 0.8 * len(science)
    # asked alone, "What are its uses?" finds nothing to stand on; read with the first question it is answered
    assert shipped["coverage"] >= alone["coverage"] + 0.5
    assert shipped["false_acceptance_rate"] <= resolved["false_acceptance_rate"]
    # the earlier topic alone lets through follow-ups the book does not answer; the own-words check stops most. The
    # span check ("Who discovered it?" needs an answer the span reader believes) now stops many of them on its own, so
    # it is off here, to see the own-words check alone (the same shelves, read again)
    r = run("followups", str(qfile), "--libraries", str(tmp_path / "libraries"), "--eval-index", str(tmp_path / "ix"),
            "--json", str(out), env_extra={"TUTOR_MIN_THING_SPAN_PROBABILITY": "0"})
    assert r.returncode == 0, r.stderr
    modes = json.loads(out.read_text())["modes"]
    assert modes["resolved+own-words"]["false_acceptance_rate"] < modes["resolved"]["false_acceptance_rate"]
