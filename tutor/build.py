"""Assembling a Tutor: the one place where a library, a policy, an embedder, an audit log and the answering parts the
policy names come together. The app, the command line, the evaluation, the bench and the tests all call `build_tutor`.

Embedders are chosen here by a kind (`EMBEDDER_KINDS`), the deterministic test fake included, so no page or command
decides it for itself.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tutor.answering.extractive import Answerer, ExtractiveAnswerer
from tutor.audit.log import AuditLog
from tutor.config import database_url
from tutor.errors import DatabaseSetupError, ShelfDamaged
from tutor.pipeline import Tutor
from tutor.policy import Policy, load_policy
from tutor.retrieval.embedding import E5_NAME, MINILM_NAME, Embedder, default_embedder, e5_embedder, embedder_by_name
from tutor.retrieval.search import Library
from tutor.store.backends import open_store
from tutor.store.shelf import ShelfStore
from tutor.testing import HASH_EMBEDDER_NAME, HashEmbedder

if TYPE_CHECKING:  # the LLM client is loaded only when the policy names a model
    from tutor.answering.llm import LLM

# kind -> what it gives; "auto" is no embedder of its own: each shelf is searched with the model its manifest names
EMBEDDER_KINDS: dict[str, str] = {
    "auto": "each shelf's own model, as its manifest names it",
    "minilm": MINILM_NAME,
    "e5": E5_NAME,
    "hash": f"the deterministic test fake ({HASH_EMBEDDER_NAME}, tutor/testing.py)",
    "test": "the same as hash",
}
EMBEDDER_ENV = "TUTOR_EMBEDDER"  # `hash` runs the app on the test fake (the page tests); anything else: MiniLM


def embedder_kind(env: Mapping[str, str] | None = None) -> str:
    """The app's embedder kind: `hash` when `$TUTOR_EMBEDDER` says so (tests), else `minilm`."""
    value = (os.environ if env is None else env).get(EMBEDDER_ENV, "")
    return "hash" if value.strip().lower() == "hash" else "minilm"


def make_embedder(kind: str) -> Embedder | None:
    """The embedder of a kind of EMBEDDER_KINDS, or of a model's full name (as a manifest and `--embedding` write it);
    None for `auto`. Real models are shared per process; the test fake is made fresh (it holds nothing)."""
    k = kind.strip().lower()
    if k == "auto":
        return None
    if k == "minilm":
        return default_embedder()
    if k == "e5":
        return e5_embedder()
    if k in ("hash", "test"):
        return HashEmbedder()
    try:
        return embedder_by_name(kind)
    except ValueError:
        raise ValueError(f"unknown embedder {kind!r}; known kinds: {', '.join(EMBEDDER_KINDS)}, or a model name: "
                         f"{MINILM_NAME}, {E5_NAME}") from None


def upload_embedder(choice: str, kind: str) -> Embedder | None:
    """The embedder new chapters are ingested with: the test fake when the app runs on it (`kind` hash), None for the
    automatic choice (an existing shelf keeps its model; a new one gets multilingual for Hindi), else the model
    named."""
    if kind in ("hash", "test"):
        return make_embedder(kind)
    return None if choice == "auto" else make_embedder(choice)


def shelf_embedder(store: ShelfStore, klass: str, subject: str, kind: str) -> Embedder:
    """The embedder a rebuild of a shelf must use: the test fake when the app runs on it, else the shelf's own model
    (from its manifest, or from the newest earlier version whose manifest is intact when the live one is damaged),
    MiniLM when no manifest can be read at all."""
    if kind in ("hash", "test"):
        return make_embedder(kind)
    current = store.current_version(klass, subject)
    for version in ([current] if current else []) + store.versions(klass, subject):
        try:
            return embedder_by_name(store.manifest_of(klass, subject, version).embedding_model)
        except ShelfDamaged:
            continue
    return make_embedder("minilm")


def open_audit(path: str | Path, url: str | None = None) -> AuditLog:
    """The audit log: in the PostgreSQL database `url` when one is given (`tutor.config.database_url`), its spool on
    this disk beside `path`; else the SQLite file `path`. The one place the backend of the audit log is chosen."""
    if not url:
        return AuditLog(path)
    try:
        from tutor.audit.pg_log import PgAuditLog
    except ImportError as e:
        raise DatabaseSetupError.driver_missing(e) from e
    return PgAuditLog(url, spool_path=Path(path).with_name("audit-postgres.spool.jsonl"))


def build_tutor(
    library: Library | str | Path,
    *,
    policy: Policy | str | Path | None = None,
    answerer: str | Answerer | None = None,
    rerank: bool | None = None,
    judge: bool | None = None,
    reader: bool | None = None,
    embedder: str | Embedder | None = None,
    audit: AuditLog | str | Path | None = None,
    llm: LLM | None = None,
    secrets: Mapping[str, Any] | None = None,
    models: bool = True,
) -> Tutor:
    """A Tutor over `library` (a Library, or the folder of its shelves; in the PostgreSQL database instead when
    `database_url(secrets)` names one).

    policy:   a Policy, a policy TOML file, or None: the shipped policy (with `$TUTOR_POLICY` and `TUTOR_<FIELD>`).
    answerer: a name (extractive, local, openai) overriding the policy's, or an Answerer object used as it is.
    rerank, judge, reader: override the policy's switch of that name; None keeps the policy's.
    embedder: a kind of EMBEDDER_KINDS or an Embedder, for a folder; None is `auto`. A Library brings its own.
    audit:    an AuditLog, or the path of its SQLite file (on PostgreSQL instead when `database_url(secrets)`
              names a database: see `open_audit`); None: answers are not logged.
    llm, secrets: the language model to use instead of the one the policy names, and the app's secrets (an
              OpenAI-compatible server's address, model and key); see `make_parts`.
    models:   False: the gate and the extractive answerer alone (no reader, reranker, judge or LLM, whatever the
              policy says), as the bench and the follow-up evaluation measure them.
    """
    if isinstance(library, Library):
        if embedder is not None:
            raise ValueError("a Library brings its own embedder: pass the embedder to Library(...) or pass a folder")
        lib = library
    else:
        emb = make_embedder(embedder) if isinstance(embedder, str) else embedder  # None: auto
        lib = Library(library, embedder=emb, store=open_store(library, database_url(secrets)))
    pol = policy if isinstance(policy, Policy) else load_policy(policy)
    overrides = {"answerer": answerer if isinstance(answerer, str) else None, "rerank": rerank, "judge": judge,
                 "reader": reader}
    pol = pol.with_values(**{k: v for k, v in overrides.items() if v is not None})
    log = open_audit(audit, database_url(secrets)) if isinstance(audit, (str, Path)) else audit
    given = None if answerer is None or isinstance(answerer, str) else answerer  # an Answerer object, used as it is
    if not models:
        return Tutor(lib, pol, answerer=given or ExtractiveAnswerer(), audit=log)
    from tutor.answering.llm_answerer import make_parts  # imports the LLM client: only when models may be used

    parts = make_parts(pol, llm, secrets=secrets)
    if given is not None:
        parts["answerer"] = given
    return Tutor(lib, pol, audit=log, **parts)
