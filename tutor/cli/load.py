"""`python -m tutor bench-load`: students asking at once from several processes on one PostgreSQL database."""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from contextlib import nullcontext
from pathlib import Path

from tutor.cli.options import REPORT


def cmd_bench_load(args: argparse.Namespace) -> int:
    from tutor.config import PROJECT_ROOT, database_url
    from tutor.evaluation.bench_load import private_server, run_load

    library = args.library or PROJECT_ROOT / "data" / "sample" / "library"
    url = args.database_url or database_url()
    with tempfile.TemporaryDirectory(prefix="tutor-load-db-") as tmp:
        with nullcontext(url) if url else private_server(Path(tmp)) as db:
            r = run_load(db, library, processes=args.processes, students=args.students, each=args.questions,
                         embedder=args.embedder, models=args.models, log=lambda m: print(m, file=sys.stderr))
    lat = r["latency_ms"]
    print(f"{r['processes']} processes x {r['students_per_process']} students x {r['questions_each']} questions on "
          f"{r['library']} (embedder {r['embedder']}, models {'on' if r['models'] else 'off'})")
    print(f"asked {r['asked']}, answered or refused {r['answered_or_refused']}, errors {r['error_count']}"
          + (f" (first: {r['errors'][0]})" if r["errors"] else ""))
    print(f"{r['questions_per_s']} questions/s over {r['wall_s']} s; latency p50 {lat['p50']} ms, p95 {lat['p95']} ms")
    print(f"audit rows gained {r['audit_rows_gained']} for {r['asked']} asked: "
          + ("nothing lost" if r["audit_ok"] else "MISMATCH"))
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(r, indent=2))
    return 0 if r["audit_ok"] and not r["error_count"] else 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench-load", help="students asking at once from several processes on one PostgreSQL database",
                       parents=[REPORT])
    p.add_argument("--library", type=Path, help="a library folder (default: the bundled sample library; e.g. "
                                                "../shared/data/libraries/ncert)")
    p.add_argument("--database-url", help="default: TUTOR_DATABASE_URL, else a private server started for the run")
    p.add_argument("--processes", type=int, default=2)
    p.add_argument("--students", type=int, default=25, help="threads per process")
    p.add_argument("--questions", type=int, default=4, help="questions each student asks")
    p.add_argument("--embedder", default="auto", help="auto (each shelf's model), minilm, or hash (the test fake)")
    p.add_argument("--models", action="store_true", help="with the reader and reranker the policy names "
                                                         "(default: the gate and the extractive answerer alone)")
    p.set_defaults(fn=cmd_bench_load)
