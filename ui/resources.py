"""Shared, heavy resources (one st.cache_resource each) and the session-state keys the pages use.

Embedder, library, audit log, tutor, page renderer, secrets and the data folders.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import streamlit as st

from tutor.astlock import serialise_ast_parse
from tutor.audit.log import AuditLog
from tutor.build import build_tutor, embedder_kind, make_embedder, open_audit
from tutor.config import audit_db_path, data_dir, database_url, index_dir
from tutor.errors import TutorError, is_database_unreachable
from tutor.ingest.uploads import uploads_dir
from tutor.policy import load_policy
from tutor.retrieval.search import Library
from tutor.store.backends import open_store
from tutor.store.chapters import student_shelves
from tutor.store.pages import PageImage, PageRenderer, PageUnavailable, find_pdf
from tutor.store.shelf import check_name
from tutor.warmup import WarmReport, warm_tutor

APP_PATH = Path(__file__).resolve().parents[1] / "app.py"


# Per-user state lives in st.session_state under these names; nothing per-question goes on a cached object.
KLASS = "shelf_class"  # the class a student picked (survives page switches)


SUBJECT = "shelf_subject"  # the subject a student picked


ASK_CHATS = "ask_chats"  # the Ask page's chats: "class/subject" -> list of turns (ui/conversation.py)


CHAT_ID = "chat_id"  # the conversation id this session's chats are kept under (also in the URL, ?chat=)


SUGGESTED = "ask_suggested"  # the question a suggestion's button asks, asked on the next run


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


@st.cache_resource(show_spinner="Loading the language model…")
def get_embedder(kind: str):
    """The embedder of a kind (tutor.build.embedder_kind: `hash` under tests, else MiniLM), warmed up."""
    emb = make_embedder(kind)
    if kind != "hash":
        emb.embed(["warm up"])  # the first encode is slow; pay it here, not on a student's first question
    return emb


@st.cache_resource
def get_store(root: str, url: str | None = None):
    """The shelves' store: FAISS folders under `root`, or the PostgreSQL database `url` (tutor.store.backends); one
    per process, so a database's schema is checked once and not on every page that reads a manifest."""
    return open_store(root, url)


@st.cache_resource(show_spinner="Opening the library…")
def get_library(root: str, kind: str, url: str | None = None) -> Library:
    return Library(root, embedder=get_embedder(kind), store=get_store(root, url))


@st.cache_resource
def get_audit(path: str, url: str | None = None) -> AuditLog:
    """The audit log: SQLite at `path`, or the PostgreSQL database `url` (tutor.build.open_audit)."""
    return open_audit(path, url)


@st.cache_resource(show_spinner="Getting the tutor ready…")
def get_tutor(root: str, audit_path: str, kind: str, url: str | None = None):
    """One Tutor per (library, audit log, embedder, database): it holds no per-question state, so all users share it.

    Built by tutor.build.build_tutor like everywhere else; the answerer comes from the policy (`TUTOR_ANSWERER`:
    extractive, local or openai); an OpenAI-compatible server's address, model and key come from st.secrets
    ([llm] base_url/model/api_key) or the environment."""
    return build_tutor(get_library(root, kind, url), audit=get_audit(audit_path, url), secrets=_secrets())


@st.cache_resource
def _warm_up(_tutor, root: str, audit_path: str, kind: str, url: str | None = None) -> WarmReport:
    """Once per server process and library (the first page run, the earliest Streamlit lets an app act): every shelf
    and model of the shared tutor loaded in a background thread (tutor/warmup.py), so no student pays a shelf's
    first-question cost. A student who asks sooner waits on the same cached loads, never on a second copy. (`_tutor`
    is not hashed: the paths it was built from are the key.)"""
    report = WarmReport()
    threading.Thread(target=warm_tutor, args=(_tutor, report), name="tutor-warm-up", daemon=True).start()
    return report


def warm_up() -> WarmReport | None:
    """Start (once per process) warming the shared tutor's shelves and models; returns the report it fills, or None
    where the tutor cannot be built (the page that needs it says why).

    CPython 3.11's parser is not safe across threads ('SystemError: AST constructor recursion depth mismatch',
    seen in tests/ui/test_pages.py): the thread reads .npy headers and imports model code, which parse Python, while
    Streamlit parses page scripts. So `ast.parse` is serialised first (tutor/astlock.py), and the tutor is built
    here, in the page's thread (the Ask page builds it on this run anyway), leaving the thread less to parse."""
    serialise_ast_parse()
    import tutor.reader.e5_base  # noqa: F401 - imported here for the same reason: the thread only runs code
    import tutor.retrieval.onnx_encoder  # noqa: F401

    root, audit_path, kind, url = str(index_dir()), str(audit_db_path()), embedder_kind(), db_url()
    try:
        tutor = get_tutor(root, audit_path, kind, url)
    except TutorError:
        return None
    return _warm_up(tutor, root, audit_path, kind, url)


def _secrets() -> dict[str, Any]:
    try:
        return {k: (dict(v) if hasattr(v, "keys") else v) for k, v in st.secrets.items()}
    except Exception:  # noqa: BLE001 - no secrets file at all is the same as no secrets
        return {}


def db_url() -> str | None:
    """The shared PostgreSQL database (`TUTOR_DATABASE_URL`, or `database_url` in st.secrets), None for the local
    files."""
    return database_url(_secrets())


def library() -> Library:
    return get_library(str(index_dir()), embedder_kind(), db_url())


def audit_log() -> AuditLog:
    return get_audit(str(audit_db_path()), db_url())


@st.cache_resource
def _readiness(port: int, timeout_s: float, audit_path: str, url: str | None):
    """The readiness probe's server (tutor/readiness.py), one per process and port; None when the port is taken (a
    second app on this machine with the same TUTOR_READY_PORT: the first one's probe answers)."""
    from tutor.readiness import database_check, serve

    try:
        return serve(port, database_check(url, timeout_s, get_audit(audit_path, url) if url else None))
    except OSError as e:
        logging.getLogger(__name__).warning("the readiness probe cannot listen on port %s: %s", port, e)
        return None


def start_readiness() -> None:
    """Start the readiness probe once, when the policy names a port (`ready_port`, TUTOR_READY_PORT); app.py calls it
    on every run, the server starts on the first."""
    try:
        policy = load_policy()
    except TutorError:
        return  # the pages say what is wrong with the policy
    if policy.ready_port:
        _readiness(policy.ready_port, policy.ready_timeout_s, str(audit_db_path()), db_url())


@st.cache_resource
def _known_shelves() -> dict[str, list]:
    return {}  # library root -> the shelves last listed: shown while the database cannot be asked


def student_shelves_or_known(lib: Library) -> tuple[list, bool]:
    """The shelves a student can ask, and False; while the shared database is unreachable the ones listed last in
    this process (so the chat box stays and a question gets the plain refusal, and is saved), and True."""
    known = _known_shelves()
    try:
        shelves = student_shelves(lib)
    except Exception as e:
        if not is_database_unreachable(e):
            raise
        return list(known.get(str(lib.root), [])), True
    known[str(lib.root)] = list(shelves)
    return shelves, False


def tutor_or_stop():
    """The shared Tutor, or a plain message and a stopped page when the policy or library cannot be loaded."""
    try:
        return get_tutor(str(index_dir()), str(audit_db_path()), embedder_kind(), db_url())
    except TutorError as e:
        st.error(f"The tutor cannot start: {e}", icon=":material/error:")
        st.stop()


def page_cache_dir() -> Path:
    """Where rendered PDF pages are kept (`<data dir>/page-cache`), keyed by file digest, page and scale."""
    return data_dir() / "page-cache"


@st.cache_resource
def get_renderer(cache_dir: str) -> PageRenderer:
    return PageRenderer(cache_dir)


@st.cache_data(max_entries=256, show_spinner=False)
def _page_image(pdf: str, sha256: str, page: int, sentences: tuple[str, ...], cache_dir: str) -> PageImage:
    # in memory as well as on disk: a source closed and opened again, or opened by many students, is drawn at once
    return get_renderer(cache_dir).show(Path(pdf), page, list(sentences), sha256=sha256)


def chapter_pdf(klass: str, subject: str, file: str) -> tuple[Path, str] | None:
    """The PDF a chapter was ingested from, and its digest: the recorded source, else the kept upload; None when
    neither is there any more or the file there is not the one that was ingested (same sha256)."""
    store = get_store(str(index_dir()), db_url())
    manifest = store.manifest(klass, subject)  # the manifest alone: no embedder is loaded
    entry = manifest.chapters.get(file) if manifest else None
    if entry is None:
        return None
    kept = uploads_dir() / f"class-{check_name(klass, 'class')}" / check_name(subject, "subject") / file
    pdf = find_pdf([entry.source, kept], entry.sha256)
    db = getattr(store, "uploads", None)  # on PostgreSQL the kept PDF is in the database: copied here once
    if pdf is None and db is not None:
        db.export(klass, subject, kept.parent, file=file)
        pdf = find_pdf([kept], entry.sha256)
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
