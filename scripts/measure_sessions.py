"""Many students asking at once through the real app (issue 14): `streamlit run app.py` over the NCERT Class 10 Science
shelf with the shipped models, N headless Chromium sessions, each asking one NCERT question at the same moment; the
time each student waits from pressing Enter to the tutor's reply (the chat message with its Diagnostics panel).

This measures what `python -m tutor bench-concurrency` does not: Streamlit's script threads, the drawing of each reply
and the websocket, as a student meets them. The browsers run on the same
machine and take CPU too, so the CPU seconds the app's process and the browsers spent during the round are reported
beside the waits: where the browsers took most, the waits are an upper bound for what the server costs.

    .venv/bin/python scripts/measure_sessions.py --sessions 20 [--index data/eval-index/ncert]

The browsers take most of the machine's CPU with many sessions; scripts/measure_sessions_ws.py drives the same app
with websocket clients instead, for the server's own figures (issue 37).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import psutil
from selenium.webdriver import Chrome
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from tutor.evaluation.bench_concurrency import run_threads  # noqa: E402

from helpers_servers import free_port, headless_chromium, serving  # noqa: E402

QUESTIONS = ROOT.parent / "shared" / "data" / "questions" / "ncert-class10.jsonl"


def ask(d: Chrome, question: str) -> float:
    """Seconds from Enter to a reply with its Diagnostics panel."""
    box = WebDriverWait(d, 120).until(EC.element_to_be_clickable(
        (By.CSS_SELECTOR, "[data-testid='stChatInputTextArea']")))
    box.send_keys(question)
    n = len(d.find_elements(By.CSS_SELECTOR, "[data-testid='stChatMessage']"))
    t0 = time.perf_counter()
    box.send_keys(Keys.ENTER)
    WebDriverWait(d, 600, poll_frequency=0.1).until(lambda drv: any(
        "Diagnostics" in m.text for m in drv.find_elements(By.CSS_SELECTOR, "[data-testid='stChatMessage']")[n:]))
    return time.perf_counter() - t0


def cpu_s(procs: list[psutil.Process]) -> float:
    """CPU seconds (user + system) these processes have used so far; those gone count nothing."""
    total = 0.0
    for p in procs:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


def browsers() -> list[psutil.Process]:
    return [p for p in psutil.process_iter(["name"]) if (p.info["name"] or "").startswith(("chromium", "chrome"))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--index", type=Path, default=ROOT / "data" / "eval-index" / "ncert",
                    help="a library index holding class-10/science (python -m tutor eval builds data/eval-index)")
    args = ap.parse_args()
    qs = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    qs = [q["question"] for q in qs if q["subject"] == "science" and q["class"] == "10"]
    with tempfile.TemporaryDirectory(prefix="tutor-sessions-") as t:
        tmp = Path(t)
        (tmp / "index" / "class-10").mkdir(parents=True)  # the Science shelf alone: no subject to pick
        (tmp / "index" / "class-10" / "science").symlink_to((args.index / "class-10" / "science").resolve())
        port = free_port()
        env = dict(os.environ, TUTOR_INDEX_DIR=str(tmp / "index"), TUTOR_AUDIT_DB=str(tmp / "audit.sqlite3"),
                   TUTOR_DATA_DIR=str(tmp / "data"))
        url = f"http://127.0.0.1:{port}"
        cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port",
               str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
        with serving(cmd, lambda: urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok",
                     tmp / "streamlit.log", timeout_s=120, name="streamlit", cwd=ROOT, env=env) as proc:
            app = [psutil.Process(proc.pid)]
            drivers = []
            try:
                for i in range(args.sessions):
                    d = headless_chromium(tmp / f"profile-{i}", page_load_timeout_s=120)
                    drivers.append(d)
                    d.get(url)
                print(f"{len(drivers)} sessions open", file=sys.stderr)
                time.sleep(5)
                alone = [ask(drivers[0], qs[i]) for i in range(3)]  # models loaded, then one student alone
                print(f"alone: {', '.join(f'{s:.2f}' for s in alone)} s", file=sys.stderr)
                waits: list[float] = []
                errors: list[str] = []
                start = threading.Barrier(len(drivers))

                def student(i: int) -> None:
                    start.wait()
                    try:
                        waits.append(ask(drivers[i], qs[10 + i]))
                    except Exception as e:  # noqa: BLE001 - counted
                        errors.append(f"{type(e).__name__}: {e}"[:200])

                chrome = browsers()
                app_cpu, chrome_cpu = cpu_s(app), cpu_s(chrome)
                wall = run_threads(student, len(drivers))
                app_cpu, chrome_cpu = cpu_s(app) - app_cpu, cpu_s(chrome) - chrome_cpu
            finally:
                for d in drivers:
                    d.quit()
    waits.sort()
    p95 = waits[min(len(waits) - 1, round(0.95 * (len(waits) - 1)))] if waits else float("nan")
    print(f"alone (after warm-up): {alone[-1]:.2f} s; {len(drivers)} at once: p50 {statistics.median(waits):.2f} s, "
          f"p95 {p95:.2f} s, max {waits[-1]:.2f} s, {len(waits)} replies in {wall:.1f} s, {len(errors)} errors; "
          f"CPU during the round: the app {app_cpu:.1f} s, the browsers {chrome_cpu:.1f} s (2 cores x {wall:.1f} s = "
          f"{2 * wall:.1f} s available)")
    for e in errors[:3]:
        print("  " + e)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
