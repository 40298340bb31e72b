"""Which store holds the shelves: FAISS folders on this disk (the default) or the PostgreSQL database that several
app processes share (`TUTOR_DATABASE_URL`, tutor/store/pg_shelf.py). The one place that choice is made."""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

from tutor.errors import DatabaseSetupError
from tutor.store.shelf import ShelfStore


def namespace_for(kind: str, name: str) -> str:
    """The database namespace of a named set of shelves (e.g. kind `eval`, name a library folder's): readable, and
    distinct for distinct names (a hash of the name closes it, so `a-b` and `a_b` do not meet)."""
    readable = re.sub(r"[^a-z0-9]+", "_", f"{kind}_{name}".lower()).strip("_")[:40]
    return f"{readable}_{hashlib.sha1(f'{kind}/{name}'.encode()).hexdigest()[:8]}"


def open_store(root: str | Path, url: str | None = None, namespace: str | None = None):
    """The shelves under the folder `root`, or in the PostgreSQL database `url` when one is given (in `namespace`
    there when one is given: tutor/store/pg_shelf.py; on disk the folder alone tells sets of shelves apart)."""
    if not url:
        return ShelfStore(root)
    try:
        from tutor.store.pg_shelf import PgShelfStore
    except ImportError as e:
        raise DatabaseSetupError.driver_missing(e) from e
    return PgShelfStore(url, root, namespace)
