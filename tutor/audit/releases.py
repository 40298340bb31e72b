"""Released sentences: book text held back at ingest that a maintainer checked and let the tutor quote.

Owns the table `sentence_releases` (the audit log's migration 8, SQLite or PostgreSQL): kept beside the audit log, a
release is seen by every app process on one database, with who released it, when, where (class, subject, chapter
file, page) and what it was held back for; a withdrawal is recorded on the same row, never deleted. The check itself
reads no database: `ReleaseSync` copies the released digests into tutor.safety.vocabulary's process-wide set when the
Tutor starts, every `release_refresh_s` seconds after, and at once when this process releases or withdraws one.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from tutor.audit.log import AuditLog
from tutor.errors import TutorError
from tutor.safety.vocabulary import (
    HELD_BACK,
    RELEASABLE,
    fold,
    held_back_reason,
    release_digest,
    set_released,
)

_COLUMNS = ("id", "digest", "sentence", "class", "subject", "file", "page", "reason", "released_by", "released_at",
            "withdrawn_by", "withdrawn_at")


class NotReleasable(TutorError):
    """The sentence cannot be released: it is not held back, is held back for a kind never released, or no one is
    named as releasing it."""


@dataclass(frozen=True)
class Release:
    """One release: the sentence as the checks read it (`fold`) and its digest; where it was held back; who released
    it and when (seconds since the epoch); who withdrew it and when, None while it stands."""

    id: int
    digest: str
    sentence: str
    klass: str
    subject: str
    file: str
    page: int
    reason: str  # the held-back code it was held for (a key of tutor.safety.vocabulary.HELD_BACK)
    released_by: str
    released_at: float
    withdrawn_by: str | None = None
    withdrawn_at: float | None = None

    @property
    def active(self) -> bool:
        return self.withdrawn_at is None


def release_problem(sentence: str) -> str:
    """Why `sentence` cannot be released, in the maintainers' words ("" when it can)."""
    code = held_back_reason(sentence)
    if code is None:
        return "it is not held back: it is quoted already"
    if code not in RELEASABLE:
        return (f"it is held back because it {HELD_BACK[code][1]}: only sentences held back for a web or e-mail "
                "address can be released")
    return ""


def listed(flagged: list[dict], page: int, sentence: str) -> bool:
    """Whether a chapter's manifest (`flagged`: its {"page", "sentence"} entries) holds `sentence` back on `page`,
    compared as the checks read both (`fold`)."""
    key = release_digest(sentence)
    return any(int(f["page"]) == int(page) and release_digest(f["sentence"]) == key for f in flagged)


def _sql(audit: AuditLog, sql: str) -> str:
    return sql.replace("?", audit._P)


def _row(r) -> Release:
    d = {k: r[k] for k in _COLUMNS}
    return Release(int(d["id"]), d["digest"], d["sentence"], d["class"], d["subject"], d["file"], int(d["page"]),
                   d["reason"], d["released_by"], float(d["released_at"]), d["withdrawn_by"],
                   None if d["withdrawn_at"] is None else float(d["withdrawn_at"]))


def release(audit: AuditLog, sentence: str, klass: str, subject: str, file: str, page: int, by: str,
            now: float | None = None) -> Release:
    """Release a held-back sentence where it was held back; returns the release (the standing one, when that
    sentence is already released at that place). Raises NotReleasable with the reason, or AuditUnavailable."""
    problem = release_problem(sentence)
    if problem:
        raise NotReleasable(f"This sentence cannot be released: {problem}.")
    if not by.strip():
        raise NotReleasable("Say who releases it: a release records the maintainer's name.")
    digest, place = release_digest(sentence), (str(klass), subject, file, int(page))
    with audit._read() as con:
        audit._migrate(con)
        audit._lock_for_update(con, f"release:{digest}")
        same = _sql(audit, f"SELECT {', '.join(_COLUMNS)} FROM sentence_releases WHERE digest = ? AND class = ? "
                           "AND subject = ? AND file = ? AND page = ? AND withdrawn_at IS NULL")
        row = con.execute(same, (digest, *place)).fetchone()
        if row is None:
            con.execute(_sql(audit, "INSERT INTO sentence_releases (digest, sentence, class, subject, file, page, "
                                    "reason, released_by, released_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
                        (digest, fold(sentence), *place, held_back_reason(sentence), by.strip(),
                         time.time() if now is None else now))
            row = con.execute(same, (digest, *place)).fetchone()
    return _row(row)


def withdraw(audit: AuditLog, sentence: str, by: str, now: float | None = None) -> int:
    """Withdraw every standing release of `sentence` (wherever it was released: the check reads the text alone, so
    a sentence is released everywhere or nowhere); returns how many were withdrawn."""
    if not by.strip():
        raise NotReleasable("Say who withdraws it: a withdrawal records the maintainer's name.")
    with audit._read() as con:
        audit._migrate(con)
        cur = con.execute(_sql(audit, "UPDATE sentence_releases SET withdrawn_by = ?, withdrawn_at = ? "
                                      "WHERE digest = ? AND withdrawn_at IS NULL"),
                          (by.strip(), time.time() if now is None else now, release_digest(sentence)))
        return int(cur.rowcount)


def releases(audit: AuditLog, *, standing_only: bool = True) -> list[Release]:
    """The releases, newest first: those standing, or (`standing_only` False) every one ever made."""
    sql = f"SELECT {', '.join(_COLUMNS)} FROM sentence_releases"
    if standing_only:
        sql += " WHERE withdrawn_at IS NULL"
    with audit._read() as con:
        audit._migrate(con)
        return [_row(r) for r in con.execute(sql + " ORDER BY id DESC").fetchall()]


def released_digests(audit: AuditLog) -> set[str]:
    """The digests of every standing release: what the held-back check lets through."""
    with audit._read() as con:
        audit._migrate(con)
        rows = con.execute("SELECT DISTINCT digest FROM sentence_releases WHERE withdrawn_at IS NULL").fetchall()
    return {r["digest"] for r in rows}


class ReleaseSync:
    """Keeps this process's released set (tutor.safety.vocabulary.set_released) in step with the audit database:
    `refresh` reads it now, `maybe_refresh` when `every_s` seconds have passed since the last read, `refresh_soon` the
    same on a background thread (one clock reading otherwise, so it sits on the question path: a question never waits
    for a database that takes its connect timeout to fail). A database that cannot be read keeps the last set read
    (`error` says why): an outage neither releases nor withdraws anything."""

    def __init__(self, audit: AuditLog | None, every_s: float, clock: Callable[[], float] = time.monotonic):
        self.audit, self.every_s, self.clock = audit, every_s, clock  # no audit log: nothing is ever read
        self.last: float | None = None  # when the set was last read (by `clock`)
        self.error = ""
        self.thread: threading.Thread | None = None  # the background read `refresh_soon` started last

    @classmethod
    def started(cls, audit: AuditLog | None, every_s: float) -> ReleaseSync:
        """A sync that has read the database once already (when the Tutor starts)."""
        sync = cls(audit, every_s)
        sync.refresh()
        return sync

    def refresh(self) -> bool:
        """Read the released digests now; False (and `error`) when the database cannot be read."""
        self.last = self.clock()
        if self.audit is None:
            return False
        try:
            digests = released_digests(self.audit)
        except Exception as e:  # noqa: BLE001 - a failing audit database must never stop a question
            self.error = f"{type(e).__name__}: {e}"
            return False
        set_released(digests)
        self.error = ""
        return True

    def maybe_refresh(self) -> bool:
        """Refresh when the last read is `every_s` old; True when it read the database."""
        if self.last is not None and self.clock() - self.last < self.every_s:
            return False
        return self.refresh()

    def refresh_soon(self) -> bool:
        """`maybe_refresh` on a background thread; True when it started one (none while the last is still reading)."""
        if self.audit is None or (self.thread is not None and self.thread.is_alive()) or (
                self.last is not None and self.clock() - self.last < self.every_s):
            return False
        self.last = self.clock()  # claimed now: the questions that follow do not start another
        self.thread = threading.Thread(target=self.refresh, name="tutor-release-sync", daemon=True)
        self.thread.start()
        return True
