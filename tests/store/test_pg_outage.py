"""The shared database going away and coming back (issue 36), on a real PostgreSQL 16 of the test's own (stopped and
started here; the session's server serves every other test): a question asked while it is down is refused plainly
(library_unreachable), spooled, and in the audit log exactly once after the restart; the tutor answers again without
being rebuilt; the readiness probe (GET /ready and `python -m tutor ready`) fails while it is down and passes after.
Also the pool's settings (tutor/store/pg_pool.py): what each connection is opened with, and that no session state
outlives a borrow.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import psycopg
import pytest
from helpers_paths import REPO

from tutor.audit.pg_log import PgAuditLog
from tutor.pipeline import Tutor
from tutor.policy import load_policy
from tutor.readiness import database_check, serve
from tutor.reasons import Reason
from tutor.retrieval.search import Library
from tutor.store import pg_pool
from tutor.store.pg_shelf import PgShelfStore
from tutor.store.shelf import Manifest
from tutor.testing import HashEmbedder

from helpers_postgres import PostgresTestServer
from helpers_safety import LIGHT, policy

LENS_Q = "What is the power of a lens measured in?"  # LIGHT[1] answers it
EMB = HashEmbedder()


@pytest.fixture
def own_server(tmp_path) -> Iterator[PostgresTestServer]:
    server = PostgresTestServer(tmp_path / "own-pg")
    try:
        yield server
    finally:
        server.stop()  # closes every pool of this process too


@pytest.fixture(autouse=True)
def no_pools_left():
    yield
    pg_pool.close_pools()


def tutor_on(url: str, tmp_path) -> Tutor:
    store = PgShelfStore(url, tmp_path / "index")
    store.write(Manifest("10", "science", EMB.name, EMB.dim), LIGHT, EMB.embed([c.text for c in LIGHT]))
    audit = PgAuditLog(url, spool_path=tmp_path / "data" / "audit-postgres.spool.jsonl")
    return Tutor(Library(tmp_path / "index", embedder=EMB, store=store), policy(), audit=audit)


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def ready_command(url: str) -> subprocess.CompletedProcess:
    env = {"TUTOR_DATABASE_URL": url, "PATH": "/usr/bin:/bin", "HOME": str(REPO)}
    return subprocess.run([sys.executable, "-m", "tutor", "ready", "--timeout", "2"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)


# ---------------------------------------------------------------- the outage, end to end


def test_a_question_during_an_outage_is_refused_plainly_spooled_and_logged_once_after_the_restart(own_server,
                                                                                                  tmp_path):
    url = own_server.new_database()
    tutor = tutor_on(url, tmp_path)
    assert not tutor.ask(LENS_Q, "10", "science").was_refusal  # the shelf loaded: its cache must not hide the outage
    probe = serve(0, database_check(url, 2.0, tutor.audit), host="127.0.0.1")
    ready = f"http://127.0.0.1:{probe.server_address[1]}/ready"
    try:
        assert get(ready) == (200, "ready\n")

        own_server.down()
        down = tutor.ask("What is refraction?", "10", "science")
        assert down.was_refusal and down.reason == Reason.LIBRARY_UNREACHABLE
        assert down.message == "The library is not reachable right now; your question is saved. Please ask again " \
                               "in a few minutes."
        assert down.error  # the maintainers' detail: which failure
        spool = tutor.audit.spool_path
        assert tutor.audit.spooled() == 1 and spool.parent == tmp_path / "data"
        kept = json.loads(spool.read_text(encoding="utf-8").splitlines()[0])
        assert (kept["question"], kept["reason"], kept["decision"]) == ("What is refraction?",
                                                                         "library_unreachable", "refused")
        status, body = get(ready)
        assert status == 503 and body.startswith("not ready: ")
        assert ready_command(url).returncode == 1

        own_server.up()
        for _ in range(40):  # the pool finds the server back within seconds (tutor/store/pg_pool.py)
            probe_said = get(ready)
            if not tutor.audit.spooled():
                break
            time.sleep(0.5)
        assert probe_said == (200, "ready; 1 spooled question(s) written to the audit log\n")  # the probe wrote it
        assert ready_command(url).returncode == 0
        assert tutor.audit.spooled() == 0 and not spool.exists()
        again = tutor.ask(LENS_Q, "10", "science")  # the same Tutor: no restart, no rebuilt store
        assert not again.was_refusal and "dioptre" in again.answer
        questions = [r["question"] for r in tutor.audit.rows()]
        assert questions == [LENS_Q, "What is refraction?", LENS_Q]  # newest first; the outage's question once
    finally:
        probe.shutdown()


def test_without_a_probe_the_next_question_that_is_logged_writes_the_spool_first(own_server, tmp_path):
    url = own_server.new_database()
    tutor = tutor_on(url, tmp_path)
    own_server.down()
    first = tutor.ask(LENS_Q, "10", "science")
    second = tutor.ask("What is refraction?", "10", "science")
    assert {first.reason, second.reason} == {Reason.LIBRARY_UNREACHABLE} and tutor.audit.spooled() == 2
    own_server.up()
    for _ in range(20):  # the pool finds the server back within seconds; till then each question joins the spool
        after = tutor.ask(LENS_Q, "10", "science")
        if not after.was_refusal and not tutor.audit.spooled():
            break
        time.sleep(0.5)
    assert not after.was_refusal
    rows = tutor.audit.rows()
    assert [r["question"] for r in rows][-2:] == ["What is refraction?", LENS_Q]  # oldest last: in asked order
    assert [r["reason"] for r in rows][-2:] == ["library_unreachable"] * 2
    assert tutor.audit.spooled() == 0


# ---------------------------------------------------------------- the pool


def test_each_connection_is_opened_with_the_policys_timeouts_and_keepalives_and_no_prepared_statements(pg_url):
    p = load_policy(env={}).with_values(database_statement_timeout_s=7.0, database_lock_timeout_s=3.0,
                                        database_keepalives_idle_s=11, database_pool_min_size=0,
                                        database_pool_max_size=2, database_pool_timeout_s=1.5)
    pool = pg_pool.pool_for(pg_url, p)
    assert (pool.min_size, pool.max_size, pool.timeout) == (0, 2, 1.5)
    with pg_pool.borrow(pg_url) as con:
        assert con.execute("SHOW statement_timeout").fetchone()[0] == "7s"
        assert con.execute("SHOW lock_timeout").fetchone()[0] == "3s"
        assert con.prepare_threshold is None
        dsn = con.info.get_parameters()
        assert dsn["keepalives_idle"] == "11" and dsn["keepalives"] == "1" and dsn["connect_timeout"] == "3"


def test_behind_a_transaction_pooler_no_startup_options_are_sent():
    p = load_policy(env={}).with_values(database_transaction_pooler=True, database_statement_timeout_s=7.0)
    kw = pg_pool.connection_kwargs(p)
    assert "options" not in kw and kw["prepare_threshold"] is None
    assert "statement_timeout=7000" in pg_pool.connection_kwargs(p.with_values(database_transaction_pooler=False))[
        "options"]


def test_a_returned_connection_keeps_no_session_state_and_a_second_close_is_harmless(pg_url):
    pg_pool.pool_for(pg_url, load_policy(env={}).with_values(database_pool_min_size=1, database_pool_max_size=1))
    con = pg_pool.borrow(pg_url, autocommit=True)
    pid = con.info.backend_pid
    con.execute("SET search_path = nowhere")
    con.execute("SELECT pg_advisory_lock(42)")  # a session lock forgotten by its holder
    con.close()
    con.close()  # already back in the pool: must not close it under the next borrower
    with pg_pool.borrow(pg_url) as again:
        assert again.info.backend_pid == pid  # the one pooled connection, lent again
        assert again.execute("SHOW search_path").fetchone()[0] == '"$user", public'
        assert again.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'").fetchone()[0] == 0
        assert not again.closed


def test_a_borrowed_connection_that_is_dropped_goes_back_to_the_pool(pg_url):
    pg_pool.pool_for(pg_url, load_policy(env={}).with_values(database_pool_min_size=1, database_pool_max_size=1,
                                                             database_pool_timeout_s=2.0))
    con = pg_pool.borrow(pg_url)
    del con  # as pg_shelf does with its read connection after a failure: the one slot must come back
    with pg_pool.borrow(pg_url) as again:
        assert again.execute("SELECT 1").fetchone()[0] == 1


def test_a_database_that_is_not_there_times_out_with_the_reason(pg_server):
    url = pg_server.url("t_never_made")
    pg_pool.pool_for(url, load_policy(env={}).with_values(database_pool_timeout_s=1.0))
    with pytest.raises(psycopg.OperationalError, match='database "t_never_made" does not exist'):
        pg_pool.borrow(url)


def test_only_a_connection_failure_counts_as_an_outage_not_a_bug_or_a_bad_statement():
    from psycopg_pool import PoolTimeout

    from tutor.errors import is_database_unreachable

    assert is_database_unreachable(psycopg.OperationalError("connection refused"))
    assert is_database_unreachable(PoolTimeout("couldn't get a connection after 0.50 sec"))
    assert is_database_unreachable(psycopg.InterfaceError("the connection is closed"))
    assert not is_database_unreachable(psycopg.errors.UniqueViolation("duplicate key"))  # answered: a bug or data
    assert not is_database_unreachable(psycopg.errors.UndefinedTable("no such table"))
    assert not is_database_unreachable(RuntimeError("the answerer broke"))


# ---------------------------------------------------------------- a slow database is not a down one


@pytest.mark.parametrize("timeout", ["statement", "lock"])
def test_a_question_the_server_cancels_for_time_is_refused_as_busy_logged_and_not_counted_as_an_outage(
        pg_url, tmp_path, timeout):
    """Issue 36: a statement cancelled by statement_timeout (QueryCanceled) or a lock wait given up (lock_timeout:
    LockNotAvailable) was read as the library being down: refused `library_unreachable` ("your question is saved"),
    and the reader dropped its sound connection and ran the statement again, doubling the wait. The server answered:
    the student now reads that the library is busy, the question is logged as usual (not spooled), and the reader
    keeps its connection."""
    p = load_policy(env={}).with_values(**{f"database_{timeout}_timeout_s": 0.3})
    pg_pool.pool_for(pg_url, p)
    tutor = tutor_on(pg_url, tmp_path)
    assert not tutor.ask(LENS_Q, "10", "science").was_refusal
    store = tutor.library.store
    reader_pid = store._read_con.info.backend_pid
    with psycopg.connect(pg_url) as blocker:  # a long maintenance transaction holds the shelf pointers
        blocker.execute("LOCK TABLE shelves IN ACCESS EXCLUSIVE MODE")
        slow = tutor.ask("What is refraction?", "10", "science")
    assert slow.was_refusal and slow.reason == Reason.LIBRARY_BUSY, slow.error
    assert slow.message == Reason.LIBRARY_BUSY.en and "saved" not in slow.message
    assert ("QueryCanceled" if timeout == "statement" else "LockNotAvailable") in slow.error
    assert store._read_con.info.backend_pid == reader_pid  # the same connection, not run again on a new one
    assert tutor.audit.spooled() == 0
    assert [r["reason"] for r in tutor.audit.rows() if r["question"] == "What is refraction?"] == ["library_busy"]
    assert not Reason.LIBRARY_BUSY.is_coverage_gap
    assert not tutor.ask(LENS_Q, "10", "science").was_refusal  # the lock gone, it answers at once
