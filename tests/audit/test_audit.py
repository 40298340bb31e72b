"""The audit log: numbered migrations recorded in user_version and never re-run, WAL mode, one row per question,
the full result round-tripping through detail(), the teachers' frame and time filters.

Tests taking `open_log` run on both backends: SQLite and the PostgreSQL test server (tests/helpers_postgres.py)."""
from __future__ import annotations

import json
import sqlite3
from types import SimpleNamespace

import pytest

import tutor.audit.log as audit_mod
import tutor.audit.pg_log as pg_mod
from tutor.audit.log import MIGRATIONS, AuditLog
from tutor.audit.pg_log import PgAuditLog
from tutor.types import REFUSAL_SENTENCE, AnswerSentence, Check, Suggestion, TutorAnswer

from helpers_safety import source


def answered(question="What is refraction?", **kw) -> TutorAnswer:
    src = source(1, "Refraction is the bending of light.", page=3, score=0.71)
    return TutorAnswer(
        question=question, klass="10", subject="science", mode="library",
        answer="Refraction is the bending of light. [1]", was_refusal=False, reason="answered",
        message="The answer is taken from your textbook.", confidence=0.8,
        sentences=(AnswerSentence("Refraction is the bending of light.", (1,), 3),), sources=(src,),
        checks=(Check("confidence", "gate", True, 0.71, 0.5, "best score", "low_confidence"),),
        timings_ms={"embed": 1.5, "gate": 0.5}, measures={"best": 0.71}, **kw,
    )


def refused(question="Who won the 2011 cricket world cup?", **kw) -> TutorAnswer:
    return TutorAnswer(
        question=question, klass="10", subject="science", mode="library", answer=REFUSAL_SENTENCE,
        was_refusal=True, reason="low_confidence", message="Your textbook does not seem to talk about this.",
        confidence=0.2, checks=(Check("confidence", "gate", False, 0.2, 0.5, "best score", "low_confidence"),
                                Check("term_coverage", "gate", False, 0.0, 0.3, "", "low_confidence")),
        near_misses=(source(1, "A plane mirror forms an image.", chapter="Light", score=0.33),),
        suggestions=(Suggestion("Light", "10.3 Mirrors", 7, 0.33),), timings_ms={"gate": 2.0}, **kw,
    )


def user_version(path) -> int:
    con = sqlite3.connect(path)
    try:
        return con.execute("PRAGMA user_version").fetchone()[0]
    finally:
        con.close()


# ---------------------------------------------------------------- schema


def test_migrations_are_a_numbered_list_of_sql():
    assert isinstance(MIGRATIONS, list) and len(MIGRATIONS) >= 2
    assert all(isinstance(m, str) and m.strip() for m in MIGRATIONS)


def test_the_postgres_migrations_are_numbered_as_the_sqlite_ones():
    assert len(pg_mod.MIGRATIONS) == len(MIGRATIONS)
    assert all(isinstance(m, str) and m.strip() for m in pg_mod.MIGRATIONS)


def test_a_new_database_is_at_the_last_migration(tmp_path):
    log = AuditLog(tmp_path / "audit.sqlite3")
    assert log.schema_version == len(MIGRATIONS)
    assert user_version(tmp_path / "audit.sqlite3") == len(MIGRATIONS)


def test_a_new_postgres_database_records_the_last_migration(pg_url, tmp_path):
    import psycopg

    log = PgAuditLog(pg_url, spool_path=tmp_path / "spool.jsonl")
    assert log.schema_version == len(pg_mod.MIGRATIONS)
    with psycopg.connect(pg_url) as con:
        assert con.execute("SELECT version FROM audit_schema_version").fetchall() == [(len(MIGRATIONS),)]


def test_reopening_does_not_rerun_migrations_and_keeps_rows(open_log):
    open_log().log(answered())
    again = open_log()  # CREATE TABLE run twice would raise
    assert again.schema_version == len(MIGRATIONS)
    assert again.count() == 1


def test_an_appended_migration_runs_once_on_an_old_database(tmp_path, monkeypatch):
    path = tmp_path / "audit.sqlite3"
    AuditLog(path).log(answered())
    monkeypatch.setattr(audit_mod, "MIGRATIONS", MIGRATIONS + ["ALTER TABLE questions ADD COLUMN teacher_note TEXT;"])
    log = AuditLog(path)
    assert log.schema_version == len(MIGRATIONS) + 1
    AuditLog(path)  # a second ALTER TABLE ... ADD COLUMN would raise "duplicate column"
    con = sqlite3.connect(path)
    cols = [r[1] for r in con.execute("PRAGMA table_info(questions)")]
    con.close()
    assert cols.count("teacher_note") == 1 and "selected_text" in cols
    assert log.count() == 1


def test_an_appended_postgres_migration_runs_once_on_an_old_database(pg_url, tmp_path, monkeypatch):
    import psycopg

    spool = tmp_path / "spool.jsonl"
    PgAuditLog(pg_url, spool).log(answered())
    more = pg_mod.MIGRATIONS + ["ALTER TABLE questions ADD COLUMN teacher_note TEXT;"]
    monkeypatch.setattr(pg_mod, "MIGRATIONS", more)
    log = PgAuditLog(pg_url, spool)
    assert log.schema_version == len(MIGRATIONS) + 1
    assert log.log(answered("again")) is not None  # a second ADD COLUMN would fail the write and spool it
    assert log.spooled() == 0 and log.count() == 2
    with psycopg.connect(pg_url) as con:
        cols = [r[0] for r in con.execute("SELECT column_name FROM information_schema.columns"
                                          " WHERE table_name = 'questions'")]
    assert cols.count("teacher_note") == 1 and "selected_text" in cols


def test_wal_mode_is_on(tmp_path):
    path = tmp_path / "audit.sqlite3"
    AuditLog(path)
    con = sqlite3.connect(path)
    try:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"  # persistent: a fresh connection sees it
    finally:
        con.close()


def test_parent_folder_is_created(tmp_path):
    log = AuditLog(tmp_path / "deep" / "er" / "audit.sqlite3")
    assert log.count() == 0


# ---------------------------------------------------------------- rows


def test_log_returns_increasing_ids_and_counts_rows(open_log):
    log = open_log()
    ids = [log.log(answered()), log.log(refused()), log.log(answered("What is a lens?"))]
    assert ids == sorted(ids) and len(set(ids)) == 3
    assert log.count() == 3


def test_row_columns_summarise_the_result(open_log):
    log = open_log()
    log.log(answered())
    log.log(refused(llm_called=False))
    newest, oldest = log.rows()
    assert (oldest["decision"], oldest["reason"], oldest["best_score"]) == ("answered", "answered", 0.71)
    assert oldest["total_ms"] == pytest.approx(2.0)
    assert (newest["decision"], newest["reason"]) == ("refused", "low_confidence")
    assert newest["failed_checks"] == "confidence,term_coverage"
    assert newest["nearest_chapter"] == "Light" and newest["best_score"] == 0.33
    assert newest["llm_called"] == 0 and newest["class"] == "10"


def test_detail_round_trips_the_result_json(open_log):
    log = open_log()
    for ans, selected in ((answered(), None), (refused(error="RuntimeError: boom"), "A passage the student chose.")):
        row_id = log.log(ans, selected_text=selected)
        d = log.detail(row_id)
        assert d.pop("selected_text") == selected
        assert d == json.loads(json.dumps(ans.to_dict()))
        assert d["class"] == "10" and "klass" not in d
    assert log.detail(10_000) is None


def test_frame_has_the_columns_and_a_time_column(open_log):
    log = open_log()
    empty = log.frame()
    expected = {"id", "ts", "question", "class", "subject", "mode", "decision", "reason", "message", "confidence",
                "answer", "answerer", "llm_called", "decided_by", "best_score", "nearest_chapter", "nearest_section",
                "failed_checks", "total_ms", "error", "resolved_question", "time"}
    assert set(empty.columns) == expected and len(empty) == 0
    log.log(answered())
    log.log(refused())
    df = log.frame()
    assert set(df.columns) == expected and len(df) == 2
    assert str(df["time"].dtype).startswith("datetime64")
    assert list(df["decision"]) == ["refused", "answered"]  # newest first


def test_rows_filter_by_time(open_log, monkeypatch):
    log = open_log()
    clock = iter([1000.0, 2000.0, 3000.0])
    monkeypatch.setattr(audit_mod, "time", SimpleNamespace(time=lambda: next(clock)))
    for q in ("first?", "second?", "third?"):
        log.log(answered(q))
    q_of = lambda rows: [r["question"] for r in rows]  # noqa: E731
    assert q_of(log.rows()) == ["third?", "second?", "first?"]
    assert q_of(log.rows(since=2000.0)) == ["third?", "second?"]
    assert q_of(log.rows(until=2000.0)) == ["first?"]
    assert q_of(log.rows(since=1500.0, until=3000.0)) == ["second?"]
    assert q_of(log.rows(limit=1)) == ["third?"]
    assert len(log.frame(since=2500.0)) == 1


def test_two_logs_on_one_store_see_each_others_rows(open_log):
    a, b = open_log(), open_log()  # two app processes on one database
    a.log(answered())
    b.log(refused())
    assert a.count() == b.count() == 2


# ---------------------------------------------------------------- a store that fails never blocks an answer


def damage(path) -> None:
    """Overwrite a database file with bytes SQLite cannot read (and drop its WAL files)."""
    for suffix in ("-wal", "-shm"):
        (path.parent / (path.name + suffix)).unlink(missing_ok=True)
    path.write_bytes(b"this is not a database, it was damaged " * 200)


def test_a_damaged_database_spools_the_question_and_says_why(tmp_path):
    db = tmp_path / "audit.sqlite3"
    log = AuditLog(db)
    log.log(answered("first"))
    damage(db)
    assert log.log(answered("second")) is None  # no exception: the answer is not blocked
    health = log.health()
    assert not health.ok and "DatabaseError" in health.error and health.spooled == 1
    spool = tmp_path / "audit.sqlite3.spool.jsonl"
    assert json.loads(spool.read_text())["question"] == "second"


def test_a_replay_cut_off_before_the_spool_is_removed_writes_no_question_twice(open_log, monkeypatch):
    log = open_log()
    log.log(answered("before"))

    def away():
        raise log._ERRORS[0]("the database is away")  # what its driver raises when it cannot be reached

    monkeypatch.setattr(log, "_con", away)
    assert log.log(answered("while away")) is None and log.spooled() == 1
    monkeypatch.undo()
    monkeypatch.setattr(log, "_spool_done", lambda: None)  # the app dies after the replay's commit, before the removal
    assert log.log(answered("back")) is not None and log.spooled() == 1
    monkeypatch.undo()
    log.replay()  # the same spool read again, as after a restart: its line's id is taken, so it is skipped
    assert [r["question"] for r in log.rows()] == ["back", "while away", "before"] and log.spooled() == 0


def test_opening_a_damaged_database_does_not_raise(tmp_path):
    db = tmp_path / "audit.sqlite3"
    damage(db)
    log = AuditLog(db)  # the app must still start
    assert log.error and log.log(refused()) is None and log.spooled() == 1


def test_set_aside_keeps_the_damaged_file_and_replays_the_spool_without_a_restart(tmp_path):
    db = tmp_path / "audit.sqlite3"
    log = AuditLog(db)
    damage(db)
    log.log(answered("spooled one"))
    log.log(refused("spooled two"))
    moved = log.set_aside()
    assert moved.exists() and moved.read_bytes().startswith(b"this is not a database")
    assert [r["question"] for r in log.rows()] == ["spooled two", "spooled one"]  # nothing lost, order kept
    assert log.health().ok and log.spooled() == 0
    assert log.log(answered("after")) is not None and log.count() == 3


def test_spooled_questions_are_replayed_when_the_store_is_back(tmp_path):
    db = tmp_path / "audit.sqlite3"
    log = AuditLog(db)
    damage(db)
    log.log(answered("while damaged"))
    db.unlink()  # someone moved the damaged file away by hand: the next write starts a fresh database
    log.log(answered("next"))
    assert [r["question"] for r in log.rows()] == ["next", "while damaged"]
    assert log.spooled() == 0 and log.health().ok


def test_reading_a_damaged_database_raises_a_named_error(tmp_path):
    db = tmp_path / "audit.sqlite3"
    damage(db)
    with pytest.raises(audit_mod.AuditUnavailable, match="cannot be read"):
        AuditLog(db).rows()


def test_lone_surrogates_and_undecodable_bytes_are_stored_as_valid_text(open_log):
    log = open_log()
    cli = b"What is refraction \xff?".decode("utf-8", "surrogateescape")  # how Python hands over a bad argv
    rid1 = log.log(answered("lone \ud800 surrogate"))
    rid2 = log.log(refused(cli), selected_text="passage \udfff")
    assert rid1 is not None and rid2 is not None and log.spooled() == 0
    rows = {r["id"]: r for r in log.rows()}
    assert rows[rid1]["question"] == "lone \ufffd surrogate"
    assert rows[rid2]["question"] == "What is refraction \ufffd?"
    assert log.detail(rid2)["selected_text"] == "passage \ufffd"



def test_a_nul_character_is_stored_without_it(open_log):
    log = open_log()  # Postgres text cannot hold NUL: kept, the row would wait in the spool for ever
    rid = log.log(answered("what is\x00 light?"))
    assert rid is not None and log.spooled() == 0
    assert log.rows()[0]["question"] in ("what is light?", "what is\x00 light?")


# ---------------------------------------------------------------- a PostgreSQL server that cannot take writes


def test_an_unreachable_postgres_database_spools_and_replays_when_it_is_back(pg_server, tmp_path):
    import psycopg

    name = "t_not_yet_created"
    url = pg_server.url(name)
    log = PgAuditLog(url, spool_path=tmp_path / "spool.jsonl")  # the app must still start
    assert log.error and log.log(answered("while down")) is None and log.spooled() == 1
    health = log.health()
    assert not health.ok and "OperationalError" in health.error and health.spooled == 1
    assert "password" not in str(log.path) and log.path.endswith(f"/{name}")
    with pytest.raises(audit_mod.AuditUnavailable, match="cannot be read"):
        log.rows()
    with pytest.raises(audit_mod.AuditUnavailable, match="administrator"):
        log.set_aside()  # a server's database is not a file to move away
    with psycopg.connect(pg_server.admin_url, autocommit=True) as con:
        con.execute(f'CREATE DATABASE "{name}"')
    try:
        assert log.log(answered("back")) is not None
        assert [r["question"] for r in log.rows()] == ["back", "while down"]  # nothing lost, order kept
        assert log.spooled() == 0 and log.health().ok
    finally:
        pg_server.drop(url)


def test_replay_writes_the_spool_into_a_postgres_database_that_is_back(pg_url, tmp_path):
    spool = tmp_path / "spool.jsonl"
    bad = PgAuditLog(pg_url.replace("/t_", "/missing_t_"), spool_path=spool)
    bad.log(refused("spooled"))
    assert bad.spooled() == 1
    with pytest.raises(audit_mod.AuditUnavailable, match="still cannot be written"):
        bad.replay()
    assert bad.spooled() == 1  # left as it was
    good = PgAuditLog(pg_url, spool_path=spool)  # the same spool file, the database reachable
    assert good.replay() == 1 and good.spooled() == 0
    assert [r["question"] for r in good.rows()] == ["spooled"]
