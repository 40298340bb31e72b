"""Shelves on PostgreSQL + pgvector: the same interface as tutor/store/shelf.py's ShelfStore, for app processes that
share one database (`TUTOR_DATABASE_URL`).

`shelves` (class, subject, current_version) points at one row of `shelf_versions` (a version's manifest, the name
of its own tables and its lexical statistics); the version's chunks, vectors, HNSW index and lexical postings live in
those tables (tutor/store/pg_version.py). A new version is bulk-loaded and indexed in one transaction and committed,
then made current by one UPDATE in a second transaction, so readers are served the old version until that commit and
a crash before it leaves the old version current (the orphan is pruned by the next write). A loaded shelf holds its
manifest and vocabulary, never its vectors: every question is searched in the database (pg_version.PgShelf).

Locks: one writer per shelf, a transaction-level advisory lock keyed by a hash of the shelf's name
(`pg_try_advisory_xact_lock`), so a second ingest of the same shelf, from any process, fails at once with ShelfBusy,
while other shelves' writes and process starts never wait on it (a transaction-level lock also survives a
transaction pooler). Migrations (tutor/store/pg_schema.py) run in their own transaction under a `lock_timeout`, and
a process whose schema is current takes no lock at all. What a read needs set (a namespace's search_path, HNSW's
breadth, a transaction pooler's timeouts) is set inside its own transaction, never on the reader's session.

Versions written before migration 3 load whole from `shelf_chunks`, searched as on disk, until the shelf's next write.

A `namespace` keeps a whole set of shelves apart in one database (its own Postgres schema holding the same tables):
the evaluation's libraries each get one, so two libraries with the same class/subject never meet. None: the
database's default schema, the app's.

psycopg rather than LlamaIndex's PGVectorStore: that store keeps one table of nodes per store with no notion of a
version made current in one transaction or a lock per shelf, which the versioned design needs.
"""
from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg.types.json import Json

from tutor.errors import ShelfBusy, ShelfDamaged, ShelfNotFound
from tutor.store.faiss_index import build_index
from tutor.store.pg_pool import borrow, connect, run_with_settings, set_local, transaction_settings
from tutor.store.pg_schema import migrate
from tutor.store.pg_uploads import PgUploads
from tutor.store.pg_version import PgShelf, drop_version_sql, load_version, vector_array, version_table
from tutor.store.shelf import Manifest, Shelf, ShelfKey, check_names, previous_intact_version, sort_keys
from tutor.types import Chunk

_NAMESPACE = re.compile(r"[a-z_][a-z0-9_]{0,62}")

def policy_ef_search() -> int:
    from tutor.policy import load_policy

    return load_policy().pg_ef_search


class PgShelfStore:
    """All shelves in one PostgreSQL database. `root` is this machine's index folder (kept for what is local)."""

    def __init__(self, url: str, root: str | Path = ".", namespace: str | None = None):
        if namespace is not None and not _NAMESPACE.fullmatch(namespace):
            raise ValueError(f"a shelf namespace is a Postgres schema name of lower-case letters, digits and _ "
                             f"(at most 63, not starting with a digit), not {namespace!r}")
        self.url, self.root, self.namespace = url, Path(root), namespace
        self._ready = False
        self.last_write: dict[str, float] = {}  # seconds of each step of this store's last write (the bench's)
        self._held: dict[ShelfKey, int] = {}  # shelves this store's threads hold the lock of -> thread id
        self._read_con: psycopg.Connection | None = None  # the questions' small reads share one open connection
        self.ef_search: int | None = None  # HNSW's breadth for this store's searches (None: the policy's pg_ef_search)
        self._read_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self.uploads = PgUploads(self)  # the kept PDFs (tutor/ingest/uploads.py reads them through this)

    # ------------------------------------------------------------------ connections and schema
    def _connect(self, autocommit: bool = False) -> psycopg.Connection:
        self._migrate()
        return self._open(autocommit)

    def _open(self, autocommit: bool = False) -> psycopg.Connection:
        # a unit of work's from the process's pool (tutor/store/pg_pool.py: its `with` block or close() hands it back);
        # an autocommit one (the long-held reader, a session lock) of its own, with the pool's settings
        con = connect(self.url) if autocommit else borrow(self.url)
        try:
            if self.namespace and not autocommit:
                # the namespace first, for this unit of work's transaction only (the reader sets it per read, _read):
                # a session setting would stay behind on the server connection a transaction pooler lent
                set_local(con, {}, self.namespace)
            if not getattr(con, "vector_ready", False):  # once per pooled connection: it looks the type up
                register_vector(con)
                con.vector_ready = True
        except BaseException:
            con.close()
            raise
        return con

    def _migrate(self) -> None:
        """Bring the schema up to date (tutor/store/pg_schema.py), once per store."""
        if not self._ready:
            migrate(self.url, self.namespace, self._open)
            self._ready = True

    # ------------------------------------------------------------------ reading
    def _read(self, sql: str, args: Sequence | dict = (), *, hnsw: bool = False) -> list[tuple]:
        """Rows of one read-only statement on the store's open connection (autocommit: each statement sees what is
        committed when it runs). Every question reads the shelf list and each shelf's live version (and, on a large
        shelf, its nearest chunks), and every drawn source its shelf's manifest: a new connection for each cost more
        than the statements themselves. `hnsw`: an HNSW search, run at `ef_search`."""
        with self._read_lock:
            for attempt in (1, 2):  # a connection the server dropped is opened again once
                try:
                    if self._read_con is None or self._read_con.closed:
                        self._read_con = self._connect(autocommit=True)
                    return self._run_read(self._read_con, sql, args, hnsw)
                except psycopg.OperationalError:
                    con, self._read_con = self._read_con, None
                    if con is not None and not con.closed and not con.broken:
                        self._read_con = con  # the server answered (a statement timeout, a lock wait): still sound
                        raise
                    if attempt == 2:
                        raise
        return []

    def _run_read(self, con: psycopg.Connection, sql: str, args: Sequence | dict, hnsw: bool) -> list[tuple]:
        """One read, with the settings it needs (the namespace's search_path, HNSW's breadth, a transaction pooler's
        timeouts) in force for it alone (pg_pool.run_with_settings, one round trip): never on the session, where a
        transaction pooler would lose them between two statements and leave them on a connection another client
        gets."""
        settings = transaction_settings(self.url)
        if hnsw:  # the breadth at which HNSW finds >= 0.95 of the exact ten (policy; bench-pgshelf measures it)
            if self.ef_search is None:
                self.ef_search = policy_ef_search()  # read once: the policy file is not read per question
            settings["hnsw.ef_search"] = str(int(self.ef_search))
        return run_with_settings(con, sql, args, settings, self.namespace)

    def keys(self) -> list[ShelfKey]:
        rows = self._read("SELECT class, subject FROM shelves WHERE current_version IS NOT NULL")
        return sort_keys([ShelfKey(k, s) for k, s in rows])

    def current_version(self, klass: str, subject: str) -> str | None:
        rows = self._read("SELECT current_version FROM shelves WHERE class = %s AND subject = %s",
                          check_names(klass, subject))
        return rows[0][0] if rows else None

    def manifest(self, klass: str, subject: str) -> Manifest | None:
        """The live version's manifest (None: no shelf); raises ShelfDamaged when it cannot be read."""
        version = self.current_version(klass, subject)
        return self.manifest_of(klass, subject, version) if version else None

    def manifest_of(self, klass: str, subject: str, version: str) -> Manifest:
        k, s = check_names(klass, subject)
        rows = self._read("SELECT manifest FROM shelf_versions WHERE class = %s AND subject = %s AND version = %s",
                          (k, s, version))
        row = rows[0] if rows else None
        if row is None:
            raise ShelfDamaged(klass, subject, f"version {version} is not in the database", version)
        try:
            m = Manifest.from_json(json.dumps(row[0]))
        except Exception as e:  # noqa: BLE001 - wrong fields or types: all the same to a reader
            raise ShelfDamaged(klass, subject, f"the manifest of {version} cannot be read ({type(e).__name__}: {e})",
                               version) from e
        if (m.klass, m.subject) != (k, s):
            raise ShelfDamaged(klass, subject, f"the manifest of {version} names shelf {m.klass}/{m.subject}", version)
        return m

    def load(self, klass: str, subject: str, version: str | None = None) -> Shelf:
        """The live version (or `version`), searched in its own tables (a PgShelf: no vectors in memory); a version
        written before migration 3 loads whole, as on disk. ShelfDamaged when its rows do not add up."""
        version = version or self.current_version(klass, subject)
        if not version:
            raise ShelfNotFound(klass, subject, [f"{k.klass}/{k.subject}" for k in self.keys()])
        manifest = self.manifest_of(klass, subject, version)
        k, s = check_names(klass, subject)
        table, meta = self._read("SELECT chunk_table, lexical FROM shelf_versions WHERE class = %s AND subject = %s"
                                 " AND version = %s", (k, s, version))[0]
        if table is None:
            return self._load_whole(manifest, version)
        try:
            # rows 0..n-1 under a primary key, all written by one COPY: the first and the last (two probes of the
            # key's index) say whether the table holds the manifest's chunks. Counting them read the whole table,
            # most of a cold replica's 7 s first question at a million chunks
            first, last = self._read(f"SELECT min(row), max(row) FROM {table}")[0]
        except psycopg.errors.UndefinedTable as e:
            raise ShelfDamaged(klass, subject, f"{version}'s table {table} is missing", version) from e
        n = 0 if last is None else int(last) + 1
        if first not in (0, None) or n != manifest.n_chunks or not meta:
            raise ShelfDamaged(klass, subject, f"{version} is inconsistent: chunk rows {first} to {last} for the "
                                               f"{manifest.n_chunks} its manifest lists", version)
        return PgShelf(manifest, version, table, meta, self._read)

    def _load_whole(self, manifest: Manifest, version: str) -> Shelf:
        """A version kept in `shelf_chunks` (written before migration 3): chunks and vectors in memory, searched
        exactly in process."""
        klass, subject = manifest.klass, manifest.subject
        with self._connect() as con:
            rows = con.execute("SELECT row, chunk, embedding FROM shelf_chunks WHERE class = %s AND subject = %s"
                               " AND version = %s ORDER BY row", (klass, subject, version)).fetchall()
        if [r[0] for r in rows] != list(range(manifest.n_chunks)):
            raise ShelfDamaged(klass, subject, f"{version} is inconsistent: {len(rows)} chunk rows for the "
                                               f"{manifest.n_chunks} its manifest lists", version)
        try:
            chunks = [Chunk.from_dict(r[1]) for r in rows]
        except Exception as e:  # noqa: BLE001
            raise ShelfDamaged(klass, subject, f"{version} has a chunk that cannot be read ({e})", version) from e
        vectors = (np.stack([vector_array(r[2]) for r in rows]) if rows
                   else np.zeros((0, manifest.dim), dtype=np.float32))
        return Shelf(manifest, chunks, vectors, build_index(vectors, "flat-ip"), version)

    def versions(self, klass: str, subject: str) -> list[str]:
        """Complete versions in the database, newest first (the live one, the one before it, crashed writes')."""
        rows = self._read("SELECT version FROM shelf_versions WHERE class = %s AND subject = %s",
                          check_names(klass, subject))
        return sorted((r[0] for r in rows), key=lambda v: int(v[1:]), reverse=True)

    def previous_version(self, klass: str, subject: str) -> str | None:
        """The newest version other than the live one that loads, if any."""
        return previous_intact_version(self, klass, subject)

    # ------------------------------------------------------------------ writing
    @contextlib.contextmanager
    def lock(self, klass: str, subject: str):
        """One writer per shelf across every process on the database; a second raises ShelfBusy at once. The lock is
        a transaction-level advisory lock, held by a transaction kept open for the write: other shelves and the
        schema are never locked, and the lock ends with the transaction however the process ends."""
        key = ShelfKey(*check_names(klass, subject))
        with self._state_lock:
            mine = self._held.get(key) == threading.get_ident()
        if mine:  # already this thread's (a write inside an ingest)
            yield
            return
        con = self._connect()
        try:
            if not con.execute("SELECT pg_try_advisory_xact_lock(hashtext(%s))", (self._lock_name(key),)).fetchone()[0]:
                raise ShelfBusy(key.klass, key.subject)
            with self._state_lock:
                self._held[key] = threading.get_ident()
            try:
                yield
            finally:
                with self._state_lock:
                    self._held.pop(key, None)
        finally:
            with contextlib.suppress(psycopg.Error):
                con.rollback()  # ends the transaction, and the lock with it
            con.close()

    def _lock_name(self, key: ShelfKey) -> str:
        where = f"{self.namespace}:" if self.namespace else ""  # the default's name unchanged, as running apps use it
        return f"tutor-shelf:{where}{key.klass}/{key.subject}"

    def write(self, manifest: Manifest, chunks: list[Chunk], vectors: np.ndarray, *,
              fail_before_swap: bool = False) -> str:
        """Write a complete new version in tables of its own (bulk-loaded, then indexed once: pg_version.py) and
        commit it, then make it current in a second transaction; returns it. `last_write` gets each step's seconds.

        `fail_before_swap` simulates a crash between the two (for tests)."""
        chunks = list(chunks)  # a loaded database shelf's chunks are read from it: once
        if len(chunks) != len(vectors):
            raise ValueError(f"{len(chunks)} chunks but {len(vectors)} vectors")
        k, s = check_names(manifest.klass, manifest.subject)
        matrix = np.asarray(vectors, dtype=np.float32).reshape(-1, manifest.dim)
        with self.lock(k, s):
            version = f"v{time.time_ns()}"
            table = version_table(k, s, version)
            manifest.n_chunks = len(chunks)
            manifest.built_at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
            manifest.files = {}  # the database keeps its own checksums of its pages
            with self._connect() as con:
                loaded = load_version(con, table, manifest, chunks, matrix)
                con.execute("INSERT INTO shelf_versions (class, subject, version, manifest, chunk_table, lexical)"
                            " VALUES (%s, %s, %s, %s, %s, %s)",
                            (k, s, version, Json(json.loads(manifest.to_json())), table, Json(loaded["meta"])))
            self.last_write = loaded["timings"]
            if fail_before_swap:
                raise RuntimeError("simulated crash before the swap")
            with self._connect() as con:
                row = con.execute("SELECT current_version FROM shelves WHERE class = %s AND subject = %s FOR UPDATE",
                                  (k, s)).fetchone()
                previous = row[0] if row else None
                con.execute("INSERT INTO shelves (class, subject, current_version) VALUES (%s, %s, %s) ON CONFLICT"
                            " (class, subject) DO UPDATE SET current_version = EXCLUDED.current_version",
                            (k, s, version))
                # keep the live version and the one before it (a reader may still be loading it)
                self._drop_versions(con, k, s, keep=[v for v in (version, previous) if v])
            return version

    @staticmethod
    def _drop_versions(con: psycopg.Connection, klass: str, subject: str, keep: list[str]) -> None:
        """Remove every version of a shelf but `keep`, with its tables (a crashed write's orphans too)."""
        gone = con.execute("DELETE FROM shelf_versions WHERE class = %s AND subject = %s AND version <> ALL(%s)"
                           " RETURNING chunk_table", (klass, subject, keep)).fetchall()
        for (table,) in gone:
            if table:
                con.execute(drop_version_sql(table))

    def rollback(self, klass: str, subject: str) -> str:
        """Point the shelf back at its previous intact version, under the shelf's lock; returns it."""
        with self.lock(klass, subject):
            previous = self.previous_version(klass, subject)
            if previous is None:
                raise ShelfDamaged(klass, subject, "there is no earlier intact version to roll back to: rebuild the "
                                                   "shelf from its kept PDFs instead")
            with self._connect() as con:
                con.execute("UPDATE shelves SET current_version = %s WHERE class = %s AND subject = %s",
                            (previous, *check_names(klass, subject)))
            return previous

    def drop_namespace(self) -> None:
        """Remove this store's namespace with every shelf in it (the bench's throw-away ingests)."""
        if not self.namespace:
            raise ValueError("only a namespace can be dropped: the default schema holds the app's shelves")
        with connect(self.url) as con:
            con.execute(f'DROP SCHEMA IF EXISTS "{self.namespace}" CASCADE')
        self._ready = False

    def delete(self, klass: str, subject: str) -> None:
        """Remove a whole shelf: its pointer, versions and their tables."""
        k, s = check_names(klass, subject)
        with self.lock(k, s), self._connect() as con:
            con.execute("DELETE FROM shelves WHERE class = %s AND subject = %s", (k, s))
            self._drop_versions(con, k, s, keep=[])

