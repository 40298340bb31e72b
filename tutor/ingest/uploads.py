"""Uploaded chapter PDFs: safe names, guessing their shelf, adding them to shelves, keeping them, and rebuilding a
shelf from them. They are kept under data/uploads, or in the database when the shelves are on PostgreSQL (the
store's `uploads`, tutor/store/pg_uploads.py), so any app process can rebuild a shelf.

Plain functions the maintainers' page calls (it draws their results and nothing else); no Streamlit.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

import numpy as np

from tutor.config import data_dir
from tutor.errors import DiskFull, ShelfDamaged, TutorError, is_disk_full
from tutor.files import sha256_file
from tutor.ingest.builder import IngestItem, IngestReport, Progress, ingest, remove_chapter
from tutor.retrieval.embedding import Embedder
from tutor.store.shelf import Manifest, ShelfStore, check_name


def uploads_dir() -> Path:
    """Where uploaded chapter PDFs are kept so that a shelf can be rebuilt from them."""
    return data_dir() / "uploads"


def safe_pdf_name(uploaded_name: str, taken: set[str] | None = None) -> str:
    """A file name safe to write anywhere: the base name only, lowercase, letters and marks of any script (Devanagari
    as much as Latin), digits, '-', '_', '.pdf'; anything else (spaces, slashes, symbols) becomes '-', and invisible
    format characters (bidi overrides, zero-width joiners) are dropped. At most 60 characters before '.pdf'.

    Never a path: directory parts (either slash) are dropped, so '../../etc/passwd' becomes 'passwd.pdf'. A name in
    `taken` gets -2, -3, … before '.pdf'.
    """
    base = PureWindowsPath(PurePosixPath(str(uploaded_name)).name).name
    base = unicodedata.normalize("NFC", base).lower()
    stem = base.removesuffix(".pdf")
    kept = []
    for ch in stem:
        cat = unicodedata.category(ch)
        if cat[0] in "LMN" or ch in "._-":
            kept.append(ch)
        elif cat != "Cf":
            kept.append("-")
    stem = re.sub(r"-{2,}", "-", "".join(kept)).strip("-._")[:60].strip("-._") or "chapter"
    name = f"{stem}.pdf"
    n = 2
    while taken is not None and name in taken:
        name = f"{stem}-{n}.pdf"
        n += 1
    return name


def upload_name(uploaded_name: str, digest: str, on_shelf: dict[str, str], taken: set[str],
                replace: bool = False) -> str:
    """The name an upload is kept and ingested under. `on_shelf` maps each name already used on the target shelf
    (chapters and kept PDFs) to its content digest; `taken` holds names given to this batch already.

    The same PDF keeps its name (an unchanged chapter); a different PDF whose cleaned name is already used never
    replaces it unless the maintainer chose `replace`: it becomes name-2.pdf (or the next free number)."""
    name = safe_pdf_name(uploaded_name)
    if name not in taken and (name not in on_shelf or on_shelf[name] == digest or replace):
        return name
    return safe_pdf_name(name, taken | set(on_shelf))


_SUBJECT_WORDS = {
    "social-science": ("social-science", "socialscience", "social-sci", "sst", "soc"),
    "science": ("science", "sci"),
    "mathematics": ("mathematics", "maths", "math"),
    "english": ("english", "eng"),
    "hindi": ("hindi",),
    "history": ("history",),
    "geography": ("geography",),
    "economics": ("economics",),
    "political-science": ("political-science", "politicalscience", "civics", "polity"),
    "physics": ("physics",),
    "chemistry": ("chemistry",),
    "biology": ("biology",),
}


def guess_shelf(file_name: str) -> tuple[str | None, str | None]:
    """Class and subject read from an upload's name when it says them ('class-10_science_light.pdf')."""
    name = file_name.lower()
    m = re.search(r"(?:class|cls|std|grade)[\s_-]*(\d{1,2})(?!\d)", name)
    klass = m.group(1) if m else None
    subject = None
    words = re.split(r"[^a-z0-9-]+", name.replace("_", " "))
    for canon, aliases in _SUBJECT_WORDS.items():  # social-science is tried before science
        if any(a in name if "-" in a else a in words for a in aliases):
            subject = canon
            break
    return klass, subject


def _in_database(store):
    """The store's kept PDFs in its database (PgShelfStore), or None: they are files under data/uploads."""
    return getattr(store, "uploads", None)


def keep_upload(src: Path, klass: str, subject: str, name: str, store=None) -> Path | None:
    """Copy an ingested PDF to data/uploads/class-<k>/<subject>/<name> (into the database, when the store keeps
    uploads there), so the shelf can be rebuilt later."""
    if (db := _in_database(store)) is not None:
        db.keep(klass, subject, safe_pdf_name(name), Path(src).read_bytes())
        return None
    dest_dir = uploads_dir() / f"class-{check_name(klass, 'class')}" / check_name(subject, "subject")
    dest_dir.mkdir(parents=True, exist_ok=True)
    dest = dest_dir / safe_pdf_name(name)
    shutil.copyfile(src, dest)
    return dest


def keep_ingested(items: list[IngestItem], report: IngestReport, store) -> list[str]:
    """Keep the PDF of every file the ingest `report` put on a shelf (or found there unchanged), so its shelf can be
    rebuilt from it: uploads, and command-line ingests into a database (whose replicas and restores have no other
    copy). Returns the files kept."""
    paths = {(it.klass, it.subject, it.file): it.path for it in items}
    kept = []
    for r in report.files:
        where = (r.shelf.klass, r.shelf.subject, r.file)
        if where in paths and r.status in ("added", "replaced", "unchanged") and not r.duplicate_of:
            try:
                keep_upload(paths[where], *where, store=store)
            except OSError as e:
                if not is_disk_full(e):
                    raise
                raise DiskFull(uploads_dir(), f"{r.file} was added to its shelf, but its PDF could not be kept for "
                                              "rebuilds (upload it again once there is space)") from e
            kept.append(r.file)
    return kept


def remove_upload(store: ShelfStore, klass: str, subject: str, file: str) -> int:
    """Take a chapter off its shelf (a new version without it) and delete its kept PDF, so a rebuild does not bring
    it back; returns the number of passages removed."""
    n = remove_chapter(store, klass, subject, file)
    if (db := _in_database(store)) is not None:
        db.remove(klass, subject, file)
        return n
    kept = kept_pdfs(klass, subject).get(file)
    if kept is not None:
        kept.unlink(missing_ok=True)
    return n


def kept_pdfs(klass: str, subject: str) -> dict[str, Path]:
    d = uploads_dir() / f"class-{check_name(klass, 'class')}" / check_name(subject, "subject")
    return {p.name: p for p in sorted(d.glob("*.pdf"))} if d.exists() else {}


def kept_names(store, klass: str, subject: str) -> list[str]:
    """The names of a shelf's kept PDFs, wherever the store keeps them (files here, or its database)."""
    db = _in_database(store)
    return list(db.digests(klass, subject)) if db is not None else list(kept_pdfs(klass, subject))


@dataclass(frozen=True)
class Upload:
    """One file a maintainer uploaded, with the shelf and chapter title typed beside it."""

    name: str  # the name it was uploaded under: shown, never used as a path
    data: bytes
    klass: str
    subject: str
    chapter: str = ""  # "" takes the title printed in the PDF
    replace: bool = False  # a different PDF of the same name on the shelf is replaced, not added as name-2.pdf


@dataclass(frozen=True)
class UploadResult:
    """What happened to one uploaded file (status as in FileReport: added, replaced, unchanged, refused)."""

    file: str  # the name it is kept under on the shelf
    klass: str
    subject: str
    status: str
    uploaded: str = ""  # the name it was uploaded under
    chapter: str = ""
    pages: int = 0
    pages_used: int = 0
    chunks: int = 0
    skipped: tuple[tuple[int, str], ...] = ()
    cause: str = ""  # why it was refused, said of the file ("is encrypted ...")
    error_code: str = ""
    flagged: tuple[tuple[int, str], ...] = ()
    duplicate_of: str = ""
    notes: tuple[str, ...] = ()  # what extraction left out and why ("page 3: 71 character(s) the printed page ...")

    @property
    def renamed(self) -> bool:
        """Kept under another name than the uploaded one's clean form (that name was taken by a different PDF)."""
        return bool(self.uploaded) and safe_pdf_name(self.uploaded) != self.file


def upload_problems(files: list[Upload]) -> list[str]:
    """What is wrong with the fields typed beside the uploads ("name: problem"); empty when they can be added."""
    problems = []
    for f in files:
        try:
            check_name(f.klass, "class")
            check_name(f.subject, "subject")
        except ValueError as e:
            problems.append(f"{f.name}: {e}")
    return problems


def names_on_shelf(store: ShelfStore, klass: str, subject: str) -> dict[str, str]:
    """Every file name in use on a shelf, chapters and kept PDFs, with its content digest ("" when unknown)."""
    db = _in_database(store)
    out = db.digests(klass, subject) if db is not None else {
        name: sha256_file(path) for name, path in kept_pdfs(klass, subject).items()}
    try:
        manifest = store.manifest(klass, subject)
    except ShelfDamaged:
        manifest = None
    for name, entry in manifest.chapters.items() if manifest else ():
        out[name] = entry.sha256
    return out


def add_uploads(store: ShelfStore, files: list[Upload], embedder: Embedder | None, tmp: Path,
                progress: Callable[[Progress], None] | None = None) -> list[UploadResult]:
    """Ingest uploaded PDFs: each is written to `tmp` under a safe name (never the uploaded name as a path), ingested
    in-process, and, when it is on its shelf afterwards, kept under data/uploads for rebuilds.

    `embedder` None: each shelf keeps its own model, a new shelf gets the automatic choice. Raises ValueError when a
    field is wrong (check `upload_problems` first) and TutorError when the ingest as a whole fails; a refused file
    is a result, not an exception. Runs extraction in this process (workers=1): never fork a threaded web server,
    and a refused file's PdfRefused need not cross a process boundary.
    """
    items, uploaded, taken = [], {}, set()
    for f in files:
        klass, subject = check_name(f.klass, "class"), check_name(f.subject, "subject")
        name = upload_name(f.name, hashlib.sha256(f.data).hexdigest(), names_on_shelf(store, klass, subject),
                           {n for (k, s_, n) in taken if (k, s_) == (klass, subject)}, f.replace)
        taken.add((klass, subject, name))
        path = tmp / f"class-{klass}" / subject / name  # one folder per shelf: the same name may go on two shelves
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(f.data)
        except OSError as e:
            if is_disk_full(e):
                raise DiskFull(tmp, "nothing was added; the library is unchanged") from e
            raise
        items.append(IngestItem(path, klass, subject, chapter=f.chapter.strip() or None, name=name))
        uploaded[(klass, subject, name)] = f.name
    if not items:
        return []
    from tutor.safety.crosslingual import ingest_judge

    report = ingest(items, store, embedder, workers=1, progress=progress, cross_judge=ingest_judge())
    keep_ingested(items, report, store)
    results = []
    for r in report.files:
        where = (r.shelf.klass, r.shelf.subject, r.file)
        results.append(UploadResult(
            r.file, r.shelf.klass, r.shelf.subject, r.status, uploaded.get(where, ""), r.chapter, r.pages,
            r.pages_used, r.chunks, tuple(r.skipped), r.cause, r.error_code, tuple(r.flagged), r.duplicate_of,
            tuple(r.notes)))
    return results


def progress_fraction(p: Progress) -> float:
    """One bar for a whole ingest: the overall estimate where the event carries one (tutor/ingest/progress.py),
    else by stage: hashing 0–10 %, extraction 10–45 %, embedding 45–90 %, writing 90–100 %."""
    if p.overall is not None:
        return max(0.0, min(1.0, p.overall))
    span = {"hash": (0.0, 0.10), "extract": (0.10, 0.45), "embed": (0.45, 0.90), "write": (0.90, 1.0),
            "done": (1.0, 1.0)}
    lo, hi = span.get(p.stage, (0.0, 1.0))
    frac = (p.done / p.total) if p.total else 1.0
    return max(0.0, min(1.0, lo + (hi - lo) * frac))


def progress_text(p: Progress) -> str:
    """What the stage is doing, then the whole ingest's percentage and time left where the event carries them."""
    from tutor.ingest.progress import overall_text

    head, whole = _stage_text(p), overall_text(p)
    return f"{head} · {whole}" if whole and p.stage != "done" else head


def _stage_text(p: Progress) -> str:
    words = {"hash": "Checking", "extract": "Reading the text of", "embed": "Indexing passages",
             "write": "Saving the shelf", "done": "Finished"}
    head = words.get(p.stage, p.stage)
    if p.stage == "embed":
        what = f"{head} for Hindi questions" if "Hindi" in p.message else head  # the e5 pass (cross_vectors.py)
        return f"{what}: {p.done} of {p.total}"
    if p.stage in ("write", "done"):
        return f"{head} — {p.message}" if p.message else head
    return f"{head} {p.file}" if p.file else head


@dataclass
class RebuildResult:
    """What a shelf rebuild did: chapters re-read from their kept PDFs, carried over as they were, or refused."""

    reingested: list[str]
    carried: list[str]
    refused: list[str]
    chunks: int
    lost: list[str] = None  # chapters of a damaged shelf with no kept PDF: they cannot be carried over

    def __post_init__(self):
        self.lost = list(self.lost or [])


def rebuild_shelf(store: ShelfStore, embedder, klass: str, subject: str,
                  progress: Callable[[Progress], None] | None = None) -> RebuildResult:
    """Re-ingest a shelf's chapters from their kept PDFs into a fresh version, swapped in atomically.

    Chapters without a kept PDF (e.g. ingested from the command line) keep their chunks and vectors as they are.
    Students keep reading the old version until the new one is written completely. A damaged shelf is rebuilt
    from its kept PDFs alone (every one of them when its manifest is unreadable too); chapters that only the damaged
    files held are reported as lost.
    """
    with store.lock(klass, subject), tempfile.TemporaryDirectory(prefix="tutor-rebuild-") as tmp:
        db = _in_database(store)
        kept = db.export(klass, subject, Path(tmp) / "kept") if db is not None else kept_pdfs(klass, subject)
        try:
            old = store.load(klass, subject)
            entries = old.manifest.chapters
        except ShelfDamaged:
            old = None
            try:
                entries = store.manifest(klass, subject).chapters
            except ShelfDamaged:
                entries = {name: None for name in kept}
        todo = [name for name in entries if name in kept]
        fresh_store = ShelfStore(Path(tmp) / "fresh")  # built on this disk, then written into `store` whole
        from tutor.safety.crosslingual import ingest_judge

        report = ingest([IngestItem(kept[n], klass, subject, chapter=entries[n].chapter if entries[n] else None,
                                    name=n) for n in todo],
                        fresh_store, embedder, progress=progress, workers=1, cross_judge=ingest_judge()
                        ) if todo else IngestReport()
        ok = {f.file for f in report.files if f.status in ("added", "replaced", "unchanged")}
        fresh = fresh_store.load(klass, subject) if ok else None
        carried = [n for n in entries if n not in ok]
        lost = []
        if old is None:  # nothing can be carried over from damaged files
            carried, lost = [], carried
            if not ok:
                raise TutorError("no chapter could be read again from a kept PDF, so there is nothing to rebuild "
                                 "from: roll the shelf back instead, or upload its chapters again")
        if carried and old.manifest.embedding_model != getattr(embedder, "name", ""):
            raise TutorError(
                f"{len(carried)} chapter(s) have no kept PDF and were built with {old.manifest.embedding_model}; "
                "upload their PDFs again before rebuilding with a different model"
            )
        manifest = Manifest(klass, subject, embedder.name, embedder.dim, (old or fresh).manifest.index_type)
        chunks, vecs = [], []
        if fresh is not None:
            manifest.chapters.update(fresh.manifest.chapters)
            chunks += fresh.chunks
            vecs.append(fresh.vectors)
        if carried:
            mask = np.array([c.file in set(carried) for c in old.chunks], dtype=bool)
            chunks += [c for c, m in zip(old.chunks, mask) if m]
            vecs.append(old.vectors[mask])
            for n in carried:
                manifest.chapters[n] = entries[n]
        all_vecs = np.concatenate(vecs) if vecs else np.zeros((0, embedder.dim), np.float32)
        store.write(manifest, chunks, all_vecs)
    return RebuildResult(sorted(ok), carried, [f.file for f in report.refused], len(chunks), lost)
