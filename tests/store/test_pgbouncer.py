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
