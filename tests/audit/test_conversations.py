"""Conversations kept beside the audit log (tutor/audit/log.py `keep_turn`, `turns`, `forget_turns`, and
tutor/conversation.py): a chat comes back after a reload, one per class and subject, and "New conversation" clears it
without touching the questions the log keeps. On both backends, as tests/audit/test_audit.py."""
from __future__ import annotations

import pytest
from test_audit import answered, refused

from tutor.audit.log import AuditLog
from tutor.audit.pg_log import PgAuditLog
from tutor.conversation import (
    new_conversation_id,
    new_turn_id,
    turn_from_dict,
    turn_to_dict,
    valid_conversation_id,
)

from helpers_postgres import BACKENDS


@pytest.fixture(params=BACKENDS)
def log(request, tmp_path):
    if request.param == "sqlite":
        return AuditLog(tmp_path / "audit.sqlite3")
    return PgAuditLog(request.getfixturevalue("pg_url"), spool_path=tmp_path / "audit-postgres.spool.jsonl")


def turn(ans):
    return {"id": new_turn_id(), "question": ans.question, "answer": ans}


def test_a_conversation_comes_back_turn_by_turn_per_shelf(log):
    cid, other = new_conversation_id(), new_conversation_id()
    first, second = turn(answered()), turn(refused())
    assert log.keep_turn(cid, "10", "science", turn_to_dict(first))
    assert log.keep_turn(cid, "10", "science", turn_to_dict(second))
    assert log.keep_turn(cid, "10", "social-science", turn_to_dict(turn(answered("What is soil?"))))
    back = [turn_from_dict(d) for d in log.turns(cid, "10", "science")]
    assert [t["id"] for t in back] == [first["id"], second["id"]]
    assert back[0]["answer"] == first["answer"] and back[1]["answer"].suggestions == second["answer"].suggestions
    assert [t["question"] for t in map(turn_from_dict, log.turns(cid, "10", "social-science"))] == ["What is soil?"]
    assert log.turns(other, "10", "science") == []  # another student's id finds nothing of this chat


def test_new_conversation_forgets_the_turns_not_the_questions(log):
    cid = new_conversation_id()
    log.log(answered())
    log.keep_turn(cid, "10", "science", turn_to_dict(turn(answered())))
    log.keep_turn(cid, "10", "social-science", turn_to_dict(turn(answered("What is soil?"))))
    log.forget_turns(cid, "10", "science")
    assert log.turns(cid, "10", "science") == []
    assert len(log.turns(cid, "10", "social-science")) == 1  # only that shelf's chat
    assert log.count() == 1  # the audit log keeps every question


def test_a_conversation_id_is_random_and_checked():
    a, b = new_conversation_id(), new_conversation_id()
    assert a != b and valid_conversation_id(a) == a
    for bad in (None, "", "abc", a.upper(), a + "0", "../" + a[3:], 42):
        assert valid_conversation_id(bad) is None


def test_a_kept_turn_that_cannot_be_read_is_left_out():
    assert turn_from_dict({"question": "x"}) is None
    assert turn_from_dict({"id": "1", "question": "x", "answer": "not an answer"}) is None
