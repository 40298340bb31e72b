"""Passage vectors kept on disk, by the text they embed: what the cross-lingual judge reads at question time.

The e5 judge (tutor/safety/crosslingual.py) scores a Hindi question against English chunks with multilingual e5, but
English shelves are embedded with MiniLM: without this, each of a question's five chunks is embedded at question time
(about a second on 2 cores). Ingest embeds every chunk of such a shelf once and keeps the vectors here, so a question
embeds only itself.

The store is content-addressed: a row is (model, SHA-256 of the text) -> float32 vector. A text's vector never changes
for a given model, so one file serves every shelf, every version and every store on the machine (the evaluation
shelves too), a rollback or a removed chapter leaves nothing stale, and a shelf on PostgreSQL is served from the local
file of whichever machine embedded its chunks. It is a cache and nothing more: a missing, locked or damaged file is a
miss (the vector is then computed), never a failed question.
"""
from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class VectorCache:
    """Vectors of one model (`model`, e.g. "multilingual-e5-small:passage") in the SQLite file `path`."""

    def __init__(self, path: str | Path, model: str, dim: int) -> None:
        self.path, self.model, self.dim = Path(path), model, dim
        self._lock = threading.Lock()
        self._broken = False  # after a damaged file, stop trying for the life of the process

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(self.path, timeout=5)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, key BLOB NOT NULL, vec BLOB NOT NULL, "
                    "PRIMARY KEY (model, key))")
        return con

    def _run(self, what: str, fn):
        if self._broken:
            return None
        try:
            with self._lock:
                con = self._connect()
                try:
                    with con:
                        return fn(con)
                finally:
                    con.close()
        except (sqlite3.Error, OSError) as e:
            if isinstance(e, sqlite3.DatabaseError) and not isinstance(e, sqlite3.OperationalError):
                self._broken = True  # not a database, or a damaged one: a cache, so carry on without it
            log.warning("vector cache %s: %s failed (%s: %s); computing instead", self.path, what, type(e).__name__, e)
            return None

    def get(self, texts: Iterable[str]) -> dict[str, np.ndarray]:
        """The stored vectors of those `texts` that have one."""
        keys = {text_key(t): t for t in dict.fromkeys(texts)}
        if not keys:
            return {}

        def read(con: sqlite3.Connection) -> dict[str, np.ndarray]:
            found: dict[str, np.ndarray] = {}
            items = list(keys)
            for s in range(0, len(items), 500):  # SQLite's bound-parameter limit
                part = items[s:s + 500]
                rows = con.execute(f"SELECT key, vec FROM vectors WHERE model = ? AND key IN "
                                   f"({','.join('?' * len(part))})", [self.model, *part]).fetchall()
                for key, blob in rows:
                    vec = np.frombuffer(blob, dtype=np.float32)
                    if vec.shape == (self.dim,):  # a row of another width is not this model's: ignored
                        found[keys[bytes(key)]] = vec
            return found

        return self._run("reading", read) or {}

    def put(self, vectors: Mapping[str, np.ndarray]) -> None:
        rows = [(self.model, text_key(t), np.asarray(v, dtype=np.float32).reshape(self.dim).tobytes())
                for t, v in vectors.items()]
        if rows:
            self._run("writing", lambda con: con.executemany(
                "INSERT OR REPLACE INTO vectors (model, key, vec) VALUES (?, ?, ?)", rows))

    def count(self) -> int:
        return self._run("counting", lambda con: con.execute(
            "SELECT COUNT(*) FROM vectors WHERE model = ?", [self.model]).fetchone()[0]) or 0


def e5_passage_cache(path: str | Path | None = None, precision: str | None = None) -> VectorCache:
    """The store of multilingual e5's passage vectors ("passage: " prefix) in `precision` (default: the judge's,
    `judge_precision`): `path`, else the configured file (`TUTOR_VECTOR_CACHE`, else `<data dir>/vector-cache.sqlite3`).
    int8 vectors are kept under their own name, so vectors of the two precisions are never mixed in one judgement."""
    from tutor.config import vector_cache_path
    from tutor.retrieval.embedding import E5_NAME, judge_precision

    return VectorCache(path or vector_cache_path(), passage_model(E5_NAME, judge_precision(precision)), 384)


def passage_model(name: str, precision: str) -> str:
    """The name passage vectors of the model `name` run in `precision` are kept under."""
    return f"{name}:passage" + ("" if precision == "fp32" else f":{precision}")


def in_precision(cache: VectorCache, name: str, precision: str) -> VectorCache:
    """`cache`'s file, keyed by `precision` of the model `name`: the store for vectors of the precision a model
    actually ran in (an e5 asked for in int8 runs fp32 where its int8 file cannot be made), so vectors made in one
    precision are never read as the other's."""
    model = passage_model(name, precision)
    return cache if cache.model == model else VectorCache(cache.path, model, cache.dim)
