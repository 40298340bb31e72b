"""Audit rows on a full disk (issue 35, item 6): the database and its spool file sit on one disk; when both refuse a
row it waits in memory, is counted where maintainers and teachers look, and is written, in order, by the first write
after space comes back. On a real 1 MiB tmpfs where the test may mount one, else with ENOSPC simulated."""
from __future__ import annotations

import errno
import sqlite3

import helpers_disk
import pytest
from test_audit import answered

from tutor.audit.log import AuditLog


def test_rows_neither_the_database_nor_the_spool_take_wait_in_memory_and_are_written_later(tmp_path, monkeypatch):
    where = tmp_path / "disk"
    with helpers_disk.small_disk(where) as real:
        log = AuditLog(where / "audit.sqlite3")
        assert log.log(answered("q1")) is not None
        if real:
            ballast = helpers_disk.fill(where)
        else:
            monkeypatch.setattr(AuditLog, "_con", lambda self: (_ for _ in ()).throw(sqlite3.OperationalError(
                "database or disk is full")))

            def spool_full(self, rows):
                raise OSError(errno.ENOSPC, "No space left on device", str(self.spool_path))

            monkeypatch.setattr(AuditLog, "_write_spool", spool_full)
        for q in ("q2", "q3", "q4"):
            assert log.log(answered(q)) is None  # the student still got the answer
        h = log.health()
        assert (h.spooled, h.in_memory) == (3, 3) and "kept in memory" in log.error
        if real:
            ballast.unlink()
        else:
            monkeypatch.undo()
        assert log.log(answered("q5")) is not None
        assert [r["question"] for r in reversed(log.rows())] == ["q1", "q2", "q3", "q4", "q5"]
        assert log.health().spooled == 0 and log.health().in_memory == 0


def test_rows_in_memory_go_to_the_spool_file_first_when_it_takes_writes_again(tmp_path, monkeypatch):
    log = AuditLog(tmp_path / "audit.sqlite3")
    (tmp_path / "audit.sqlite3").write_bytes(b"not a database " * 100)
    real_write = AuditLog._write_spool

    def spool_full(self, rows):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(AuditLog, "_write_spool", spool_full)
    log.log(answered("first"))
    assert log.health().in_memory == 1
    monkeypatch.setattr(AuditLog, "_write_spool", real_write)
    log.log(answered("second"))
    h = log.health()
    assert (h.spooled, h.in_memory) == (2, 0)
    lines = log.spool_path.read_text(encoding="utf-8").splitlines()
    assert ['"first"' in lines[0], '"second"' in lines[1]] == [True, True]


@pytest.mark.parametrize("n", [3])
def test_memory_is_bounded_and_what_it_drops_is_counted(tmp_path, monkeypatch, n):
    log = AuditLog(tmp_path / "audit.sqlite3")
    (tmp_path / "audit.sqlite3").write_bytes(b"not a database " * 100)
    monkeypatch.setattr(AuditLog, "_write_spool", lambda self, rows: (_ for _ in ()).throw(OSError(errno.ENOSPC, "")))
    monkeypatch.setattr(AuditLog, "MAX_IN_MEMORY", n)
    for i in range(n + 2):
        log.log(answered(f"q{i}"))
    assert log.health().in_memory == n and log.health().dropped == 2
    from ui.render import waiting_text

    assert "2 more could not be kept anywhere and are lost" in waiting_text(log.health())
