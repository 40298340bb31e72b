"""Real servers the slow tests start on loopback (the app under Streamlit, llama-cpp-python's OpenAI server): a free
port, and a process that is waited for until it answers and always stopped afterwards; and the headless Chromium
that talks to the app (the browser tests, scripts/measure_sessions.py).
"""
from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(cmd: list[str], ready: Callable[[], bool], log: Path, *, timeout_s: float, name: str,
            **popen) -> Iterator[subprocess.Popen]:
    """Start `cmd` with its output in `log` (a pipe would fill up and stall the server), wait until `ready()` is true,
    and stop it afterwards. RuntimeError, with the end of the log, when it exits or is not ready within the time."""
    with open(log, "w+b") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, **popen)
        try:
            deadline = time.monotonic() + timeout_s
            while True:
                try:
                    if ready():
                        break
                except Exception:  # noqa: BLE001 - not listening yet; a server that never answers times out below
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    out.seek(0)
                    why = "exited" if proc.poll() is not None else f"did not start within {timeout_s:g} s"
                    raise RuntimeError(f"{name} {why}:\n{out.read().decode(errors='replace')[-2000:]}")
                time.sleep(0.5)
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def headless_chromium(profile: Path, page_load_timeout_s: float = 60):
    """A headless Chromium under chromedriver with its own profile folder, at a fixed window size and scale (the page
    images' highlight is measured in its pixels)."""
    from selenium import webdriver

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--window-size=1400,1000", "--force-device-scale-factor=1", f"--user-data-dir={profile}"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(options=opts, service=webdriver.ChromeService(str(CHROMEDRIVER)))
    driver.set_page_load_timeout(page_load_timeout_s)
    return driver
