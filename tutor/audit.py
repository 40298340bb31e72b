"""The audit log: every question asked, answered or refused, in SQLite (WAL mode, numbered migrations).

Owns the schema and the reads the teachers' page needs; a migration is only ever appended, never edited.
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from tutor.result import TutorAnswer

MIGRATIONS: list[str] = [
    # 1: the questions table
    """
    CREATE TABLE questions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        ts REAL NOT NULL,
        question TEXT NOT NULL,
        class TEXT NOT NULL,
        subject TEXT NOT NULL,
        mode TEXT NOT NULL,
        decision TEXT NOT NULL,
        reason TEXT NOT NULL,
        message TEXT NOT NULL,
        confidence REAL NOT NULL,
        answer TEXT NOT NULL,
        answerer TEXT NOT NULL,
        llm_called INTEGER NOT NULL,
        decided_by TEXT NOT NULL,
        best_score REAL,
        nearest_chapter TEXT,
        nearest_section TEXT,
        failed_checks TEXT,
        total_ms REAL,
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
]


class AuditLog:
    """Append-only log of questions; safe to share between the threads of one Streamlit server."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        with self._connect() as con:
            self._migrate(con)

    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.path, timeout=30)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
        con.row_factory = sqlite3.Row
        return con

    def _migrate(self, con: sqlite3.Connection) -> None:
        version = con.execute("PRAGMA user_version").fetchone()[0]
        for n, sql in enumerate(MIGRATIONS[version:], start=version + 1):
            con.executescript(f"BEGIN; {sql} PRAGMA user_version={n}; COMMIT;")

    @property
    def schema_version(self) -> int:
        with self._connect() as con:
            return int(con.execute("PRAGMA user_version").fetchone()[0])

    def log(self, ans: TutorAnswer, selected_text: str | None = None) -> int:
        """Append one question with its full result; returns its id."""
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
        with self._lock, self._connect() as con:
            cur = con.execute(
                "INSERT INTO questions (ts, question, class, subject, mode, decision, reason, message, confidence, answer,"
                " answerer, llm_called, decided_by, best_score, nearest_chapter, nearest_section, failed_checks, total_ms,"
                " error, result_json, selected_text, resolved_question) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                row,
            )
            return int(cur.lastrowid)

    def rows(self, since: float | None = None, until: float | None = None, limit: int | None = None) -> list[dict[str, Any]]:
        """Rows without the full JSON, newest first."""
        sql = "SELECT id, ts, question, class, subject, mode, decision, reason, message, confidence, answer, answerer," \
              " llm_called, decided_by, best_score, nearest_chapter, nearest_section, failed_checks, total_ms, error," \
              " resolved_question" \
              " FROM questions WHERE 1=1"
        args: list[Any] = []
        if since is not None:
            sql += " AND ts >= ?"
            args.append(since)
        if until is not None:
            sql += " AND ts < ?"
            args.append(until)
        sql += " ORDER BY id DESC"
        if limit:
            sql += f" LIMIT {int(limit)}"
        with self._connect() as con:
            return [dict(r) for r in con.execute(sql, args)]

    def frame(self, **kw: Any):
        """The rows as a pandas DataFrame with a datetime column `time`."""
        import pandas as pd

        df = pd.DataFrame(self.rows(**kw))
        if df.empty:
            df = pd.DataFrame(columns=["id", "ts", "question", "class", "subject", "mode", "decision", "reason", "message",
                                       "confidence", "answer", "answerer", "llm_called", "decided_by", "best_score",
                                       "nearest_chapter", "nearest_section", "failed_checks", "total_ms", "error",
                                       "resolved_question"])
        df["time"] = pd.to_datetime(df["ts"].astype(float), unit="s")
        return df

    def detail(self, row_id: int) -> dict[str, Any] | None:
        """The full result of one question, as the student saw it."""
        with self._connect() as con:
            r = con.execute("SELECT result_json, selected_text FROM questions WHERE id = ?", (row_id,)).fetchone()
        if r is None:
            return None
        d = json.loads(r["result_json"])
        d["selected_text"] = r["selected_text"]
        return d

    def count(self) -> int:
        with self._connect() as con:
            return int(con.execute("SELECT COUNT(*) FROM questions").fetchone()[0])
