"""`python -m tutor bench-load` (tutor/evaluation/bench_load.py): the tally on tiny results made in the test, the
questions made from a shelf's chunks, and one small real run (2 processes x 2 students) against the real
PostgreSQL test server with the HashEmbedder."""
from __future__ import annotations

import pytest

from tutor.evaluation.bench_load import questions_from, run_load, tally
from tutor.ingest.builder import discover, ingest
from tutor.store.shelf import ShelfStore
from tutor.testing import HashEmbedder

from helpers_library import make_library


def result(start, end, ms, errors=(), asked=None):
    return {"start": start, "end": end, "ms": list(ms), "errors": list(errors),
            "asked": len(ms) + len(errors) if asked is None else asked}


def test_the_tally_counts_every_process_and_checks_the_audit_rows():
    r = tally([result(100.0, 104.0, [10, 20, 30]), result(101.0, 105.0, [40], errors=["OperationalError: gone"])],
              audit_before=7, audit_after=12)
    assert r["processes"] == 2 and r["asked"] == 5 and r["answered_or_refused"] == 4 and r["error_count"] == 1
    assert r["wall_s"] == 5.0 and r["questions_per_s"] == 0.8  # 4 answered over the 5 s from first start to last end
    assert r["latency_ms"]["n"] == 4 and r["latency_ms"]["p50"] == 25.0
    assert r["audit_rows_gained"] == 5 and r["audit_ok"]
    assert not tally([result(0.0, 1.0, [1, 2])], audit_before=0, audit_after=1)["audit_ok"]  # a row lost


def test_questions_are_made_from_every_shelf(tmp_path):
    store = ShelfStore(tmp_path / "index")
    ingest(discover([make_library(tmp_path / "lib")]), store, HashEmbedder(), workers=1)
    qs = questions_from(store, limit=6)
    assert {(k, s) for _, k, s in qs} == {("10", "science"), ("10", "social-science")}
    assert all(q.strip() for q, _, _ in qs)


@pytest.mark.slow
def test_a_small_load_run_logs_one_audit_row_per_question(tmp_path, pg_url):
    r = run_load(pg_url, make_library(tmp_path / "lib"), processes=2, students=2, each=2, embedder="hash",
                 log=lambda m: None)
    assert r["asked"] == 8 and r["error_count"] == 0 and r["answered_or_refused"] == 8
    assert r["audit_rows_gained"] == 8 and r["audit_ok"]
