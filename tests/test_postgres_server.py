"""The PostgreSQL test server (tests/helpers_postgres.py): PostgreSQL 16 with pgvector, a fresh database per test."""
from __future__ import annotations

import psycopg


def test_the_server_is_postgres_16_with_pgvector_and_cosine_distance(pg_url):
    with psycopg.connect(pg_url) as con:
        version = con.execute("SHOW server_version_num").fetchone()[0]
        assert version.startswith("16")
        assert con.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone() is not None
        # <=> is cosine distance: 0 for the same direction, 1 for orthogonal vectors, 2 for opposite ones
        same, ortho, opposite = con.execute(
            "SELECT '[1,0]'::vector <=> '[2,0]'::vector, '[1,0]'::vector <=> '[0,1]'::vector,"
            " '[1,0]'::vector <=> '[-1,0]'::vector").fetchone()
        assert (same, ortho, opposite) == (0.0, 1.0, 2.0)


def test_each_database_starts_empty_and_sees_no_other_tests_rows(pg_server, pg_url):
    with psycopg.connect(pg_url) as con:
        con.execute("CREATE TABLE t (x int)")
        con.execute("INSERT INTO t VALUES (1)")
    with pg_server.database() as other, psycopg.connect(other) as con:
        tables = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'").fetchone()
        assert tables[0] == 0
