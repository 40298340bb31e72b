"""Shared helpers for the app's pages: cached resources, session keys, and how an answer is drawn.

Sections: resources (one st.cache_resource each), plain functions over `tutor` objects (testable without a browser:
reader text, upload names, audit frames, shelf rebuild), then drawing. Nothing here decides an answer: that is
`tutor.Tutor.ask`, called once per question.
"""
from __future__ import annotations

import functools
import hashlib
import hmac
import os
import re
import runpy
import shutil
import tempfile
import unicodedata
from collections import deque
from dataclasses import dataclass, fields
from datetime import datetime
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, Callable

import numpy as np
import pandas as pd
import streamlit as st

from tutor.audit.log import AuditLog
from tutor.config import audit_db_path, data_dir, index_dir
from tutor.retrieval.embedding import HashEmbedder, default_embedder
from tutor.errors import ShelfDamaged, TutorError
from tutor.ingest.builder import IngestItem, IngestReport, Progress, ingest
from tutor.text.language import detect_language
from tutor.store.pages import PageImage, PageRenderer, PageUnavailable, find_pdf
from tutor.types import (PASTED_TEXT, AnswerSentence, Check, Source, Suggestion, TutorAnswer,
                          reason_message, refusal_sentence)
from tutor.answering.prompts import withhold_planted
from tutor.retrieval.search import Library
from tutor.store.shelf import ChapterEntry, Manifest, ShelfKey, ShelfStore, check_name

APP_PATH = Path(__file__).resolve().with_name("app.py")

# ---------------------------------------------------------------------------------------------- session keys
# Per-user state lives in st.session_state under these names; nothing per-question goes on a cached object.
KLASS = "shelf_class"  # the class a student picked (survives page switches)
SUBJECT = "shelf_subject"  # the subject a student picked
ASK_HISTORY = "ask_history"  # list of turns on the Ask page
READER_CHAPTER = "reader_chapter"  # file name of the chapter open in the reader
READER_PAGE = "reader_page"  # PDF page number open in the reader
READER_SELECTION = "reader_selection"  # the passage the student selected: dict(text, chapter, file, page)
READER_HISTORY = "reader_history"  # list of turns on the Read page
READER_VIEW = "reader_view"  # "Text" (select to ask) or "Page as printed" (the PDF page as an image)
AUTH_TEACHER = "auth_teacher"  # fingerprint of the teacher password the user signed in with
AUTH_MAINTAINER = "auth_maintainer"
UPLOAD_ROUND = "upload_round"  # bumped after an ingest, to give the uploader a fresh key
UPLOAD_RESULTS = "upload_results"  # what the last ingest did, shown after the rerun
MAINT_NOTICE = "maintainer_notice"  # one-line outcome of the last shelf action

TIER_LABELS = {
    "retrieval": "Retrieval gate",
    "reranker": "Reranker gate",
    "reader": "Answerability reader",
    "judge": "LLM answerability judge",
    "answerer": "Answerer (the LLM declined)",
    "answer_checks": "Answer checks",
    "error": "Error handler",
}
MODE_LABELS = {"library": "Whole shelf", "selected_text": "Selected passage"}


# ---------------------------------------------------------------------------------------------- resources
def embedder_kind() -> str:
    """`TUTOR_EMBEDDER=hash` swaps in the deterministic HashEmbedder (tests); anything else is MiniLM."""
    return "hash" if os.environ.get("TUTOR_EMBEDDER", "").strip().lower() == "hash" else "minilm"


@st.cache_resource(show_spinner="Loading the language model…")
def get_embedder(kind: str):
    if kind == "hash":
        return HashEmbedder()
    emb = default_embedder()
    emb.embed(["warm up"])  # the first encode is slow; pay it here, not on a student's first question
    return emb


@st.cache_resource(show_spinner="Opening the library…")
def get_library(root: str, kind: str) -> Library:
    return Library(root, embedder=get_embedder(kind))


@st.cache_resource
def get_audit(path: str) -> AuditLog:
    return AuditLog(path)


@st.cache_resource(show_spinner="Getting the tutor ready…")
def get_tutor(root: str, audit_path: str, kind: str):
    """One Tutor per (library, audit log, embedder): it holds no per-question state, so all users share it.

    The answerer comes from the policy (`TUTOR_ANSWERER`: extractive, local or openai); an OpenAI-compatible
    server's address, model and key come from st.secrets ([llm] base_url/model/api_key) or the environment."""
    from tutor.answering.llm_answerer import make_parts
    from tutor.pipeline import Tutor
    from tutor.policy import load_policy

    policy = load_policy()
    return Tutor(get_library(root, kind), policy, audit=get_audit(audit_path), **make_parts(policy, secrets=_secrets()))


def _secrets() -> dict[str, Any]:
    try:
        return {k: (dict(v) if hasattr(v, "keys") else v) for k, v in st.secrets.items()}
    except Exception:  # noqa: BLE001 - no secrets file at all is the same as no secrets
        return {}


def library() -> Library:
    return get_library(str(index_dir()), embedder_kind())


def audit_log() -> AuditLog:
    return get_audit(str(audit_db_path()))


def tutor_or_stop():
    """The shared Tutor, or a plain message and a stopped page when the policy or library cannot be loaded."""
    try:
        return get_tutor(str(index_dir()), str(audit_db_path()), embedder_kind())
    except TutorError as e:
        st.error(f"The tutor cannot start: {e}", icon=":material/error:")
        st.stop()


def uploads_dir() -> Path:
    """Where uploaded chapter PDFs are kept so that a shelf can be rebuilt from them."""
    return data_dir() / "uploads"


def page_cache_dir() -> Path:
    """Where rendered PDF pages are kept (`<data dir>/page-cache`), keyed by file digest, page and scale."""
    return data_dir() / "page-cache"


@st.cache_resource
def get_renderer(cache_dir: str) -> PageRenderer:
    return PageRenderer(cache_dir)


@st.cache_data(max_entries=256, show_spinner=False)
def _page_image(pdf: str, sha256: str, page: int, sentences: tuple[str, ...], cache_dir: str) -> PageImage:
    # in memory as well as on disk: every rerun redraws every answer of the chat, and each draws its pages
    return get_renderer(cache_dir).show(Path(pdf), page, list(sentences), sha256=sha256)


def chapter_pdf(klass: str, subject: str, file: str) -> tuple[Path, str] | None:
    """The PDF a chapter was ingested from, and its digest: the recorded source, else the kept upload; None when
    neither is there any more or the file there is not the one that was ingested (same sha256)."""
    manifest = ShelfStore(index_dir()).manifest(klass, subject)  # the manifest alone: no embedder is loaded
    entry = manifest.chapters.get(file) if manifest else None
    if entry is None:
        return None
    kept = uploads_dir() / f"class-{check_name(klass, 'class')}" / check_name(subject, "subject") / file
    pdf = find_pdf([entry.source, kept], entry.sha256)
    return (pdf, entry.sha256) if pdf is not None else None


def page_image(klass: str, subject: str, file: str, page: int,
               sentences: list[str] | tuple[str, ...] = ()) -> PageImage | str:
    """The printed page with `sentences` highlighted, or a sentence saying why the page cannot be shown."""
    found = chapter_pdf(klass, subject, file)
    if found is None:
        return (f"The printed page cannot be shown: the PDF of {file} is no longer where it was added from. "
                "A maintainer can add it again.")
    pdf, sha = found
    try:
        return _page_image(str(pdf), sha, int(page), tuple(" ".join(s.split()) for s in sentences if s.strip()),
                           str(page_cache_dir()))
    except PageUnavailable as e:
        return f"The printed page cannot be shown: {e}"


def page_image_note(img: PageImage) -> str:
    """What the highlight on a printed page means, or why there is none."""
    if img.highlighted:
        return "Highlighted: the sentence the answer quotes, where it is printed on the page."
    if not img.missing:
        return ""
    hindi = any(detect_language(s) == "hi" for s in img.missing)
    why = ("Hindi pages are read by repairing or OCR-reading the damaged text, which has no positions on the printed "
           "page, so Hindi sentences are never highlighted" if hindi else
           "its words in the PDF differ from the text the tutor read (a formula, a figure label or a repaired word)")
    if img.found:
        return f"Only part of the quoted text is highlighted: the rest could not be found on the printed page ({why})."
    return f"Shown without a highlight: the quoted sentence could not be found on the printed page ({why})."


def draw_page_image(klass: str, subject: str, file: str, page: int,
                    sentences: list[str] | tuple[str, ...] = (), *, width: int | str = "stretch") -> PageImage | None:
    """The printed page in the page being drawn, with its note; a caption instead when it cannot be shown."""
    img = page_image(klass, subject, file, page, sentences)
    if isinstance(img, str):
        st.caption(img)
        return None
    st.image(img.png, caption=f"Page {page} as printed", width=width, output_format="PNG")
    note = page_image_note(img)
    if note:
        st.caption(note)
    return img


# ---------------------------------------------------------------------------------------------- plain helpers
def subject_label(subject: str) -> str:
    return subject.replace("-", " ").title()


def shelf_label(klass: str, subject: str) -> str:
    return f"Class {klass} · {subject_label(subject)}"


def class_sort_key(klass: str) -> tuple:
    return (int(klass) if klass.isdigit() else 99, klass)


def student_shelves(lib: Library) -> list[ShelfKey]:
    """Shelves a student can ask: those that exist and hold at least one chapter."""
    out = []
    for key in lib.keys():
        try:
            m = lib.store.manifest(key.klass, key.subject)
        except ShelfDamaged:  # still listed: a question there gets the named refusal, not a missing shelf
            out.append(key)
            continue
        if m is not None and m.chapters and m.n_chunks > 0:
            out.append(key)
    return out


def chapters_in_order(manifest: Manifest) -> list[ChapterEntry]:
    def key(e: ChapterEntry):
        n = e.chapter_number
        return (int(n) if str(n).isdigit() else 999, e.chapter.lower(), e.file)

    return sorted(manifest.chapters.values(), key=key)


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>$~|#:])")
_MD_LEADING = re.compile(r"^(\s*)([-+=]|\d+)([.)]?)(?=\s|$)", re.M)


_URL = re.compile(r"(?i)\b((?:https?|ftp)://|www\.)([^\s<>\[\]()]*)")
_EMAIL_AT = re.compile(r"(?<=[\w.+-])@(?=[\w-]+\.)")
WORD_JOINER = "\u2060"  # invisible and zero-width: the text reads and copies the same, but no link can form


@functools.lru_cache(maxsize=1)
def link_domains() -> tuple[str, ...]:
    """The policy's link_domains: web domains whose addresses may stay clickable in what the app shows."""
    from tutor.policy import load_policy

    return tuple(d.strip().lower().removeprefix("www.") for d in load_policy().link_domains.split(",") if d.strip())


def plain_links(text: str, allowed: tuple[str, ...] | None = None) -> str:
    """Web and e-mail addresses made non-clickable (a word joiner inside the scheme, after the '@'), except those
    on an `allowed` domain (default: the policy's link_domains). Book text, questions and answers go through this:
    a planted "http://evil.example/login" is shown, never offered as a link."""
    allowed = link_domains() if allowed is None else allowed

    def fix(m: re.Match) -> str:
        scheme, rest = m.group(1), m.group(2)
        host = rest.split("/")[0].split(":")[0].lower()
        if scheme.lower() == "www.":
            host = "www." + host
        host = host.removeprefix("www.")
        if host and any(host == d or host.endswith("." + d) for d in allowed):
            return m.group(0)
        return scheme[0] + WORD_JOINER + scheme[1:] + rest

    return _EMAIL_AT.sub("@" + WORD_JOINER, _URL.sub(fix, text))


def md(text: str) -> str:
    """Text shown as markdown exactly as written: no emphasis, links (web addresses are made non-clickable, see
    plain_links), LaTeX, emoji codes or list markers."""
    text = plain_links(" ".join(str(text).split()))
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return _MD_LEADING.sub(_escape_marker, text)


def _escape_marker(m: re.Match) -> str:
    lead, mark, punct = m.groups()
    if mark.isdigit():  # "1." starts an ordered list; a bare number is harmless
        return lead + mark + ("\\" + punct if punct else "")
    return lead + "\\" + mark + punct


def page_span(first: int, last: int) -> str:
    return f"page {first}" if not last or last == first else f"pages {first}–{last}"


def answer_from_dict(d: dict[str, Any]) -> TutorAnswer:
    """A TutorAnswer back from its `to_dict` form (the audit log's JSON), ignoring fields it does not know."""
    d = dict(d)
    d["klass"] = str(d.pop("class", d.get("klass", "")))
    d["sentences"] = tuple(
        AnswerSentence(s["text"], tuple(s.get("citations", ())), s.get("page"), s.get("supported"))
        for s in d.get("sentences") or ()
    )
    d["draft_sentences"] = tuple(_from(AnswerSentence, {**s, "citations": tuple(s.get("citations", ()))})
                                 for s in d.get("draft_sentences") or ())
    d["notes"] = tuple(d.get("notes") or ())
    d["sources"] = tuple(_from(Source, s) for s in d.get("sources") or ())
    d["near_misses"] = tuple(_from(Source, s) for s in d.get("near_misses") or ())
    d["checks"] = tuple(_from(Check, c) for c in d.get("checks") or ())
    d["suggestions"] = tuple(_from(Suggestion, s) for s in d.get("suggestions") or ())
    return _from(TutorAnswer, d)


def _from(cls, d: dict[str, Any]):
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in d.items() if k in names})


def highlighted_passage(source_text: str, quotes: list[str]) -> str:
    """The passage as markdown, with the sentences the answer quotes from it highlighted; planted sentences (orders
    to the tutor, requests for passwords) are left out, marked as such."""
    text = withhold_planted(" ".join(source_text.split()))
    spans = []
    for q in quotes:
        q = " ".join(q.split())
        i = text.find(q) if q else -1
        if i >= 0:
            spans.append((i, i + len(q)))
    spans.sort()
    out, pos = [], 0
    for s, e in spans:
        if s < pos:
            continue
        out.append(md(text[pos:s]))
        out.append(f":blue-background[{md(text[s:e])}]")
        pos = e
    out.append(md(text[pos:]))
    return " ".join(p for p in out if p)


def fmt_value(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.0f}" if v.is_integer() and abs(v) >= 10 else f"{v:.3f}"
    return str(v)


def checks_frame(ans: TutorAnswer) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "Check": c.name.replace("_", " ").capitalize(),
                "Stage": "Gate" if c.stage == "gate" else "Answer",
                "Value": fmt_value(c.value),
                "Threshold": fmt_value(c.threshold),
                "Result": "Pass" if c.passed else "Fail",
                "What it measures": c.detail,
            }
            for c in ans.checks
        ],
        columns=["Check", "Stage", "Value", "Threshold", "Result", "What it measures"],
    )


def evidence_frame(ans: TutorAnswer) -> pd.DataFrame:
    cited = {n for s in ans.sentences for n in s.citations}
    rows = []
    for role, items in (("source", ans.sources), ("near miss", ans.near_misses)):
        for s in items:
            label = f"Source [{s.n}]" + (" · cited" if s.n in cited else "") if role == "source" else "Near miss"
            rows.append({
                "Role": label, "Score": float(s.score), "Chapter": s.chapter, "Page": page_span(s.page, s.page_end),
                "Section": s.section, "Passage": clip(withhold_planted(s.text), 220),
            })
    return pd.DataFrame(rows, columns=["Role", "Score", "Chapter", "Page", "Section", "Passage"])


def timings_line(timings: dict[str, float]) -> str:
    if not timings:
        return "no timings recorded"
    parts = [f"{k} {v:.1f} ms" for k, v in timings.items()]
    return " · ".join(parts) + f" — total {sum(timings.values()):.1f} ms"


def clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


# ---------------------------------------------------------------------------------------------- reader text
@dataclass
class Block:
    """One piece of a reader page: a chapter title, a section heading, a paragraph, or an item of a question list."""

    kind: str  # "chapter", "heading", "para", "qhead", "qitem"
    text: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "text": self.text}


_PAGE_NUMBER = re.compile(r"^\d{1,3}$")
_ITEM_MARK = re.compile(r"^(?:\(?[0-9]{1,2}|[ivx]{1,4}|[a-h])[.)]$")
_CHAPTER_LINE = re.compile(r"^(?:Chapter|CHAPTER|Unit|UNIT)\s+\d+\b")
_QHEAD = re.compile(r"^(?:Q\s?U\s?E\s?S\s?T\s?I\s?O\s?N\s?S|E\s?X\s?E\s?R\s?C\s?I\s?S\s?E\s?S?|Questions|Exercises?)\b")


def chapter_pages(chunks, file: str) -> dict[int, list[Block]]:
    """The text of one chapter grouped by PDF page, rebuilt from its chunks' sentences (overlaps dropped).

    Chunks overlap by a sentence or so, so a sentence seen among the last few is skipped; stray page numbers are
    dropped, and a lone list marker ("1.") is joined to the sentence after it.
    """
    pages: dict[int, list[Block]] = {}
    recent: deque[tuple[str, int]] = deque(maxlen=12)
    for c in chunks:
        if c.file != file:
            continue
        evidence = c.is_evidence
        pending_mark = ""
        new_chunk = True
        for raw, page in c.sentence_texts():
            t = " ".join(raw.split())
            if not t or _PAGE_NUMBER.match(t):
                continue
            if _ITEM_MARK.match(t):  # list markers repeat ("1." in every list): never treat them as overlap
                pending_mark = t
                continue
            if (t, page) in recent:
                new_chunk, pending_mark = False, ""
                continue
            recent.append((t, page))
            blocks = pages.setdefault(page, [])
            if pending_mark:
                t, pending_mark = f"{pending_mark} {t}", ""
            if _CHAPTER_LINE.match(t) and len(t) < 140:
                blocks.append(Block("chapter", t))
            elif c.section and t == c.section:
                blocks.append(Block("heading", t))
            elif not evidence and _QHEAD.match(t) and len(t) < 40:
                blocks.append(Block("qhead", t.title() if t.isupper() else t))
            elif not evidence:
                blocks.append(Block("qitem", t))
            elif blocks and blocks[-1].kind == "para" and not (new_chunk and len(blocks[-1].text.split()) > 110):
                blocks[-1].text += " " + t
            else:
                blocks.append(Block("para", t))
            new_chunk = False
    return dict(sorted(pages.items()))


# ---------------------------------------------------------------------------------------------- uploads
def safe_pdf_name(uploaded_name: str, taken: set[str] | None = None) -> str:
    """A file name safe to write anywhere: the base name only, lowercase, letters and marks of any script (Devanagari
    as much as Latin), digits, '-', '_', '.pdf'; anything else (spaces, slashes, symbols) becomes '-', and invisible
    format characters (bidi overrides, zero-width joiners) are dropped. At most 60 characters before '.pdf'.

    Never a path: directory parts (either slash) are dropped, so '../../etc/passwd' becomes 'passwd.pdf'. A name in
    `taken` gets -2, -3, … before '.pdf'.
    """
    base = PureWindowsPath(PurePosixPath(str(uploaded_name)).name).name
    base = unicodedata.normalize("NFC", base).lower()
    stem = base[:-4] if base.endswith(".pdf") else base
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


def keep_upload(src: Path, klass: str, subject: str, name: str) -> Path:
    """Copy an ingested PDF to data/uploads/class-<k>/<subject>/<name>, so the shelf can be rebuilt later."""
    dest_dir = uploads_dir() / f"class-{check_name(klass, 'class')}" / check_name(subject, "subject")
    dest_dir.mkdir(parents=True, exist_ok=True)
    dest = dest_dir / safe_pdf_name(name)
    shutil.copyfile(src, dest)
    return dest


def sha256_of(path: Path) -> str:
    from tutor.ingest.builder import sha256_file

    return sha256_file(path)


def kept_pdfs(klass: str, subject: str) -> dict[str, Path]:
    d = uploads_dir() / f"class-{check_name(klass, 'class')}" / check_name(subject, "subject")
    return {p.name: p for p in sorted(d.glob("*.pdf"))} if d.exists() else {}


def progress_fraction(p: Progress) -> float:
    """One bar for a whole ingest: hashing 0–10 %, extraction 10–45 %, embedding 45–90 %, writing 90–100 %."""
    span = {"hash": (0.0, 0.10), "extract": (0.10, 0.45), "embed": (0.45, 0.90), "write": (0.90, 1.0), "done": (1.0, 1.0)}
    lo, hi = span.get(p.stage, (0.0, 1.0))
    frac = (p.done / p.total) if p.total else 1.0
    return max(0.0, min(1.0, lo + (hi - lo) * frac))


def progress_text(p: Progress) -> str:
    words = {"hash": "Checking", "extract": "Reading the text of", "embed": "Indexing passages", "write": "Saving the shelf",
             "done": "Finished"}
    head = words.get(p.stage, p.stage)
    if p.stage == "embed":
        return f"{head}: {p.done} of {p.total}"
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
    with store.lock(klass, subject):
        kept = kept_pdfs(klass, subject)
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
        with tempfile.TemporaryDirectory(prefix="tutor-rebuild-") as tmp:
            fresh_store = ShelfStore(tmp)
            report = ingest([IngestItem(kept[n], klass, subject, chapter=entries[n].chapter if entries[n] else None,
                                        name=n) for n in todo],
                            fresh_store, embedder, progress=progress, workers=1) if todo else IngestReport()
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


# ---------------------------------------------------------------------------------------------- audit store
def audit_health_panel(log: AuditLog) -> None:
    """For maintainers: what is wrong with the audit store, how many questions wait in its spool, and the two
    repairs (write the spool now; set a damaged database aside). Draws nothing while the store is healthy."""
    h = log.health()
    if h.ok and not h.spooled:
        return
    with st.container(border=True):
        st.markdown("#### :material/warning: The audit log needs attention")
        if not h.ok:
            st.markdown(f"The audit database `{md(str(log.path))}` cannot be used: {md(h.error)}. Students still get "
                        "their answers; their questions are kept in a spool file meanwhile.")
        if h.spooled:
            st.markdown(f"**{h.spooled}** question(s) wait in `{md(h.spool_path)}`; they are written to the database "
                        "as soon as it takes writes again.")
        c1, c2 = st.columns(2)
        if c1.button("Try the database again", icon=":material/sync:", key="audit_retry"):
            try:
                n = log.replay()
                st.session_state[MAINT_NOTICE] = ("ok", f"The audit database works again: {n} spooled question(s) written.")
            except TutorError as e:
                st.session_state[MAINT_NOTICE] = ("error", str(e))
            st.rerun()
        if c2.button("Set the damaged database aside", icon=":material/move_item:", key="audit_set_aside",
                     disabled=h.ok, help="Renames the damaged file (nothing is deleted), starts a fresh database and "
                     "writes the spooled questions into it. No restart is needed."):
            moved = log.set_aside()
            st.session_state[MAINT_NOTICE] = ("ok", f"The damaged audit database was moved to {moved.name}; a fresh one "
                                                    "is in use and the spooled questions are in it.")
            st.rerun()


# ---------------------------------------------------------------------------------------------- audit frames
AUDIT_COLUMNS = ["id", "time", "class", "subject", "mode", "decision", "reason", "question", "resolved_question",
                 "answer", "confidence",
                 "nearest_chapter", "nearest_section", "failed_checks", "decided_by", "llm_called", "total_ms"]


def local_times(ts: pd.Series) -> pd.Series:
    """Audit timestamps (Unix seconds) as naive datetimes in the server's time zone."""
    tz = datetime.now().astimezone().tzinfo
    return pd.to_datetime(ts.astype(float), unit="s", utc=True).dt.tz_convert(tz).dt.tz_localize(None)


def prepare_audit(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    df["time"] = local_times(df["ts"]) if len(df) else pd.Series(dtype="datetime64[ns]")
    df["class"] = df["class"].astype(str)
    for col in ("nearest_chapter", "nearest_section", "failed_checks", "error", "resolved_question"):
        if col in df.columns:  # resolved_question: audit logs from before migration 3 hold none
            df[col] = df[col].fillna("")
    return df


def filter_audit(df: pd.DataFrame, *, start=None, end=None, classes=(), subjects=(), decision: str = "All",
                 reasons=(), text: str = "") -> pd.DataFrame:
    """The audit rows matching every filter given (dates inclusive, text case-insensitive in question or answer)."""
    m = pd.Series(True, index=df.index)
    if start is not None:
        m &= df["time"].dt.date >= start
    if end is not None:
        m &= df["time"].dt.date <= end
    if classes:
        m &= df["class"].isin([str(c) for c in classes])
    if subjects:
        m &= df["subject"].isin(list(subjects))
    if decision and decision.lower() in ("answered", "refused"):
        m &= df["decision"] == decision.lower()
    if reasons:
        m &= df["reason"].isin(list(reasons))
    if text.strip():
        needle = text.strip().lower()
        m &= df["question"].str.lower().str.contains(needle, regex=False) | df["answer"].str.lower().str.contains(
            needle, regex=False)
    return df[m]


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A text cell a spreadsheet will not run: one starting with = + - @ tab or CR gets a leading apostrophe (OWASP's
    advice against CSV injection). Numbers are left alone, negative ones included."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def audit_csv(df: pd.DataFrame) -> bytes:
    out = df[[c for c in AUDIT_COLUMNS if c in df.columns]].copy()
    out["time"] = out["time"].dt.strftime("%Y-%m-%d %H:%M:%S")
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col]):
            out[col] = out[col].map(csv_cell)
    return out.to_csv(index=False).encode("utf-8")


def coverage_gaps(df: pd.DataFrame) -> pd.DataFrame:
    """Refused questions grouped by the chapter and section nearest to them, most refusals first."""
    ref = df[(df["decision"] == "refused") & ~df["reason"].isin(["empty_question", "answerer_error", "no_shelf"])]
    cols = ["Shelf", "Nearest chapter", "Nearest section", "Refused", "Main reason", "Example questions"]
    if ref.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    for (k, s, ch, sec), g in ref.groupby(["class", "subject", "nearest_chapter", "nearest_section"], dropna=False):
        g = g.sort_values("time", ascending=False)
        examples = list(dict.fromkeys(g["question"]))[:3]
        rows.append({
            "Shelf": f"{k} · {subject_label(s)}", "Nearest chapter": ch or "(none)", "Nearest section": sec or "–",
            "Refused": len(g), "Main reason": reason_label(g["reason"].mode().iloc[0]),
            "Example questions": " · ".join(examples), "_last": g["time"].iloc[0],
        })
    out = pd.DataFrame(rows).sort_values(["Refused", "_last"], ascending=[False, False])
    return out[cols].reset_index(drop=True)


def bar_chart_height(bars: int) -> int:
    """Pixels for a horizontal bar chart: room for each bar's label, plus the axis."""
    return 70 + 36 * max(2, bars)


def reason_label(code: str) -> str:
    return "Answered" if code == "answered" else str(code).replace("_", " ").capitalize()


# ---------------------------------------------------------------------------------------------- drawing
def through_app() -> None:
    """Make sure a page runs inside app.py's st.navigation, never on its own.

    With a pages/ folder beside app.py, Streamlit starts each process in its old multipage mode and, when the first
    request names a page (/teachers), runs that file alone: no app.py, no navigation, no layout. (AppTest starts
    every run that way.) That mode is one process-wide flag which app.py's st.navigation clears; so clear it, run
    app.py now, in this same run so that no click or chat message is lost, and stop the lone run of the page.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # pragma: no cover - a Streamlit without the old mode
        return
    if not getattr(PagesManager, "uses_pages_directory", False):
        return
    PagesManager.uses_pages_directory = False
    runpy.run_path(str(APP_PATH), run_name="__main__")
    st.stop()


def page_header(title: str, intro: str, icon: str | None = None) -> None:
    st.title(f"{icon} {title}" if icon else title, anchor=False)
    st.caption(intro)


def empty_library_note() -> None:
    with st.container(border=True):
        st.markdown("#### :material/local_library: The library is empty")
        st.markdown("No textbook chapters have been added yet, so there is nothing to ask about. "
                    "A maintainer can add chapter PDFs on the Maintainers page.")
        st.page_link("pages/maintainers.py", label="Go to the Maintainers page", icon=":material/arrow_forward:")


def student_page(title: str, intro: str):
    """The opening of a student page: header, the shared tutor, and the shelves (or the empty-library note and stop)."""
    through_app()
    page_header(title, intro)
    tutor = tutor_or_stop()
    shelves = student_shelves(tutor.library)
    if not shelves:
        empty_library_note()
        st.stop()
    return tutor, shelves


def copy_state(src: str, dst: str) -> None:
    st.session_state[dst] = st.session_state[src]


def shelf_picker(keys: list[ShelfKey], cols=None) -> ShelfKey:
    """Class and subject pickers over the shelves that exist; the choice is kept under KLASS/SUBJECT.

    `cols` is a pair of containers to draw the two pickers in (two new columns when not given).
    """
    ss = st.session_state
    classes = sorted({k.klass for k in keys}, key=class_sort_key)
    if ss.get(KLASS) not in classes:
        ss[KLASS] = classes[0]
    subjects = [k.subject for k in keys if k.klass == ss[KLASS]]
    if ss.get(SUBJECT) not in subjects:
        ss[SUBJECT] = subjects[0]
    # widget keys are wiped when a page is left; the permanent keys above restore them on the way back
    ss["_pick_class"], ss["_pick_subject"] = ss[KLASS], ss[SUBJECT]
    c1, c2 = cols if cols is not None else st.columns(2)
    c1.selectbox("Class", classes, key="_pick_class", format_func=lambda k: f"Class {k}",
                 on_change=copy_state, args=("_pick_class", KLASS))
    c2.selectbox("Subject", subjects, key="_pick_subject", format_func=subject_label,
                 on_change=copy_state, args=("_pick_subject", SUBJECT))
    return ShelfKey(ss[KLASS], ss[SUBJECT])


def history(key: str) -> list[dict[str, Any]]:
    return st.session_state.setdefault(key, [])


PENDING_NOTE = "Draft, not checked yet: the tutor is still checking every sentence against your textbook."


class PendingDraft:
    """Collects an LLM's tokens as they come and shows the draft so far through `show(text)`, which must mark it as
    not yet checked; the caller replaces it by the checked answer or the refusal."""

    def __init__(self, show: Callable[[str], None]):
        self.show, self.text = show, ""

    def __call__(self, piece: str) -> None:
        self.text += piece
        self.show(self.text)


def ask(tutor, question: str, shelf: ShelfKey, selected=None, previous: TutorAnswer | None = None) -> TutorAnswer:
    """Ask the tutor; `previous` is the conversation's last answer, against which a follow-up is read. With an LLM
    answerer the draft streams into a pending area marked as not checked yet, which is emptied when the checks
    have decided: the student then sees only the checked answer or the refusal."""
    if not getattr(tutor.answerer, "uses_llm", False):
        with st.spinner("Looking in your textbook…"):
            return tutor.ask(question, shelf.klass, shelf.subject, selected=selected, previous=previous)
    pending = st.empty()

    def show(text: str) -> None:
        with pending.container():
            with st.chat_message("assistant", avatar=":material/hourglass_top:"):
                st.caption(PENDING_NOTE)
                st.markdown(f":gray[{md(text)}]")

    try:
        with st.spinner("Looking in your textbook…"):
            return tutor.ask(question, shelf.klass, shelf.subject, selected=selected, on_token=PendingDraft(show),
                             previous=previous)
    finally:
        pending.empty()


def render_turn(turn: dict[str, Any], key: str) -> None:
    ans: TutorAnswer = turn["answer"]
    with st.chat_message("user", avatar=":material/person:"):
        st.markdown(md(turn["question"]))
        note = shelf_label(ans.klass, ans.subject)
        pasted = any(s.chapter == PASTED_TEXT for s in ans.sources)
        if turn.get("passage"):
            p = turn["passage"]
            note += (" · about your pasted text (not found on the page)" if pasted
                     else f" · about the passage you selected on page {p['page']}" if p.get("page")
                     else " · about your passage")
        if getattr(ans, "followup", False):
            note += f" · read as a follow-up: “{md(ans.resolved_question)}”"
        st.caption(note)
    with st.chat_message("assistant", avatar=":material/menu_book:"):
        render_answer(ans, key=key)


def render_answer(ans: TutorAnswer, *, key: str, diagnostics_expanded: bool = False, staff: bool = False) -> None:
    """An answer with its citations, or the refusal with its reason and what to ask instead; then Diagnostics.

    The student page and the teachers' detail view both call this, so teachers see exactly what students saw;
    `staff` adds the internal detail of an error (students see its reason code only).
    """
    if ans.was_refusal:
        _render_refusal(ans)
    else:
        _render_answered(ans)
    with st.expander("Diagnostics", icon=":material/troubleshoot:", expanded=diagnostics_expanded):
        render_diagnostics(ans, key=key, staff=staff)


def span_highlighted(sentence: str, span: str) -> str:
    """The sentence as markdown with the reader's answer span marked inside it (plain markdown when it is absent)."""
    text, span = " ".join(sentence.split()), " ".join(span.split())
    i = text.find(span) if span else -1
    if i < 0:
        return md(text)
    return " ".join(p for p in (md(text[:i]), f":orange-background[{md(span)}]", md(text[i + len(span):])) if p)


def _render_answered(ans: TutorAnswer) -> None:
    direct = getattr(ans, "direct_answer", "")
    if direct:  # the reader's span, short, first; then the sentence it comes from with the span marked in it
        st.markdown(f"**{md(direct)}**")
    parts = []
    for i, s in enumerate(ans.sentences):
        badges = "".join(f" :blue-badge[{n}]" for n in s.citations)
        parts.append((span_highlighted(s.text, direct) if i == 0 and direct else md(s.text)) + badges)
    st.markdown(" ".join(parts))
    cited = ans.cited_sources
    if not cited:
        return
    st.caption("Sources from your textbook — open one to read the passage")
    for src in cited:
        quoting = [s for s in ans.sentences if src.n in s.citations]
        quotes = [s.text for s in quoting]
        if src.chapter == PASTED_TEXT:  # not on the book's page: never shown as a citation of the book
            with st.expander(f"\\[{src.n}\\] {PASTED_TEXT}", icon=":material/content_paste:"):
                st.markdown(highlighted_passage(src.text, quotes))
                st.caption("This passage was not found on the page of the book, so the answer comes from your pasted "
                           "text only, not from your textbook.")
            continue
        # the page of the quoted sentences when known (a passage can run over a page break)
        on = sorted({s.page for s in quoting if s.page})
        where = page_span(on[0], on[-1]) if on else page_span(src.page, src.page_end)
        label = f"\\[{src.n}\\] {md(src.chapter)} · {where}"
        if src.section and src.section != src.chapter:
            label += f" · {md(src.section)}"
        with st.expander(label, icon=":material/format_quote:"):
            st.markdown(highlighted_passage(src.text, quotes))
            st.caption(f"Passage from {md(src.file)}, {page_span(src.page, src.page_end)} · "
                       f"similarity to your question {src.score:.2f}")
            for page, on_page in quoted_pages(src, quoting):
                draw_page_image(ans.klass, ans.subject, src.file, page, on_page)


def quoted_pages(src: Source, quoting: list[AnswerSentence]) -> list[tuple[int, list[str]]]:
    """The pages to show for a source: each page a quoting sentence is on, with the sentences on it (the source's
    first page with all of them when the sentences carry no page)."""
    pages: dict[int, list[str]] = {}
    for s in quoting:
        pages.setdefault(s.page or src.page, []).append(s.text)
    return sorted(pages.items()) or [(src.page, [])]


def _render_refusal(ans: TutorAnswer) -> None:
    # the refusal sentence and reason in the student's language (the pipeline wrote them: Hindi for a Hindi question)
    sentence = refusal_sentence(getattr(ans, "language", "en"))
    st.markdown(f"**{md(sentence)}**  \n{md(ans.message or reason_message(ans.reason, getattr(ans, 'language', 'en')))}")
    if ans.suggestions:
        lines = ["**You could ask about:**"]
        for s in ans.suggestions:
            where = md(s.chapter) + (f" — {md(s.section)}" if s.section and s.section != s.chapter else "")
            lines.append(f"- {where} (page {s.page})")
        st.markdown("\n".join(lines))
    elif ans.mode == "selected_text":
        st.markdown("Try selecting a longer passage that contains the answer, or ask the whole book on the Ask page.")


def _table_height(rows: int, most: int = 14) -> int:
    """Tall enough to show every row (up to `most`) without an inner scroll bar."""
    return 38 + 35 * max(1, min(rows, most)) + 8  # header, rows, and a little room for a horizontal scroll bar


def student_note(note: str) -> str:
    """A note as a student may read it: the internal error in brackets after a fallback note is left out."""
    head, sep, _ = note.partition(" (")
    return head if sep and any(w in note for w in ("Error", "Exception", "/", "\\")) else note


def render_diagnostics(ans: TutorAnswer, *, key: str, staff: bool = False) -> None:
    outcome = (f":orange-badge[:material/block: Refused · {reason_label(ans.reason)}]" if ans.was_refusal
               else ":green-badge[:material/check_circle: Answered]")
    st.markdown(
        f"{outcome} &nbsp; **Decided by** {TIER_LABELS.get(ans.decided_by, md(ans.decided_by))} · "
        f"**LLM called** {'yes' if ans.llm_called else 'no'} · **Answerer** {md(ans.answerer)} · "
        f"**Mode** {MODE_LABELS.get(ans.mode, md(ans.mode))} · **Confidence** {ans.confidence:.2f}"
    )
    if getattr(ans, "followup", False):
        st.markdown(f"**Question as typed** {md(ans.question)} · **read as** {md(ans.resolved_question)} "
                    "(a follow-up, read with the previous question)")
    if ans.error and staff:
        st.caption(f"Error logged for the maintainers: {md(ans.error)}")
    elif ans.error:  # internal errors name files and server paths: students get the code, staff the detail
        st.caption(f"Reason code `{re.sub(r'[^a-z0-9_]', '', ans.reason)}`; the details are in the log for the "
                   "maintainers.")
    for note in ans.notes:
        st.caption(f"Note: {md(note if staff else student_note(note))}")
    st.markdown("**Checks** — each measured value against its threshold")
    if ans.checks:
        checks = checks_frame(ans)
        styled = checks.style.map(lambda v: "color: #137333; font-weight: 600" if v == "Pass"
                                  else "color: #b3261e; font-weight: 600", subset=["Result"])
        st.dataframe(styled, hide_index=True, width="stretch", key=f"{key}_checks", height=_table_height(len(checks)),
                     column_config={"What it measures": st.column_config.TextColumn(width="large")})
    else:
        st.caption("No checks ran for this question.")
    st.markdown("**Evidence** — passages retrieved, with cosine similarity (higher is closer, from −1 to 1)")
    ev = evidence_frame(ans)
    if len(ev):
        st.dataframe(ev, hide_index=True, width="stretch", key=f"{key}_evidence", height=_table_height(len(ev), 8),
                     column_config={"Score": st.column_config.NumberColumn(format="%.3f", width="small"),
                                    "Passage": st.column_config.TextColumn(width="large")})
    else:
        st.caption("No passages were retrieved.")
    st.markdown(f"**Stage timings** — {timings_line(ans.timings_ms)}")


# ---------------------------------------------------------------------------------------------- passwords
def _fingerprint(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def password_gate(secret_name: str, state_key: str, role: str) -> None:
    """Stop the page unless the user signed in with the password in st.secrets[secret_name]."""
    try:
        expected = st.secrets.get(secret_name)
    except Exception:  # noqa: BLE001 - no secrets file at all is the same as no password set
        expected = None
    if not expected:
        with st.container(border=True):
            st.markdown(f"#### :material/lock: The {role} page is not set up yet")
            st.markdown(
                f"No password is configured for this page, so it stays locked. Whoever runs this server can add "
                f"`{secret_name}` to `.streamlit/secrets.toml` (see `.streamlit/secrets.toml.example`) and restart the app."
            )
        st.stop()
    expected = str(expected)
    throttle, keys = login_throttle(), _login_keys()
    if hmac.compare_digest(st.session_state.get(state_key, ""), _fingerprint(expected)):
        if st.sidebar.button("Sign out", icon=":material/logout:", key=f"{state_key}_signout"):
            st.session_state.pop(state_key, None)
            st.rerun()
        return
    with st.form(f"{state_key}_form", border=True, width=420):
        st.markdown(f"#### :material/lock: {role.capitalize()} sign-in")
        pw = st.text_input("Password", type="password", key=f"{state_key}_password")
        submitted = st.form_submit_button("Sign in", type="primary")
    if submitted:
        wait = throttle.wait_s(*keys)
        if wait > 0:  # not even checked: a guess made while held back tells the guesser nothing
            _throttled_message(wait, throttle.locked(*keys))
            st.stop()
        if hmac.compare_digest(pw.encode("utf-8"), expected.encode("utf-8")):
            throttle.succeeded(*keys)
            st.session_state[state_key] = _fingerprint(expected)
            st.rerun()
        wait = throttle.failed(*keys)
        if wait > 0:
            _throttled_message(wait, throttle.locked(*keys))
        else:
            st.error("That password is not right. Please try again.", icon=":material/error:")
    st.stop()


@st.cache_resource
def _login_throttle(data: str):
    from tutor.policy import load_policy
    from tutor.throttle import LoginThrottle

    return LoginThrottle.from_policy(load_policy())


def login_throttle():
    """One throttle per server (per data folder), shared by every session: a guesser cannot reset it by reloading."""
    return _login_throttle(str(data_dir()))


def _login_keys() -> tuple[str, str]:
    """The keys a sign-in attempt counts against: this browser session and the client's address."""
    ss = st.session_state
    if "_login_session" not in ss:
        ss["_login_session"] = os.urandom(12).hex()
    try:
        client = st.context.ip_address
    except Exception:  # noqa: BLE001 - no request context
        client = None
    # Streamlit gives None for a loopback client (and a test harness a stand-in object): one shared "local" key
    client = client if isinstance(client, str) and client else "local"
    return f"session:{ss['_login_session']}", f"client:{client}"


def _throttled_message(wait: float, locked: bool) -> None:
    seconds = max(1, int(wait + 0.999))
    when = f"{seconds // 60} minute(s)" if seconds >= 120 else f"{seconds} second(s)"
    if locked:
        st.error(f"Too many wrong passwords: sign-in is locked for {when}.", icon=":material/lock_clock:")
    else:
        st.error(f"That password is not right. Wait {when} before trying again.", icon=":material/hourglass_top:")


def sidebar_brand() -> None:
    with st.sidebar:
        st.markdown("### :material/menu_book: Textbook Tutor")
        st.caption("Answers only from your NCERT textbooks, with the page they come from — "
                   "and \"I don't know\" when the book does not say.")


# ---------------------------------------------------------------------------------------------- reader component
def mark_blocks(blocks: list[Block], selection: str, min_overlap: int = 12) -> list[dict[str, Any]]:
    """Blocks as dicts with `marks` [[start, end]]: where the selected passage lies in each block's text.

    A selection inside one block is found whole; one running over several blocks marks the end of the first,
    every block in between, and the start of the last.
    """
    sel = " ".join((selection or "").split())
    out = []
    for b in blocks:
        d = b.to_dict()
        d["marks"] = []
        t = b.text
        if sel and len(sel) >= 2:
            i = t.find(sel)
            if i >= 0:
                d["marks"] = [[i, i + len(sel)]]
            elif len(t) >= min_overlap and t in sel:
                d["marks"] = [[0, len(t)]]
            else:
                top = min(len(t), len(sel))
                tail = next((k for k in range(top, min_overlap - 1, -1) if t.endswith(sel[:k])), 0)
                head = next((k for k in range(top, min_overlap - 1, -1) if t.startswith(sel[-k:])), 0)
                if tail:
                    d["marks"] = [[len(t) - tail, len(t)]]
                elif head:
                    d["marks"] = [[0, head]]
        out.append(d)
    return out


_READER_CSS = """
.tr-root { font-family: Georgia, 'Times New Roman', serif; color: var(--st-text-color, #1c2733); }
.tr-head { font-family: var(--st-font, sans-serif); font-size: 0.8rem; letter-spacing: 0.06em; text-transform: uppercase;
  color: #5b6b7c; display: flex; justify-content: space-between; margin: 0 0 0.6rem 0; }
.tr-page { background: #fffdf8; border: 1px solid #e6e1d6; border-radius: 0.6rem; padding: 2rem 2.4rem;
  box-shadow: 0 1px 3px rgba(20, 30, 40, 0.06); line-height: 1.75; font-size: 1.06rem; max-width: 46rem; }
.tr-page h2 { font-size: 1.45rem; margin: 0 0 1rem 0; font-weight: 700; }
.tr-page h3 { font-size: 1.12rem; margin: 1.4rem 0 0.4rem 0; font-weight: 700; color: #1d5fa8; }
.tr-page h4 { font-family: var(--st-font, sans-serif); font-size: 0.85rem; letter-spacing: 0.08em; text-transform: uppercase;
  margin: 1.4rem 0 0.4rem 0; color: #7a5a12; }
.tr-page p { margin: 0 0 0.85rem 0; }
.tr-page p.tr-q { margin: 0 0 0.35rem 0; padding-left: 0.8rem; border-left: 3px solid #ecd9a8; color: #4a4030; }
.tr-page mark { background: #ffe58a; color: inherit; border-radius: 0.15rem; padding: 0.05rem 0; }
.tr-page ::selection { background: #bcd8f7; }
.tr-hint { font-family: var(--st-font, sans-serif); font-size: 0.82rem; color: #5b6b7c; margin-top: 0.5rem; }
"""

_READER_JS = """
export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const root = parentElement.querySelector('.tr-root') || parentElement;
  root.replaceChildren();

  const head = document.createElement('div');
  head.className = 'tr-head';
  const left = document.createElement('span');
  left.textContent = data.chapter || '';
  const right = document.createElement('span');
  right.textContent = data.label || '';
  head.append(left, right);

  const article = document.createElement('article');
  article.className = 'tr-page';
  article.setAttribute('data-testid', 'tutor-reader-page');
  const tags = { chapter: 'h2', heading: 'h3', qhead: 'h4' };
  for (const b of data.blocks || []) {
    const el = document.createElement(tags[b.kind] || 'p');
    if (b.kind === 'qitem') el.className = 'tr-q';
    let pos = 0;
    for (const [s, e] of b.marks || []) {
      if (s > pos) el.append(document.createTextNode(b.text.slice(pos, s)));
      const m = document.createElement('mark');
      m.textContent = b.text.slice(s, e);
      el.append(m);
      pos = e;
    }
    el.append(document.createTextNode(b.text.slice(pos)));
    article.append(el);
  }
  const hint = document.createElement('div');
  hint.className = 'tr-hint';
  hint.textContent = data.hint || '';
  root.append(head, article, hint);

  let last = '';
  let timer = null;
  const report = () => {
    const sel = window.getSelection();
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed) return;
    const range = sel.getRangeAt(0);
    if (!article.contains(range.commonAncestorContainer)) return;
    const text = sel.toString().replace(/\\s+/g, ' ').trim();
    if (text.length < 2 || text === last) return;
    last = text;
    setTriggerValue('selected', { text: text, page: data.page });
  };
  const onUp = () => { clearTimeout(timer); timer = setTimeout(report, 40); };
  document.addEventListener('mouseup', onUp);
  article.addEventListener('keyup', onUp);
  return () => {
    clearTimeout(timer);
    document.removeEventListener('mouseup', onUp);
    article.removeEventListener('keyup', onUp);
  };
}
"""

_reader_component = st.components.v2.component(
    "tutor_reader", html='<div class="tr-root"></div>', css=_READER_CSS, js=_READER_JS, isolate_styles=False,
)


def reader_view(blocks: list[Block], *, page: int, chapter: str, label: str, highlight: str, key: str) -> str | None:
    """Draw one page of a chapter; returns the text the student just selected with the mouse, if any."""
    data = {
        "page": page, "chapter": chapter, "label": label, "blocks": mark_blocks(blocks, highlight),
        "hint": "Select a sentence or paragraph with your mouse to ask about it.",
    }
    result = _reader_component(key=key, data=data, on_selected_change=lambda: None)
    got = result.get("selected") if result is not None else None
    if isinstance(got, dict) and str(got.get("text", "")).strip():
        return " ".join(str(got["text"]).split())
    return None
