"""What ingest's embedding for Hindi questions costs (tutor/ingest/cross_vectors.py): the e5 vectors of an existing
evaluation shelf's evidence chunks or windows written into an empty vector store, timed.

    python scripts/xling_warm_cost.py science [social-science ...] [--unit window,chunk]

Reads data/eval-index/ncert (built by `python -m tutor eval` with the shared NCERT questions); writes only to a
temporary file. About two minutes per unit for the Class 10 Science shelf on 2 cores.
"""
from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from tutor.config import data_dir
from tutor.ingest.cross_vectors import warm_shelves
from tutor.retrieval.vector_cache import VectorCache
from tutor.safety.crosslingual import E5Similarity
from tutor.store.shelf import ShelfStore


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("subjects", nargs="*", help="shelves of the evaluation library (default: all)")
    ap.add_argument("--unit", default="window", help="chunk, window, or both comma-separated")
    ap.add_argument("--eval-index", type=Path, default=data_dir() / "eval-index" / "ncert")
    args = ap.parse_args()
    store = ShelfStore(args.eval_index)
    keys = [k for k in store.keys() if not args.subjects or k.subject in args.subjects]
    with tempfile.TemporaryDirectory() as tmp:
        for unit in args.unit.split(","):
            judge = E5Similarity(store=VectorCache(Path(tmp) / f"{unit}.sqlite3", "e5:passage", 384), unit=unit)
            t0 = time.perf_counter()
            lines = warm_shelves(store, keys, judge, lambda done, total, message: None)
            seconds = time.perf_counter() - t0
            for key, line in lines.items():
                print(f"{unit}: {key.klass}/{key.subject}: {line}")
            size = (Path(tmp) / f"{unit}.sqlite3").stat().st_size / 1e6
            print(f"{unit}: {seconds:.0f} s, {size:.1f} MB on disk, max RSS "
                  f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
