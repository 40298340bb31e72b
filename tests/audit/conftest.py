"""Fixtures the audit tests share."""
import pytest

from tutor.audit.log import AuditLog
from tutor.audit.pg_log import PgAuditLog

from helpers_postgres import BACKENDS


@pytest.fixture(params=BACKENDS)
def open_log(request, tmp_path):
    """Opens the audit log of one store afresh on each call: a SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return lambda: AuditLog(tmp_path / "audit.sqlite3")
    url = request.getfixturevalue("pg_url")
    return lambda: PgAuditLog(url, spool_path=tmp_path / "audit-postgres.spool.jsonl")
