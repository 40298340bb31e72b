"""build_tutor: one function assembles the Tutor for the app, the command line, the evaluation and the bench. Built here
over a tiny shelf written in the test with the HashEmbedder, it answers what the shelf says and refuses the rest."""
from __future__ import annotations

import pytest

from tutor.audit.log import AuditLog
from tutor.build import EMBEDDER_KINDS, build_tutor, embedder_kind, make_embedder
from tutor.retrieval.search import Library
from tutor.testing import HashEmbedder

from helpers_safety import LIGHT, policy, write_shelf

LENS_Q = "What is the power of a lens measured in?"  # LIGHT[1] answers it
CRICKET_Q = "Who won the 2011 cricket world cup?"


@pytest.fixture
def index(tmp_path):
    write_shelf(tmp_path / "index", LIGHT, subject="science")
    return tmp_path / "index"


def test_a_tutor_built_over_a_folder_answers_from_it_and_refuses_what_it_does_not_hold(index, tmp_path):
    tutor = build_tutor(index, policy=policy(), embedder="hash", audit=tmp_path / "audit.sqlite3", models=False)
    assert isinstance(tutor.library.embedder_for(tutor.library.shelf("10", "science")), HashEmbedder)
    ans = tutor.ask(LENS_Q, "10", "science")
    assert not ans.was_refusal and "dioptres" in ans.answer and ans.answerer == "extractive"
    refused = tutor.ask(CRICKET_Q, "10", "science")
    assert refused.was_refusal and not refused.llm_called
    assert isinstance(tutor.audit, AuditLog) and tutor.audit.count() == 2


def test_overrides_change_the_policy_and_none_keeps_it(index):
    base = policy(answerer="extractive", rerank=False, judge=False, reader=True)
    kept = build_tutor(index, policy=base, embedder="test", models=False)
    assert (kept.policy.rerank, kept.policy.judge, kept.policy.reader) == (False, False, True)
    assert kept.audit is None and kept.reader is None  # models=False: no reader whatever the policy says
    changed = build_tutor(index, policy=base, embedder="hash", reader=False, models=False)
    assert changed.policy.reader is False and changed.policy.min_confidence == base.min_confidence


def test_without_an_embedder_each_shelf_is_searched_with_the_model_its_manifest_names(index):
    tutor = build_tutor(index, policy=policy(), models=False)  # the shelf was written with the HashEmbedder
    assert isinstance(tutor.library.embedder_for(tutor.library.shelf("10", "science")), HashEmbedder)
    assert not tutor.ask(LENS_Q, "10", "science").was_refusal


def test_a_library_brings_its_own_embedder(index):
    lib = Library(index, embedder=HashEmbedder())
    assert build_tutor(lib, policy=policy(), models=False).library is lib
    with pytest.raises(ValueError, match="own embedder"):
        build_tutor(lib, policy=policy(), embedder="hash")


def test_an_answerer_object_is_used_as_it_is(index):
    class Named:
        name, uses_llm = "mine", False

    t = build_tutor(index, policy=policy(), embedder="hash", answerer=Named(), models=False)
    assert t.answerer.name == "mine" and t.policy.answerer == "extractive"


def test_embedder_kinds_and_the_app_switch():
    assert make_embedder("auto") is None
    assert isinstance(make_embedder("hash"), HashEmbedder) and isinstance(make_embedder("test"), HashEmbedder)
    assert isinstance(make_embedder(HashEmbedder.name), HashEmbedder)  # a manifest's model name works too
    with pytest.raises(ValueError, match="known kinds: auto, minilm, e5, hash"):
        make_embedder("word2vec")
    assert set(EMBEDDER_KINDS) >= {"auto", "minilm", "e5", "hash"}
    assert embedder_kind({"TUTOR_EMBEDDER": " Hash "}) == "hash"
    assert embedder_kind({"TUTOR_EMBEDDER": "minilm"}) == embedder_kind({}) == "minilm"


def test_the_policy_names_the_answerer_and_its_model_is_the_one_passed(index):
    from tutor.testing import FakeLLM

    llm = FakeLLM(reply="The power of a lens is measured in dioptres [1].")
    t = build_tutor(index, policy=policy(reader=False), embedder="hash", answerer="local", llm=llm)
    assert t.policy.answerer == "local" and t.answerer.uses_llm and t.answerer.llm is llm
    assert t.ask(CRICKET_Q, "10", "science").was_refusal and llm.calls == []  # a refused question never reaches it
    t.ask(LENS_Q, "10", "science")
    assert len(llm.calls) == 1


def test_a_rebuild_uses_the_shelf_own_model_and_uploads_the_chosen_one(index):
    from tutor.build import shelf_embedder, upload_embedder
    from tutor.store.shelf import ShelfStore

    store = ShelfStore(index)
    key = store.keys()[0]
    # the shelf was written with the hash embedder: a rebuild under the app's real kind still uses the shelf's model
    assert shelf_embedder(store, key.klass, key.subject, "minilm").name == HashEmbedder.name
    assert shelf_embedder(store, key.klass, key.subject, "hash").name == HashEmbedder.name
    assert upload_embedder("auto", "minilm") is None  # each shelf keeps its model; a new one gets the automatic pick
    assert upload_embedder("auto", "hash").name == HashEmbedder.name


# ---------------------------------------------------------------- TUTOR_DATABASE_URL switches the backend


def test_the_database_url_comes_from_the_environment_else_the_secrets(monkeypatch):
    from tutor.config import DATABASE_URL_ENV, database_url
    from tutor.errors import DatabaseSetupError

    monkeypatch.delenv(DATABASE_URL_ENV, raising=False)
    assert database_url() is None and database_url({}) is None  # the default: files on this disk
    assert database_url({"database_url": "postgresql://u@db/tutor"}) == "postgresql://u@db/tutor"
    monkeypatch.setenv(DATABASE_URL_ENV, "postgresql://env@db/tutor")
    assert database_url({"database_url": "postgresql://u@db/tutor"}) == "postgresql://env@db/tutor"
    monkeypatch.setenv(DATABASE_URL_ENV, "sqlite:///tmp/a.db")
    with pytest.raises(DatabaseSetupError, match="must be a PostgreSQL URL"):
        database_url()


def test_with_a_database_url_the_audit_log_is_on_postgres_and_its_spool_on_this_disk(index, tmp_path, pg_url,
                                                                                      monkeypatch):
    from tutor.audit.pg_log import PgAuditLog
    from tutor.config import DATABASE_URL_ENV

    monkeypatch.setenv(DATABASE_URL_ENV, pg_url)
    tutor = build_tutor(index, policy=policy(), embedder="hash", audit=tmp_path / "audit.sqlite3", models=False)
    tutor.ask(LENS_Q, "10", "science")
    assert isinstance(tutor.audit, PgAuditLog) and tutor.audit.count() == 1
    assert tutor.audit.spool_path == tmp_path / "audit-postgres.spool.jsonl"
    assert not (tmp_path / "audit.sqlite3").exists()
    assert PgAuditLog(pg_url, tmp_path / "other.jsonl").rows()[0]["question"] == LENS_Q  # another process sees it


def test_with_a_database_url_the_shelves_are_read_from_postgres(tmp_path, pg_url, monkeypatch):
    from tutor.config import DATABASE_URL_ENV
    from tutor.store.backends import open_store
    from tutor.store.pg_shelf import PgShelfStore
    from tutor.store.shelf import Manifest

    store = open_store(tmp_path / "index", pg_url)
    assert isinstance(store, PgShelfStore)
    emb = HashEmbedder()
    store.write(Manifest("10", "science", emb.name, emb.dim), LIGHT, emb.embed([c.text for c in LIGHT]))
    monkeypatch.setenv(DATABASE_URL_ENV, pg_url)
    tutor = build_tutor(tmp_path / "index", policy=policy(), embedder="hash", models=False)  # an empty folder here
    assert isinstance(tutor.library.store, PgShelfStore)
    ans = tutor.ask(LENS_Q, "10", "science")
    assert not ans.was_refusal and "dioptres" in ans.answer
    assert not (tmp_path / "index").exists()  # nothing was written on this disk
