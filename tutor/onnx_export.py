"""A torch network written as one ONNX file, for ONNX Runtime: the reader (tutor/reader/runtime.py) and the embedders
(tutor/retrieval/onnx_encoder.py) are exported the same way, once per weights file; an embedder's int8 copy is made
from its export here too (`write_int8`)."""
from __future__ import annotations

import contextlib
import io
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any


def write_onnx(module: Any, example: tuple, path: Path, input_names: list[str], output_names: list[str],
               dynamic_axes: dict[str, dict[int, str]]) -> Path:
    """`module` traced on `example` into `path`, the axes named in `dynamic_axes` left free. Written beside `path` and
    moved into place, so a process never loads a half-written file; the exporter's progress and warnings are kept
    off the CLI."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    with (tempfile.TemporaryDirectory(dir=path.parent) as tmp, contextlib.redirect_stdout(io.StringIO()),
          warnings.catch_warnings()):
        warnings.simplefilter("ignore")
        out = Path(tmp) / path.name
        # dynamo=True: the older TorchScript exporter traced transformers 5's BERT wrongly here (the reader's logits
        # off by up to 3 against torch's, with either attention); this one matches torch within 1e-5
        torch.onnx.export(module, example, str(out), dynamo=True, external_data=False, verbose=False,
                          input_names=input_names, output_names=output_names, dynamic_axes=dynamic_axes)
        shutil.move(str(out), path)
    return path


def write_int8(src: Path, path: Path) -> Path:
    """The ONNX file `src` with the weights of its matrix products in int8 (one scale per output channel; the
    activations quantised per batch as it runs) into `path`, moved into place as `write_onnx` does. Only MatMul: the
    word embeddings, the layer norms and the softmax stay float32, where quantising costs the most accuracy for the
    least time (per-tensor weights gave MiniLM vectors at a cosine of only 0.90 to fp32; per channel e5's are at
    0.994 or more, docs/performance.md)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = Path(tmp) / path.name
        # onnxruntime writes its shape-inferred copy beside the file it is given ("<name>-inferred.onnx") and deletes
        # it: given the shared export, two processes quantising at once (the suite and an app, two replicas) took
        # each other's copy away. Given a link in this private folder, the copy is private too.
        given = Path(tmp) / src.name
        try:
            given.symlink_to(src.resolve())
        except OSError:  # a file system without links: a copy
            shutil.copyfile(src, given)
        quantize_dynamic(str(given), str(out), weight_type=QuantType.QInt8, per_channel=True,
                         op_types_to_quantize=["MatMul"])
        shutil.move(str(out), path)
    return path
