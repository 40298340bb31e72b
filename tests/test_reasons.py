"""tutor.reasons: every refusal reason has its English and Hindi message and a label, every decision tier a label,
and every reason or tier the code base writes is a member (a bare or misspelt code fails here, not in front of a
student)."""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from helpers_paths import TUTOR

from tutor.pipeline import Tutor
from tutor.reasons import Reason, Tier, label, message, tier_label
from tutor.retrieval.search import Library
from tutor.safety.failsafe import CATEGORIES

from helpers_safety import EMB, LIGHT, policy, write_shelf

DEVANAGARI = re.compile(r"[\u0900-\u097F]")
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")


# ---------------------------------------------------------------- every member is complete


@pytest.mark.parametrize("reason", list(Reason), ids=str)
def test_every_reason_has_an_english_and_a_hindi_message_and_a_label(reason):
    assert reason.en.strip() and reason.label.strip()
    assert reason.hi.strip() and DEVANAGARI.search(reason.hi), f"{reason}: Hindi message missing or not in Devanagari"
    assert not LATIN_WORD.search(reason.hi), f"{reason}: English words in the Hindi message"
    assert reason.hi != reason.en
    assert message(reason, "en") == reason.en and message(reason, "hi") == reason.hi


@pytest.mark.parametrize("tier", list(Tier), ids=str)
def test_every_tier_has_a_label(tier):
    assert tier.label.strip() and tier_label(tier) == tier.label != str(tier)


def test_labels_are_distinct_so_a_chart_can_tell_reasons_apart():
    assert len({r.label for r in Reason}) == len(Reason)
    assert len({t.label for t in Tier}) == len(Tier)


def test_codes_are_the_plain_strings_the_audit_log_and_evaluation_json_store():
    assert Reason.OFF_TOPIC == "off_topic" and f"{Reason.OFF_TOPIC}" == "off_topic"
    assert json.dumps({"reason": Reason.LLM_TIMEOUT, "decided_by": Tier.ANSWER_CHECKS}) == \
        '{"reason": "llm_timeout", "decided_by": "answer_checks"}'
    assert all(re.fullmatch(r"[a-z]+(?:_[a-z]+)*", r.value) for r in [*Reason, *Tier])
    assert message("off_topic", "hi") == Reason.OFF_TOPIC.hi


def test_unknown_codes_read_as_they_are_and_a_typo_is_not_a_reason():
    # an old audit row keeps its raw code on screen; the scan below keeps such a code out of the tutor itself
    assert message("of_topic") == "of_topic" and message("of_topic", "hi") == "of_topic"
    assert label("some_old_code") == "Some old code" and tier_label("somewhere") == "somewhere"
    with pytest.raises(ValueError):
        Reason("of_topic")
    with pytest.raises(AttributeError):
        Reason.OF_TOPIC  # noqa: B018


def test_coverage_gaps_leave_out_answers_empty_questions_errors_missing_shelves_unread_words_off_topic_and_about_you():
    # the same set as coverage_gaps() on the teachers' page; a question asked during a database outage says nothing
    # about the book either, nor does a "Why?" with no earlier answer
    assert {r for r in Reason if not r.is_coverage_gap} == {
        Reason.ANSWERED, Reason.EMPTY_QUESTION, Reason.ANSWERER_ERROR, Reason.NO_SHELF, Reason.UNREAD_LANGUAGE,
        Reason.UNREAD_WORDS, Reason.OFF_TOPIC, Reason.ABOUT_YOU, Reason.LIBRARY_UNREACHABLE, Reason.LIBRARY_BUSY,
        Reason.NO_EARLIER_ANSWER}
    assert Reason.NO_EXAMPLE_IN_BOOK.is_coverage_gap and Reason.NO_REASON_IN_BOOK.is_coverage_gap
    assert Reason.LOW_CONFIDENCE.is_coverage_gap and Reason.NOT_ANSWERABLE.is_coverage_gap
    assert not Reason.ANSWERED.is_refusal and all(r.is_refusal for r in Reason if r is not Reason.ANSWERED)


# ---------------------------------------------------------------- the code base writes members only

# keyword arguments that carry a reason code or a decision tier
CODE_KEYWORDS = {"reason", "declined", "decided_by", "tier"}
# modules where a string equal to a reason code means something else: an evaluation row's "answered" flag, the audit
# log's "answered"/"refused" decision, an ingest report's error code
OTHER_MEANINGS = {"evaluation", "audit", "ingest"}


def _sources() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(TUTOR.rglob("*.py"))
            if p.name != "reasons.py"]


def _name(node: ast.AST) -> str:
    return node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")


def _code_arguments(call: ast.Call) -> list[ast.AST]:
    """The arguments of a call that hold a reason code or a tier."""
    out = [k.value for k in call.keywords if k.arg in CODE_KEYWORDS]
    if _name(call) == "Check" and len(call.args) >= 7:
        out.append(call.args[6])  # Check(name, stage, passed, value, threshold, detail, reason)
    if _name(call) == "_refusal" and len(call.args) >= 5:
        out.append(call.args[4])  # _refusal(question, klass, subject, mode, reason, ...)
    return out


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) or isinstance(node, ast.JoinedStr)


def test_the_scan_finds_the_places_that_write_codes():
    calls = [n for _, tree in _sources() for n in ast.walk(tree) if isinstance(n, ast.Call) and _code_arguments(n)]
    # gate, checks, follow-up, reader, judge and pipeline: a scan that finds nothing proves nothing
    assert len(calls) > 30


def test_reasons_and_tiers_are_never_written_as_bare_strings():
    bare = []
    for path, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                bare += [f"{path.relative_to(TUTOR)}:{a.lineno} {ast.unparse(a)}" for a in _code_arguments(node)
                         if _is_text(a) and ast.unparse(a) != "''"]
    assert not bare, f"write Reason.X / Tier.X instead: {bare}"


def test_no_string_equal_to_a_reason_code_outside_the_enum():
    """Catches `return "low_grounding"` and a dict of codes (the failsafe's categories) written as strings."""
    codes = {r.value for r in Reason}
    found = []
    for path, tree in _sources():
        if set(path.relative_to(TUTOR).parts) & OTHER_MEANINGS:
            continue
        names = {id(n.args[0]) for n in ast.walk(tree) if isinstance(n, ast.Call) and _name(n) == "Check" and n.args}
        found += [f"{path.relative_to(TUTOR)}:{n.lineno} {n.value!r}" for n in ast.walk(tree)
                  if isinstance(n, ast.Constant) and n.value in codes and id(n) not in names]  # a check's name is free
    assert not found, f"write Reason.X instead: {found}"


def test_every_reason_and_tier_named_in_the_code_is_a_member():
    """`Reason.OF_TOPIC` on a path no test runs would only fail in front of a student; here it fails at once."""
    enums = {"Reason": {m.name for m in Reason}, "Tier": {m.name for m in Tier}}
    unknown, used = [], set()
    for path, tree in _sources():
        for n in ast.walk(tree):
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in enums \
                    and n.attr.isupper():
                used.add(f"{n.value.id}.{n.attr}")
                if n.attr not in enums[n.value.id]:
                    unknown.append(f"{path.relative_to(TUTOR)}:{n.lineno} {n.value.id}.{n.attr}")
    assert not unknown
    assert {"Reason.OFF_TOPIC", "Reason.LOW_GROUNDING", "Tier.ANSWER_CHECKS", "Tier.ERROR"} <= used


def test_the_failsafe_maps_each_category_to_a_member():
    assert all(isinstance(r, Reason) for r in CATEGORIES.values())
    assert set(CATEGORIES.values()) == {r for r in Reason if r.value.startswith("llm_")}


# ---------------------------------------------------------------- what the pipeline hands back


@pytest.fixture
def tutor(tmp_path) -> Tutor:
    write_shelf(tmp_path / "index", LIGHT, subject="science")
    return Tutor(Library(tmp_path / "index", embedder=EMB), policy())


@pytest.mark.parametrize("question, subject, refused", [
    ("What is the power of a lens measured in?", "science", False),  # answered
    ("Who won the 2011 cricket world cup?", "science", True),  # refused by the gate
    ("   ", "science", True),  # empty question
    ("What is the power of a lens measured in?", "history", True),  # no shelf
])
def test_the_pipeline_hands_back_members(tutor, question, subject, refused):
    ans = tutor.ask(question, "10", subject)
    assert isinstance(ans.reason, Reason) and isinstance(ans.decided_by, Tier)
    assert ans.was_refusal is refused is ans.reason.is_refusal
    assert ans.message and (ans.message == ans.reason.en or ans.reason is Reason.NO_SHELF)  # no_shelf names the shelves
