"""The audit log on PostgreSQL, shared by every app process pointed at one database (`TUTOR_DATABASE_URL`).

Owns the Postgres dialect of the numbered migrations (numbered as tutor/audit/log.py's, recorded in a one-row table
`audit_schema_version`) and the connection; everything else (rows, filters, the spool on failure and its replay) is
the SQLite log's own code, so the teachers' page, its filters and its CSV read the same columns from either.
"""
from __future__ import annotations

import contextlib
from pathlib import Path

import psycopg
from psycopg.rows import dict_row

from tutor.audit.log import COLUMNS, AuditLog, AuditUnavailable
from tutor.audit.log import MIGRATIONS as SQLITE_MIGRATIONS
from tutor.store.pg_pool import borrow, redact

# The SQLite migrations in Postgres words, one for one (a test checks the counts match): a migration is only ever
# appended to both lists. DOUBLE PRECISION where SQLite says REAL: Postgres's REAL is 4 bytes and would round a
# score of 0.71 to 0.7099999785.
MIGRATIONS: list[str] = [
    # 1: the questions table
    """
    CREATE TABLE questions (
        id BIGSERIAL PRIMARY KEY,
        ts DOUBLE PRECISION NOT NULL,
        question TEXT NOT NULL,
        class TEXT NOT NULL,
        subject TEXT NOT NULL,
        mode TEXT NOT NULL,
        decision TEXT NOT NULL,
        reason TEXT NOT NULL,
        message TEXT NOT NULL,
        confidence DOUBLE PRECISION NOT NULL,
        answer TEXT NOT NULL,
        answerer TEXT NOT NULL,
        llm_called INTEGER NOT NULL,
        decided_by TEXT NOT NULL,
        best_score DOUBLE PRECISION,
        nearest_chapter TEXT,
        nearest_section TEXT,
        failed_checks TEXT,
        total_ms DOUBLE PRECISION,
        error TEXT,
        result_json TEXT NOT NULL
    );
    CREATE INDEX questions_ts ON questions(ts);
    CREATE INDEX questions_shelf ON questions(class, subject);
    """,
    # 2: the passage a selected-text question was asked about
    "ALTER TABLE questions ADD COLUMN selected_text TEXT;",
    # 3: a follow-up as retrieval and the gate read it ("question" stays as the student typed it)
    "ALTER TABLE questions ADD COLUMN resolved_question TEXT;",
    # 4: the turns of each student's open conversation per shelf
    """
    CREATE TABLE conversation_turns (
        id BIGSERIAL PRIMARY KEY,
        conversation TEXT NOT NULL,
        class TEXT NOT NULL,
        subject TEXT NOT NULL,
        ts DOUBLE PRECISION NOT NULL,
        turn_json TEXT NOT NULL
    );
    CREATE INDEX conversation_turns_key ON conversation_turns(conversation, class, subject);
    """,
    # 5: the staff sign-in throttle, one row per (account, client) key (tutor/audit/sign_in.py)
    """
    CREATE TABLE sign_in_failures (
        key TEXT PRIMARY KEY,
        failures INTEGER NOT NULL,
        wait_until DOUBLE PRECISION NOT NULL,
        last_failure DOUBLE PRECISION NOT NULL
    );
    """,
    # 6: the teachers' page counts in the database (tutor/audit/queries.py): indexes that answer its counts alone
    """
    CREATE INDEX questions_refusals
        ON questions(decision, class, subject, reason, nearest_chapter, nearest_section, ts);
    CREATE INDEX questions_ts_decision ON questions(ts, decision);
    CREATE INDEX questions_reason ON questions(reason);
    """,
    # 7: each spooled question's id (tutor/audit/log.py), so a replay writes it once: one cut off between its commit
    # and the spool's removal, or two processes replaying one spool file, find it taken and skip it
    """
    ALTER TABLE questions ADD COLUMN spool_id TEXT;
    CREATE UNIQUE INDEX questions_spool_id ON questions(spool_id);
    """,
    # 8: sentences held back at ingest that a maintainer released (tutor/audit/releases.py)
    """
    CREATE TABLE sentence_releases (
        id BIGSERIAL PRIMARY KEY,
        digest TEXT NOT NULL,
        sentence TEXT NOT NULL,
        class TEXT NOT NULL,
        subject TEXT NOT NULL,
        file TEXT NOT NULL,
        page INTEGER NOT NULL,
        reason TEXT NOT NULL,
        released_by TEXT NOT NULL,
        released_at DOUBLE PRECISION NOT NULL,
        withdrawn_by TEXT,
        withdrawn_at DOUBLE PRECISION
    );
    CREATE UNIQUE INDEX sentence_releases_active
        ON sentence_releases(digest, class, subject, file, page) WHERE withdrawn_at IS NULL;
    """,
]
assert len(MIGRATIONS) == len(SQLITE_MIGRATIONS), "the two dialects' migrations must be numbered alike"

_MIGRATION_LOCK = 0x7475746F72  # "tutor": app processes starting together migrate one at a time
_THROTTLE_LOCK = 0x7468  # with a key's hash: two processes recording a wrong password for one key take turns
_INSERT = (f"INSERT INTO questions ({', '.join(COLUMNS)}) VALUES ({', '.join(['%s'] * len(COLUMNS))}) "
           "RETURNING id")


class PgAuditLog(AuditLog):
    """The audit log in a PostgreSQL database; questions it cannot take are spooled to a local file, as on SQLite."""

    _P = "%s"
    _FLOOR = "FLOOR({})"  # Postgres's cast to an integer rounds
    _ERRORS = (psycopg.Error,)
    can_set_aside = False

    def __init__(self, url: str, spool_path: str | Path):
        self.url = url
        self.path = redact(url)  # what the maintainers' page names; never the password
        self._open(Path(spool_path))

    @contextlib.contextmanager
    def _con(self):
        """A connection for one unit of work from the process's pool (tutor/store/pg_pool.py: its sizes, timeouts and
        keepalives are the policy's), committed on success and always handed back."""
        with borrow(self.url) as con:
            con.row_factory = dict_row  # borrow() gives it back with plain tuples to the next borrower
            yield con

    def _prepare(self) -> None:
        self.spool_path.parent.mkdir(parents=True, exist_ok=True)

    def _migrate(self, con) -> None:
        if self._version(con) >= len(MIGRATIONS):
            return
        with con.transaction():
            con.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            con.execute("CREATE TABLE IF NOT EXISTS audit_schema_version (version INTEGER NOT NULL)")
            if con.execute("SELECT version FROM audit_schema_version").fetchone() is None:
                con.execute("INSERT INTO audit_schema_version VALUES (0)")
            version = self._version(con)  # again, under the lock: another process may have migrated meanwhile
            for n, sql in enumerate(MIGRATIONS[version:], start=version + 1):
                con.execute(sql)
                con.execute("UPDATE audit_schema_version SET version = %s", (n,))

    @staticmethod
    def _version(con) -> int:
        if con.execute("SELECT to_regclass('audit_schema_version') AS t").fetchone()["t"] is None:
            return 0
        row = con.execute("SELECT version FROM audit_schema_version").fetchone()
        return int(row["version"]) if row else 0

    @property
    def schema_version(self) -> int:
        with self._read() as con:
            return self._version(con)

    def _insert(self, con, row: tuple) -> int:
        return int(con.execute(_INSERT, self._storable(row)).fetchone()["id"])

    @staticmethod
    def _storable(row: tuple) -> tuple:
        # Postgres text cannot hold NUL; SQLite can. Dropped here, or the row would stay in the spool for ever.
        return tuple(v.replace("\x00", "") if isinstance(v, str) else v for v in row)

    def _lock_for_update(self, con, key: str) -> None:
        con.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_THROTTLE_LOCK, key))

    def set_aside(self) -> Path:
        raise AuditUnavailable(f"the audit database {self.path} is on a PostgreSQL server: its administrator repairs "
                               "or restores it; questions are spooled meanwhile and written when it takes writes")
