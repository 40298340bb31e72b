"""`python -m tutor bench-load` (students asking at once from several processes on one PostgreSQL database),
`bench-pgvector` (synthetic shelves of up to a million chunks on pgvector HNSW) and `bench-pgshelf` (the same
written and searched through the app's own store)."""
from __future__ import annotations

import argparse
import sys
import tempfile
from contextlib import nullcontext
from pathlib import Path

from tutor.cli.evaluation import write_json
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
        write_json(args.json_out, r)
    return 0 if r["audit_ok"] and not r["error_count"] else 1


def _base_vectors(index_dir: Path, tmp: Path):
    """Real chunk embeddings to shape the synthetic shelves: the shelves under --index-dir, else the bundled sample
    library ingested with MiniLM into `tmp`."""
    import numpy as np

    from tutor.config import PROJECT_ROOT
    from tutor.ingest.builder import discover, ingest
    from tutor.store.shelf import ShelfStore

    store = ShelfStore(index_dir)
    if not store.keys():
        store = ShelfStore(tmp / "index")
        ingest(discover([PROJECT_ROOT / "data" / "sample" / "library"]), store, None)
    return np.concatenate([store.load(k.klass, k.subject).vectors for k in store.keys()])


def cmd_bench_pgvector(args: argparse.Namespace) -> int:
    from tutor.config import database_url
    from tutor.evaluation.bench_load import private_server
    from tutor.evaluation.bench_pgvector import measure_pgvector
    from tutor.evaluation.bench_scale import synthetic_shelf

    url = args.database_url or database_url()
    rows = []
    with tempfile.TemporaryDirectory(prefix="tutor-pgvector-") as tmp:
        base = _base_vectors(args.index_dir, Path(tmp))
        queries = synthetic_shelf(base, args.queries, seed=1)  # near the data, as real questions are
        with nullcontext(url) if url else private_server(Path(tmp)) as db:
            for size in args.size:
                print(f"{size:,} chunks", file=sys.stderr)
                rows += measure_pgvector(db, base, queries, size, m=args.m, ef_construction=args.ef_construction,
                                         ef_search=args.ef_search, maintenance_mem=args.maintenance_mem,
                                         log=lambda m: print(m, file=sys.stderr))
    print(f"{'size':>10} {'index':36} {'ef':>4} {'p50 ms':>7} {'p95 ms':>7} {'recall@10':>9} {'build s':>8} {'MB':>7}")
    for r in rows:
        print(f"{r['size']:>10,} {r['index']:36} {r['ef_search']:>4} {r['search_ms_p50']:7.2f} "
              f"{r['search_ms_p95']:7.2f} {r['recall_at_10']:9.3f} {r['build_s']:8.1f} {r['index_mb']:7.1f}")
    if args.json_out:
        write_json(args.json_out, rows)
    return 0


def cmd_bench_pgshelf(args: argparse.Namespace) -> int:
    from tutor.config import database_url
    from tutor.evaluation.bench_load import private_server
    from tutor.evaluation.bench_pgshelf import measure_pgshelf

    url = args.database_url or database_url()
    rows = []
    with tempfile.TemporaryDirectory(prefix="tutor-pgshelf-") as tmp:
        base = _base_vectors(args.index_dir, Path(tmp)) if args.vectors == "shaped" else None
        with nullcontext(url) if url else private_server(Path(tmp)) as db:
            for size in args.size:
                print(f"{size:,} chunks", file=sys.stderr)
                rows.append(measure_pgshelf(db, size, n_queries=args.queries, ef_search=args.ef_search, base=base,
                                            log=lambda m: print(m, file=sys.stderr)))
    for r in rows:
        print(f"{r['size']:,} chunks: write {r['write_s']} s (copy {r['copy_s']}, HNSW {r['index_s']}, lexical "
              f"{r['lexical_s']}); cold replica's first question {r['first_question_s']} s; replica RSS "
              f"{r['rss_mb']}; lexical p50/p95 {r['lexical_ms_p50']}/{r['lexical_ms_p95']} ms")
        for d in r["dense"]:
            print(f"  ef_search {d['ef_search']:>4}: p50 {d['search_ms_p50']} ms, p95 {d['search_ms_p95']} ms, "
                  f"recall@10 {d['recall_at_10']}")
    if args.json_out:
        write_json(args.json_out, rows)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench-pgshelf", help="a synthetic shelf written and searched through the app's Postgres "
                       "store: write, index build, cold replica, p50/p95 at recall@10, replica memory",
                       parents=[REPORT])
    p.add_argument("--size", type=int, nargs="+", default=[100_000], help="chunks per run, e.g. 100000 1000000")
    p.add_argument("--database-url", help="default: TUTOR_DATABASE_URL, else a private server started for the run")
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--ef-search", type=int, nargs="+", default=[40, 100, 200], help="search breadths to time")
    p.add_argument("--vectors", choices=("shaped", "random"), default="shaped", help="shaped: mixtures of real "
                   "chunk embeddings with noise, questions near them (bench_scale.synthetic_shelf); random: isotropic "
                   "unit vectors and questions, where every neighbour is about as far as any other")
    p.set_defaults(fn=cmd_bench_pgshelf)

    p = sub.add_parser("bench-pgvector", help="synthetic shelves on pgvector HNSW: build time, p95, recall@10",
                       parents=[REPORT])
    p.add_argument("--size", type=int, nargs="+", default=[100_000], help="chunks per run, e.g. 100000 1000000")
    p.add_argument("--database-url", help="default: TUTOR_DATABASE_URL, else a private server started for the run")
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--m", type=int, default=16, help="HNSW links per node")
    p.add_argument("--ef-construction", type=int, default=64)
    p.add_argument("--ef-search", type=int, nargs="+", default=[40, 100], help="search breadths to time on the one "
                   "index (40: pgvector's default)")
    p.add_argument("--maintenance-mem", default="4GB", help="maintenance_work_mem for the build: the graph must fit "
                   "(about 2.2 KB a vector; 1M vectors need more than 2GB)")
    p.set_defaults(fn=cmd_bench_pgvector)

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
