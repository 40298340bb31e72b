"""The audit log: every question asked, answered or refused, in SQLite (WAL mode, numbered migrations).

Owns the schema and the reads the teachers' page needs; a migration is only ever appended, never edited. Logging
never blocks an answer: a row the database cannot take (damaged, locked, moved away, disk full) goes to a spool
file beside it (`<db>.spool.jsonl`), and when that cannot be written either (the spool sits on the same full disk)
it waits in memory; both are replayed in order as soon as the database takes writes again, each spooled line once
(its `spool_id`, unique in the table). The failure is kept for the maintainers' page (`health`), which can also set a
damaged database aside (`set_aside`).
"""
from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tutor.audit.migrations import MIGRATIONS
from tutor.errors import TutorError
from tutor.text.terms import valid_text
from tutor.types import TutorAnswer

COLUMNS = ("ts", "question", "class", "subject", "mode", "decision", "reason", "message", "confidence", "answer",
           "answerer", "llm_called", "decided_by", "best_score", "nearest_chapter", "nearest_section", "failed_checks",
           "total_ms", "error", "result_json", "selected_text", "resolved_question")


class AuditUnavailable(TutorError):
    """The audit database cannot be read (damaged or unreachable); the maintainers' page can set it aside."""


@dataclass(frozen=True)
class AuditHealth:
    """Whether the store takes writes, the last failure (for maintainers) and how many questions wait in the spool."""

    ok: bool
    error: str
    spooled: int  # in the spool file and in memory together
    spool_path: str
    in_memory: int = 0  # of `spooled`, those the spool file could not take: lost if the app stops before a write
    dropped: int = 0  # rows memory could not hold either (past MAX_IN_MEMORY), since the app started


class AuditLog:
    """Append-only log of questions; safe to share between the threads of one Streamlit server.

    The SQLite dialect; tutor/audit/pg_log.py's PgAuditLog overrides the few methods that speak to the database
    (`_con`, `_prepare`, `_migrate`, `schema_version`, `_insert`, `_storable`, `_lock_for_update`, `set_aside`) and
    keeps everything else."""

    _P = "?"  # the driver's placeholder
    _FLOOR = "CAST({} AS INTEGER)"  # a non-negative number rounded down, in SQL (SQLite's cast truncates)
    _ERRORS: tuple[type[BaseException], ...] = (sqlite3.Error,)  # what the driver raises for a database failure
    can_set_aside = True  # a damaged file can be moved away; a server database is its administrator's to repair

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._open(self.path.with_name(self.path.name + ".spool.jsonl"))

    MAX_IN_MEMORY = 100_000  # rows kept while neither the database nor the spool file takes them; then the oldest go

    def _open(self, spool_path: Path) -> None:
        self.spool_path = Path(spool_path)
        self._lock = threading.Lock()
        self._memory: list[tuple] = []  # rows neither the database nor the spool file could take, oldest first
        self.dropped = 0  # rows dropped from memory past MAX_IN_MEMORY (said on the maintainers' page)
        self.error = ""  # the last failure to write, "" while the store works
        try:  # a damaged database must not stop the app from starting: questions are spooled meanwhile
            self._ready()
        except Exception as e:  # noqa: BLE001
            self.error = _describe(e)

    @contextlib.contextmanager
    def _con(self):
        """A connection for one unit of work (committed on success), always closed: a file moved away is never
        held open, so a fresh database is picked up on the next write without a restart."""
        con = sqlite3.connect(self.path, timeout=30)
        try:
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=NORMAL")
            con.row_factory = sqlite3.Row
            with con:
                yield con
        finally:
            con.close()

    def _prepare(self) -> None:
        """What must exist before a connection can be made (the database file's folder)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def _ready(self) -> None:
        self._prepare()
        with self._con() as con:
            self._migrate(con)

    def _migrate(self, con: sqlite3.Connection) -> None:
        version = con.execute("PRAGMA user_version").fetchone()[0]
        for n, sql in enumerate(MIGRATIONS[version:], start=version + 1):
            con.executescript(f"BEGIN; {sql} PRAGMA user_version={n}; COMMIT;")

    @property
    def schema_version(self) -> int:
        with self._read() as con:
            return int(con.execute("PRAGMA user_version").fetchone()[0])

    def _insert(self, con, row: tuple) -> int:
        return int(con.execute(_INSERT, row).lastrowid)

    @staticmethod
    def _storable(row: tuple) -> tuple:
        """The row as this database can store it (Postgres drops NULs)."""
        return row

    def _insert_spooled(self, con, row: tuple, spool_id: str | None) -> None:
        """A spooled row, at most once by its spool_id (a spool written before ids were given has none)."""
        if not spool_id:
            self._insert(con, row)
            return
        marks = ", ".join([self._P] * (len(COLUMNS) + 1))
        con.execute(f"INSERT INTO questions ({', '.join(COLUMNS)}, spool_id) VALUES ({marks}) "
                    "ON CONFLICT (spool_id) DO NOTHING", (*self._storable(row), spool_id))

    def _lock_for_update(self, con, key: str) -> None:
        """Hold other writers off until this unit of work commits (a read-modify-write of one throttle row)."""
        con.execute("BEGIN IMMEDIATE")

    @contextlib.contextmanager
    def _read(self):
        try:
            with self._con() as con:
                yield con
        except self._ERRORS as e:
            raise AuditUnavailable(f"the audit database {self.path} cannot be read: {_describe(e)}") from e

    def log(self, ans: TutorAnswer, selected_text: str | None = None) -> int | None:
        """Append one question with its full result; returns its id, or None when the row had to be spooled.

        Never raises: a database that cannot take the row leaves it in the spool file (replayed first on the next
        write that works) and the failure in `error`. Every string is made valid Unicode before it is stored."""
        row = self._row(ans, selected_text)
        with self._lock:
            try:
                self._prepare()
                with self._con() as con:
                    self._migrate(con)  # a database moved away is created afresh here, with every migration
                    self._replay_into(con)
                    rid = self._insert(con, row)
                self._spool_done()
                self.error = ""
                return rid
            except Exception as e:  # noqa: BLE001 - answers are never blocked by logging
                self.error = _describe(e)
                self._spool(row)
                return None

    def replay(self) -> int:
        """Write the spooled questions into the database now; returns how many (raises AuditUnavailable if it
        still cannot take them, leaving the spool as it was)."""
        with self._lock:
            try:
                self._ready()
                with self._con() as con:
                    n = self._replay_into(con)
                self._spool_done()
                self.error = ""
                return n
            except self._ERRORS as e:
                self.error = _describe(e)
                raise AuditUnavailable(f"the audit database {self.path} still cannot be written: {self.error}") from e

    def set_aside(self) -> Path:
        """Move a damaged database (and its WAL files) aside under a dated name, start a fresh one with every
        migration, and replay the spool into it; returns where the damaged file went. No restart needed: every
        write opens its own connection."""
        with self._lock:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            dest = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
            for suffix in ("", "-wal", "-shm"):
                src = Path(str(self.path) + suffix)
                if src.exists():
                    os.replace(src, Path(str(dest) + suffix))
            self._ready()
            with self._con() as con:
                self._replay_into(con)
            self._spool_done()
            self.error = ""
            return dest

    def health(self) -> AuditHealth:
        """Whether the database answers a read now, the last write failure, and the questions waiting in the spool."""
        error = self.error
        try:
            with self._con() as con:
                con.execute("SELECT COUNT(*) AS n FROM questions").fetchone()
        except Exception as e:  # noqa: BLE001
            error = _describe(e)
        return AuditHealth(not error, error, self.spooled(), str(self.spool_path), len(self._memory), self.dropped)

    def spooled(self) -> int:
        """Questions waiting to be written: in the spool file and in memory."""
        try:
            with open(self.spool_path, encoding="utf-8") as fh:
                on_disk = sum(1 for line in fh if line.strip())
        except OSError:
            on_disk = 0
        return on_disk + len(self._memory)

    # ------------------------------------------------------------------ spool
    def _spool(self, row: tuple) -> None:
        """Keep a row the database did not take: in the spool file (with any rows waiting in memory before it, so the
        order holds), else in memory."""
        try:
            self._write_spool(self._memory + [row])
            self._memory.clear()
        except OSError as e:  # the spool's disk is full too: kept in memory, retried on the next write
            self.error += f"; the spool file {self.spool_path} cannot be written either ({e}): kept in memory"
            self._memory.append(row)
            if len(self._memory) > self.MAX_IN_MEMORY:
                del self._memory[0]
                self.dropped += 1

    def _write_spool(self, rows: list[tuple]) -> None:
        # each line with an id of its own: the replay writes it at most once (_insert_spooled)
        lines = (json.dumps({**dict(zip(COLUMNS, r)), "spool_id": uuid.uuid4().hex}, ensure_ascii=False) + "\n"
                 for r in rows)
        with open(self.spool_path, "a", encoding="utf-8") as fh:
            fh.write("".join(lines))
            fh.flush()
            os.fsync(fh.fileno())

    def _replay_into(self, con) -> int:
        """Insert the spooled rows, then those waiting in memory, in order inside the caller's transaction (all or
        none)."""
        n = 0
        if self.spool_path.exists():
            with open(self.spool_path, encoding="utf-8") as fh:
                for line in fh:
                    try:
                        d = json.loads(line)
                    except ValueError:  # a line cut short by a crash (or a full disk) while spooling
                        continue
                    self._insert_spooled(con, tuple(d.get(c) for c in COLUMNS), d.get("spool_id"))
                    n += 1
        for row in self._memory:
            self._insert(con, row)
        return n + len(self._memory)

    def _spool_done(self) -> None:
        # after the commit; a crash between the two replays those rows once more, and their spool_ids skip them
        with contextlib.suppress(FileNotFoundError):
            self.spool_path.unlink()
        self._memory.clear()

    def _row(self, ans: TutorAnswer, selected_text: str | None) -> tuple:
        """The row for one question, every string valid Unicode (a lone surrogate would fail in SQLite)."""
        nearest = ans.sources[0] if ans.sources else (ans.near_misses[0] if ans.near_misses else None)
        if nearest is None and ans.suggestions:
            sug = ans.suggestions[0]
            chapter, section = sug.chapter, sug.section
        else:
            chapter, section = (nearest.chapter, nearest.section) if nearest else ("", "")
        best = max((s.score for s in ans.sources + ans.near_misses), default=None)
        row = (
            time.time(), ans.question, ans.klass, ans.subject, ans.mode, "refused" if ans.was_refusal else "answered",
            ans.reason, ans.message, ans.confidence, ans.answer, ans.answerer, int(ans.llm_called), ans.decided_by,
            best, chapter, section, ",".join(c.name for c in ans.failed_checks), sum(ans.timings_ms.values()),
            ans.error, json.dumps(ans.to_dict(), ensure_ascii=False), selected_text, ans.resolved_question or None,
        )
        return tuple(valid_text(v) if isinstance(v, str) else v for v in row)

    def rows(self, since: float | None = None, until: float | None = None,
             limit: int | None = None) -> list[dict[str, Any]]:
        """Rows without the full JSON, newest first."""
        sql = "SELECT id, ts, question, class, subject, mode, decision, reason, message, confidence, answer," \
              " answerer," \
              " llm_called, decided_by, best_score, nearest_chapter, nearest_section, failed_checks, total_ms, error," \
              " resolved_question" \
              " FROM questions WHERE 1=1"
        args: list[Any] = []
        if since is not None:
            sql += f" AND ts >= {self._P}"
            args.append(since)
        if until is not None:
            sql += f" AND ts < {self._P}"
            args.append(until)
        sql += " ORDER BY id DESC"
        if limit:
            sql += f" LIMIT {int(limit)}"
        with self._read() as con:
            return [dict(r) for r in con.execute(sql, args)]

    def frame(self, since: float | None = None, until: float | None = None, limit: int | None = None):
        """`rows` as a pandas DataFrame with a datetime column `time`."""
        import pandas as pd

        df = pd.DataFrame(self.rows(since, until, limit))
        if df.empty:
            df = pd.DataFrame(columns=["id", "ts", "question", "class", "subject", "mode", "decision", "reason",
                                       "message", "confidence", "answer", "answerer", "llm_called", "decided_by",
                                       "best_score", "nearest_chapter", "nearest_section", "failed_checks", "total_ms",
                                       "error", "resolved_question"])
        df["time"] = pd.to_datetime(df["ts"].astype(float), unit="s")
        return df

    def detail(self, row_id: int) -> dict[str, Any] | None:
        """The full result of one question, as the student saw it."""
        with self._read() as con:
            r = con.execute(f"SELECT result_json, selected_text FROM questions WHERE id = {self._P}",
                            (row_id,)).fetchone()
        if r is None:
            return None
        d = json.loads(r["result_json"])
        d["selected_text"] = r["selected_text"]
        return d

    # ------------------------------------------------------------------ conversations (a chat that survives a reload)
    def keep_turn(self, conversation: str, klass: str, subject: str, turn: dict[str, Any]) -> bool:
        """Keep one turn of a conversation on a shelf (`turn` as JSON); False when the database cannot take it now
        (the chat then lives in the session only; the question itself is in the log or its spool)."""
        row = (conversation, str(klass), subject, time.time(), json.dumps(turn, ensure_ascii=False))
        row = tuple(valid_text(v).replace("\x00", "") if isinstance(v, str) else v for v in row)
        try:
            with self._con() as con:
                self._migrate(con)
                con.execute("INSERT INTO conversation_turns (conversation, class, subject, ts, turn_json) VALUES "
                            f"({', '.join([self._P] * 5)})", row)
            return True
        except Exception:  # noqa: BLE001 - a chat that cannot be kept never blocks an answer
            return False

    def turns(self, conversation: str, klass: str, subject: str) -> list[dict[str, Any]]:
        """The kept turns of a conversation on a shelf, oldest first ([] when none, or the database cannot be read)."""
        try:
            with self._con() as con:
                rows = con.execute("SELECT turn_json FROM conversation_turns WHERE conversation = "
                                   f"{self._P} AND class = {self._P} AND subject = {self._P} ORDER BY id",
                                   (conversation, str(klass), subject)).fetchall()
        except Exception:  # noqa: BLE001 - not migrated yet, or unreadable: the chat starts empty
            return []
        return [json.loads(r["turn_json"]) for r in rows]

    def forget_turns(self, conversation: str, klass: str, subject: str) -> None:
        """"New conversation": the kept turns of that conversation on that shelf go (the questions stay logged)."""
        with contextlib.suppress(Exception):
            with self._con() as con:
                con.execute(f"DELETE FROM conversation_turns WHERE conversation = {self._P} AND class = {self._P} "
                            f"AND subject = {self._P}", (conversation, str(klass), subject))

    def count(self) -> int:
        with self._read() as con:
            return int(con.execute("SELECT COUNT(*) AS n FROM questions").fetchone()["n"])


_INSERT = f"INSERT INTO questions ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"


def _describe(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"
