"""Which store holds the shelves: FAISS folders on this disk (the default) or the PostgreSQL database that several
app processes share (`TUTOR_DATABASE_URL`, tutor/store/pg_shelf.py). The one place that choice is made."""
from __future__ import annotations

from pathlib import Path

from tutor.errors import DatabaseSetupError
from tutor.store.shelf import ShelfStore


def open_store(root: str | Path, url: str | None = None):
    """The shelves under the folder `root`, or in the PostgreSQL database `url` when one is given."""
    if not url:
        return ShelfStore(root)
    try:
        from tutor.store.pg_shelf import PgShelfStore
    except ImportError as e:
        raise DatabaseSetupError(f"a database URL is set but the PostgreSQL driver is missing ({e}): install the "
                                 "`postgres` extra (pip install -e '.[postgres]')") from e
    return PgShelfStore(url, root)
