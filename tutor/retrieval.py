"""Retrieval over the library: top-k chunks of one shelf, and the best scores of every shelf.

Scores are cosine similarities of unit vectors (higher is closer, in [-1, 1]). Loaded shelves are cached per
version, so a shelf swapped in by an ingest is picked up on the next question and never half-read.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tutor.embedding import Embedder, embedder_by_name
from tutor.errors import EmptyQuestion, ShelfNotFound
from tutor.shelf import Hit, Shelf, ShelfKey, ShelfStore


@dataclass(frozen=True)
class ShelfScore:
    """How well a shelf matches a question: its best evidence score."""

    key: ShelfKey
    best: float


class Library:
    """All shelves under a folder, with one embedder per embedding model they were built with."""

    def __init__(self, root: str | Path, embedder: Embedder | None = None):
        self.store = ShelfStore(root)
        self._embedder = embedder
        self._cache: dict[ShelfKey, Shelf] = {}
        self._lock = threading.Lock()

    @property
    def root(self) -> Path:
        return self.store.root

    def keys(self) -> list[ShelfKey]:
        return self.store.keys()

    def embedder_for(self, shelf: Shelf) -> Embedder:
        if self._embedder is not None and self._embedder.name == shelf.manifest.embedding_model:
            return self._embedder
        if self._embedder is None:
            self._embedder = embedder_by_name(shelf.manifest.embedding_model)
            return self._embedder
        return embedder_by_name(shelf.manifest.embedding_model)

    def shelf(self, klass: str, subject: str) -> Shelf:
        """The live version of a shelf, loaded once per version."""
        key = ShelfKey(str(klass), subject)
        version = self.store.current_version(key.klass, key.subject)
        if version is None:
            raise ShelfNotFound(key.klass, key.subject, [f"{k.klass}/{k.subject}" for k in self.keys()])
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None and cached.version == version:
                return cached
        shelf = self.store.load(key.klass, key.subject)
        with self._lock:
            self._cache[key] = shelf
        return shelf

    def embed_query(self, question: str, shelf: Shelf) -> np.ndarray:
        if not question or not question.strip():
            raise EmptyQuestion()
        return self.embedder_for(shelf).embed([question.strip()])[0]

    def search(self, question: str, klass: str, subject: str, k: int = 5) -> list[Hit]:
        """The k chunks of one shelf closest to the question, best first."""
        shelf = self.shelf(klass, subject)
        return shelf.search(self.embed_query(question, shelf), k)

    def shelf_scores(self, question: str, k: int = 10, query_vec: np.ndarray | None = None,
                     evidence_only: bool = True) -> list[ShelfScore]:
        """The best evidence score of every shelf, best shelf first (lets the gate tell 'wrong subject')."""
        out = []
        for key in self.keys():
            shelf = self.shelf(key.klass, key.subject)
            vec = query_vec if query_vec is not None and self.embedder_for(shelf) is self._embedder else self.embed_query(question, shelf)
            hits = [h for h in shelf.search(vec, k) if h.chunk.is_evidence or not evidence_only]
            out.append(ShelfScore(key, hits[0].score if hits else -1.0))
        return sorted(out, key=lambda s: -s.best)
