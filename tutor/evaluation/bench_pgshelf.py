"""The scale of a shelf written and searched through the app's own store (tutor/store/pg_shelf.py), where
bench_pgvector.py measures a bare table: write time (COPY, HNSW build, lexical postings), a cold replica's first
question, p50/p95 of a question's dense and lexical search, recall@10 against exact search, and the replica's
resident memory.

The replica runs in a fresh process (spawned, so nothing of the writer's memory is in it): its resident memory
before opening the store, after loading the shelf, and after the questions is what one app process pays for the
shelf. Chunk texts are short synthetic sentences over a made-up vocabulary: the lexical postings are real but
smaller than a textbook's (about 20 words a chunk, where NCERT chunks hold about 200).
"""
from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tutor.evaluation.bench_pgvector import exact_top_k
from tutor.evaluation.bench_scale import recall_at_k
from tutor.evaluation.metrics import percentile
from tutor.question import Question

NAMESPACE = "bench_pgshelf"
KLASS, SUBJECT = "10", "bench"


def random_unit_vectors(n: int, dim: int, seed: int) -> np.ndarray:
    """n random unit vectors (isotropic Gaussian, normalised): the hardest case for an approximate index."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, dim), dtype=np.float32)
    for s in range(0, n, 100_000):
        block = rng.standard_normal((min(100_000, n - s), dim), dtype=np.float32)
        out[s:s + len(block)] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def synthetic_texts(n: int, seed: int = 0, words_per_chunk: int = 20, vocabulary: int = 20_000) -> list[str]:
    """n sentences of made-up words (Zipf-like frequencies), so BM25 and trigram postings have a realistic shape."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocab = ["".join(rng.choice(letters, rng.integers(4, 10))) for _ in range(vocabulary)]
    p = 1.0 / np.arange(1, vocabulary + 1)
    picks = rng.choice(vocabulary, size=(n, words_per_chunk), p=p / p.sum())
    return [" ".join(vocab[j] for j in row) + "." for row in picks]


def _chunks(texts: Sequence[str]):
    from tutor.types import Chunk

    return [Chunk(chunk_id=f"{SUBJECT}:{i:07d}", klass=KLASS, subject=SUBJECT, chapter="Synthetic",
                  chapter_code="syn", file="synthetic.pdf", page_start=1 + i // 10, page_end=1 + i // 10,
                  section_kind="body", section="", text=t, sentences=((0, len(t), 1 + i // 10),))
            for i, t in enumerate(texts)]


def _rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def replica(url: str, queries: np.ndarray, ef_search: Sequence[int], k: int, questions: Sequence[str]) -> dict:
    """One cold app process: open the store, load the shelf, answer. Runs in a spawned child (see measure)."""
    from tutor.store.pg_shelf import PgShelfStore

    rss0 = _rss_mb()
    t0 = time.perf_counter()
    store = PgShelfStore(url, namespace=NAMESPACE)
    shelf = store.load(KLASS, SUBJECT)
    shelf.search_rows(queries[0], k)
    first_s = time.perf_counter() - t0
    rss_loaded = _rss_mb()
    runs = {}
    for ef in ef_search:
        store.ef_search = int(ef)
        found, ms = [], []
        for q in queries:
            t = time.perf_counter()
            found.append([r for r, _ in shelf.search_rows(q, k)])
            ms.append((time.perf_counter() - t) * 1000)
        runs[int(ef)] = (found, ms)
    lex_ms = []
    t = time.perf_counter()
    shelf.lexical  # noqa: B018 - the vocabulary's load, timed apart from the questions
    vocab_s = time.perf_counter() - t
    for question in map(Question.of, questions):  # read before the clock, as Tutor.ask reads it before its search
        t = time.perf_counter()
        shelf.lexical.search_bm25(question, 30, 0.5)
        shelf.lexical.search_trigram(question, 30)
        lex_ms.append((time.perf_counter() - t) * 1000)
    return {"first_question_s": first_s, "rss_start_mb": rss0, "rss_loaded_mb": rss_loaded, "runs": runs,
            "vocabulary_load_s": vocab_s, "lexical_ms": lex_ms, "rss_end_mb": _rss_mb(),
            "holds_vectors": any(isinstance(v, np.ndarray) for v in vars(shelf).values())}


def measure_pgshelf(url: str, size: int, *, dim: int = 384, n_queries: int = 200, k: int = 10,
                    ef_search: Sequence[int] = (40, 100, 200), base: np.ndarray | None = None,
                    log: Callable[[str], None] = print) -> dict[str, Any]:
    """Write a `size`-chunk shelf through PgShelfStore, then measure a cold replica; the namespace is dropped
    afterwards. Vectors: shaped like `base` (real chunk embeddings, bench_scale.synthetic_shelf, with questions
    near them, as bench-pgvector) when given, else random unit vectors and questions."""
    from tutor.evaluation.bench_scale import synthetic_shelf
    from tutor.store.pg_shelf import PgShelfStore
    from tutor.store.shelf import Manifest

    if base is None:
        vecs, queries = random_unit_vectors(size, dim, seed=0), random_unit_vectors(n_queries, dim, seed=1)
    else:
        vecs, queries = synthetic_shelf(base, size, seed=0), synthetic_shelf(base, n_queries, seed=1)
    texts = synthetic_texts(size)
    questions = [" ".join(t.split()[:4]) for t in texts[:: max(1, size // 50)][:50]]
    store = PgShelfStore(url, namespace=NAMESPACE)
    store.drop_namespace()
    try:
        t0 = time.perf_counter()
        store.write(Manifest(KLASS, SUBJECT, "synthetic", vecs.shape[1]), _chunks(texts), vecs)
        write_s = time.perf_counter() - t0
        log(f"  {size:,} chunks written in {write_s:.1f}s ({store.last_write})")
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            r = pool.apply(replica, (url, queries, list(ef_search), k, questions))
        sizes = store._read("SELECT pg_total_relation_size(chunk_table), pg_total_relation_size(chunk_table ||"
                            " '_post') FROM shelf_versions")[0]
    finally:
        store.drop_namespace()
    exact = exact_top_k(vecs, queries, k)
    return {"size": size, "dim": int(vecs.shape[1]), "vectors": "random unit" if base is None else "shaped",
            "write_s": round(write_s, 1), **{k_: round(v, 1) for k_, v in store.last_write.items()},
            "first_question_s": round(r["first_question_s"], 2),
            "rss_mb": {"start": round(r["rss_start_mb"]), "shelf_loaded": round(r["rss_loaded_mb"]),
                       "after_questions": round(r["rss_end_mb"])},
            "replica_holds_vectors": r["holds_vectors"], "table_mb": round(sizes[0] / 2**20),
            "postings_mb": round(sizes[1] / 2**20), "vocabulary_load_s": round(r["vocabulary_load_s"], 2),
            "lexical_ms_p50": round(percentile(r["lexical_ms"], 50), 2),
            "lexical_ms_p95": round(percentile(r["lexical_ms"], 95), 2),
            "dense": [{"ef_search": ef, "search_ms_p50": round(percentile(ms, 50), 2),
                       "search_ms_p95": round(percentile(ms, 95), 2),
                       f"recall_at_{k}": round(recall_at_k(found, exact, k), 4)}
                      for ef, (found, ms) in sorted(r["runs"].items())]}
