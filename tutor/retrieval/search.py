"""Retrieval over the library: top-k chunks of one shelf (dense, or hybrid: dense + BM25 + trigram fused by
reciprocal rank fusion), and the best scores of every shelf.

Hit scores are cosine similarities of unit vectors (higher is closer, in [-1, 1]) whichever retriever found the
chunk: a chunk found only lexically gets its cosine from the shelf's stored vectors, so the gate's calibrated checks
read one scale. Loaded shelves (and their lexical indexes) are cached per version, so a shelf swapped in by an
ingest is picked up on the next question and never half-read.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tutor.errors import EmptyQuestion, ShelfDamaged, ShelfNotFound
from tutor.question import Question, as_question
from tutor.retrieval.embedding import Embedder, default_embedder, embedder_by_name
from tutor.retrieval.lexical import rrf
from tutor.store.shelf import Manifest, Shelf, ShelfKey, ShelfStore, check_names
from tutor.text.terms import TermStats
from tutor.types import Hit


@dataclass(frozen=True)
class ShelfScore:
    """How well a shelf matches a question: its best evidence score."""

    key: ShelfKey
    best: float


class Library:
    """All shelves under a folder, with one embedder per embedding model they were built with."""

    def __init__(self, root: str | Path, embedder: Embedder | None = None, store=None):
        """`store`: the shelves' store (tutor.store.backends.open_store: FAISS folders under `root`, or PostgreSQL);
        None: the folders under `root`."""
        self.store = store if store is not None else ShelfStore(root)
        self._embedder = embedder
        self._cache: dict[ShelfKey, Shelf] = {}
        self._broken: dict[ShelfKey, ShelfDamaged] = {}  # per version: a damaged one is not re-read on every question
        self._stats: dict[tuple[ShelfKey, str], TermStats] = {}
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

    def term_stats(self, shelf: Shelf) -> TermStats:
        """How the shelf uses each term (for the gate's unknown-term share), computed once per shelf version."""
        key = (shelf.key, shelf.version)
        with self._lock:
            got = self._stats.get(key)
        if got is None:
            got = shelf.term_stats()
            with self._lock:
                self._stats = {k: v for k, v in self._stats.items() if k[0] != shelf.key}
                self._stats[key] = got
        return got

    def any_embedder(self) -> Embedder:
        """The embedder of the first shelf that opens (a selected passage has no shelf of its own), else MiniLM."""
        for key in self.keys():
            try:
                return self.embedder_for(self.shelf(key.klass, key.subject))
            except ShelfDamaged:
                continue
        return default_embedder()

    def shelf(self, klass: str, subject: str) -> Shelf:
        """The live version of a shelf, loaded (and its checksums verified) once per version; raises ShelfDamaged
        for a damaged one, which is remembered until `CURRENT` names another version (a rollback or rebuild)."""
        try:  # the shelf as the store names it: "Social Science" and "social_science" are shelf social-science
            key = ShelfKey(*check_names(str(klass), subject))
            version = self.store.current_version(key.klass, key.subject)
        except ValueError:  # no shelf can have such a name
            version = None
        if version is None:
            raise ShelfNotFound(str(klass), subject, [f"{k.klass}/{k.subject}" for k in self.keys()])
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None and cached.version == version:
                return cached
            broken = self._broken.get(key)
            if broken is not None and broken.version == version:
                raise broken
        try:
            shelf = self.store.load(key.klass, key.subject, version)
        except ShelfDamaged as e:
            e.version = e.version or version
            with self._lock:
                self._broken[key] = e
            raise
        with self._lock:
            self._cache[key] = shelf
            self._broken.pop(key, None)
        return shelf

    def damaged(self) -> dict[ShelfKey, ShelfDamaged]:
        """Every shelf whose live version cannot be used, with what is wrong (for the maintainers' page)."""
        out = {}
        for key in self.keys():
            try:
                self.shelf(key.klass, key.subject)
            except ShelfDamaged as e:
                out[key] = e
        return out

    def survey(self) -> tuple[dict[ShelfKey, Manifest | None], dict[ShelfKey, ShelfDamaged]]:
        """Each usable shelf's live manifest, and every damaged shelf with what is wrong (for the maintainers' page).

        A shelf loaded before its manifest was damaged still answers students from memory, but its files on disk
        (or rows) can no longer be read: it is listed as damaged here, so the page offers its repairs instead of
        failing on it."""
        damaged, manifests = self.damaged(), {}
        for key in self.keys():
            if key in damaged:
                continue
            try:
                manifests[key] = self.store.manifest(key.klass, key.subject)
            except ShelfDamaged as e:
                damaged[key] = e
        return manifests, damaged

    def embed_query(self, question: str, shelf: Shelf) -> np.ndarray:
        if not question or not question.strip():
            raise EmptyQuestion()
        return self.embedder_for(shelf).embed([question.strip()])[0]

    def search(self, question: str, klass: str, subject: str, k: int = 5) -> list[Hit]:
        """The k chunks of one shelf closest to the question, best first."""
        shelf = self.shelf(klass, subject)
        return shelf.search(self.embed_query(question, shelf), k)

    def retrieve(self, question: Question | str, shelf: Shelf, query_vec: np.ndarray, policy,
                 retriever: str | None = None) -> list[Hit]:
        """The policy's top_k candidates of one shelf for the question, by the policy's retriever (or `retriever`):
        "dense" (cosine order), "hybrid" (dense + BM25 + trigram, fused by RRF), "bm25" or "trigram" alone.
        Every hit's `score` is its exact cosine either way, so the gate reads the same scale. `question`: the
        pipeline's Question, whose words the lexical side reads (a string is read as Question.of reads it)."""
        how = retriever or policy.retriever
        if how == "dense":
            return shelf.search(query_vec, policy.top_k)
        use = {"hybrid": ("dense", "bm25", "trigram"), "bm25": ("bm25",), "trigram": ("trigram",)}.get(how)
        if use is None:
            raise ValueError(f"unknown retriever {how!r}: use dense, hybrid, bm25 or trigram")
        return hybrid_search(shelf, question, query_vec, k=policy.top_k, dense_depth=policy.dense_depth,
                             lexical_depth=policy.lexical_depth, rrf_k=policy.rrf_k,
                             fuzzy_min_similarity=policy.fuzzy_min_similarity, use=use)

    def shelf_scores(self, question: str, k: int = 10, query_vec: np.ndarray | None = None,
                     evidence_only: bool = True) -> list[ShelfScore]:
        """The best evidence score of every shelf, best shelf first (lets the gate tell 'wrong subject')."""
        out = []
        for key in self.keys():
            try:
                shelf = self.shelf(key.klass, key.subject)
            except ShelfDamaged:  # a damaged shelf is left out; it never stops a question on another shelf
                continue
            shared = query_vec is not None and self.embedder_for(shelf) is self._embedder
            vec = query_vec if shared else self.embed_query(question, shelf)
            hits = [h for h in shelf.search(vec, k) if h.chunk.is_evidence or not evidence_only]
            out.append(ShelfScore(key, hits[0].score if hits else -1.0))
        return sorted(out, key=lambda s: -s.best)


def hybrid_search(shelf: Shelf, question: Question | str, query_vec: np.ndarray, *, k: int, dense_depth: int = 30,
                  lexical_depth: int = 30, rrf_k: int = 60, fuzzy_min_similarity: float = 0.5,
                  use: tuple[str, ...] = ("dense", "bm25", "trigram")) -> list[Hit]:
    """Top `dense_depth` by cosine, top `lexical_depth` by BM25 (misspelt words read as the nearest shelf word by
    trigram Jaccard >= `fuzzy_min_similarity`) and by trigram cosine, fused by RRF; the best k, fused order.

    Lexical lists hold evidence chunks only (see LexicalIndex); the dense list keeps every chunk, as before, so the
    gate still sees and logs a printed exercise that the question restates.
    """
    if not shelf.chunks or k <= 0:
        return []
    question = as_question(question)  # read once for both lexical retrievers
    q = np.asarray(query_vec, dtype=np.float32).reshape(-1)
    rankings: dict[str, list[tuple[int, float]]] = {}
    if "dense" in use:
        rankings["dense"] = shelf.search_rows(q, dense_depth)
    if "bm25" in use:
        rankings["bm25"] = shelf.lexical.search_bm25(question, lexical_depth, fuzzy_min_similarity)
    if "trigram" in use:
        rankings["trigram"] = shelf.lexical.search_trigram(question, lexical_depth)
    fused = rrf([[i for i, _ in r] for r in rankings.values()], k=rrf_k)
    if not fused:
        return []
    top = fused[:k]
    # the gate's confidence is the best evidence cosine on the shelf: that chunk stays a candidate even when the
    # lexical lists outvote it, so the calibrated thresholds read the same number as with dense retrieval
    best = next((i for i, _ in rankings.get("dense", []) if shelf.chunks[i].is_evidence), None)
    if best is not None and all(i != best for i, _ in top):
        top = top[: k - 1] + [next(x for x in fused if x[0] == best)]
    fused = top
    cosines = shelf.cosines([i for i, _ in fused], q)  # a database shelf's in one query, with the chunks
    seen = {name: {i: (r, s) for r, (i, s) in enumerate(ranking)} for name, ranking in rankings.items()}
    out = []
    for rank, ((i, f), cos) in enumerate(zip(fused, cosines)):
        d, b, t = (seen.get(n, {}).get(i) for n in ("dense", "bm25", "trigram"))
        out.append(Hit(shelf.chunks[i], float(cos), rank, dense_rank=d[0] if d else None,
                       bm25=b[1] if b else None, bm25_rank=b[0] if b else None,
                       trigram=t[1] if t else None, trigram_rank=t[0] if t else None, fused=round(float(f), 6)))
    return out

