"""The app's database work through a real PgBouncer in transaction mode (issue 36), the pooler a district puts in
front of PostgreSQL: consecutive transactions of one client may run on different server connections, so nothing may
rely on session state (prepared statements, SETs). PgBouncer 1.18 from Debian (`apt-get install pgbouncer`) in front
of the session's PostgreSQL test server, on a free loopback port; skipped, saying so, where it is not installed.
"""
from __future__ import annotations

import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tutor.audit.pg_log import PgAuditLog
from tutor.pipeline import Tutor
from tutor.policy import load_policy
from tutor.retrieval.search import Library
from tutor.store import pg_pool
from tutor.store.pg_shelf import PgShelfStore
from tutor.store.shelf import Manifest
from tutor.testing import HashEmbedder

from helpers_safety import LIGHT, policy
from helpers_servers import free_port, serving

PGBOUNCER = shutil.which("pgbouncer") or ("/usr/sbin/pgbouncer" if os.path.exists("/usr/sbin/pgbouncer") else None)
LENS_Q = "What is the power of a lens measured in?"
EMB = HashEmbedder()


@pytest.fixture
def bouncer_url(pg_url) -> Iterator[str]:
    """pg_url's database, reached through PgBouncer (pool_mode = transaction, two server connections)."""
    if PGBOUNCER is None:
        pytest.skip("PgBouncer is not installed here (Debian: apt-get install pgbouncer)")
    info = psycopg.conninfo.conninfo_to_dict(pg_url)
    port = free_port()
    folder = Path(tempfile.mkdtemp(prefix="pgbouncer-"))  # readable by the unprivileged user PgBouncer runs as
    folder.chmod(0o755)
    (folder / "users.txt").write_text('"postgres" ""\n')
    (folder / "pgbouncer.ini").write_text(f"""[databases]
* = host={info['host']} port={info.get('port', 5432)}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {folder / 'users.txt'}
pool_mode = transaction
default_pool_size = 2
max_client_conn = 100
server_reset_query =
""")
    for f in folder.iterdir():
        f.chmod(0o644)

    def listening() -> bool:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True

    user = "pgserver" if os.geteuid() == 0 else None  # PgBouncer refuses to run as root; the pgserver wheel's user
    try:
        with serving([PGBOUNCER, str(folder / "pgbouncer.ini")], listening, folder / "pgbouncer.log", timeout_s=30,
                     name="pgbouncer", user=user):
            yield f"postgresql://postgres@127.0.0.1:{port}/{info['dbname']}"
            pg_pool.close_pools()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_the_audit_log_and_the_shelves_work_through_pgbouncer_in_transaction_mode(bouncer_url, tmp_path):
    p = load_policy(env={}).with_values(database_transaction_pooler=True, database_pool_max_size=4)
    pg_pool.pool_for(bouncer_url, p)
    with pg_pool.borrow(bouncer_url) as con:  # PgBouncer's TCP port; the server itself listens on a socket only
        assert con.info.port == int(bouncer_url.split(":")[-1].split("/")[0]) and con.prepare_threshold is None
        assert con.execute("SELECT inet_server_port()").fetchone()[0] is None
    store = PgShelfStore(bouncer_url, tmp_path / "index")
    store.write(Manifest("10", "science", EMB.name, EMB.dim), LIGHT, EMB.embed([c.text for c in LIGHT]))
    audit = PgAuditLog(bouncer_url, spool_path=tmp_path / "spool.jsonl")
    tutor = Tutor(Library(tmp_path / "index", embedder=EMB, store=store), policy(), audit=audit)
    for _ in range(3):  # more transactions than server connections: each may land on another one
        ans = tutor.ask(LENS_Q, "10", "science")
        assert not ans.was_refusal and "dioptre" in ans.answer
    assert audit.spooled() == 0 and [r["question"] for r in audit.rows()] == [LENS_Q] * 3


def _hold(url: str) -> psycopg.Connection:
    """A client of PgBouncer inside a transaction: it keeps one server connection to itself until it commits."""
    con = psycopg.connect(url, prepare_threshold=None)
    con.execute("SELECT 1")
    return con


def _leaked(con: psycopg.Connection) -> list[str]:
    """What another client's settings left on this server connection (nothing, when each went with its transaction)."""
    found = []
    if con.execute("SELECT current_setting('hnsw.ef_search', true)").fetchone()[0] == "321":
        found.append("hnsw.ef_search")
    if "ns_bouncer" in con.execute("SHOW search_path").fetchone()[0]:
        found.append("search_path")
    if con.execute("SHOW statement_timeout").fetchone()[0] != "0":
        found.append("statement_timeout")
    return found


def test_the_readers_settings_hold_on_every_server_connection_and_stay_on_none(bouncer_url, tmp_path, monkeypatch):
    """Issue 36: the long-held reader set hnsw.ef_search and a namespace's search_path on its session, and with
    database_transaction_pooler the statement and lock timeouts were not sent at all. Behind PgBouncer in transaction
    mode its next statement may run on another server connection (without them: a namespace's shelves not found), and
    the settings stay on the one it left, for another client. Now each read's transaction sets what it needs."""
    monkeypatch.setenv("TUTOR_PG_EF_SEARCH", "321")
    p = load_policy(env={}).with_values(database_transaction_pooler=True, database_statement_timeout_s=7.0,
                                        database_lock_timeout_s=3.0)
    pg_pool.pool_for(bouncer_url, p)
    store = PgShelfStore(bouncer_url, tmp_path / "index", namespace="ns_bouncer")
    store.write(Manifest("10", "science", EMB.name, EMB.dim), LIGHT, EMB.embed([c.text for c in LIGHT]))
    q = EMB.embed([LENS_Q])[0]
    best = store.load("10", "science").search_rows(q, 2)  # the reader's first reads
    assert store.keys() and len(best) == 2
    # PgBouncer has two server connections: two other clients now hold both, whichever the reader used
    first, second = _hold(bouncer_url), _hold(bouncer_url)
    try:
        assert _leaked(first) == [] and _leaked(second) == []
        for release in (first, second):  # the reader's next read runs on the one released, each in turn
            release.commit()
            assert [(k.klass, k.subject) for k in store.keys()] == [("10", "science")]
            assert store._read("SHOW hnsw.ef_search", hnsw=True) == [("321",)]
            assert store._read("SELECT current_setting('statement_timeout'), current_setting('lock_timeout')") == [
                ("7s", "3s")]
            assert store.load("10", "science").search_rows(q, 2) == best
            release.execute("SELECT 1")  # held again
    finally:
        first.close()
        second.close()


def test_a_unit_of_work_behind_a_transaction_pooler_runs_under_the_policys_timeouts(bouncer_url):
    """With database_transaction_pooler the timeouts cannot be startup options (PgBouncer refuses them): each unit of
    work's transaction sets them itself; a 0 (no limit) is left to the role's own setting."""
    p = load_policy(env={}).with_values(database_transaction_pooler=True, database_statement_timeout_s=7.0,
                                        database_lock_timeout_s=0.0)
    pg_pool.pool_for(bouncer_url, p)
    for _ in range(3):
        with pg_pool.borrow(bouncer_url) as con:
            assert con.execute("SELECT current_setting('statement_timeout'), current_setting('lock_timeout')"
                               ).fetchone() == ("7s", "0")
    first, second = _hold(bouncer_url), _hold(bouncer_url)  # both server connections: neither kept them
    try:
        assert _leaked(first) == [] and _leaked(second) == []
    finally:
        first.close()
        second.close()
