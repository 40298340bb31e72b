"""Where the project keeps its files, and the offline settings every entry point needs.

Nothing here reaches the network: the embedding model and NLTK data come from installed packages.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tutor.errors import DatabaseSetupError, TutorError

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_LIBRARY = PROJECT_ROOT / "data" / "sample" / "library"


def setup_offline() -> None:
    """Point NLTK at the data LlamaIndex ships and forbid model-hub downloads (a wrong name fails at once)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        import llama_index.core as lic

        nltk_dir = Path(lic.__file__).parent / "_static" / "nltk_cache"
    except ImportError:  # pragma: no cover - llama-index is a core dependency
        return
    current = os.environ.get("NLTK_DATA", "")
    if str(nltk_dir) not in current.split(os.pathsep):
        os.environ["NLTK_DATA"] = os.pathsep.join(p for p in (str(nltk_dir), current) if p)
    try:
        import nltk

        if str(nltk_dir) not in nltk.data.path:
            nltk.data.path.insert(0, str(nltk_dir))
    except ImportError:  # pragma: no cover
        pass


def choice(what: str, value: str | None, env: str, default: str, choices: tuple[str, ...]) -> str:
    """`value`, else `$env`, else `default`, lower-cased, refused by name (and by the variable that sets it) when it
    is not one of `choices`: e.g. `choice("reader engine", None, "TUTOR_READER_ENGINE", "onnx", ("onnx", "torch"))`."""
    v = (value or os.environ.get(env) or default).strip().lower()
    if v not in choices:
        raise TutorError(f"{what} {v!r} is not one of {', '.join(choices)} ({env})")
    return v


def data_dir() -> Path:
    """The data directory: `TUTOR_DATA_DIR`, else `data/` in the project."""
    return Path(os.environ.get("TUTOR_DATA_DIR", PROJECT_ROOT / "data"))


def index_dir() -> Path:
    """Where shelves live: `TUTOR_INDEX_DIR`, else `<data dir>/index`."""
    return Path(os.environ.get("TUTOR_INDEX_DIR", data_dir() / "index"))


def audit_db_path() -> Path:
    """The SQLite audit database: `TUTOR_AUDIT_DB`, else `<data dir>/audit.sqlite3`."""
    return Path(os.environ.get("TUTOR_AUDIT_DB", data_dir() / "audit.sqlite3"))


def vector_cache_path() -> Path:
    """Passage vectors kept by their text (tutor/retrieval/vector_cache.py): `TUTOR_VECTOR_CACHE`, else
    `<data dir>/vector-cache.sqlite3`."""
    return Path(os.environ.get("TUTOR_VECTOR_CACHE", data_dir() / "vector-cache.sqlite3"))


DATABASE_URL_ENV = "TUTOR_DATABASE_URL"


def database_url(secrets: Mapping[str, Any] | None = None) -> str | None:
    """The PostgreSQL database that app processes share: `$TUTOR_DATABASE_URL`, else `database_url` in `secrets` (the
    app's st.secrets); None, the default: shelves in FAISS folders and the audit log in SQLite, on this disk.

    Raises DatabaseSetupError for a URL that is not PostgreSQL's (so a typo is not silently the local default)."""
    url = os.environ.get(DATABASE_URL_ENV, "").strip()
    if not url and secrets:
        url = str(secrets.get("database_url") or secrets.get(DATABASE_URL_ENV) or "").strip()
    if not url:
        return None
    if not url.startswith(("postgresql://", "postgres://")):
        raise DatabaseSetupError(f"{DATABASE_URL_ENV} must be a PostgreSQL URL (postgresql://user:password@host/db), "
                                 f"not {url.split('://')[0]!r}")
    return url
