"""Follow-up questions: which questions lean on the conversation, how they are rewritten against the previous turn,
and the check that the follow-up's own words are in the evidence (pure functions, tiny data made here)."""
from __future__ import annotations

import pytest

from tutor.retrieval.followup import Resolution, check_own_words, followup_cues, own_words, resolve, topic_phrase
from tutor.types import Source, TutorAnswer


def turn(question: str, *, refused: bool = False, chapter: str = "Acids, Bases and Salts", resolved: str = "",
         mode: str = "library") -> TutorAnswer:
    src = Source(1, "c:1", 0.7, chapter, "jesc102", "jesc102.pdf", 3, 3, "", "Baking soda is used in cooking.")
    return TutorAnswer(question=question, klass="10", subject="science", mode=mode, answer="...", was_refusal=refused,
                       reason="low_confidence" if refused else "answered", message="", confidence=0.6,
                       sources=(src,), resolved_question=resolved)


@pytest.mark.parametrize("question", [
    "What are its uses?", "How is it prepared?", "Why?", "Give an example.", "Example?", "And in plants?",
    "What about alluvial soil?", "Who discovered it?", "What is this process called?", "What is its price in India?",
    "Are they found in plants?", "What happens when it is heated?",
])
def test_questions_that_lean_on_the_conversation_are_follow_ups(question):
    assert followup_cues(question)


@pytest.mark.parametrize("question", [
    "What is baking soda?", "What are the uses of washing soda?", "Why does a ray of light bend when it enters glass?",
    "What is the capital of France?", "Which crops grow well in black soil?", "", "बेकिंग सोडा क्या है?",
])
def test_questions_that_name_their_own_topic_stand_alone(question):
    assert followup_cues(question) == ()


@pytest.mark.parametrize("before, question, resolved", [
    ("What is baking soda?", "What are its uses?", "What are the uses of baking soda?"),
    ("What is baking soda?", "How is it prepared?", "How is baking soda prepared?"),
    ("What is plaster of Paris?", "Why is it called so?", "Why is plaster of Paris called so?"),
    ("What is corrosion?", "Why?", "Why corrosion?"),
    ("What is a combination reaction?", "Give an example.", "Give an example combination reaction?"),
    ("How is food transported in animals?", "And in plants?", "How is food transported in plants?"),
    ("Which crops grow well in black soil?", "What about alluvial soil?", "Which crops grow well in alluvial soil?"),
])
def test_a_follow_up_is_rewritten_against_the_previous_question(before, question, resolved):
    res = resolve(question, turn(before))
    assert res.followup and res.resolved == resolved and res.typed == question
    assert res.chapter == "Acids, Bases and Salts"  # the chapter of the previous turn's evidence
    assert question in res.note or resolved in res.note


def test_a_chain_of_follow_ups_reads_the_previous_resolved_question():
    res = resolve("Why?", turn("What are its uses?", resolved="What are the uses of baking soda?"))
    assert res.resolved == "Why baking soda?"  # the topic of the resolved question, not its aspect ("uses")


def test_a_follow_up_to_a_refused_question_is_not_rescued():
    res = resolve("What are its uses?", turn("What is unobtainium?", refused=True))
    assert not res.followup and res.resolved == "What are its uses?"
    assert "not rescued" in res.note


def test_a_new_topic_is_not_mixed_with_the_previous_one():
    res = resolve("What are the uses of washing soda?", turn("What is baking soda?"))
    assert res == Resolution("What are the uses of washing soda?", "What are the uses of washing soda?", False)


def test_without_a_previous_turn_a_follow_up_is_asked_as_typed():
    res = resolve("What are its uses?", None)
    assert not res.followup and res.resolved == "What are its uses?" and res.cues


def test_topic_phrase_keeps_the_words_between_the_topic_words():
    assert topic_phrase("What is plaster of Paris?") == "plaster of Paris"
    assert topic_phrase("What is it?") == ""


def test_own_words_are_what_the_follow_up_asks_not_its_pointing_or_asking_words():
    assert own_words("What are its uses?") == ("use",)
    assert own_words("Who discovered it?") == ("discover",)
    assert own_words("Why?") == ()
    assert own_words("And in plants?") == ("plant",)


def test_own_words_check_passes_when_the_evidence_says_it_and_fails_with_the_missing_word():
    res = resolve("Who discovered it?", turn("What is baking soda?"))
    evidence = ["Baking soda is sodium hydrogencarbonate. It is used for making baking powder."]
    failed = check_own_words(res, evidence, 1.0)
    assert not failed.passed and failed.value == 0.0 and "missing: discover" in failed.detail
    assert failed.reason == "followup_not_covered" and failed.threshold == 1.0
    uses = check_own_words(resolve("What are its uses?", turn("What is baking soda?")), evidence, 1.0)
    assert uses.passed and uses.value == 1.0  # "used" shares the stem of "uses"
    why = check_own_words(resolve("Why?", turn("What is baking soda?")), evidence, 1.0)
    assert why.passed  # nothing of its own to find
    assert check_own_words(res, evidence, 0.0).passed  # a threshold of 0 switches the check off
