"""FAISS indexes over a shelf's unit vectors: exact inner-product search for ordinary shelves, an inverted-file index
with 8-bit codes (re-scored exactly) above the policy's `approximate_index_above`, and a search that returns true
cosines either way. The shelf (tutor/store/shelf.py) keeps one of these per version.
"""
from __future__ import annotations

import contextlib
import os

import numpy as np

# FAISS brings its own OpenMP runtime, which reads this once, as faiss loads; tutor/retrieval/embedding.py says
# why passive
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import faiss  # noqa: E402

# Index types: exact search up to the policy's `approximate_index_above`, an inverted-file index above it.
# IVF rather than HNSW: on these 2 cores IVF builds a 1M-chunk shelf in about 20 s (HNSW needs minutes). Its cells
# hold 8-bit codes (a quarter of the bytes to scan per question) and the candidates are re-scored exactly with the
# shelf's own vectors, so the scores the gate sees are true cosines. `python -m tutor bench` measures all of it.
APPROXIMATE_INDEX = "ivf-sq8-ip"
INDEX_TYPES = ("flat-ip", "hnsw-ip", APPROXIMATE_INDEX, "auto")
RERANK_FACTOR = 4  # candidates taken from the 8-bit codes per chunk wanted, before exact re-scoring


def choose_index_type(n_vectors: int, approximate_above: int) -> str:
    """Exact search up to `approximate_above` vectors (fast enough there, and it never misses), approximate above."""
    return APPROXIMATE_INDEX if n_vectors > approximate_above else "flat-ip"


def ivf_lists(n_vectors: int) -> int:
    """IVF cells: about sqrt(n) (1,000 for a million chunks), with at least 39 training points per cell."""
    return int(max(1, min(int(round(np.sqrt(max(n_vectors, 1)))), n_vectors // 39, 16_384)))


def ivf_probes(n_lists: int) -> int:
    """Cells searched per question: one in 16 (at least 32). Measured on a synthetic 1M shelf searched with the
    NCERT questions: recall@10 0.97-0.99 at 62 of 1,000 cells, against 0.95-0.975 at 32."""
    return int(min(n_lists, max(32, n_lists // 16)))


def policy_approximate_above() -> int:
    from tutor.policy import load_policy

    return load_policy().approximate_index_above


def build_index(vectors: np.ndarray, index_type: str = "flat-ip", hnsw_m: int = 32,
                approximate_above: int | None = None) -> faiss.Index:
    """An inner-product index over unit vectors, so FAISS returns cosine similarity (not an L2 distance).

    `auto` picks exact search (`flat-ip`) up to `approximate_above` vectors (default: the policy's
    `approximate_index_above`) and `ivf-sq8-ip` above it.
    """
    if index_type not in INDEX_TYPES:
        raise ValueError(f"unknown index type {index_type!r}: use one of {', '.join(INDEX_TYPES)}")
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    dim = vectors.shape[1]
    if index_type == "auto":
        limit = policy_approximate_above() if approximate_above is None else approximate_above
        index_type = choose_index_type(len(vectors), limit)
    if index_type == "flat-ip":
        index = faiss.IndexFlatIP(dim)
    elif index_type == "hnsw-ip":
        index = faiss.IndexHNSWFlat(dim, hnsw_m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = 80
        index.hnsw.efSearch = 64
    else:
        index = _ivf_sq8(vectors)
    if len(vectors):
        index.add(vectors)
    return index


def _ivf_sq8(vectors: np.ndarray) -> faiss.Index:
    """IVF over 8-bit codes, trained here on a fixed sample (a rebuild is deterministic); nprobe is saved with it."""
    n, dim = vectors.shape
    if n == 0:  # nothing to train on: an empty shelf is searched exactly
        return faiss.IndexFlatIP(dim)
    nlist = ivf_lists(n)
    index = faiss.IndexIVFScalarQuantizer(faiss.IndexFlatIP(dim), dim, nlist, faiss.ScalarQuantizer.QT_8bit,
                                          faiss.METRIC_INNER_PRODUCT, False)
    index.cp.max_points_per_centroid = 64  # k-means on at most 64 points a cell: seconds, not minutes
    index.cp.min_points_per_centroid = 1  # tiny shelves train one cell without a warning
    sample = vectors
    if n > 64 * nlist:
        sample = vectors[np.sort(np.random.default_rng(0).choice(n, 64 * nlist, replace=False))]
    index.train(sample)
    index.nprobe = ivf_probes(nlist)
    return index


def search_index(index: faiss.Index, query_vec: np.ndarray, k: int,
                 vectors: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One question's top k: cosine similarities (higher is closer, best first) and row ids (-1 fills the slots an
    approximate index found nothing for). An index of 8-bit codes gives RERANK_FACTOR x k candidates, re-scored
    exactly against `vectors` (the shelf's own) when given, so the scores are true cosines.

    Runs on one OpenMP thread: for a single question FAISS's second thread costs more than it saves (measured 0.55
    against 1.55 ms on 10k chunks, 12 against 16 ms on 100k), and far more when another process holds a core.
    """
    q = np.ascontiguousarray(np.asarray(query_vec, dtype=np.float32).reshape(1, -1))
    with _one_thread():
        if vectors is None or not isinstance(index, faiss.IndexIVFScalarQuantizer):
            scores, ids = index.search(q, k)
            return scores[0], ids[0]
        _, cand = index.search(q, min(k * RERANK_FACTOR, index.ntotal))
    cand = cand[0][cand[0] >= 0]
    exact = vectors[cand] @ q[0]
    top = np.argsort(-exact, kind="stable")[:k]
    scores = np.full(k, -np.inf, dtype=np.float32)
    ids = np.full(k, -1, dtype=np.int64)
    scores[: len(top)], ids[: len(top)] = exact[top], cand[top]
    return scores, ids


@contextlib.contextmanager
def _one_thread():
    # OpenMP's thread count is per calling thread, so this leaves other threads (and index builds) alone
    before = faiss.omp_get_max_threads()
    if before != 1:
        faiss.omp_set_num_threads(1)
    try:
        yield
    finally:
        if before != 1:
            faiss.omp_set_num_threads(before)
