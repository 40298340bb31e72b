"""Shelves on PostgreSQL + pgvector: the same interface as tutor/store/shelf.py's ShelfStore, for app processes that
share one database (`TUTOR_DATABASE_URL`).

Three tables: `shelves` (class, subject, current_version), `shelf_versions` (the manifest of each version) and
`shelf_chunks` (version, row, the chunk as JSON, its unit vector). A new version is written whole and committed,
then made current by one UPDATE in a second transaction, so readers are served the old version until that commit and
a crash before it leaves the old version current (the orphan is pruned by the next write). One writer per shelf: a
Postgres advisory lock, so a second ingest of the same shelf, from any process, fails at once with ShelfBusy.

A loaded shelf holds its chunks and vectors in memory (the lexical side, BM25 and trigram, tutor/retrieval/lexical.py,
is rebuilt from them per version, as on disk, and hybrid search reads exact cosines from them). Dense search on a
shelf of up to the policy's `approximate_index_above` chunks is therefore exact and in process, as on disk (a FAISS
flat index over the loaded vectors): the same neighbours and cosines as the FAISS backend, with no round trip (the
bench: search 18.8 ms a question in the database against 2 ms here). A larger shelf is searched in the database:
`1 - (embedding <=> query)` is the cosine similarity of unit vectors (higher is closer, in [-1, 1]), the scale the
gate is calibrated on, with an HNSW index (`vector_cosine_ops`) per vector size and the class, subject and version as
filters of the same query (`hnsw.iterative_scan` keeps k rows coming when the filter drops many).

A `namespace` keeps a whole set of shelves apart in one database (its own Postgres schema holding the same tables):
the evaluation's libraries each get one, so two libraries with the same class/subject never meet. None: the
database's default schema, the app's.

psycopg rather than LlamaIndex's PGVectorStore: that store keeps one table of nodes per store with no notion of a
version made current in one transaction, a lock per shelf, or a version filter, which the versioned design needs.
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

from tutor.errors import ShelfBusy, ShelfDamaged, ShelfNotFound, TutorError
from tutor.store.faiss_index import build_index, policy_approximate_above
from tutor.store.pg_pool import borrow, connect
from tutor.store.pg_uploads import PgUploads
from tutor.store.shelf import Manifest, Shelf, ShelfKey, check_names, previous_intact_version, sort_keys
from tutor.types import Chunk

# numbered, only ever appended (recorded in shelf_schema_version), as the audit log's
MIGRATIONS: list[str] = [
    # 1: shelves, their versions and chunks
    """
    CREATE EXTENSION IF NOT EXISTS vector;
    CREATE TABLE shelves (
        class TEXT NOT NULL,
        subject TEXT NOT NULL,
        current_version TEXT,
        PRIMARY KEY (class, subject)
    );
    CREATE TABLE shelf_versions (
        class TEXT NOT NULL,
        subject TEXT NOT NULL,
        version TEXT NOT NULL,
        manifest JSON NOT NULL,
        created TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (class, subject, version)
    );
    CREATE TABLE shelf_chunks (
        class TEXT NOT NULL,
        subject TEXT NOT NULL,
        version TEXT NOT NULL,
        row INTEGER NOT NULL,
        chunk JSON NOT NULL,
        dim INTEGER NOT NULL,
        embedding vector NOT NULL,
        PRIMARY KEY (class, subject, version, row),
        FOREIGN KEY (class, subject, version) REFERENCES shelf_versions ON DELETE CASCADE
    );
    """,
    # 2: the uploaded PDFs, kept so that any app process can rebuild a shelf from them (tutor/store/pg_uploads.py)
    """
    CREATE TABLE uploads (
        class TEXT NOT NULL,
        subject TEXT NOT NULL,
        file TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        data BYTEA NOT NULL,
        created TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (class, subject, file)
    );
    """,
]
_NAMESPACE = re.compile(r"[a-z_][a-z0-9_]{0,62}")
_SCHEMA_LOCK = 0x7368656C66  # "shelf": processes starting together migrate (and add indexes) one at a time


def hnsw_index_sql(dim: int) -> str:
    """The HNSW index for vectors of one size: an index needs a fixed size, and shelves of models of different sizes
    share the table, so each size gets a partial index over its rows."""
    return (f"CREATE INDEX IF NOT EXISTS shelf_chunks_hnsw_{int(dim)} ON shelf_chunks USING hnsw "
            f"((embedding::vector({int(dim)})) vector_cosine_ops) WHERE dim = {int(dim)}")


# How widely HNSW searches a shelf too large to search exactly (bench-pgvector, 1M synthetic chunks, m 16): pgvector's
# default 40 found 0.781 of the true ten (p95 6.7 ms), 100 found 0.897 (8.0 ms), 200 found 0.940 (13.4 ms).
HNSW_EF_SEARCH = 200


class PgShelf(Shelf):
    """A loaded version of a shelf: searched exactly in process up to `exact_up_to` chunks, above it in the database
    (the HNSW index)."""

    def __init__(self, manifest: Manifest, chunks: list[Chunk], vectors: np.ndarray, version: str,
                 store: PgShelfStore, exact_up_to: int = 0):
        index = build_index(vectors, "flat-ip") if 0 < len(chunks) <= exact_up_to else None
        super().__init__(manifest, chunks, vectors, index, version)
        self._store = store

    @property
    def searched_in_database(self) -> bool:
        return self.index is None

    def search_rows(self, query_vec: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(row on the shelf, cosine similarity) pairs, best first: exact here, or from pgvector's HNSW."""
        if not self.chunks or k <= 0:
            return []
        if not self.searched_in_database:
            return super().search_rows(query_vec, k)
        return self._store.nearest(self.key, self.version, self.manifest.dim, query_vec, min(k, len(self.chunks)))


class PgShelfStore:
    """All shelves in one PostgreSQL database. `root` is this machine's index folder (kept for what is local)."""

    def __init__(self, url: str, root: str | Path = ".", namespace: str | None = None,
                 exact_search_up_to: int | None = None):
        """`exact_search_up_to`: shelves of at most this many chunks are searched exactly in process (default: the
        policy's `approximate_index_above`, the size up to which the FAISS backend searches exactly too); 0: every
        shelf in the database."""
        if namespace is not None and not _NAMESPACE.fullmatch(namespace):
            raise ValueError(f"a shelf namespace is a Postgres schema name of lower-case letters, digits and _ "
                             f"(at most 63, not starting with a digit), not {namespace!r}")
        self.url, self.root, self.namespace = url, Path(root), namespace
        self.exact_search_up_to = policy_approximate_above() if exact_search_up_to is None else int(exact_search_up_to)
        self._ready = False
        self._held: dict[ShelfKey, int] = {}  # shelves this store's threads hold the lock of -> thread id
        self._read_con: psycopg.Connection | None = None  # the questions' small reads share one open connection
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
            if self.namespace:
                # the namespace first, then the database's own path (where the vector extension's type lives); kept
                # for the session (is_local false: the pool's reset forgets it), committed so a rollback cannot undo it
                con.execute("SELECT set_config('search_path', %s || ', ' || current_setting('search_path'), false)",
                            (f'"{self.namespace}"',))
                if not autocommit:
                    con.commit()
            if not getattr(con, "vector_ready", False):  # once per pooled connection: it looks the type up
                register_vector(con)
                con.vector_ready = True
        except BaseException:
            con.close()
            raise
        return con

    def _migrate(self) -> None:
        if self._ready:
            return
        # the extension first, in the default path (visible to every namespace): every _open registers its type
        with psycopg.connect(self.url) as con:
            con.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            try:
                con.execute("CREATE EXTENSION IF NOT EXISTS vector")
            except psycopg.errors.InsufficientPrivilege as e:
                raise TutorError(f"the database has no pgvector extension and this role may not create it: run "
                                   f"`CREATE EXTENSION vector;` once as the database's owner ({e})") from e
            if self.namespace:
                con.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.namespace}"')
        with self._open() as con:
            con.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            con.execute("CREATE TABLE IF NOT EXISTS shelf_schema_version (version INTEGER NOT NULL)")
            row = con.execute("SELECT version FROM shelf_schema_version").fetchone()
            if row is None:
                con.execute("INSERT INTO shelf_schema_version VALUES (0)")
            version = row[0] if row else 0
            for n, sql in enumerate(MIGRATIONS[version:], start=version + 1):
                con.execute(sql)
                con.execute("UPDATE shelf_schema_version SET version = %s", (n,))
        self._ready = True

    def _ensure_index(self, con: psycopg.Connection, dim: int) -> None:
        con.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
        con.execute(hnsw_index_sql(dim))

    # ------------------------------------------------------------------ reading
    def _read(self, sql: str, args: Sequence | dict = ()) -> list[tuple]:
        """Rows of one read-only statement on the store's open connection (autocommit: each statement sees what is
        committed when it runs). Every question reads the shelf list and each shelf's live version (and, on a large
        shelf, its nearest chunks), and every drawn source its shelf's manifest: a new connection for each cost more
        than the statements themselves."""
        with self._read_lock:
            for attempt in (1, 2):  # a connection the server dropped is opened again once
                try:
                    if self._read_con is None or self._read_con.closed:
                        self._read_con = self._connect(autocommit=True)
                        # keep scanning the index until k rows pass the shelf filter (pgvector >= 0.8)
                        self._read_con.execute("SET hnsw.iterative_scan = strict_order")
                        self._read_con.execute(f"SET hnsw.ef_search = {HNSW_EF_SEARCH}")
                    return self._read_con.execute(sql, args).fetchall()
                except psycopg.OperationalError:
                    self._read_con = None
                    if attempt == 2:
                        raise
        return []

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

    def load(self, klass: str, subject: str, version: str | None = None) -> PgShelf:
        """The live version (or `version`) with its chunks and vectors; ShelfDamaged when its rows do not add up."""
        version = version or self.current_version(klass, subject)
        if not version:
            raise ShelfNotFound(klass, subject, [f"{k.klass}/{k.subject}" for k in self.keys()])
        manifest = self.manifest_of(klass, subject, version)
        with self._connect() as con:
            rows = con.execute("SELECT row, chunk, embedding FROM shelf_chunks WHERE class = %s AND subject = %s"
                               " AND version = %s ORDER BY row", (*check_names(klass, subject), version)).fetchall()
        if [r[0] for r in rows] != list(range(manifest.n_chunks)):
            raise ShelfDamaged(klass, subject, f"{version} is inconsistent: {len(rows)} chunk rows for the "
                                               f"{manifest.n_chunks} its manifest lists", version)
        try:
            chunks = [Chunk.from_dict(r[1]) for r in rows]
        except Exception as e:  # noqa: BLE001
            raise ShelfDamaged(klass, subject, f"{version} has a chunk that cannot be read ({e})", version) from e
        vectors = (np.stack([_array(r[2]) for r in rows]) if rows
                   else np.zeros((0, manifest.dim), dtype=np.float32))
        return PgShelf(manifest, chunks, vectors, version, self, self.exact_search_up_to)

    def versions(self, klass: str, subject: str) -> list[str]:
        """Complete versions in the database, newest first (the live one, the one before it, crashed writes')."""
        rows = self._read("SELECT version FROM shelf_versions WHERE class = %s AND subject = %s",
                          check_names(klass, subject))
        return sorted((r[0] for r in rows), key=lambda v: int(v[1:]), reverse=True)

    def previous_version(self, klass: str, subject: str) -> str | None:
        """The newest version other than the live one that loads, if any."""
        return previous_intact_version(self, klass, subject)

    def nearest(self, key: ShelfKey, version: str, dim: int, query_vec: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The k rows of one shelf version closest to a unit query vector, as (row, cosine similarity), best first."""
        q = np.asarray(query_vec, dtype=np.float32).reshape(-1)
        d = int(dim)
        sql = (f"SELECT row, 1 - (embedding::vector({d}) <=> %(q)s::vector({d})) FROM shelf_chunks"
               f" WHERE dim = {d} AND class = %(k)s AND subject = %(s)s AND version = %(v)s"
               f" ORDER BY embedding::vector({d}) <=> %(q)s::vector({d}) LIMIT %(n)s")
        args = {"q": q, "k": key.klass, "s": key.subject, "v": version, "n": int(k)}
        return [(int(r), float(c)) for r, c in self._read(sql, args)]

    # ------------------------------------------------------------------ writing
    @contextlib.contextmanager
    def lock(self, klass: str, subject: str):
        """One writer per shelf across every process on the database; a second raises ShelfBusy at once."""
        key = ShelfKey(*check_names(klass, subject))
        with self._state_lock:
            mine = self._held.get(key) == threading.get_ident()
        if mine:  # already this thread's (a write inside an ingest)
            yield
            return
        con = self._connect(autocommit=True)
        try:
            if not con.execute("SELECT pg_try_advisory_lock(hashtext(%s))", (self._lock_name(key),)).fetchone()[0]:
                raise ShelfBusy(key.klass, key.subject)
            with self._state_lock:
                self._held[key] = threading.get_ident()
            try:
                yield
            finally:
                with self._state_lock:
                    self._held.pop(key, None)
                con.execute("SELECT pg_advisory_unlock(hashtext(%s))", (self._lock_name(key),))
        finally:
            con.close()

    def _lock_name(self, key: ShelfKey) -> str:
        where = f"{self.namespace}:" if self.namespace else ""  # the default's name unchanged, as running apps use it
        return f"tutor-shelf:{where}{key.klass}/{key.subject}"

    def write(self, manifest: Manifest, chunks: list[Chunk], vectors: np.ndarray, *,
              fail_before_swap: bool = False) -> str:
        """Write a complete new version (committed), then make it current in a second transaction; returns it.

        `fail_before_swap` simulates a crash between the two (for tests)."""
        if len(chunks) != len(vectors):
            raise ValueError(f"{len(chunks)} chunks but {len(vectors)} vectors")
        k, s = check_names(manifest.klass, manifest.subject)
        matrix = np.asarray(vectors, dtype=np.float32).reshape(-1, manifest.dim)
        with self.lock(k, s):
            version = f"v{time.time_ns()}"
            manifest.n_chunks = len(chunks)
            manifest.built_at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
            manifest.files = {}  # the database keeps its own checksums of its pages
            with self._connect() as con:
                self._ensure_index(con, manifest.dim)
                con.execute("INSERT INTO shelf_versions (class, subject, version, manifest) VALUES (%s, %s, %s, %s)",
                            (k, s, version, Json(json.loads(manifest.to_json()))))
                with con.cursor() as cur, cur.copy("COPY shelf_chunks (class, subject, version, row, chunk, dim,"
                                                   " embedding) FROM STDIN") as copy:
                    for i, (c, v) in enumerate(zip(chunks, matrix)):
                        copy.write_row((k, s, version, i, json.dumps(c.to_dict(), ensure_ascii=False),
                                        manifest.dim, v))
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
                con.execute("DELETE FROM shelf_versions WHERE class = %s AND subject = %s AND version <> ALL(%s)",
                            (k, s, [v for v in (version, previous) if v]))
            return version

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
        with psycopg.connect(self.url, autocommit=True) as con:
            con.execute(f'DROP SCHEMA IF EXISTS "{self.namespace}" CASCADE')
        self._ready = False

    def delete(self, klass: str, subject: str) -> None:
        """Remove a whole shelf: its pointer, versions and chunks."""
        with self.lock(klass, subject), self._connect() as con:
            con.execute("DELETE FROM shelves WHERE class = %s AND subject = %s", check_names(klass, subject))
            con.execute("DELETE FROM shelf_versions WHERE class = %s AND subject = %s", check_names(klass, subject))


def _array(value) -> np.ndarray:
    # pgvector's loader gives a Vector for the untyped column; its to_numpy() is float32 already
    return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=np.float32)
