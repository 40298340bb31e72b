"""The sign-in throttle's records in the audit database (SQLite, or PostgreSQL with `TUTOR_DATABASE_URL`).

Owns the table `sign_in_failures` (added by the audit log's migration 5): kept beside the audit log, the records
outlive a restart and Streamlit's `clear_cache`, and app processes sharing one database share them. While the database
cannot be read or written, records are kept in this process's memory instead, so guessing stays throttled.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from tutor.audit.log import AuditLog
from tutor.throttle import MemoryStore, Record


class AuditThrottleStore:
    """A tutor.throttle.ThrottleStore on the audit log's database."""

    def __init__(self, audit: AuditLog):
        self.audit = audit
        self.fallback = MemoryStore()  # what happened while the database failed (read together with it)
        self.error = ""  # the last database failure, "" while it works

    def _con(self):
        return self.audit._con()

    def _sql(self, sql: str) -> str:
        return sql.replace("?", self.audit._P)

    def records(self, keys: Iterable[str]) -> dict[str, Record]:
        keys = list(keys)
        got = self.fallback.records(keys)
        try:
            with self._con() as con:
                self.audit._migrate(con)
                rows = [con.execute(self._sql("SELECT failures, wait_until, last_failure FROM sign_in_failures "
                                              "WHERE key = ?"), (k,)).fetchone() for k in keys]
            self.error = ""
        except Exception as e:  # noqa: BLE001 - a failing database must not open the door: memory still counts
            self.error = f"{type(e).__name__}: {e}"
            return got
        for k, row in zip(keys, rows):
            if row is not None:
                r = Record(int(row["failures"]), float(row["wait_until"]), float(row["last_failure"]))
                if k not in got or r.wait_until > got[k].wait_until:
                    got[k] = r
        return got

    def update(self, key: str, step: Callable[[Record], Record]) -> Record:
        try:
            with self._con() as con:
                self.audit._migrate(con)
                self.audit._lock_for_update(con, key)
                row = con.execute(self._sql("SELECT failures, wait_until, last_failure FROM sign_in_failures "
                                            "WHERE key = ?"), (key,)).fetchone()
                old = Record(int(row["failures"]), float(row["wait_until"]), float(row["last_failure"])) \
                    if row is not None else Record()
                new = step(old)
                con.execute(self._sql(
                    "INSERT INTO sign_in_failures (key, failures, wait_until, last_failure) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, wait_until = excluded.wait_until,"
                    " last_failure = excluded.last_failure"), (key, new.failures, new.wait_until, new.last_failure))
            self.error = ""
            return new
        except Exception as e:  # noqa: BLE001 - counted in memory instead
            self.error = f"{type(e).__name__}: {e}"
            return self.fallback.update(key, step)

    def forget(self, keys: Iterable[str]) -> None:
        keys = list(keys)
        self.fallback.forget(keys)
        try:
            with self._con() as con:
                self.audit._migrate(con)
                for k in keys:
                    con.execute(self._sql("DELETE FROM sign_in_failures WHERE key = ?"), (k,))
        except Exception as e:  # noqa: BLE001 - a success not recorded only leaves an old count behind
            self.error = f"{type(e).__name__}: {e}"

    def prune(self, before: float) -> None:
        self.fallback.prune(before)
        try:
            with self._con() as con:
                self.audit._migrate(con)
                con.execute(self._sql("DELETE FROM sign_in_failures WHERE last_failure < ? AND wait_until < ?"),
                            (before, before))
        except Exception as e:  # noqa: BLE001 - old rows left behind cost nothing but space
            self.error = f"{type(e).__name__}: {e}"
