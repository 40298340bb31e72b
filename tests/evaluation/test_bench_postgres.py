"""`python -m tutor bench` on the PostgreSQL backend: its shelves read from a namespace of the real test server (the
recall measure, and a cold-start process that reads them through TUTOR_DATABASE_URL), and the fresh ingest's
throw-away namespace dropped again. A tiny library made in the test, HashEmbedder vectors."""
from __future__ import annotations

import psycopg
import pytest

from tutor.evaluation.bench_ingest import measure_cold_start
from tutor.evaluation.bench_scale import measure_recall
from tutor.evaluation.questions import Question
from tutor.ingest.builder import discover, ingest
from tutor.store.backends import namespace_for, open_store
from tutor.testing import HashEmbedder

from helpers_library import LIGHT_PAGES, SOIL_PAGES, make_pdf

EMB = HashEmbedder()


def question(text: str, gold: str) -> Question:
    return Question(id=gold, question=text, expect="answer", klass="10", subject="science", library="tiny",
                    gold_file=gold, gold_pages=None, answers=None, origin="test")


@pytest.fixture
def pg_bench_store(tmp_path, pg_url):
    make_pdf(tmp_path / "lib" / "class-10" / "science" / "light.pdf", LIGHT_PAGES)
    make_pdf(tmp_path / "lib" / "class-10" / "science" / "soil.pdf", SOIL_PAGES)
    store = open_store(tmp_path / "bench-index", pg_url, namespace_for("bench", "tiny"))
    ingest(discover([tmp_path / "lib"]), store, EMB)
    return store


def test_recall_reads_the_shelves_of_a_database_namespace(pg_bench_store):
    qs = [question("What is the bending of light called?", "light.pdf"),
          question("Which soil is ideal for growing cotton?", "soil.pdf")]
    r = measure_recall({"pg": (pg_bench_store, EMB)}, qs, k=1)
    assert r["questions"] == 2 and r["pg"] == 1.0


def test_drop_namespace_removes_the_schema_and_refuses_the_default(pg_bench_store, pg_url, tmp_path):
    pg_bench_store.drop_namespace()
    with psycopg.connect(pg_url) as con:
        assert con.execute("SELECT count(*) FROM information_schema.schemata WHERE schema_name = %s",
                           (pg_bench_store.namespace,)).fetchone()[0] == 0
    with pytest.raises(ValueError, match="only a namespace"):
        open_store(tmp_path, pg_url).drop_namespace()


@pytest.mark.slow
def test_the_cold_start_process_answers_from_the_namespace(pg_bench_store, pg_url, tmp_path, monkeypatch):
    monkeypatch.setenv("TUTOR_DATABASE_URL", pg_url)
    q = question("What is the bending of light called?", "light.pdf")
    r = measure_cold_start(tmp_path / "nothing-here", q, None, 1, tmp_path, pg_bench_store.namespace)
    assert r["answered"], r


@pytest.mark.slow
def test_the_fresh_ingest_goes_into_a_throw_away_namespace(tmp_path, pg_url):
    from tutor.evaluation.bench_ingest import measure_ingest

    make_pdf(tmp_path / "lib" / "class-10" / "science" / "light.pdf", LIGHT_PAGES)
    r = measure_ingest(tmp_path / "lib", tmp_path, pg_url)  # the real MiniLM, as the bench runs it
    assert r["files"] == 1 and r["chunks"] > 0
    assert not (tmp_path / "fresh-index").exists()
    with psycopg.connect(pg_url) as con:
        left = con.execute("SELECT schema_name FROM information_schema.schemata"
                           " WHERE schema_name LIKE 'bench_fresh_%'").fetchall()
    assert left == []


def test_pgvector_scale_on_a_small_synthetic_shelf(pg_url):
    import numpy as np

    from tutor.evaluation.bench_pgvector import NAMESPACE, exact_top_k, measure_pgvector
    from tutor.evaluation.bench_scale import synthetic_shelf

    base = EMB.embed(LIGHT_PAGES + SOIL_PAGES)
    queries = synthetic_shelf(base, 20, seed=1)
    narrow, wide = measure_pgvector(pg_url, base, queries, 2000, ef_search=(10, 200), log=lambda m: None)
    for r in (narrow, wide):
        assert r["size"] == 2000 and r["queries"] == 20 and r["uses_index"]
        assert 0.5 <= r["recall_at_10"] <= 1.0 and r["search_ms_p95"] >= r["search_ms_p50"] > 0
    # one index, searched at two breadths: the wider search finds at least as many of the true ten
    assert (narrow["ef_search"], wide["ef_search"]) == (10, 200) and narrow["build_s"] == wide["build_s"]
    assert wide["recall_at_10"] >= narrow["recall_at_10"]
    vecs = synthetic_shelf(base, 2000, seed=0)  # exact search: the best is the query itself when it is in the set
    assert [row[0] for row in exact_top_k(vecs, vecs[[5, 7]], 3)] == [5, 7]
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1, atol=1e-5)
    with psycopg.connect(pg_url) as con:  # the throw-away namespace is gone
        assert con.execute("SELECT count(*) FROM information_schema.schemata WHERE schema_name = %s",
                           (NAMESPACE,)).fetchone()[0] == 0
