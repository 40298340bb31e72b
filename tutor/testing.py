"""Test fakes that production code may name: the deterministic HashEmbedder (a shelf built with it is searched with it,
and the app runs on it under `TUTOR_EMBEDDER=hash`). Imports nothing of the project but text normalisation.

Fakes only the tests use (the recording fake LLM, fake readers) live in tests/helpers_*.py.
"""
from __future__ import annotations

import hashlib
import re

import numpy as np

from tutor.text.normalize import normalize_for_embedding

HASH_EMBEDDER_NAME = "test/hash-embedder"


class HashEmbedder:
    """A deterministic fake for unit tests: hashed word and character-trigram counts, normalised.

    Texts that share words get high cosine similarity and unrelated texts near zero, so thresholds mean something.
    Vectors have length 1 (an all-zero row, from a text without words, stays zero), like every real embedder's.
    """

    name = HASH_EMBEDDER_NAME

    def __init__(self, dim: int = 256):
        self.dim = dim

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            words = re.findall(r"[a-z0-9\u0900-\u0963\u0966-\u097f]+", normalize_for_embedding(t).lower())
            feats = words + [w[j : j + 3] for w in words for j in range(max(1, len(w) - 2))]
            for f in feats:
                h = int.from_bytes(hashlib.blake2b(f.encode(), digest_size=4).digest(), "little")
                out[i, h % self.dim] += 1.0 if f in words else 0.3
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms
