"""Kind follow-ups through the whole question path (tutor/kind_followups.py) on a tiny real FAISS shelf on disk
(HashEmbedder vectors) and a real SQLite audit log: "Why?" and "Tell me more." quote the book's sentences beside the
earlier answer, cited and checked; where the book has none the refusal says so with its own reason; a refusal does
not end the conversation; the gate still decides before anything is written; and every ask is logged."""
from __future__ import annotations

import pytest

from tutor.audit.log import AuditLog
from tutor.build import build_tutor
from tutor.conversation import last_answered
from tutor.reasons import Reason
from tutor.retrieval.search import Library

from helpers_safety import EMB, chunk, policy, write_shelf

DEFECTS = "10.1 Defects of Vision"
EYE = [
    chunk("eye:0000", "Myopia is a defect of vision also known as near-sightedness. A person with myopia can see "
          "nearby objects clearly but cannot see distant objects. In a myopic eye the image of a distant object is "
          "formed in front of the retina. This defect may arise due to excessive curvature of the eye lens.",
          chapter="The Human Eye", file="eye.pdf", section=DEFECTS, page=2),
    chunk("eye:0001", "This defect can be corrected by using a concave lens of suitable power. Hypermetropia is a "
          "defect of vision also known as far-sightedness.", chapter="The Human Eye", file="eye.pdf",
          section=DEFECTS, page=3),
]
MYOPIA_Q = "What is myopia?"
CAUSE = "This defect may arise due to excessive curvature of the eye lens."


@pytest.fixture
def eye_library(tmp_path) -> Library:
    write_shelf(tmp_path / "index", EYE, subject="science")
    return Library(tmp_path / "index", embedder=EMB)


@pytest.fixture
def audit(tmp_path) -> AuditLog:
    return AuditLog(tmp_path / "audit.sqlite3")


def tutor(library, audit, **pol):
    # the tiny shelf's HashEmbedder cosines are low: a gate that lets "What is myopia?" through on them
    return build_tutor(library, policy=policy(**{"min_confidence": 0.1, "min_mean_confidence": 0.0,
                                                 "offtopic_max_score": 0.05, **pol}), audit=audit, models=False)


@pytest.fixture
def first(eye_library, audit):
    ans = tutor(eye_library, audit).ask(MYOPIA_Q, "10", "science")
    assert not ans.was_refusal, ans.message
    return ans


def test_why_quotes_the_books_reason_cited_and_checked(eye_library, audit, first):
    ans = tutor(eye_library, audit).ask("Why does it happen?", "10", "science", previous=first)
    assert not ans.was_refusal and ans.reason == Reason.ANSWERED
    assert [s.text for s in ans.sentences] == [CAUSE]
    assert all(s.citations and ans.sources[s.citations[0] - 1].chunk_id.startswith("eye:") for s in ans.sentences)
    names = {c.name: c.passed for c in ans.checks}
    assert names["citations_present"] and names["grounding"]  # the answer checks ran and passed
    assert ans.question == "Why does it happen?" and ans.followup
    assert ans.resolved_question == "What is the reason for myopia?"
    assert any("follow-up asking why" in n for n in ans.notes)


def test_no_example_in_the_book_is_a_plain_refusal_with_its_own_reason(eye_library, audit, first):
    ans = tutor(eye_library, audit).ask("Give an example.", "10", "science", previous=first)
    assert ans.was_refusal and ans.reason == Reason.NO_EXAMPLE_IN_BOOK
    assert ans.message == "The book gives no example of myopia."
    assert ans.sentences == ()


def test_after_a_refusal_the_next_follow_up_reads_against_the_last_answered_turn(eye_library, audit, first):
    t = tutor(eye_library, audit)
    refused = t.ask("Give an example.", "10", "science", previous=first)
    turns = [{"answer": first}, {"answer": refused}]
    assert last_answered(turns) is first
    more = t.ask("Tell me more.", "10", "science", previous=last_answered(turns))
    assert not more.was_refusal
    said = {s.text for s in first.sentences}
    assert more.sentences and not said & {s.text for s in more.sentences}  # only what the answer had not said
    texts = [s.text for s in more.sentences]
    assert texts == sorted(texts, key=lambda t: (EYE[0].text + " " + EYE[1].text).index(t))  # reading order


def test_a_kind_follow_up_with_no_answered_turn_before_it_is_refused(eye_library, audit):
    t = tutor(eye_library, audit)
    ans = t.ask("Why?", "10", "science")
    assert ans.was_refusal and ans.reason == Reason.NO_EARLIER_ANSWER
    off_topic = t.ask("Who won the 2011 cricket world cup?", "10", "science")
    assert off_topic.was_refusal
    assert last_answered([{"answer": off_topic}]) is None


def test_the_gate_still_decides_before_anything_is_written(eye_library, audit, first):
    strict = tutor(eye_library, audit, min_confidence=0.99, accept_definitions=False)  # no definition bypass
    ans = strict.ask("Why does it happen?", "10", "science", previous=first)
    assert ans.was_refusal and ans.decided_by == "retrieval" and ans.sentences == ()
    assert ans.reason not in (Reason.NO_REASON_IN_BOOK, Reason.ANSWERED)
    assert any(c.stage == "gate" and not c.passed for c in ans.checks)


def test_with_kind_follow_ups_off_a_why_is_resolved_and_retrieved_as_before(eye_library, audit, first):
    ans = tutor(eye_library, audit, followup_kinds=False).ask("Why does it happen?", "10", "science",
                                                              previous=first)
    assert ans.resolved_question != "What is the reason for myopia?"
    assert ans.reason not in (Reason.NO_REASON_IN_BOOK, Reason.NO_EXAMPLE_IN_BOOK)


def test_every_kind_follow_up_is_logged_once_as_typed(eye_library, audit, first):
    t = tutor(eye_library, audit)
    t.ask("Why?", "10", "science", previous=first)
    t.ask("Examples?", "10", "science", previous=first)
    frame = audit.frame()
    assert len(frame) == 3  # the first question and the two follow-ups
    assert list(frame["question"])[-2:] == ["Why?", "Examples?"] or set(frame["question"]) >= {"Why?", "Examples?"}
    assert set(frame["reason"]) >= {"answered", "no_example_in_book"}
