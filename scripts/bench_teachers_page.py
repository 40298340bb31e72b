"""Times the Teachers' page at N audit rows (issue 35): Streamlit's AppTest runs the page on a fresh SQLite audit log
of N synthetic questions (two classes, three subjects, 40% refused for three reasons, 14 chapters, over 30 days) and
times the run after signing in, a filter click, a plain rerun, a text search and a click with the search still set.

    python scripts/bench_teachers_page.py 100000

Run it from the project root (the app's `tutor` is the one imported). No browser: what a real browser adds (drawing
the table and charts) is not in these figures.
"""
from __future__ import annotations

import os
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def seed(db: Path, n: int) -> None:
    from tutor.audit.log import COLUMNS, AuditLog
    from tutor.types import REFUSAL_SENTENCE, TutorAnswer

    log = AuditLog(db)
    log.log(TutorAnswer(question="What is refraction?", klass="10", subject="science", mode="library",
                        answer=REFUSAL_SENTENCE, was_refusal=True, reason="off_topic", message="", confidence=0.2))
    rnd = random.Random(1)
    with sqlite3.connect(db) as con:
        row = con.execute(f"SELECT {', '.join(COLUMNS)} FROM questions").fetchone()
        rows = []
        for i in range(n - 1):
            r = list(row)
            r[COLUMNS.index("ts")] = time.time() - rnd.random() * 30 * 86400
            r[COLUMNS.index("question")] = f"Question number {i} about topic {rnd.randint(0, 500)}?"
            r[COLUMNS.index("class")], r[COLUMNS.index("subject")] = rnd.choice(["9", "10"]), rnd.choice(
                ["science", "social-science", "mathematics"])
            refused = rnd.random() < 0.4
            r[COLUMNS.index("decision")] = "refused" if refused else "answered"
            r[COLUMNS.index("reason")] = rnd.choice(["off_topic", "low_confidence", "not_answerable"]) \
                if refused else "answered"
            r[COLUMNS.index("nearest_chapter")] = f"Chapter {rnd.randint(1, 14)}"
            rows.append(tuple(r))
        con.executemany(f"INSERT INTO questions ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
                        rows)


def main(n: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench-teachers-"))
    os.environ.update(TUTOR_EMBEDDER="hash", TUTOR_READER="false", TUTOR_INDEX_DIR=str(tmp / "index"),
                      TUTOR_AUDIT_DB=str(tmp / "audit.sqlite3"), TUTOR_DATA_DIR=str(tmp / "data"))
    seed(tmp / "audit.sqlite3", n)
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.secrets["teacher_password"] = "chalk"
    at.run()
    at.switch_page("pages/teachers.py").run()
    at.text_input[0].input("chalk")
    at.button[0].click()
    steps = [("sign-in run", lambda: at.run()),
             ("a filter click", lambda: at.selectbox(key="t_decision").set_value("Refused").run()),
             ("a plain rerun", lambda: at.run()),
             ("a text search", lambda: at.text_input(key="t_text").input("topic 42").run()),
             ("a click with the search set", lambda: at.selectbox(key="t_decision").set_value("All").run())]
    said = []
    for name, step in steps:
        t = time.perf_counter()
        step()
        said.append(f"{name} {time.perf_counter() - t:.2f} s")
        assert not at.exception, at.exception
    print(f"{n:,} rows: " + ", ".join(said))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
