"""The bench's search measurements: exact and approximate FAISS search on synthetic shelves of up to a million chunks
(latency, build time, memory, recall@10 against exact search), and chapter-level recall@5 of real shelves."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tutor.evaluation.metrics import percentile


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


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


def index_memory_mb(index) -> float:
    """What the index holds (vectors, lists, graph): its serialised size, which is also its size on disk."""
    import faiss

    return round(faiss.serialize_index(index).nbytes / 2**20, 1)


def measure_scale(base: np.ndarray, queries: np.ndarray, sizes: Sequence[int], queries_per_size: int,
                  hnsw_sizes: Sequence[int], approximate_above: int, k: int = 10,
                  log: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Exact and approximate search on synthetic shelves of each size: latency of one question at a time (as
    `Shelf.search` runs), build time, memory, and recall@10 of the approximate index against exact search."""
    from tutor.store.faiss_index import APPROXIMATE_INDEX, build_index, choose_index_type, search_index

    rows = []
    for n in sizes:
        t0 = time.perf_counter()
        vectors = synthetic_shelf(base, n, seed=n)
        gen_s = time.perf_counter() - t0
        nq = min(len(queries), queries_per_size if n < 1_000_000 else max(queries_per_size // 2, 1))
        qs = queries[:nq]
        exact: list[np.ndarray] = []
        kinds = ["flat-ip", APPROXIMATE_INDEX] + (["hnsw-ip"] if n in hnsw_sizes else [])
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


def measure_recall(shelf_sets: dict[str, tuple[Any, Any]], questions: Sequence[Any], k: int = 5) -> dict[str, Any]:
    """Chapter-level recall@k over the answerable questions, counting evidence chunks only, for each named set of
    shelves (a store: tutor.store.backends.open_store) with the embedder that made them (its questions are embedded
    by the same one)."""
    answerable = [q for q in questions if q.expect == "answer" and q.gold_file]
    out: dict[str, Any] = {"k": k, "questions": len(answerable)}
    for name, (store, embedder) in shelf_sets.items():
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
