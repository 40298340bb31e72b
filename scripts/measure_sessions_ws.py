"""Students asking through the real app with websocket clients, not browsers (issue 37), so the clients leave the
server's cores alone: `streamlit run app.py` over the NCERT Class 10 Science shelf, each client speaking Streamlit's
own protocol (BackMsg rerun with the chat box's value; the reply is the run's `script_finished`).

Two figures per app tree, the trees alternated in one window (before, after, before, after):
- a reply's server CPU: the app process's CPU seconds over `--turns` questions asked one after another in one chat
  (the chat grows), per reply, and the same less the tutor's own work (`total_ms` of each question in the audit log:
  wall time, so on a busy machine it can exceed the CPU); then the page redrawn with those replies and no question;
- N students at once (`--students 1,5,20`): each connected and idle, then all ask one question at the same moment;
  p50/p95 of the seconds from sending the question to its run's end.

    .venv/bin/python scripts/measure_sessions_ws.py --tree before=/tmp/before --tree after=. [--rounds 2]

A tree is a checkout of the app (`git archive <commit> | tar -x -C /tmp/before`); its data/models needs the reader's
ONNX files (copied from a tree that has them, or exported on the first question).
"""
from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import psutil
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from tutor.cli.evaluation import write_json  # noqa: E402
from tutor.evaluation.questions import json_rows  # noqa: E402

from helpers_servers import free_port, serving  # noqa: E402

QUESTIONS = ROOT.parent / "shared" / "data" / "questions" / "ncert-class10.jsonl"


class Student:
    """One browser tab's worth of Streamlit protocol: a websocket session that runs the Ask page and types questions."""

    def __init__(self, port: int):
        self.ws = connect(f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"], max_size=None,
                          open_timeout=120)
        self.chat_box, self.query, self.page = "", "", ""
        self.rerun(())

    def rerun(self, widgets) -> float:
        """Send a rerun with these widget states; seconds until the run's end."""
        msg = BackMsg()
        msg.rerun_script.query_string = self.query
        msg.rerun_script.page_script_hash = self.page
        msg.rerun_script.widget_states.widgets.extend(widgets)
        t0 = time.perf_counter()
        self.ws.send(msg.SerializeToString())
        while True:
            fm = ForwardMsg()
            fm.ParseFromString(self.ws.recv(timeout=900))
            kind = fm.WhichOneof("type")
            if kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                el = fm.delta.new_element
                if el.WhichOneof("type") == "chat_input":
                    self.chat_box = el.chat_input.id
            elif kind == "page_info_changed":
                self.query = fm.page_info_changed.query_string
            elif kind == "new_session":
                self.page = fm.new_session.page_script_hash
            elif kind == "script_finished":
                return time.perf_counter() - t0

    def ask(self, question: str) -> float:
        w = WidgetState(id=self.chat_box)
        w.chat_input_value.data = question
        return self.rerun([w])

    def close(self) -> None:
        self.ws.close()


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def measure_tree(tree: Path, index: Path, questions: list[str], turns: int, students: list[int],
                 redraws: int = 5) -> dict:
    with tempfile.TemporaryDirectory(prefix="tutor-ws-") as t:
        tmp = Path(t)
        (tmp / "index" / "class-10").mkdir(parents=True)  # the Science shelf alone: no subject to pick
        (tmp / "index" / "class-10" / "science").symlink_to((index / "class-10" / "science").resolve())
        port, audit = free_port(), tmp / "audit.sqlite3"
        env = dict(os.environ, TUTOR_INDEX_DIR=str(tmp / "index"), TUTOR_AUDIT_DB=str(audit),
                   TUTOR_DATA_DIR=str(tmp / "data"))  # a fresh page cache: every page is rendered afresh
        cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port",
               str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
               "--server.enableXsrfProtection", "false"]
        url = f"http://127.0.0.1:{port}"
        with serving(cmd, lambda: urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok",
                     tmp / "streamlit.log", timeout_s=180, name="streamlit", cwd=tree, env=env) as proc:
            app = psutil.Process(proc.pid)
            warm = Student(port)
            warm.ask(questions[0])  # models loaded, the shelf opened: not counted
            warm.close()
            qi = 1

            def total_ms() -> float:
                with sqlite3.connect(audit) as con:
                    return float(con.execute("SELECT COALESCE(SUM(total_ms), 0) FROM questions").fetchone()[0])

            one = Student(port)
            cpu0, tut0 = sum(app.cpu_times()[:2]), total_ms()
            seq = []
            for _ in range(turns):
                seq.append(one.ask(questions[qi]))
                qi += 1
            cpu = sum(app.cpu_times()[:2]) - cpu0
            tutor_s = (total_ms() - tut0) / 1000
            # the page drawn again with its `turns` replies and no question: what drawing alone costs a run
            cpu0 = sum(app.cpu_times()[:2])
            for _ in range(redraws):
                one.rerun(())
            redraw = (sum(app.cpu_times()[:2]) - cpu0) / redraws
            one.close()
            out = {"reply_cpu_ms": 1000 * cpu / turns, "tutor_ms": 1000 * tutor_s / turns,
                   "beyond_tutor_ms": 1000 * (cpu - tutor_s) / turns, "redraw_cpu_ms": 1000 * redraw,
                   "sequential_s": seq, "load_average": os.getloadavg()}
            for n in students:
                clients = [Student(port) for _ in range(n)]
                waits: list[float] = []
                errors: list[str] = []
                start = threading.Barrier(n)
                qs = questions[qi:qi + n]
                qi += n

                def run(i: int, clients=clients, waits=waits, errors=errors, start=start, qs=qs) -> None:
                    start.wait()
                    try:
                        waits.append(clients[i].ask(qs[i % len(qs)]))
                    except Exception as e:  # noqa: BLE001 - counted
                        errors.append(f"{type(e).__name__}: {e}"[:200])

                threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
                t0, cpu0 = time.perf_counter(), sum(app.cpu_times()[:2])
                for th in threads:
                    th.start()
                for th in threads:
                    th.join()
                wall, cpu = time.perf_counter() - t0, sum(app.cpu_times()[:2]) - cpu0
                for c in clients:
                    c.close()
                out[f"students_{n}"] = {"p50": statistics.median(waits) if waits else None,
                                        "p95": pct(waits, 0.95) if waits else None, "max": max(waits, default=None),
                                        "wall_s": wall, "app_cpu_s": cpu, "errors": errors}
            return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", required=True, help="name=path of an app checkout (two or more)")
    ap.add_argument("--index", type=Path, default=ROOT / "data" / "eval-index" / "ncert")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--turns", type=int, default=6)
    ap.add_argument("--students", default="1,5,20")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    qs = list(json_rows(QUESTIONS))
    qs = [q["question"] for q in qs if q["subject"] == "science" and str(q["class"]) == "10"
          and q.get("expect") == "answer"]
    trees = [(t.split("=", 1)[0], Path(t.split("=", 1)[1]).resolve()) for t in args.tree]
    students = [int(n) for n in args.students.split(",")]
    results: list[dict] = []
    for r in range(args.rounds):
        for name, tree in trees:  # alternated: before, after, before, after
            got = measure_tree(tree, args.index, qs[r * 40:], args.turns, students)
            got.update(tree=name, round=r + 1, at=time.strftime("%H:%M:%S"))
            results.append(got)
            rounds = [(n, got[f"students_{n}"]) for n in students]
            print(f"round {r + 1} {name}: reply CPU {got['reply_cpu_ms']:.0f} ms (tutor {got['tutor_ms']:.0f} ms, "
                  f"beyond it {got['beyond_tutor_ms']:.0f} ms; the page with {args.turns} replies redrawn "
                  f"{got['redraw_cpu_ms']:.0f} ms); load average {got['load_average'][0]:.1f}; " + "; ".join(
                      f"{n} at once p50 {g['p50']:.2f} s p95 {g['p95']:.2f} s ({len(g['errors'])} errors; the app's "
                      f"CPU {g['app_cpu_s']:.1f} s in {g['wall_s']:.1f} s)" for n, g in rounds), flush=True)
    if args.json:
        write_json(args.json, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
