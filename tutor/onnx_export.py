"""A torch network written as one ONNX file, for ONNX Runtime: the reader (tutor/reader/runtime.py) and the embedders
(tutor/retrieval/onnx_encoder.py) are exported the same way, once per weights file."""
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
