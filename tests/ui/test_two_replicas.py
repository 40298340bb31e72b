"""Two app processes sharing one PostgreSQL database, as replicas behind a load balancer (issue 14): a chapter PDF
uploaded through the first app's Maintainers page (in a real headless Chromium) is answered by the second app, and
the second app's Teachers page lists the question a student asked on the first.

Each process is `streamlit run app.py` on its own free loopback port with its own index, data folder and SQLite
path (so nothing is shared through this disk), TUTOR_DATABASE_URL naming one database of the real PostgreSQL test
server, and TUTOR_EMBEDDER=hash (the deterministic fake the page tests use). Every wait is bounded; both processes
are stopped in a finally (tests/helpers_servers.py `serving`).
"""
from __future__ import annotations

import os
import sys
import urllib.request
from contextlib import ExitStack

import pytest
from helpers_paths import REPO

pytestmark = [pytest.mark.browser, pytest.mark.slow]

pytest.importorskip("selenium.webdriver", reason="the browser test needs selenium (pip install selenium)")

# the browser helpers and fixture, with test_browser's skips when Chromium is missing
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from test_browser import NEW_CHAPTER, ask_in_chat, browser, go_to, idle, sign_in, wait  # noqa: E402, F401

from helpers_library import make_pdf  # noqa: E402
from helpers_servers import free_port, serving  # noqa: E402

ON_FIRST = "What is the flow of electric charge through a conductor called?"
ON_SECOND = "What is potential difference measured in?"


def start_app(stack: ExitStack, tmp, name: str, db_url: str) -> str:
    """One app process on a free port, with its own folders on this disk and the shared database; its URL."""
    folder = tmp / name
    folder.mkdir()
    secrets = folder / "secrets.toml"
    secrets.write_text('teacher_password = "chalk"\nmaintainer_password = "spanner"\n')
    env = dict(os.environ, TUTOR_DATABASE_URL=db_url, TUTOR_EMBEDDER="hash", TUTOR_READER="false",
               TUTOR_INDEX_DIR=str(folder / "index"), TUTOR_AUDIT_DB=str(folder / "audit.sqlite3"),
               TUTOR_DATA_DIR=str(folder / "data"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
           "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", "--secrets.files", str(secrets)]
    stack.enter_context(serving(cmd, lambda: urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok",
                                folder / "streamlit.log", timeout_s=120, name=f"streamlit ({name})", cwd=REPO, env=env))
    return url


def open_app(d, url: str) -> None:
    d.get(url)
    wait(d, 180).until(EC.presence_of_element_located((By.CSS_SELECTOR, "[data-testid='stSidebarNavLink']")))
    idle(d, 180)


def upload_chapter(d, pdf) -> None:
    go_to(d, "Maintainers")
    sign_in(d, "spanner")
    upload = wait(d, 60).until(EC.presence_of_element_located((By.CSS_SELECTOR, "input[type='file']")))
    upload.send_keys(str(pdf))
    wait(d, 30).until(lambda drv: pdf.name in drv.find_element(By.CSS_SELECTOR, "[data-testid='stMain']").text)
    idle(d)
    next(b for b in d.find_elements(By.CSS_SELECTOR, "[data-testid='stBaseButton-primary']")
         if "Add to the library" in b.text).click()
    wait(d, 180).until(lambda drv: "Last upload" in drv.find_element(By.CSS_SELECTOR, "[data-testid='stMain']").text)
    idle(d)


def question_options(d) -> list[str]:
    """The questions the Teachers page lists (the options of its 'Open a question' box)."""
    field = d.find_element(By.CSS_SELECTOR, "[data-testid='stSelectbox'] input[aria-label='Open a question']")
    box = field.find_element(By.XPATH, "./ancestor::*[@data-testid='stSelectbox']")
    box.find_element(By.CSS_SELECTOR, "button[aria-label='Open']").click()
    options = wait(d, 10).until(lambda drv: drv.find_elements(By.CSS_SELECTOR, "[role='option']"))
    got = [o.text for o in options]
    field.send_keys(Keys.ESCAPE)
    return got


def test_a_chapter_uploaded_on_one_replica_is_answered_by_the_other_and_logged_for_both(
        browser, pg_url, tmp_path):  # noqa: F811 - test_browser's fixture
    d = browser
    pdf = make_pdf(tmp_path / "upload" / "class-10_science_electricity.pdf", NEW_CHAPTER)
    with ExitStack() as stack:
        first = start_app(stack, tmp_path, "first", pg_url)
        second = start_app(stack, tmp_path, "second", pg_url)

        open_app(d, first)  # the maintainer adds the chapter on the first replica
        upload_chapter(d, pdf)
        go_to(d, "Ask")
        reply = ask_in_chat(d, ON_FIRST, "electric current")
        assert "I don't know" not in reply.text

        open_app(d, second)  # a student on the second replica is answered from that chapter
        reply = ask_in_chat(d, ON_SECOND, "volts")
        assert "I don't know" not in reply.text and "electricity" in reply.text.lower()

        go_to(d, "Teachers")  # and the teacher there sees both questions, the first replica's included
        sign_in(d, "chalk")
        wait(d, 60).until(EC.presence_of_element_located((By.CSS_SELECTOR, "[data-testid='stMetric']")))
        idle(d)
        metrics = {m.text.split("\n")[0]: m.text.split("\n")[-1]
                   for m in d.find_elements(By.CSS_SELECTOR, "[data-testid='stMetric']")}
        assert metrics["Questions"] == "2", metrics
        listed = question_options(d)
        assert any(ON_FIRST in o for o in listed) and any(ON_SECOND in o for o in listed), listed
    # nothing reached either replica's own disk: the shelves, the PDF and the log are all in the database
    for name in ("first", "second"):
        assert not (tmp_path / name / "audit.sqlite3").exists()
        assert not (tmp_path / name / "index").exists()
