"""Uploaded chapter PDFs kept in the PostgreSQL database beside the shelves (table `uploads`, made by
tutor/store/pg_shelf.py's migrations), so any app process can rebuild a shelf or show a printed page from them."""
from __future__ import annotations

import hashlib
from pathlib import Path

from tutor.store.shelf import check_names


class PgUploads:
    """The kept PDFs of every shelf: bytes with their sha256, keyed by class, subject and file name."""

    def __init__(self, store):
        self._store = store  # the PgShelfStore whose database holds them (its connections, its migrations)

    def keep(self, klass: str, subject: str, file: str, data: bytes) -> None:
        with self._store._connect() as con:
            con.execute("INSERT INTO uploads (class, subject, file, sha256, data) VALUES (%s, %s, %s, %s, %s)"
                        " ON CONFLICT (class, subject, file) DO UPDATE SET sha256 = EXCLUDED.sha256,"
                        " data = EXCLUDED.data, created = now()",
                        (*check_names(klass, subject), file, hashlib.sha256(data).hexdigest(), data))

    def digests(self, klass: str, subject: str) -> dict[str, str]:
        """Each kept file's name and sha256 (no bytes are read)."""
        with self._store._connect() as con:
            rows = con.execute("SELECT file, sha256 FROM uploads WHERE class = %s AND subject = %s ORDER BY file",
                               check_names(klass, subject)).fetchall()
        return dict(rows)

    def export(self, klass: str, subject: str, into: Path, file: str | None = None) -> dict[str, Path]:
        """Write the kept PDFs of a shelf (or the one `file`) into the folder `into`; name -> path. A file whose bytes
        no longer match their sha256 is left out."""
        into.mkdir(parents=True, exist_ok=True)
        sql = "SELECT file, sha256, data FROM uploads WHERE class = %s AND subject = %s"
        args: tuple = check_names(klass, subject)
        if file is not None:
            sql, args = sql + " AND file = %s", (*args, file)
        out = {}
        with self._store._connect() as con:
            for name, sha, data in con.execute(sql + " ORDER BY file", args):
                data = bytes(data)
                if hashlib.sha256(data).hexdigest() != sha:
                    continue
                path = into / Path(name).name
                path.write_bytes(data)
                out[name] = path
        return out

    def remove(self, klass: str, subject: str, file: str) -> None:
        with self._store._connect() as con:
            con.execute("DELETE FROM uploads WHERE class = %s AND subject = %s AND file = %s",
                        (*check_names(klass, subject), file))
