"""The shelf store's schema in PostgreSQL (tutor/store/pg_shelf.py): its numbered migrations and how a process
brings a database, or a namespace in it, up to date.

Why this way: processes starting together must not each migrate, and none may wait behind a shelf write, so a
schema already current is found by one read that takes no lock; otherwise each step runs in its own short
transaction under a transaction-level advisory lock with MIGRATION_LOCK_TIMEOUT, and a start that cannot get it
fails with a message instead of queueing. The vector extension is created first, in the database's default path,
where every namespace sees its type; where the role may not create it the message names the one statement to run.
"""
from __future__ import annotations

from collections.abc import Callable

import psycopg

from tutor.errors import TutorError
from tutor.store.pg_pool import connect

# numbered, only ever appended (recorded in shelf_schema_version), as the audit log's
MIGRATIONS: list[str] = [
    # 1: shelves, their versions and chunks
    """
    CREATE EXTENSION IF NOT EXISTS vector;
    CREATE TABLE shelves (
        class TEXT NOT NULL,
        subject TEXT NOT NULL,
        current_version TEXT,
        PRIMARY KEY (class, subject)
    );
    CREATE TABLE shelf_versions (
        class TEXT NOT NULL,
        subject TEXT NOT NULL,
        version TEXT NOT NULL,
        manifest JSON NOT NULL,
        created TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (class, subject, version)
    );
    CREATE TABLE shelf_chunks (
        class TEXT NOT NULL,
        subject TEXT NOT NULL,
        version TEXT NOT NULL,
        row INTEGER NOT NULL,
        chunk JSON NOT NULL,
        dim INTEGER NOT NULL,
        embedding vector NOT NULL,
        PRIMARY KEY (class, subject, version, row),
        FOREIGN KEY (class, subject, version) REFERENCES shelf_versions ON DELETE CASCADE
    );
    """,
    # 2: the uploaded PDFs, kept so that any app process can rebuild a shelf from them (tutor/store/pg_uploads.py)
    """
    CREATE TABLE uploads (
        class TEXT NOT NULL,
        subject TEXT NOT NULL,
        file TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        data BYTEA NOT NULL,
        created TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (class, subject, file)
    );
    """,
    # 3: each version in tables of its own (tutor/store/pg_version.py), named here, with its lexical statistics
    """
    ALTER TABLE shelf_versions ADD COLUMN chunk_table TEXT, ADD COLUMN lexical JSON;
    """,
]
_SCHEMA_LOCK = 0x7368656C66  # "shelf": processes starting together migrate (and add indexes) one at a time
MIGRATION_LOCK_TIMEOUT = "10s"  # a process start that finds another migrating fails with a message, never queues


def migrate(url: str, namespace: str | None, open_unit: Callable[[], psycopg.Connection]) -> None:
    """Bring the shelf schema of `url` (in `namespace`, a Postgres schema, or the default one) up to date.
    `open_unit()` gives a unit of work's connection inside the namespace (PgShelfStore._open)."""
    if schema_current(url, namespace):
        return
    try:
        # the extension first, in the default path (visible to every namespace): every connection registers its type
        with connect(url, autocommit=False) as con:
            con.execute(f"SET LOCAL lock_timeout = '{MIGRATION_LOCK_TIMEOUT}'")
            con.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            try:
                con.execute("CREATE EXTENSION IF NOT EXISTS vector")
            except psycopg.errors.InsufficientPrivilege as e:
                raise TutorError(f"the database has no pgvector extension and this role may not create it: run "
                                 f"`CREATE EXTENSION vector;` once as the database's owner ({e})") from e
            if namespace:
                con.execute(f'CREATE SCHEMA IF NOT EXISTS "{namespace}"')
        with open_unit() as con:
            con.execute(f"SET LOCAL lock_timeout = '{MIGRATION_LOCK_TIMEOUT}'")
            con.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            con.execute("CREATE TABLE IF NOT EXISTS shelf_schema_version (version INTEGER NOT NULL)")
            row = con.execute("SELECT version FROM shelf_schema_version").fetchone()
            if row is None:
                con.execute("INSERT INTO shelf_schema_version VALUES (0)")
            version = row[0] if row else 0
            for n, sql in enumerate(MIGRATIONS[version:], start=version + 1):
                con.execute(sql)
                con.execute("UPDATE shelf_schema_version SET version = %s", (n,))
    except psycopg.errors.LockNotAvailable as e:
        raise TutorError(f"the shelf database's schema is being changed by another process (waited "
                         f"{MIGRATION_LOCK_TIMEOUT}): start again in a minute ({e})") from e


def schema_current(url: str, namespace: str | None) -> bool:
    """Whether the vector extension and every migration are there already (read without any lock)."""
    table = f'"{namespace}".shelf_schema_version' if namespace else "shelf_schema_version"
    with connect(url) as con:
        ext, found = con.execute("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector'),"
                                 " to_regclass(%s) IS NOT NULL", (table,)).fetchone()
        if not (ext and found):
            return False
        row = con.execute(f"SELECT version FROM {table}").fetchone()
    return row is not None and row[0] == len(MIGRATIONS)
