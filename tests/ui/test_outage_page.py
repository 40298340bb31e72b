"""The Ask page while the shared PostgreSQL database is down (issue 36), with Streamlit's AppTest on a real
PostgreSQL 16 of the test's own (stopped and started here): the student sees the plain refusal and a note, the chat box
stays, the question is saved, the readiness probe app.py started fails, and once the server is back the same app
process answers and the question is in the audit log.
"""
from __future__ import annotations

import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from helpers_paths import REPO
from streamlit.testing.v1 import AppTest

from tutor.audit.log import AuditUnavailable
from tutor.audit.pg_log import PgAuditLog
from tutor.ingest.builder import discover, ingest
from tutor.reasons import Reason
from tutor.store import pg_pool
from tutor.store.pg_shelf import PgShelfStore
from tutor.testing import HashEmbedder

from helpers_library import make_library
from helpers_postgres import PostgresTestServer
from helpers_servers import free_port

ANSWERABLE = "What is the bending of light called?"  # answered from light.pdf page 1
DURING = "What is the pH of a neutral solution?"


@pytest.fixture
def outage_app(tmp_path, monkeypatch) -> Iterator[tuple[PostgresTestServer, str, int]]:
    server = PostgresTestServer(tmp_path / "own-pg")
    port = free_port()
    try:
        url = server.new_database()
        ingest(discover([make_library(tmp_path / "src")]), PgShelfStore(url, tmp_path / "index"), HashEmbedder(),
               workers=1)
        for key, value in {"TUTOR_DATABASE_URL": url, "TUTOR_EMBEDDER": "hash", "TUTOR_READER": "false",
                           "TUTOR_INDEX_DIR": str(tmp_path / "index"), "TUTOR_AUDIT_DB": str(tmp_path / "audit.db"),
                           "TUTOR_DATA_DIR": str(tmp_path / "data"), "TUTOR_READY_PORT": str(port)}.items():
            monkeypatch.setenv(key, value)
        yield server, url, port
    finally:
        server.stop()
        pg_pool.close_pools()


def ask(at: AppTest, question: str) -> str:
    at.chat_input[0].set_value(question).run()
    assert not at.exception, at.exception
    return "\n".join(m.value for m in at.chat_message[-1].markdown)


def test_the_ask_page_refuses_plainly_keeps_the_chat_box_and_recovers_without_a_restart(outage_app, tmp_path):
    server, url, port = outage_app
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120).run()
    assert "refraction" in ask(at, ANSWERABLE)
    assert ready(port) == 200  # app.py started the probe on TUTOR_READY_PORT

    server.down()
    assert ready(port) == 503
    reply = ask(at, DURING)
    assert Reason.LIBRARY_UNREACHABLE.en.split(";")[0] in reply.replace("\\", "")
    assert "your question is saved" in reply
    assert at.chat_input, "the chat box must stay"
    assert any("not reachable right now" in w.value for w in at.warning)
    at.run()  # a rerun while still down (a click, a page switch): still no crash, the chat kept
    assert not at.exception and at.chat_input and len(at.chat_message) == 4  # two questions and their replies

    at.switch_page("pages/read.py").run()  # the Read page: the note, no crash
    assert not at.exception and any("not reachable right now" in w.value for w in at.warning)
    at.switch_page("pages/ask.py").run()

    server.up()
    for _ in range(20):  # the pool finds the server back within seconds; each logged question writes the spool first
        reply = ask(at, ANSWERABLE)
        logged = questions_logged(url, tmp_path)
        if "refraction" in reply and DURING in logged:
            break
        time.sleep(0.5)
    assert "refraction" in reply and not any("not reachable" in w.value for w in at.warning)
    assert logged.count(DURING) == 1 and logged[-1] == ANSWERABLE  # nothing lost, nothing twice
    assert ready(port) == 200


def ready(port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/ready", timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def questions_logged(url: str, tmp_path) -> list[str]:
    """The audit log's questions, newest first, read as another process would ([] while it cannot be read)."""
    try:
        return [r["question"] for r in PgAuditLog(url, tmp_path / "other.spool.jsonl").rows()]
    except AuditUnavailable:
        return []
