"""The scale measurement of bench_scale.py on pgvector: synthetic shelves of up to a million chunks in PostgreSQL
with an HNSW index (cosine), the build time, and search latency and recall@10 against exact search (numpy).

The table lives in a namespace of its own (dropped afterwards), shaped as the shelves' (`vector` column, HNSW with
`vector_cosine_ops`); each query is one `ORDER BY embedding <=> q LIMIT k` statement, timed from the client.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tutor.evaluation.bench_scale import recall_at_k, synthetic_shelf
from tutor.evaluation.metrics import percentile

NAMESPACE = "bench_pgvector_scale"


def exact_top_k(vectors: np.ndarray, queries: np.ndarray, k: int) -> list[list[int]]:
    """The ids of each query's k nearest vectors by cosine (unit vectors: the dot product), best first."""
    out = []
    for q in queries:
        scores = vectors @ q
        top = np.argpartition(-scores, k)[:k]
        out.append([int(i) for i in top[np.argsort(-scores[top], kind="stable")]])
    return out


def measure_pgvector(url: str, base: np.ndarray, queries: np.ndarray, size: int, *, k: int = 10, m: int = 16,
                     ef_construction: int = 64, ef_search: Sequence[int] = (40,), maintenance_mem: str = "4GB",
                     log: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Load `size` synthetic vectors (shaped like `base`, bench_scale.synthetic_shelf) into pgvector, build the HNSW
    index, and time `queries` against it: one row per `ef_search` (p50/p95 ms, recall@k against exact search) with
    the build and load seconds.

    The build is fast only while the graph fits in `maintenance_mem` (about 2.2 KB a 384-dimension vector at m 16:
    a million need more than 2 GB, and past it pgvector goes on building on disk, many times slower)."""
    import psycopg
    from pgvector.psycopg import register_vector

    vectors = synthetic_shelf(base, size, seed=0)
    dim = vectors.shape[1]
    with psycopg.connect(url, autocommit=True) as con:
        con.execute("CREATE EXTENSION IF NOT EXISTS vector")
        con.execute(f"DROP SCHEMA IF EXISTS {NAMESPACE} CASCADE")
        con.execute(f"CREATE SCHEMA {NAMESPACE}")
    try:
        with psycopg.connect(url, autocommit=True) as con:
            register_vector(con)
            con.execute(f"CREATE TABLE {NAMESPACE}.chunks (id INTEGER PRIMARY KEY, embedding vector({dim}) NOT NULL)")
            t0 = time.perf_counter()
            with con.cursor() as cur, cur.copy(f"COPY {NAMESPACE}.chunks (id, embedding) FROM STDIN "
                                               "WITH (FORMAT BINARY)") as copy:
                copy.set_types(["int4", "vector"])
                for i, v in enumerate(vectors):
                    copy.write_row((i, v))
            load_s = time.perf_counter() - t0
            log(f"  {size:,} vectors loaded in {load_s:.1f}s; building HNSW (m {m}, ef_construction "
                f"{ef_construction})")
            con.execute(f"SET maintenance_work_mem = '{maintenance_mem}'")
            t0 = time.perf_counter()
            con.execute(f"CREATE INDEX ON {NAMESPACE}.chunks USING hnsw (embedding vector_cosine_ops) "
                        f"WITH (m = {int(m)}, ef_construction = {int(ef_construction)})")
            build_s = time.perf_counter() - t0
            log(f"  HNSW built in {build_s:.1f}s")
            size_mb = con.execute("SELECT pg_relation_size(indexrelid) / 1048576.0 FROM pg_index "
                                  f"WHERE indrelid = '{NAMESPACE}.chunks'::regclass AND NOT indisprimary").fetchone()[0]
            sql = f"SELECT id FROM {NAMESPACE}.chunks ORDER BY embedding <=> %s LIMIT {int(k)}"
            plan = "\n".join(r[0] for r in con.execute("EXPLAIN " + sql, (queries[0],)).fetchall())
            runs = []
            for ef in ef_search:
                con.execute(f"SET hnsw.ef_search = {int(ef)}")
                for q in queries[:3]:  # warm the index pages
                    con.execute(sql, (q,)).fetchall()
                found, ms = [], []
                for q in queries:
                    t0 = time.perf_counter()
                    found.append([r[0] for r in con.execute(sql, (q,)).fetchall()])
                    ms.append((time.perf_counter() - t0) * 1000)
                runs.append((int(ef), found, ms))
    finally:
        with psycopg.connect(url, autocommit=True) as con:
            con.execute(f"DROP SCHEMA IF EXISTS {NAMESPACE} CASCADE")
    exact = exact_top_k(vectors, queries, k)
    return [{"size": size, "dim": dim, "index": f"pgvector hnsw m={m} ef_construction={ef_construction}",
             "ef_search": ef, "queries": len(queries), "load_s": round(load_s, 1), "build_s": round(build_s, 1),
             "maintenance_work_mem": maintenance_mem, "index_mb": round(float(size_mb), 1),
             "search_ms_p50": round(percentile(ms, 50), 2), "search_ms_p95": round(percentile(ms, 95), 2),
             f"recall_at_{k}": round(recall_at_k(found, exact, k), 4),
             "uses_index": "hnsw" in plan.lower() or "Index Scan" in plan} for ef, found, ms in runs]
