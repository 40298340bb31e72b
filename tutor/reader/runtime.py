"""The reader's fp32 forward pass on ONNX Runtime: the same network exported once per weights file, then run without
torch's per-operator overhead (a third faster on a 2-core AVX2 CPU: 73 against 115 ms p50 a question read;
outputs equal to torch's within 1e-4).

The export needs `onnx` and `onnxscript` and takes 15-25 s on 2 cores, so it is made once per weights file, beside
it (`reader-<sha256>.onnx`; not committed: 90 MB with the base model's word embeddings), and reused by every process.
Where onnxruntime is missing or the export fails, the reader runs on torch as before (`Reader.engine` says which).
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tutor.config import choice
from tutor.onnx_export import write_onnx

log = logging.getLogger(__name__)

ENGINES = ("onnx", "torch")
INPUTS = ("ids", "mask", "types")
OUTPUTS = ("answer", "support", "start", "end")


def reader_engine(engine: str | None = None) -> str:
    """What runs the fp32 reader: `onnx` (ONNX Runtime, the default) or `torch`; `$TUTOR_READER_ENGINE` sets it."""
    return choice("reader engine", engine, "TUTOR_READER_ENGINE", "onnx", ENGINES)


def export(net, example: tuple, path: Path) -> Path:
    """`net` (ids, mask, types -> four logit tensors) written as one ONNX file, batch and length left free. Written
    beside `path` and moved into place, so a reader never loads a half-written file."""
    import torch

    class Forward(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, ids, mask, types):
            return self.inner(ids, mask, types)

    net.bert.set_attn_implementation("eager")  # the exporter traces the plain attention; sdpa's mask code does not
    free = {0: "batch", 1: "tokens"}
    return write_onnx(Forward(net).eval(), example, path, list(INPUTS), list(OUTPUTS),
                      {k: free for k in INPUTS} | {"answer": {0: "batch"}, "support": {0: "batch"}, "start": free,
                                                   "end": free})


class OnnxNet:
    """The exported reader on ONNX Runtime: called with numpy ids, mask and type ids, returns the four logit arrays."""

    def __init__(self, path: Path, threads: int | None = None):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads:
            opts.intra_op_num_threads = threads
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])

    def __call__(self, ids: np.ndarray, mask: np.ndarray, types: np.ndarray) -> list[np.ndarray]:
        return self.session.run(list(OUTPUTS), dict(zip(INPUTS, (ids, mask, types))))


def onnx_file(directory: Path, sha256: str) -> Path:
    """Where the reader whose weights have `sha256` is kept as ONNX: beside the weights, named by their digest."""
    return Path(directory) / f"reader-{sha256[:16]}.onnx"


def onnx_net(make_net: Callable[[], Any], example: tuple, sha256: str, directory: Path,
             threads: int | None = None) -> OnnxNet | None:
    """The reader with weights `sha256` (in `directory`) on ONNX Runtime, exported first from `make_net()` if this
    machine has not done it yet (the torch network is built only then: about 3 s of every start saved); None (and a
    warning) where onnxruntime or the exporter is missing or the export fails (a read-only folder, say): the caller
    keeps torch."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        log.warning("onnxruntime is not installed: the reader runs on torch")
        return None
    path = onnx_file(directory, sha256)
    try:
        if not path.exists():
            log.info("exporting the reader to %s (once per weights file)", path)
            export(make_net(), example, path)
        return OnnxNet(path, threads)
    except Exception as e:  # an exporter or runtime that cannot take this network: torch still can
        log.warning("the reader could not run on ONNX Runtime (%s: %s): it runs on torch", type(e).__name__, e)
        return None
