"""Ingestion: chapter PDFs into shelves, incrementally and atomically, with a progress callback.

Unchanged files (same SHA-256) are a no-op; a changed file replaces its old chunks; a refused file is reported by
name and cause and leaves its shelf as it was. Extraction runs in worker processes (it is CPU-bound pypdf work).
Long because one shelf's whole update (re-checked under its lock, read, cut, embedded within each chapter's time
budget, written and swapped) is one transaction, read best in one place.
"""
from __future__ import annotations

import contextlib
import os
import re
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tutor.errors import IngestError, PdfRefused, ShelfDamaged
from tutor.files import sha256_file
from tutor.ingest import pdftext
from tutor.ingest.chunking import ChapterInfo, chunk_pages, detect_chapter, mark_question_lists
from tutor.ingest.hindi_pdf import fix_hindi_pages
from tutor.ingest.pdftext import ExtractedPdf, extract_pdf
from tutor.ingest.progress import Estimate, Progress, ProgressFn  # noqa: F401 - Progress: imported from here
from tutor.retrieval.embedding import E5_NAME, MINILM_NAME, Embedder, embed_passages, embedder_by_name
from tutor.safety.vocabulary import held_back_reason
from tutor.store.shelf import ChapterEntry, Manifest, ShelfKey, ShelfStore, check_name
from tutor.text.language import HINDI, detect_language
from tutor.text.terms import has_devanagari
from tutor.types import Chunk

# bump when extraction, cleaning or chunking changes what a PDF turns into: unchanged files are then re-ingested
# -13: a word split once by a stray space is mended where the English word list has it whole ("horizonta lly", "e
# nsure"; split_words.py); -12: a sentence ends after a one-letter symbol ("... Ω m. Both ...") where a sentence opener
# follows; -11: a sentence ends after "etc." where a new one begins, never after "Eqs." (text/sentences.py); -10: "Do
# you know that ...?" tells, it does not ask (text/sentences.py tells_as_question); -9: a sentence opening with a
# question word asks only with its question mark (chunking.py is_asking), so prose with a few questions in it stays
# evidence; -8: a heading without a number is a sentence of its own (chunking.py _is_subheading); -7: no sentence ends
# at "Rs." or "Ltd." where it goes on (text/sentences.py); -6: words a PDF splits the same way every time mended with an
# English word list (pdftext.py); -5: only the text the printed page shows (visible.py); -4: Hindi pages repaired
PIPELINE_VERSION = "2026.11.30-13"

_LAYOUT = re.compile(r"^class-([A-Za-z0-9]+)$")


@dataclass(frozen=True)
class IngestItem:
    """One file to ingest and the shelf it goes on; `chapter` overrides the detected title."""

    path: Path
    klass: str
    subject: str
    chapter: str | None = None
    name: str | None = None  # the file name on the shelf (uploads pass a sanitised one)

    @property
    def file(self) -> str:
        return self.name or self.path.name


@dataclass
class FileReport:
    """What happened to one file: added, replaced, unchanged or refused, with pages and chunks."""

    file: str
    shelf: ShelfKey
    status: str
    chapter: str = ""
    pages: int = 0
    pages_used: int = 0
    chunks: int = 0
    skipped: list[tuple[int, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    cause: str = ""  # why a refused file was refused, said of the file: "is encrypted (...)", "has no pages"
    error_code: str = ""  # the cause as a code (PdfRefused.code, "shelf_damaged", "no_passages")
    flagged: list[tuple[int, str]] = field(default_factory=list)  # (page, sentence) planted text, never quoted
    duplicate_of: str = ""  # the file already on the shelf (or earlier in this run) with the same content digest

    @property
    def error(self) -> str:
        """The refusal as one line naming the file ("" for a file that was not refused)."""
        return f"{self.file}: {self.cause}" if self.cause else ""


@dataclass
class IngestReport:
    """The whole run: one report per file, totals and wall time."""

    files: list[FileReport] = field(default_factory=list)
    seconds: float = 0.0
    embedding: dict[ShelfKey, str] = field(default_factory=dict)  # the model each written shelf was embedded with
    cross_lingual: dict[ShelfKey, str] = field(default_factory=dict)  # English shelves made ready for Hindi questions

    @property
    def pages(self) -> int:
        return sum(f.pages_used for f in self.files if f.status in ("added", "replaced"))

    @property
    def chunks(self) -> int:
        return sum(f.chunks for f in self.files if f.status in ("added", "replaced"))

    @property
    def refused(self) -> list[FileReport]:
        return [f for f in self.files if f.status == "refused"]


def discover(paths: list[str | Path], klass: str | None = None, subject: str | None = None) -> list[IngestItem]:
    """Files to ingest. A folder laid out as `class-<class>/<subject>/<file>.pdf` needs no flags; otherwise
    `klass` and `subject` say where the given PDFs go."""
    items: list[IngestItem] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise IngestError(f"{p}: no such file or folder")
        files = [p] if p.is_file() else sorted(
            Path(d) / f for d, _, names in os.walk(p, followlinks=True) for f in names if f.lower().endswith(".pdf"))
        if p.is_dir() and not files:
            raise IngestError(f"{p}: no PDF files in this folder")
        for f in files:
            k, s = klass, subject
            if k is None or s is None:
                parts = f.resolve().parts
                for i in range(len(parts) - 2):
                    m = _LAYOUT.match(parts[i])
                    if m and i + 2 == len(parts) - 1:
                        k = k or m.group(1)
                        s = s or parts[i + 1]
            if not k or not s:
                raise IngestError(f"{f}: say --class and --subject, or lay the folder out as "
                                  f"class-<class>/<subject>/<file>.pdf")
            items.append(IngestItem(f, check_name(k, "class"), check_name(s, "subject")))
    return items


def _extract(item: IngestItem, ocr: bool = True, limits: tuple = (None, None, None)) -> ExtractedPdf | PdfRefused:
    """One file's pages, or why it is refused; `limits` are (max pages, max MB, max seconds)."""
    max_s = limits[2] if len(limits) > 2 else None
    t0 = pdftext._clock()
    try:
        pdf = extract_pdf(item.path, display_name=item.file, max_pages=limits[0], max_mb=limits[1], max_s=max_s)
        seconds = pdftext._clock() - t0  # OCR below is not counted: Tesseract's pace is the machine's, not the file's
        # Hindi pages: measured, repaired, OCR'd where Tesseract is installed, dropped when still unreadable
        if any(has_devanagari(p.text) for p in pdf.pages):
            pdf = fix_hindi_pages(pdf, item.path, use_ocr=ocr)
        pdf.seconds = seconds
        return pdf
    except PdfRefused as e:
        return e


def _chunks_for(item: IngestItem, pdf: ExtractedPdf, max_words: int) -> tuple[ChapterInfo, list[Chunk]]:
    info = detect_chapter(pdf.pages, Path(item.file).stem, pdf.headers)
    if item.chapter:
        info = ChapterInfo(title=item.chapter, code=info.code, number=info.number)
    chunks = chunk_pages(pdf.pages, klass=item.klass, subject=item.subject, file=item.file, chapter=info,
                         max_words=max_words)
    return info, mark_question_lists(chunks)


def ingest(
    items: list[IngestItem],
    store: ShelfStore,
    embedder: Embedder | None = None,
    *,
    progress: ProgressFn | None = None,
    max_words: int = 140,
    workers: int | None = None,
    index_type: str = "auto",
    ocr: bool = True,
    max_pages: int | None = None,
    max_mb: float | None = None,
    max_s: float | None = None,
    cross_judge=None,
    _fail_before_swap: bool = False,
) -> IngestReport:
    """Ingest files shelf by shelf; each touched shelf gets one new version, swapped in atomically.

    `embedder` None chooses per shelf (`default_embedding`): an existing shelf keeps the model that built it; a new
    shelf with a Hindi chapter gets multilingual-e5-small, any other MiniLM. `ocr` lets damaged Hindi pages be read
    by Tesseract where it is installed. `max_pages` and `max_mb` (default: the policy's max_pdf_pages and
    max_pdf_mb) refuse a file by name before it can hold the shelf's lock for long; `max_s` (max_ingest_s) refuses
    a chapter whose reading and embedding take longer, leaving its shelf as it was. `cross_judge` (E5Similarity):
    every English shelf touched gets its chunks (or windows) embedded for Hindi questions (cross_vectors.py).
    """
    if max_pages is None or max_mb is None or max_s is None:
        from tutor.policy import load_policy
        policy = load_policy()
        max_pages = policy.max_pdf_pages if max_pages is None else max_pages
        max_mb = policy.max_pdf_mb if max_mb is None else max_mb
        max_s = policy.max_ingest_s if max_s is None else max_s
    limits = (max_pages, max_mb, max_s)
    t0 = time.perf_counter()
    report = IngestReport()
    by_shelf: dict[ShelfKey, list[IngestItem]] = defaultdict(list)
    for it in items:
        by_shelf[ShelfKey(it.klass, it.subject)].append(it)
    est = Estimate(len(by_shelf), cross_judge is not None)
    emit = (lambda p: progress(est.update(p))) if progress else (lambda _p: None)

    # extract every file that needs it in one pool, largest first, so no worker idles between shelves; each shelf
    # then re-checks its files under its lock and uses these results (or extracts what changed meanwhile)
    digests = {str(it.path): sha256_file(it.path) for it in items}
    pre = _extract_changed(items, digests, store, workers, ocr, limits, emit)
    est.enter("shelves")
    for n, (key, shelf_items) in enumerate(by_shelf.items()):
        est.shelf(n)
        with store.lock(key.klass, key.subject):
            _ingest_shelf(key, shelf_items, store, embedder, emit, report, max_words, workers, index_type,
                          _fail_before_swap, pre, digests, ocr, limits)
    if cross_judge is not None:  # after the shelves' locks are let go: a cache, not part of any version
        from tutor.ingest.cross_vectors import warm_shelves
        est.enter("cross")
        report.cross_lingual = warm_shelves(store, by_shelf, cross_judge, lambda d, t, m: emit(Progress(
            "embed", d, t, message=m)))
    report.seconds = time.perf_counter() - t0
    emit(Progress("done", 1, 1, message=f"{len(report.files)} file(s) in {report.seconds:.1f}s"))
    return report


def _refuse(report: IngestReport, key: ShelfKey, file: str, cause: str) -> None:
    """Turn a file's report into a refusal (a chapter that ran out of its time budget while being embedded)."""
    report.files = [r for r in report.files if not (r.file == file and r.shelf == key)]
    report.files.append(FileReport(file, key, "refused", cause=cause, error_code="too_slow"))


def _is_current(it: IngestItem, digest: str, manifest: Manifest | None) -> bool:
    known = manifest.chapters.get(it.file) if manifest else None
    return bool(known and known.sha256 == digest and known.pipeline == PIPELINE_VERSION
                and (not it.chapter or it.chapter == known.chapter))


def _extract_changed(items: list[IngestItem], digests: dict[str, str], store: ShelfStore,
                     workers: int | None, ocr: bool = True, limits=(None, None), emit: ProgressFn | None = None
                     ) -> dict[tuple[str, str], ExtractedPdf | PdfRefused]:
    manifests: dict[ShelfKey, Manifest | None] = {}
    todo: list[tuple[IngestItem, str]] = []
    for it in items:
        key = ShelfKey(it.klass, it.subject)
        if key not in manifests:
            try:
                manifests[key] = store.manifest(it.klass, it.subject)
            except ShelfDamaged:  # _ingest_shelf refuses these files by name; nothing to extract for them
                manifests[key] = None
                continue
        elif manifests[key] is None and store.current_version(it.klass, it.subject):
            continue
        digest = digests[str(it.path)]
        if not _is_current(it, digest, manifests[key]):
            todo.append((it, digest))
    if len(todo) < 2:
        return {}
    todo.sort(key=lambda t: -t[0].path.stat().st_size)
    n_workers = workers if workers is not None else min(len(todo), os.cpu_count() or 1, 4)
    results = _run_extract([it for it, _ in todo], n_workers, ocr, limits, emit)
    return {(str(it.path), digest): res for (it, digest), res in zip(todo, results)}


def _ingest_shelf(key, shelf_items, store, embedder, emit, report, max_words, workers, index_type, fail_before_swap,
                  pre=None, digests=None, ocr=True, limits=(None, None)) -> None:
    try:
        manifest = store.manifest(key.klass, key.subject)
        old = store.load(key.klass, key.subject) if manifest else None
    except ShelfDamaged as e:  # never built on top of a damaged version: each file is refused, naming the repair
        for it in shelf_items:
            report.files.append(FileReport(
                it.file, key, "refused", cause=f"cannot go on the shelf class {key.klass} {key.subject}: the shelf is "
                f"damaged ({e.detail}); roll it back, rebuild it or remove it on the Maintainers page first",
                error_code="shelf_damaged"))
        return
    if embedder is None and manifest is not None:
        embedder = embedder_by_name(manifest.embedding_model)  # a shelf keeps the model that built it
    if manifest and manifest.embedding_model != embedder.name:
        raise IngestError(
            f"shelf {key.klass}/{key.subject} was built with {manifest.embedding_model}; "
            f"rebuild it to use {embedder.name}"
        )
    todo: list[tuple[IngestItem, str]] = []
    # chapters are known by their content: the same PDF under another name is the chapter already there, not a new one
    by_digest = {e.sha256: name for name, e in (manifest.chapters.items() if manifest else ())}
    unplaced = False  # an unchanged chapter from a shelf made before shelves recorded where each PDF is
    for i, it in enumerate(shelf_items):
        emit(Progress("hash", i, len(shelf_items), it.file))
        digest = (digests or {}).get(str(it.path)) or sha256_file(it.path)
        known = manifest.chapters.get(it.file) if manifest else None
        if _is_current(it, digest, manifest):
            report.files.append(FileReport(it.file, key, "unchanged", known.chapter, known.pages, known.pages_used,
                                           known.chunks))
            if not known.source:  # same file, same chunks: only its place is new (for the page as printed)
                known.source, unplaced = str(Path(it.path).resolve()), True
            continue
        twin = by_digest.get(digest)
        if twin is not None and twin != it.file:
            entry = manifest.chapters.get(twin) if manifest else None
            report.files.append(FileReport(
                it.file, key, "unchanged", entry.chapter if entry else "", entry.pages if entry else 0,
                entry.pages_used if entry else 0, entry.chunks if entry else 0,
                notes=[f"the same PDF (sha256 {digest[:12]}…) is already on the shelf as {twin}"], duplicate_of=twin))
            continue
        by_digest[digest] = it.file
        todo.append((it, digest))
    if not todo:
        if unplaced and old is not None:  # a new version with the same chunks and vectors, the sources recorded
            store.write(manifest, old.chunks, old.vectors)
        return

    new_chunks: dict[str, list[Chunk]] = {}
    entries: dict[str, ChapterEntry] = {}
    spent: dict[str, float] = {}  # seconds each chapter's reading took
    pre = pre or {}
    missing = [it for it, digest in todo if (str(it.path), digest) not in pre]
    n_workers = workers if workers is not None else min(len(missing), os.cpu_count() or 1, 4)
    extracted = _run_extract(missing, n_workers, ocr, limits) if missing else []
    fresh = dict(zip((str(it.path) for it in missing), extracted))
    results = [pre.get((str(it.path), digest)) or fresh[str(it.path)] for it, digest in todo]
    for n, ((it, digest), res) in enumerate(zip(todo, results)):
        emit(Progress("extract", n + 1, len(todo), it.file))
        if isinstance(res, PdfRefused):
            report.files.append(FileReport(it.file, key, "refused", cause=res.cause, error_code=res.code))
            continue
        info, chunks = _chunks_for(it, res, max_words)
        if not chunks:
            report.files.append(FileReport(it.file, key, "refused", cause="has no text that could be cut into passages",
                                           error_code="no_passages"))
            continue
        new_chunks[it.file] = chunks
        spent[it.file] = res.seconds
        skipped = [(s.page, s.reason) for s in res.skipped]
        flagged = planted(chunks)
        entries[it.file] = ChapterEntry(
            file=it.file, sha256=digest, chapter=info.title, chapter_code=info.code, chapter_number=info.number,
            pages=res.n_pages, pages_used=len(res.pages), pages_skipped=[{"page": p, "reason": r} for p, r in skipped],
            chunks=len(chunks), ingested_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"), pipeline=PIPELINE_VERSION,
            flagged=[{"page": p, "sentence": t} for p, t in flagged],
            source=str(Path(it.path).resolve()),
        )
        status = "replaced" if manifest and it.file in manifest.chapters else "added"
        report.files.append(FileReport(it.file, key, status, info.title, res.n_pages, len(res.pages), len(chunks),
                                       skipped, res.notes, flagged=flagged))
    if not new_chunks:
        return

    if embedder is None:
        embedder = embedder_by_name(default_embedding(new_chunks.values()))
    manifest = manifest or Manifest(key.klass, key.subject, embedder.name, embedder.dim, index_type)
    # embed the new chunks chapter by chapter, in batches so the progress bar moves; a chapter past its time budget
    # (reading and embedding together) is refused and left off the shelf
    max_s = limits[2] if len(limits) > 2 else None
    flat, vecs, batch = [], [], 64
    total, done = sum(len(cs) for cs in new_chunks.values()), 0
    for f, cs in list(new_chunks.items()):
        start, mine = pdftext._clock() - spent.get(f, 0.0), []
        for s in range(0, len(cs), batch):
            mine.append(embed_passages(embedder, [_embed_text(c) for c in cs[s : s + batch]]))
            done += len(cs[s : s + batch])
            emit(Progress("embed", done, total, message="embedding chunks"))
            if max_s is not None and pdftext._clock() - start > max_s:
                how_far = f"{min(s + batch, len(cs))} of its {len(cs)} passages were embedded"
                _refuse(report, key, f, pdftext.too_slow(max_s, how_far))
                del new_chunks[f], entries[f]
                break
        else:
            flat.extend(cs)
            vecs.extend(mine)
    if not new_chunks:
        return
    report.embedding[key] = embedder.name
    new_vecs = np.concatenate(vecs) if vecs else np.zeros((0, embedder.dim), np.float32)

    keep_chunks: list[Chunk] = []
    keep_vecs: list[np.ndarray] = []
    if old is not None:
        mask = [c.file not in new_chunks for c in old.chunks]
        keep_chunks = [c for c, m in zip(old.chunks, mask) if m]
        keep_vecs = [old.vectors[np.array(mask, dtype=bool)]]
    for f, e in entries.items():
        manifest.chapters[f] = e
    emit(Progress("write", 0, 1, message=f"writing shelf {key.klass}/{key.subject}"))
    all_vecs = np.concatenate(keep_vecs + [new_vecs]) if keep_vecs else new_vecs
    store.write(manifest, keep_chunks + flat, all_vecs, fail_before_swap=fail_before_swap)
    emit(Progress("write", 1, 1, message=f"shelf {key.klass}/{key.subject} swapped in"))


def planted(chunks: list[Chunk]) -> list[tuple[int, str]]:
    """Sentences of a chapter addressed to the tutor or the system, or asking for passwords (tutor.answering.prompts),
    with their pages, once each: the answerer never quotes them, and the maintainers see them at ingest. Released
    sentences are listed too (by the pure `held_back_reason`), so a maintainer can see and withdraw a release."""

    seen: dict[tuple[int, str], None] = {}
    for c in chunks:
        for text, page in c.sentence_texts():
            t = " ".join(text.split())
            if t and held_back_reason(t) is not None:
                seen.setdefault((page, t), None)
    return list(seen)


def _embed_text(c: Chunk) -> str:
    """What is embedded: the chapter and section titles give short chunks their context."""
    head = c.chapter if not c.section else f"{c.chapter}. {c.section}"
    return f"{head}. {c.text}"


def default_embedding(chapters) -> str:
    """The model for a new shelf: multilingual-e5-small when any chapter (a list of chunks) is mostly Hindi,
    otherwise MiniLM (English only, and the model the English thresholds were calibrated on)."""
    for chunks in chapters:
        if detect_language(" ".join(c.text for c in list(chunks)[:20])) == HINDI:
            return E5_NAME
    return MINILM_NAME


def _run_extract(items: list[IngestItem], workers: int, ocr: bool = True, limits=(None, None),
                 emit: ProgressFn | None = None) -> list[ExtractedPdf | PdfRefused]:
    """Each item's text, in order; `emit` (the pool before the shelves) hears of each file read."""
    out: list[ExtractedPdf | PdfRefused] = []
    with contextlib.ExitStack() as stack:
        if workers <= 1 or len(items) <= 1:
            results = (_extract(it, ocr, limits) for it in items)
        else:
            ex = stack.enter_context(ProcessPoolExecutor(max_workers=workers))
            results = ex.map(_extract, items, [ocr] * len(items), [limits] * len(items))
        for it, res in zip(items, results):
            out.append(res)
            if emit is not None:
                emit(Progress("extract", len(out), len(items), it.file))
    return out


def remove_chapter(store: ShelfStore, klass: str, subject: str, file: str) -> int:
    """Take one chapter off a shelf (a new version without its chunks); returns how many chunks went."""
    with store.lock(klass, subject):
        shelf = store.load(klass, subject)
        if file not in shelf.manifest.chapters:
            raise IngestError(f"{file} is not on the shelf class {klass} {subject}")
        mask = np.array([c.file != file for c in shelf.chunks], dtype=bool)
        manifest = shelf.manifest
        del manifest.chapters[file]
        chunks = [c for c, m in zip(shelf.chunks, mask) if m]
        store.write(manifest, chunks, shelf.vectors[mask])
        return int((~mask).sum())
