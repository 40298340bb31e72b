"""The bench's fresh processes: a whole-library ingest in a child process (its own throughput and peak memory), and
cold start, a new process timed from its start to its first answered question."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tutor.config import PROJECT_ROOT
from tutor.evaluation.bench_queries import median

if TYPE_CHECKING:
    from tutor.evaluation.questions import Question

_INGEST_CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from pathlib import Path
from tutor.retrieval.embedding import default_embedder
from tutor.ingest.builder import discover, ingest
from tutor.retrieval.vector_cache import e5_passage_cache
from tutor.safety.crosslingual import ingest_judge
from tutor.store.backends import open_store


class Timed:
    # the real embedder, with the seconds spent in it counted (the rest is extraction, chunking and writing)
    def __init__(self, inner):
        self.inner, self.name, self.dim, self.seconds = inner, inner.name, inner.dim, 0.0

    def _timed(self, fn, texts):
        t = time.perf_counter()
        try:
            return fn(texts)
        finally:
            self.seconds += time.perf_counter() - t

    def embed(self, texts):
        return self._timed(self.inner.embed, texts)

    def embed_query(self, texts):
        return self._timed(self.inner.embed_query, texts)

    def embed_passages(self, texts):
        return self._timed(self.inner.embed_passages, texts)


emb = Timed(default_embedder())
# the e5 vectors for Hindi questions, as `python -m tutor ingest` makes them, into an empty store: all of them made
judge = ingest_judge()
if judge is not None:
    judge.store = e5_passage_cache(sys.argv[5])
    judge._embedder = e5 = Timed(judge.embedder)
items = discover([Path(sys.argv[1])])
t1 = time.perf_counter()
store = open_store(sys.argv[2], sys.argv[3] or None, sys.argv[4] or None)
report = ingest(items, store, emb, index_type="auto", cross_judge=judge)
t2 = time.perf_counter()
print("BENCH-RESULT " + json.dumps({
    "seconds": report.seconds, "wall_s": t2 - t1, "startup_s": t1 - t0, "embed_s": emb.seconds,
    "files": len(report.files), "refused": len(report.refused), "pages": sum(f.pages for f in report.files),
    "pages_used": report.pages, "chunks": report.chunks, "precision": getattr(emb.inner, "precision", "fp32"),
    "engine": getattr(emb.inner, "engine", "torch"), "e5_s": e5.seconds if judge is not None else None,
    "e5_engine": getattr(e5.inner, "engine", "") if judge is not None else None,
    "e5_precision": getattr(e5.inner, "precision", "") if judge is not None else None,
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "workers_peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
}))
"""

_COLD_CHILD = r"""
import time, sys
t0 = time.perf_counter()
import json
from tutor.build import build_tutor
from tutor.config import database_url
from tutor.retrieval.search import Library
from tutor.store.backends import open_store
t1 = time.perf_counter()
lib = Library(sys.argv[1], store=open_store(sys.argv[1], database_url(), sys.argv[7] or None))
tutor = build_tutor(lib, policy=sys.argv[6] or None, audit=sys.argv[2], models=False)
ans = tutor.ask(sys.argv[3], sys.argv[4], sys.argv[5])
t2 = time.perf_counter()
print("BENCH-RESULT " + json.dumps({"done_at": time.time(), "imports_s": t1 - t0, "first_question_s": t2 - t1,
                                    "answered": not ans.was_refusal, "reason": ans.reason,
                                    "timings_ms": ans.timings_ms}))
"""


def _child(code: str, argv: list[str], timeout: float) -> dict[str, Any]:
    env = dict(os.environ)
    env.setdefault("PYTHONPATH", str(PROJECT_ROOT))
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=timeout,
                          cwd=str(PROJECT_ROOT), env=env)
    for line in proc.stdout.splitlines():
        if line.startswith("BENCH-RESULT "):
            return json.loads(line.removeprefix("BENCH-RESULT "))
    raise RuntimeError(f"bench child process failed (exit {proc.returncode}): {proc.stderr[-2000:]}")


def measure_cold_start(index_root: Path, question: Question, policy_path: Path | None, runs: int,
                       tmp: Path, namespace: str | None = None) -> dict[str, Any]:
    """A fresh `python -c` process: seconds from its start to its first answered question (median of runs); its
    shelves under `index_root`, or in `namespace` of the database `TUTOR_DATABASE_URL` names."""
    results = []
    for r in range(runs):
        t0 = time.time()
        got = _child(_COLD_CHILD, [str(index_root), str(tmp / f"cold-audit-{r}.sqlite3"), question.question,
                                   question.klass, question.subject, str(policy_path or ""), namespace or ""],
                     timeout=600)
        got["cold_start_s"] = got["done_at"] - t0
        results.append(got)
    return {
        "cold_start_s": round(median(r["cold_start_s"] for r in results), 2),
        "imports_s": round(median(r["imports_s"] for r in results), 2),
        "first_question_s": round(median(r["first_question_s"] for r in results), 2),
        "answered": all(r["answered"] for r in results), "reason": results[-1]["reason"], "runs": runs,
        "question": question.question,
    }


def measure_ingest(library: Path, tmp: Path, url: str | None = None) -> dict[str, Any]:
    """A fresh ingest of the whole library in a child process (its peak memory is then the ingest's own): into a
    folder under `tmp`, or into a fresh namespace of the database `url`, dropped afterwards. Where the policy judges
    Hindi questions with e5, the e5 vectors of the English shelves are made too (into an empty store): `e5_s` is the
    time spent in e5, `embed_s` in MiniLM."""
    namespace = f"bench_fresh_{uuid.uuid4().hex[:12]}" if url else ""
    try:
        got = _child(_INGEST_CHILD, [str(library), str(tmp / "fresh-index"), url or "", namespace,
                                     str(tmp / "fresh-e5-vectors.sqlite3")], timeout=3600)
    finally:
        if url:
            from tutor.store.pg_shelf import PgShelfStore

            PgShelfStore(url, tmp, namespace).drop_namespace()
    secs = max(got["seconds"], 1e-9)
    return {
        "seconds": round(got["seconds"], 2), "pages": got["pages"], "pages_used": got["pages_used"],
        "chunks": got["chunks"], "files": got["files"], "refused": got["refused"],
        "pages_per_s": round(got["pages"] / secs, 2), "chunks_per_s": round(got["chunks"] / secs, 2),
        "peak_mb": round(got["peak_mb"] + got["workers_peak_mb"], 1), "main_peak_mb": round(got["peak_mb"], 1),
        "workers_peak_mb": round(got["workers_peak_mb"], 1), "model_load_s": round(got["startup_s"], 2),
        "embed_s": round(got["embed_s"], 2),
        "extract_chunk_write_s": round(got["seconds"] - got["embed_s"] - (got["e5_s"] or 0), 2),
        "precision": got["precision"], "engine": got["engine"], "index_root": str(tmp / "fresh-index"),
        "e5_s": None if got["e5_s"] is None else round(got["e5_s"], 2), "e5_engine": got["e5_engine"],
        "e5_precision": got.get("e5_precision"),
    }
