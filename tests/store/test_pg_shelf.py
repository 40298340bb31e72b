"""Shelves on pgvector (tutor/store/pg_shelf.py), against the real PostgreSQL test server: the HNSW index with
cosine distance and scores as cosine similarity (FAISS exact search's neighbours), each version searched alone,
atomic versions and one writer per shelf. The interface both backends share is tested in test_shelf.py."""
from __future__ import annotations

import numpy as np
import psycopg
import pytest

from tutor.errors import ShelfBusy
from tutor.store.pg_shelf import PgShelfStore
from tutor.store.pg_version import RowChunks
from tutor.store.shelf import Manifest, ShelfStore
from tutor.testing import HashEmbedder
from tutor.types import Chunk

EMB = HashEmbedder()
LIGHT = ["Refraction is the bending of light when it passes from air into water.",
         "A concave mirror can form a real and inverted image of an object.",
         "The power of a lens is measured in dioptres."]
SOIL = ["Black soil is ideal for growing cotton.", "Alluvial soil is found in river plains."]


def chunk(i: int, text: str, subject: str = "science") -> Chunk:
    return Chunk(chunk_id=f"{subject}:{i:04d}", klass="10", subject=subject, chapter="Ch", chapter_code="c",
                 file="c.pdf", page_start=1, page_end=1, section_kind="body", section="", text=text,
                 sentences=((0, len(text), 1),))


def write(store: PgShelfStore, texts: list[str], subject: str = "science", **kw) -> str:
    return store.write(Manifest("10", subject, EMB.name, EMB.dim), [chunk(i, t, subject) for i, t in enumerate(texts)],
                       EMB.embed(texts), **kw)


@pytest.fixture
def store(pg_url, tmp_path) -> PgShelfStore:
    """Every shelf searched in the database (the tests below are about pgvector's search)."""
    return PgShelfStore(pg_url, tmp_path / "index")


def test_the_closer_chunk_scores_higher_and_the_score_is_the_numpy_cosine(store):
    write(store, LIGHT)
    shelf = store.load("10", "science")
    q = EMB.embed(["Why does light bend when it passes into water?"])[0]
    rows = shelf.search_rows(q, 3)
    assert rows[0][0] == 0  # the refraction chunk
    assert rows[0][1] > rows[1][1] >= rows[2][1]  # higher is closer
    vecs = EMB.embed(LIGHT)
    for row, score in rows:  # 1 - cosine distance = cosine similarity, the scale the gate is calibrated on
        assert score == pytest.approx(float(q @ vecs[row]), abs=1e-5)
    assert shelf.search(EMB.embed([LIGHT[2]])[0], 1)[0].score == pytest.approx(1.0, abs=1e-5)


def test_the_database_search_gives_faiss_exact_searchs_neighbours_and_the_shelf_holds_no_vectors(store, tmp_path):
    texts = [f"Chunk {i} speaks of {w} and {v}." for i, (w, v) in enumerate(
        (a, b) for a in ("light", "soil", "acids", "magnets", "forests", "rivers", "cells", "motion")
        for b in ("mirrors", "cotton", "bases", "current", "tigers", "deltas", "tissue", "speed", "heat", "salt"))]
    write(store, texts)
    on_disk = ShelfStore(tmp_path / "faiss")
    on_disk.write(Manifest("10", "science", EMB.name, EMB.dim), [chunk(i, t) for i, t in enumerate(texts)],
                  EMB.embed(texts))
    exact, shelf = on_disk.load("10", "science"), store.load("10", "science")
    for q in EMB.embed(["How do mirrors bend light?", "Which soil suits cotton?", "tissue of cells", "salt"]):
        got, want = shelf.search_rows(q, 10), exact.search_rows(q, 10)
        assert [c for _, c in got] == pytest.approx([c for _, c in want], abs=1e-5)
        # the same rows, but for chunks that tie (same cosine to 1e-5), which either engine may order either way
        assert {(r, round(c, 4)) for r, c in got if c > want[-1][1] + 1e-5} == \
               {(r, round(c, 4)) for r, c in want if c > want[-1][1] + 1e-5}
    assert shelf.searched_in_database and shelf.index is None
    assert not [k for k, v in vars(shelf).items() if isinstance(v, np.ndarray)]  # no vector matrix in the replica
    assert isinstance(shelf.chunks, RowChunks) and len(shelf) == len(texts)
    assert [c.text for c in shelf.chunks] == texts  # read from the version's table when asked for
    assert np.allclose(shelf.vectors, exact.vectors, atol=1e-6)  # read whole on demand (an ingest's rebuild)


def test_the_hnsw_index_uses_cosine_distance_and_serves_the_query(store):
    write(store, LIGHT)
    table = store.load("10", "science").table
    with psycopg.connect(store.url) as con:
        name, indexdef = con.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s AND indexdef"
                                     " LIKE '%%hnsw%%'", (table,)).fetchone()
        assert "vector_cosine_ops" in indexdef
        con.execute("SET enable_seqscan = off")  # three rows: the planner would scan them
        q = "[" + ",".join(["0.1"] * EMB.dim) + "]"
        plan = " ".join(r[0] for r in con.execute(
            f"EXPLAIN SELECT row FROM {table} ORDER BY embedding <=> '{q}'::vector({EMB.dim}) LIMIT 3"))
        assert f"Index Scan using {name}" in plan


def test_the_query_filters_by_class_subject_and_version(store):
    old = write(store, LIGHT)
    write(store, LIGHT[:1])  # a newer version of the same shelf
    write(store, SOIL, subject="social-science")
    q = EMB.embed(["Which soil is ideal for growing cotton?"])[0]
    science = store.load("10", "science")
    assert len(science.search_rows(q, 10)) == 1  # the live version's one chunk, never the soil shelf's
    assert [h.chunk.subject for h in science.search(q, 10)] == ["science"]
    assert len(store.load("10", "science", old).search_rows(q, 10)) == 3  # the version asked for
    assert store.load("10", "social-science").search(q, 1)[0].chunk.text == SOIL[0]


def test_a_crash_before_the_flip_leaves_the_old_version_current_and_loadable(store):
    v1 = write(store, LIGHT)
    with pytest.raises(RuntimeError, match="simulated crash"):
        write(store, SOIL[:1], fail_before_swap=True)
    assert store.current_version("10", "science") == v1
    assert [c.text for c in store.load("10", "science").chunks] == LIGHT
    v3 = write(store, LIGHT[:2])  # the next write prunes the orphan and keeps the version that was live
    assert store.versions("10", "science") == [v3, v1]


def test_an_exception_mid_write_leaves_the_old_version_current_and_no_half_version(store):
    v1 = write(store, LIGHT)
    texts = ["one", "two"]
    vecs = EMB.embed(texts)
    vecs[1, 0] = np.nan  # pgvector refuses NaN: the copy fails half-way through the version's chunks
    with pytest.raises(psycopg.Error):
        store.write(Manifest("10", "science", EMB.name, EMB.dim), [chunk(i, t) for i, t in enumerate(texts)], vecs)
    assert store.current_version("10", "science") == v1 and store.versions("10", "science") == [v1]
    assert [c.text for c in store.load("10", "science").chunks] == LIGHT


def test_readers_see_the_old_version_until_the_flip_commits(store, monkeypatch):
    v1 = write(store, LIGHT)
    reader = PgShelfStore(store.url)  # another app process
    seen = []
    real_connect = PgShelfStore._connect

    def spying(self, autocommit=False):  # each connection the writer opens: what a reader sees at that moment
        if self is store:
            seen.append(reader.current_version("10", "science"))
        return real_connect(self, autocommit)

    monkeypatch.setattr(PgShelfStore, "_connect", spying)
    v2 = write(store, LIGHT[:1])
    assert set(seen) == {v1}  # through the lock, the version's rows and the flip's own connection: the old one
    assert reader.current_version("10", "science") == v2 and len(reader.load("10", "science")) == 1


def test_two_writers_of_one_shelf_cannot_both_win(store):
    write(store, LIGHT)
    other = PgShelfStore(store.url)  # a second process: its own connections
    with store.lock("10", "science"):
        with pytest.raises(ShelfBusy, match="Another ingest of class 10 science is running"):
            write(other, SOIL[:1])
        with pytest.raises(ShelfBusy):
            other.rollback("10", "science")
        write(other, SOIL, subject="social-science")  # another shelf is not held
        write(store, LIGHT[:2])  # the holder itself may write (an ingest writes under its own lock)
    assert len(other.load("10", "science")) == 2
    write(other, LIGHT[:1])  # released: the second writer goes ahead now
    assert len(store.load("10", "science")) == 1


def test_namespaces_keep_shelves_and_their_locks_apart(pg_url, tmp_path):
    a = PgShelfStore(pg_url, tmp_path / "a", namespace="eval_a")
    b = PgShelfStore(pg_url, tmp_path / "b", namespace="eval_b")
    write(a, LIGHT)
    with a.lock("10", "science"):  # one namespace's writer does not hold up the same shelf in another
        write(b, SOIL)
        with pytest.raises(ShelfBusy):
            write(PgShelfStore(pg_url, tmp_path / "a2", namespace="eval_a"), SOIL)
    assert [c.text for c in a.load("10", "science").chunks] == LIGHT
    assert [c.text for c in b.load("10", "science").chunks] == SOIL
    assert PgShelfStore(pg_url, tmp_path / "default").keys() == []
    with psycopg.connect(pg_url) as con:  # each namespace is a schema of its own with its own tables
        schemas = {r[0] for r in con.execute("SELECT table_schema FROM information_schema.tables"
                                             " WHERE table_name = 'shelf_chunks'")}
    assert {"eval_a", "eval_b"} <= schemas


def test_a_questions_reads_share_one_connection_that_sees_each_flip_and_survives_a_drop(store, monkeypatch):
    v1 = write(store, LIGHT)
    reader = PgShelfStore(store.url)  # another app process, searching in the database
    shelf = reader.load("10", "science")
    assert shelf.searched_in_database
    q = EMB.embed([LIGHT[0]])[0]

    def backends() -> set[int]:
        with psycopg.connect(store.url) as con:
            return {r[0] for r in con.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                                              "AND pid <> pg_backend_pid()").fetchall()}

    assert reader.current_version("10", "science") == v1
    before = backends()
    opened = []
    real_connect = PgShelfStore._connect
    monkeypatch.setattr(PgShelfStore, "_connect", lambda self, autocommit=False: (
        opened.append(self), real_connect(self, autocommit))[1])
    for _ in range(5):  # what every question reads, and what drawing a cited source and a rollback read
        reader.keys(), reader.current_version("10", "science"), shelf.search_rows(q, 2)
        reader.manifest("10", "science"), reader.versions("10", "science")
    assert opened == [] and backends() == before  # no connection opened (or left open) per read
    v2 = write(store, LIGHT[:2])
    assert reader.current_version("10", "science") == v2  # the open connection sees the committed flip at once
    with psycopg.connect(store.url, autocommit=True) as con:  # the server drops the reader's connection
        con.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = %s",
                    (reader._read_con.info.backend_pid,))
    assert reader.current_version("10", "science") == v2  # opened again once, the read goes through
    assert reader.load("10", "science").search_rows(q, 1)[0][0] == 0


def test_the_database_search_runs_at_the_policys_hnsw_breadth(store, monkeypatch):
    monkeypatch.setenv("TUTOR_PG_EF_SEARCH", "321")
    write(store, LIGHT)
    store.current_version("10", "science")  # opens the questions' connection
    assert store._read("SHOW hnsw.ef_search", hnsw=True) == [("321",)]


def test_a_fresh_database_without_the_vector_extension_gets_it_at_the_first_write(pg_server, tmp_path):
    """Issue 36: nobody ran CREATE EXTENSION by hand; the store's first connection creates it before it registers the
    vector type (a write used to fail with 'vector type not found')."""
    url = pg_server.new_database(extension=False)
    try:
        with psycopg.connect(url) as con:
            assert con.execute("SELECT count(*) FROM pg_extension WHERE extname = 'vector'").fetchone()[0] == 0
        store = PgShelfStore(url, tmp_path / "index")
        write(store, LIGHT)
        hits = store.load("10", "science").search(EMB.embed([LIGHT[0]])[0], 1)
        assert hits[0].chunk.text == LIGHT[0] and hits[0].score == pytest.approx(1.0, abs=1e-5)
    finally:
        pg_server.drop(url)
