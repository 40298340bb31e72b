"""Times the shared database's outage and the connection pool (issue 36) on a private PostgreSQL 16 (the pgserver
wheel of the `test` extra), through the tutor's own code and the shipped policy:

- audit writes: N questions logged with the pool against N logged on a fresh connection each (the old way);
- an outage: the database stopped, Q questions asked (each refused plainly and spooled), how long each took;
- the recovery: the server started again, how long until a question is answered again with nothing restarted, and
  until the audit log takes writes again (its pool retries after 1, 2, 2 s: tutor/store/pg_pool.py), with the
  spooled questions then in it once each.

    python scripts/bench_outage.py 200 3

Run it from the project root (the app's `tutor` is the one imported). Unix socket, one machine: a real network adds
its round trips to every figure.
"""
from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def main(n: int, q: int) -> None:
    import psycopg

    from tutor.audit.log import COLUMNS
    from tutor.audit.pg_log import _INSERT, PgAuditLog
    from tutor.pipeline import Tutor
    from tutor.retrieval.search import Library
    from tutor.store.pg_shelf import PgShelfStore
    from tutor.store.shelf import Manifest
    from tutor.testing import HashEmbedder

    from helpers_postgres import PostgresTestServer
    from helpers_safety import LIGHT, policy

    tmp = Path(tempfile.mkdtemp(prefix="bench-outage-"))
    server = PostgresTestServer(tmp / "pg")
    try:
        url = server.new_database()
        emb = HashEmbedder()
        store = PgShelfStore(url, tmp / "index")
        store.write(Manifest("10", "science", emb.name, emb.dim), LIGHT, emb.embed([c.text for c in LIGHT]))
        audit = PgAuditLog(url, tmp / "data" / "audit-postgres.spool.jsonl")
        tutor = Tutor(Library(tmp / "index", embedder=emb, store=store), policy(), audit=audit)
        ans = tutor.ask("What is the power of a lens measured in?", "10", "science")
        row = audit._row(ans, None)

        pooled = [timed(lambda: audit.log(ans)) for _ in range(n)]

        def fresh() -> None:
            with psycopg.connect(url) as con:
                con.execute(_INSERT, row)

        each = [timed(fresh) for _ in range(n)]
        print(f"audit write, {n} each: pooled median {statistics.median(pooled):.2f} ms, p95 "
              f"{sorted(pooled)[int(0.95 * n)]:.2f} ms; a new connection each median {statistics.median(each):.2f} ms,"
              f" p95 {sorted(each)[int(0.95 * n)]:.2f} ms ({len(COLUMNS)} columns)")

        server.down()
        down = [timed(lambda i=i: tutor.ask(f"What is refraction, try {i}?", "10", "science")) for i in range(q)]
        reasons = {tutor.ask("What is refraction?", "10", "science").reason}
        print(f"outage: {q} questions took {', '.join(f'{d:.0f}' for d in down)} ms; reasons {sorted(reasons)}; "
              f"spooled {audit.spooled()}")

        t0 = time.perf_counter()
        server.up()
        up_s = time.perf_counter() - t0
        answered_at = None
        while True:  # a question every 0.1 s until one is answered and the spool is written into the log
            if not tutor.ask("What is the power of a lens measured in?", "10", "science").was_refusal:
                answered_at = answered_at or time.perf_counter() - t0 - up_s
                if not audit.spooled():
                    break
            time.sleep(0.1)
        back = time.perf_counter() - t0 - up_s
        logged = [r["question"] for r in audit.rows()]
        once = all(logged.count(f"What is refraction, try {i}?") == 1 for i in range(q))
        print(f"recovery: server start {up_s:.1f} s, then the first answered question after {answered_at * 1000:.0f} "
              f"ms, the spool written into the log after {back * 1000:.0f} ms; every outage question logged once: "
              f"{once}")
    finally:
        server.stop()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200, int(sys.argv[2]) if len(sys.argv) > 2 else 3)
