"""The sign-in throttle's records in the audit database, on both backends: they outlive the object that wrote them
(a restart, or Streamlit's `clear_cache` dropping the cached throttle), two app processes share them, one client's
wrong passwords never hold back another client or account, and a failing database still counts in memory."""
from __future__ import annotations

import sqlite3

from tutor.audit.log import AuditLog
from tutor.audit.sign_in import AuditThrottleStore
from tutor.throttle import LoginThrottle, sign_in_key


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def throttle(log, clock) -> LoginThrottle:
    return LoginThrottle(free_failures=1, delay_s=2.0, max_failures=3, lockout_s=900.0, clock=clock,
                         store=AuditThrottleStore(log))


STUDENT = sign_in_key("teacher_password", "203.0.113.7")
TEACHER = sign_in_key("teacher_password", "198.51.100.2")


def test_a_lockout_outlives_the_throttle_object_and_is_shared_by_another_process(open_log):
    clock = Clock()
    first = throttle(open_log(), clock)
    assert [first.failed(STUDENT) for _ in range(3)] == [0.0, 2.0, 900.0]
    # what Streamlit's clear_cache (or a restart) does: the throttle and the audit log are made afresh
    again = throttle(open_log(), clock)
    assert again.locked(STUDENT) and again.wait_s(STUDENT) == 900.0
    assert again.wait_s(TEACHER) == 0.0 and not again.locked(TEACHER)  # another client is not held back
    assert again.wait_s(sign_in_key("maintainer_password", "203.0.113.7")) == 0.0  # nor another account
    clock.now += 901
    assert again.wait_s(STUDENT) == 0.0 and again.failed(STUDENT) == 0.0  # the lockout is over: afresh


def test_a_right_password_forgets_the_key_everywhere(open_log):
    clock = Clock()
    a, b = throttle(open_log(), clock), throttle(open_log(), clock)
    a.failed(TEACHER)
    a.failed(TEACHER)
    assert b.wait_s(TEACHER) == 2.0
    b.succeeded(TEACHER)
    assert a.wait_s(TEACHER) == 0.0 and a.failed(TEACHER) == 0.0  # the free failure again


def test_keys_idle_past_the_lockout_are_pruned_from_the_table(tmp_path):
    clock = Clock()
    log = AuditLog(tmp_path / "audit.sqlite3")
    t = throttle(log, clock)
    t.failed(STUDENT)
    clock.now += 1000
    t.failed(TEACHER)
    with sqlite3.connect(log.path) as con:
        assert [r[0] for r in con.execute("SELECT key FROM sign_in_failures")] == [TEACHER]


def test_while_the_database_fails_wrong_passwords_are_counted_in_memory(tmp_path):
    clock = Clock()
    db = tmp_path / "audit.sqlite3"
    log = AuditLog(db)
    t = throttle(log, clock)
    t.failed(STUDENT)
    db.unlink()
    db.mkdir()  # a folder where the database was: every connection fails
    # counted afresh in this process's memory: the count so far is in the database it cannot read
    assert [t.failed(STUDENT) for _ in range(3)] == [0.0, 2.0, 900.0] and t.store.error
    assert t.locked(STUDENT)
    db.rmdir()
    assert t.locked(STUDENT)  # the database is back (empty): the lockout counted in memory still holds
