"""Shelves on disk: one FAISS inner-product index per (class, subject), its chunks, vectors and manifest.

A shelf is a folder of versions and a `CURRENT` file naming the live one. A new version is written completely
beside the old one and then `CURRENT` is replaced in one atomic rename, so a crash or a bad PDF never leaves a
broken shelf: readers see the old version or the new one, never half of either. The manifest records each data
file's SHA-256, checked at load: a version damaged on disk raises ShelfDamaged (isolating that shelf alone), and
`rollback` points `CURRENT` back at the version before it.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

# FAISS brings its own OpenMP runtime, which reads this once, as faiss loads; tutor/retrieval/embedding.py says
# why passive
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import faiss  # noqa: E402

from tutor.errors import DiskFull, ShelfDamaged, ShelfNotFound, is_disk_full
from tutor.files import sha256_file
from tutor.store.faiss_index import build_index, search_index
from tutor.types import Chunk, Hit

_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,40}$")


def check_name(value: str, what: str) -> str:
    """Class and subject names become folder names: allow only short lowercase words joined by hyphens."""
    v = str(value).strip().lower().replace(" ", "-").replace("_", "-")
    if not _NAME.match(v):
        raise ValueError(f"{what} {value!r} is not valid: use letters, digits and hyphens (e.g. 'social-science')")
    return v


def check_names(klass: str, subject: str) -> tuple[str, str]:
    """A shelf's class and subject, each checked (and normalised) by check_name."""
    return check_name(klass, "class"), check_name(subject, "subject")


@dataclass(frozen=True)
class ShelfKey:
    """A shelf's identity: class and subject."""

    klass: str
    subject: str

    def label(self) -> str:
        return f"Class {self.klass} · {self.subject.replace('-', ' ').title()}"


def sort_keys(keys: list[ShelfKey]) -> list[ShelfKey]:
    """Shelves in the order pages list them: by class number, then subject."""
    return sorted(keys, key=lambda k: (int(k.klass) if k.klass.isdigit() else 99, k.klass, k.subject))


@dataclass
class ChapterEntry:
    """One ingested file: its hash (to spot changes), chapter metadata and what ingestion made of it."""

    file: str
    sha256: str
    chapter: str
    chapter_code: str
    chapter_number: str
    pages: int
    pages_used: int
    pages_skipped: list[dict]
    chunks: int
    ingested_at: str
    pipeline: str = ""  # the ingestion pipeline version that made the chunks
    flagged: list[dict] = field(default_factory=list)  # planted sentences found at ingest: {"page", "sentence"}
    source: str = ""  # where the PDF was read from (absolute path), so its pages can be shown as printed


@dataclass
class Manifest:
    """What a shelf holds and how it was built (the embedding model above all: queries must use the same)."""

    klass: str
    subject: str
    embedding_model: str
    dim: int
    index_type: str = "flat-ip"
    chapters: dict[str, ChapterEntry] = field(default_factory=dict)
    built_at: str = ""
    n_chunks: int = 0
    files: dict[str, str] = field(default_factory=dict)  # SHA-256 of each data file of the version, checked at load

    def to_json(self) -> str:
        d = asdict(self)
        d["class"] = d.pop("klass")
        return json.dumps(d, indent=2, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        d = json.loads(text)
        d["klass"] = str(d.pop("class"))
        d["chapters"] = {k: ChapterEntry(**v) for k, v in d.get("chapters", {}).items()}
        return cls(**d)


class Shelf:
    """A loaded shelf: manifest, chunks, their vectors and the FAISS index over them."""

    def __init__(self, manifest: Manifest, chunks: list[Chunk], vectors: np.ndarray, index: faiss.Index, version: str):
        self.manifest, self.chunks, self.vectors, self.index, self.version = manifest, chunks, vectors, index, version
        self.key = ShelfKey(manifest.klass, manifest.subject)
        self._lexical = None
        self._lexical_lock = threading.Lock()

    @property
    def lexical(self):
        """The shelf's BM25 and trigram index (tutor/retrieval/lexical.py), built from its evidence chunks on first use.

        It lives on the loaded Shelf, which is one version: a swapped-in version is a new Shelf with a new index,
        so the lexical side can never serve another version's chunks. NCERT shelves of ~1,000 chunks build in
        about a second; persisting it beside the FAISS index is left for when shelves grow.
        """
        if self._lexical is None:
            with self._lexical_lock:
                if self._lexical is None:
                    from tutor.retrieval.lexical import LexicalIndex

                    self._lexical = LexicalIndex([c.text for c in self.chunks], [c.is_evidence for c in self.chunks])
        return self._lexical

    def __len__(self) -> int:
        return len(self.chunks)

    def term_stats(self):
        """How the shelf uses each term (tutor/text/terms.py's TermStats), counted from its chunks."""
        from tutor.text.terms import TermStats

        return TermStats([c.text for c in self.chunks])

    def cosines(self, rows: list[int], query_vec: np.ndarray) -> np.ndarray:
        """The exact cosine similarity of each row's chunk to a unit query vector (higher is closer, in [-1, 1])."""
        q = np.asarray(query_vec, dtype=np.float32).reshape(-1)
        return self.vectors[np.asarray(rows, dtype=np.int64)] @ q

    def search(self, query_vec: np.ndarray, k: int) -> list[Hit]:
        """The k chunks closest to a unit query vector, best first, scored by cosine similarity."""
        return [Hit(self.chunks[i], s, r) for r, (i, s) in enumerate(self.search_rows(query_vec, k))]

    def search_rows(self, query_vec: np.ndarray, k: int) -> list[tuple[int, float]]:
        """`search` as (row on the shelf, cosine) pairs, best first."""
        if not self.chunks or k <= 0:
            return []
        scores, ids = search_index(self.index, query_vec, min(k, len(self.chunks)), self.vectors)
        return [(int(i), float(s)) for s, i in zip(scores, ids) if i >= 0]


def previous_intact_version(store, klass: str, subject: str) -> str | None:
    """The newest version of a store's shelf other than the live one that loads (and passes its checksums), if any:
    what a rollback goes back to, on disk or in the database."""
    current = store.current_version(klass, subject)
    for v in store.versions(klass, subject):
        if v == current:
            continue
        try:
            store.load(klass, subject, v)
            return v
        except ShelfDamaged:
            continue
    return None


class ShelfStore:
    """All shelves under one folder (`<root>/class-<class>/<subject>/`)."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    def shelf_dir(self, klass: str, subject: str) -> Path:
        return self.root / f"class-{check_name(klass, 'class')}" / check_name(subject, "subject")

    def keys(self) -> list[ShelfKey]:
        out = []
        if not self.root.exists():
            return out
        for cdir in sorted(self.root.glob("class-*")):
            for sdir in sorted(cdir.iterdir()):
                if (sdir / "CURRENT").exists():
                    out.append(ShelfKey(cdir.name.removeprefix("class-"), sdir.name))
        return sort_keys(out)

    def current_version(self, klass: str, subject: str) -> str | None:
        try:
            return (self.shelf_dir(klass, subject) / "CURRENT").read_text().strip() or None
        except FileNotFoundError:
            return None

    def manifest(self, klass: str, subject: str) -> Manifest | None:
        """The live version's manifest (None: no shelf); raises ShelfDamaged when it cannot be read."""
        version = self.current_version(klass, subject)
        if not version:
            return None
        return self.manifest_of(klass, subject, version)

    def manifest_of(self, klass: str, subject: str, version: str) -> Manifest:
        try:
            path = self.shelf_dir(klass, subject) / version / "manifest.json"
            m = Manifest.from_json(path.read_text(encoding="utf-8"))
        except Exception as e:  # noqa: BLE001 - missing, cut short, not JSON, wrong fields: all the same to a reader
            raise ShelfDamaged(klass, subject, f"{version}/manifest.json cannot be read ({type(e).__name__}: {e})",
                               version) from e
        if (m.klass, m.subject) != (str(klass), subject):
            raise ShelfDamaged(klass, subject, f"{version}/manifest.json names shelf {m.klass}/{m.subject}", version)
        return m

    def load(self, klass: str, subject: str, version: str | None = None) -> Shelf:
        """The live version (or `version`), its files checked against the manifest's checksums; raises
        ShelfDamaged naming what is wrong, never a bare FAISS or JSON error."""
        version = version or self.current_version(klass, subject)
        if not version:
            raise ShelfNotFound(klass, subject, [f"{k.klass}/{k.subject}" for k in self.keys()])
        vdir = self.shelf_dir(klass, subject) / version
        manifest = self.manifest_of(klass, subject, version)
        for name, want in manifest.files.items():  # shelves written before checksums have none: nothing to check
            try:
                got = sha256_file(vdir / name)
            except OSError as e:
                raise ShelfDamaged(klass, subject, f"{version}/{name} cannot be read ({e})", version) from e
            if got != want:
                raise ShelfDamaged(klass, subject, f"{version}/{name} fails its checksum (sha256 {got[:12]}…, the "
                                                   f"manifest says {want[:12]}…)", version)
        try:
            with open(vdir / "chunks.jsonl", encoding="utf-8") as f:
                chunks = [Chunk.from_dict(json.loads(line)) for line in f if line.strip()]
            vectors = np.load(vdir / "vectors.npy")
            index = faiss.read_index(str(vdir / "index.faiss"))
        except Exception as e:  # noqa: BLE001
            raise ShelfDamaged(klass, subject, f"{version} cannot be read ({type(e).__name__}: {e})", version) from e
        if index.ntotal != len(chunks) or len(vectors) != len(chunks):
            raise ShelfDamaged(klass, subject, f"{version} is inconsistent: {index.ntotal} vectors for "
                                               f"{len(chunks)} chunks", version)
        return Shelf(manifest, chunks, vectors, index, version)

    def versions(self, klass: str, subject: str) -> list[str]:
        """Complete versions on disk, newest first (orphans of crashed writes, named `.v…tmp`, are not versions)."""
        sdir = self.shelf_dir(klass, subject)
        if not sdir.exists():
            return []
        found = [p.name for p in sdir.iterdir() if p.is_dir() and re.match(r"^v\d+$", p.name)]
        return sorted(found, key=lambda v: int(v[1:]), reverse=True)

    def previous_version(self, klass: str, subject: str) -> str | None:
        """The newest version other than the live one that loads and passes its checksums, if any."""
        return previous_intact_version(self, klass, subject)

    def rollback(self, klass: str, subject: str) -> str:
        """Point the shelf back at its previous intact version (atomically, under the shelf's lock); returns it.
        The damaged version stays on disk until the next write prunes it."""
        with self.lock(klass, subject):
            previous = self.previous_version(klass, subject)
            if previous is None:
                raise ShelfDamaged(klass, subject, "there is no earlier intact version to roll back to: rebuild the "
                                                   "shelf from its kept PDFs instead")
            self._point(self.shelf_dir(klass, subject), previous)
            return previous

    def _point(self, sdir: Path, version: str) -> None:
        pointer = sdir / "CURRENT.tmp"
        with open(pointer, "w") as fh:
            fh.write(version)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(pointer, sdir / "CURRENT")

    @contextlib.contextmanager
    def lock(self, klass: str, subject: str):
        """One writer per shelf at a time (an upload and a CLI ingest must not interleave)."""
        sdir = self.shelf_dir(klass, subject)
        sdir.mkdir(parents=True, exist_ok=True)
        with open(sdir / ".lock", "w") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def write(self, manifest: Manifest, chunks: list[Chunk], vectors: np.ndarray, *,
              fail_before_swap: bool = False) -> str:
        """Write a complete new version, then swap `CURRENT` to it atomically; returns the version name.

        `fail_before_swap` simulates a crash after the files are written and before the swap (for tests).
        """
        if len(chunks) != len(vectors):
            raise ValueError(f"{len(chunks)} chunks but {len(vectors)} vectors")
        sdir = self.shelf_dir(manifest.klass, manifest.subject)
        sdir.mkdir(parents=True, exist_ok=True)
        version = f"v{time.time_ns()}"
        tmp = sdir / f".{version}.tmp"
        try:
            self._write_files(tmp, manifest, chunks, vectors)
        except Exception as e:
            shutil.rmtree(tmp, ignore_errors=True)  # a half-written version is never left behind
            if is_disk_full(e):
                raise DiskFull(sdir, f"shelf class {manifest.klass} {manifest.subject} is unchanged") from e
            raise
        os.rename(tmp, sdir / version)
        previous = self.current_version(manifest.klass, manifest.subject)
        if fail_before_swap:
            raise RuntimeError("simulated crash before the swap")
        self._point(sdir, version)
        self._prune(sdir, keep={version, previous} - {None})
        return version

    @staticmethod
    def _write_files(tmp: Path, manifest: Manifest, chunks: list[Chunk], vectors: np.ndarray) -> None:
        """A version's files in the folder `tmp` (made here), each synced to disk."""
        tmp.mkdir()
        manifest.n_chunks = len(chunks)
        manifest.built_at = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        with open(tmp / "chunks.jsonl", "w", encoding="utf-8") as f:
            for c in chunks:
                f.write(json.dumps(c.to_dict(), ensure_ascii=False) + "\n")
        np.save(tmp / "vectors.npy", np.asarray(vectors, dtype=np.float32))
        matrix = np.asarray(vectors, dtype=np.float32).reshape(-1, manifest.dim)
        faiss.write_index(build_index(matrix, manifest.index_type), str(tmp / "index.faiss"))
        manifest.files = {name: sha256_file(tmp / name) for name in ("chunks.jsonl", "vectors.npy", "index.faiss")}
        (tmp / "manifest.json").write_text(manifest.to_json(), encoding="utf-8")
        for p in tmp.iterdir():
            with open(p, "rb") as fh:
                os.fsync(fh.fileno())

    def _prune(self, sdir: Path, keep: set[str]) -> None:
        """Remove every version but those kept (the live one and the one live before it, which a reader may still
        be loading), including orphans of writes that crashed before their swap."""
        versions = [p for p in sdir.iterdir() if p.is_dir() and re.match(r"^\.?v\d+", p.name)]
        for p in versions:
            if p.name not in keep:
                shutil.rmtree(p, ignore_errors=True)

    def delete(self, klass: str, subject: str) -> None:
        """Remove a whole shelf."""
        shutil.rmtree(self.shelf_dir(klass, subject), ignore_errors=True)
