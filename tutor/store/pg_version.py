"""One shelf version in PostgreSQL tables of its own (tutor/store/pg_shelf.py keeps the pointers): how it is bulk
loaded, indexed once after the load, and searched in the database per question by a PgShelf that holds no vectors.

Why a table per version: the HNSW index is built once over a finished version (a bulk build, far faster than a graph
grown row by row) while the live version's table and index serve questions untouched, and dropping an old version
is one DROP TABLE. With one table per version the dense query needs no shelf or version filter, so HNSW returns
the true k nearest of that version at its `ef_search` breadth (no `iterative_scan` needed). Scores are
`1 - (embedding <=> query)`: the cosine similarity of unit vectors (higher is closer, in [-1, 1]), the scale the
gate is calibrated on.
"""
from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from tutor.retrieval.lexical import LexicalIndex
from tutor.store.pg_lexical import PgLexical, lexical_index_sql, lexical_tables_sql, write_lexical
from tutor.store.shelf import Manifest, Shelf, ShelfKey
from tutor.text.terms import TermStats
from tutor.types import Chunk

HNSW_M, HNSW_EF_CONSTRUCTION = 16, 64  # pgvector's defaults; bench-pgshelf measures recall with them
CHUNK_CACHE = 2048  # rows of chunks a loaded shelf keeps (bounded: memory does not grow with the shelf)

Run = Callable[..., list[tuple]]  # run(sql, args, hnsw=False): the store's read (PgShelfStore._read)


def index_build_memory(n: int, dim: int) -> str:
    """maintenance_work_mem for one HNSW build: the graph must fit (about 2.2 KB a 384-d vector at m 16, so 6 bytes a
    dimension), or pgvector goes on building on disk, many times slower; at most 8 GB."""
    return f"{min(8192, 64 + int(n * dim * 6 / 2**20))}MB"


def version_table(klass: str, subject: str, version: str) -> str:
    """The name of a version's chunk table (its postings and vocabulary tables add `_post`, `_vocab`): made here
    from a hash, never from user input, so it is always a plain identifier."""
    return "sv_" + hashlib.sha1(f"{klass}/{subject}/{version}".encode()).hexdigest()[:24]


def drop_version_sql(table: str) -> str:
    return f"DROP TABLE IF EXISTS {table}, {table}_post, {table}_vocab"


def load_version(con, table: str, manifest: Manifest, chunks: Sequence[Chunk], matrix: np.ndarray) -> dict:
    """Create and fill a version's tables inside the caller's transaction (nothing is visible before its commit):
    the chunks and vectors by COPY, then the primary key, the HNSW index and the lexical postings, each built once
    over the finished table. Returns the seconds of each step and what the store keeps in `shelf_versions.lexical`."""
    dim = int(manifest.dim)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    con.execute(f"SET LOCAL maintenance_work_mem = '{index_build_memory(len(matrix), dim)}'")
    con.execute(f"CREATE TABLE {table} (row INTEGER NOT NULL, chunk JSON NOT NULL, embedding vector({dim}) NOT NULL)")
    with con.cursor() as cur, cur.copy(f"COPY {table} (row, chunk, embedding) FROM STDIN WITH (FORMAT BINARY)") as cp:
        cp.set_types(["int4", "text", "vector"])  # json's binary form is its text
        for i, (c, v) in enumerate(zip(chunks, matrix)):
            cp.write_row((i, json.dumps(c.to_dict(), ensure_ascii=False), v))
    con.execute(f"ALTER TABLE {table} ADD PRIMARY KEY (row)")
    timings["copy_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    con.execute(f"CREATE INDEX ON {table} USING hnsw (embedding vector_cosine_ops) "
                f"WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION})")
    timings["index_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    texts, include = [c.text for c in chunks], [c.is_evidence for c in chunks]
    lexical = LexicalIndex(texts, include)
    con.execute(lexical_tables_sql(table))
    with con.cursor() as cur:
        postings = write_lexical(cur, table, lexical)
    con.execute(lexical_index_sql(table))
    meta = {"n_docs": lexical.n_docs, "n_indexed": lexical.n_indexed, "postings": postings,
            "term_stats": TermStats(texts).to_dict()}
    timings["lexical_s"] = time.perf_counter() - t0
    return {"timings": timings, "meta": meta}


class RowChunks(Sequence):
    """A version's chunks, fetched from its table by row and kept in a bounded cache: `shelf.chunks[i]` as on a
    loaded shelf, without the shelf in memory. Iterating reads every row in one query (an ingest's rebuild, a
    selected passage's page check) and keeps none of them."""

    def __init__(self, table: str, n: int, run: Run):
        self.table, self.n, self._run = table, int(n), run
        self._cache: OrderedDict[int, Chunk] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self.n

    def remember(self, row: int, chunk: Chunk) -> None:
        with self._lock:
            self._cache[row] = chunk
            self._cache.move_to_end(row)
            while len(self._cache) > CHUNK_CACHE:
                self._cache.popitem(last=False)

    def fetch(self, rows: Sequence[int]) -> None:
        """Read the rows not cached yet, in one query."""
        with self._lock:
            missing = sorted({int(r) for r in rows} - set(self._cache))
        if missing:
            for r, c in self._run(f"SELECT row, chunk FROM {self.table} WHERE row = ANY(%s)", (missing,)):
                self.remember(int(r), Chunk.from_dict(c))

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self.n))]
        i = int(i) + (self.n if int(i) < 0 else 0)
        if not 0 <= i < self.n:
            raise IndexError(f"row {i} of a shelf of {self.n} chunks")
        with self._lock:
            got = self._cache.get(i)
        if got is None:
            self.fetch([i])
            with self._lock:
                got = self._cache[i]
        return got

    def __iter__(self) -> Iterator[Chunk]:
        for (c,) in self._run(f"SELECT chunk FROM {self.table} ORDER BY row", ()):
            yield Chunk.from_dict(c)


class PgShelf(Shelf):
    """A loaded version of a database shelf: its manifest, term statistics and lexical vocabulary; every search
    (dense, BM25, trigram) and every chunk read goes to its tables. It holds no vector matrix: `vectors` reads the
    whole matrix from the database for the rare caller that needs it (an ingest rebuilding the shelf) and keeps
    nothing."""

    def __init__(self, manifest: Manifest, version: str, table: str, meta: dict, run: Run):
        self.manifest, self.version, self.table, self._meta, self._run = manifest, version, table, meta, run
        self.key = ShelfKey(manifest.klass, manifest.subject)
        self.index = None
        self.chunks = RowChunks(table, manifest.n_chunks, run)
        self._lexical = None
        self._lexical_lock = threading.Lock()

    searched_in_database = True

    @property
    def vectors(self) -> np.ndarray:
        rows = self._run(f"SELECT embedding FROM {self.table} ORDER BY row", ())
        if not rows:
            return np.zeros((0, self.manifest.dim), dtype=np.float32)
        return np.stack([vector_array(r[0]) for r in rows])

    @property
    def lexical(self) -> PgLexical:
        if self._lexical is None:
            with self._lexical_lock:
                if self._lexical is None:
                    vocab = self._run(f"SELECT kind, id, word, term, idf FROM {self.table}_vocab", ())
                    self._lexical = PgLexical(self.table, self._meta["n_docs"], self._meta["n_indexed"], vocab,
                                              self._run)
        return self._lexical

    def term_stats(self) -> TermStats:
        return TermStats.from_dict(self._meta["term_stats"])

    def search_rows(self, query_vec: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(row, cosine similarity) of the k nearest chunks, best first: one HNSW query, which also brings the
        chunks (kept for the hits this question makes of them)."""
        if not self.chunks or k <= 0:
            return []
        q = np.asarray(query_vec, dtype=np.float32).reshape(-1)
        rows = self._run(f"SELECT row, 1 - (embedding <=> %(q)s), chunk FROM {self.table}"
                         f" ORDER BY embedding <=> %(q)s LIMIT %(n)s", {"q": q, "n": min(int(k), len(self.chunks))},
                         hnsw=True)
        return [self._keep(r, c, cos) for r, cos, c in rows]

    def cosines(self, rows: list[int], query_vec: np.ndarray) -> np.ndarray:
        if not rows:
            return np.zeros(0, dtype=np.float32)
        q = np.asarray(query_vec, dtype=np.float32).reshape(-1)
        got = dict(self._keep(r, c, cos) for r, cos, c in self._run(
            f"SELECT row, 1 - (embedding <=> %(q)s), chunk FROM {self.table} WHERE row = ANY(%(rows)s)",
            {"q": q, "rows": [int(r) for r in rows]}))
        return np.asarray([got[int(r)] for r in rows], dtype=np.float32)

    def _keep(self, row: int, chunk: dict, cos: float) -> tuple[int, float]:
        self.chunks.remember(int(row), Chunk.from_dict(chunk))
        return int(row), float(cos)


def vector_array(value) -> np.ndarray:
    """A vector column's value as float32 (pgvector's loader gives a Vector for an untyped column; its to_numpy() is
    float32 already)."""
    return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=np.float32)
