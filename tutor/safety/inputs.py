"""What is refused before any embedding, at no cost: a question or a selected passage over the policy's limits, and a
question in a script or a language the tutor cannot read (tutor/text/language.py). Pure: the pipeline logs the
refusal."""
from __future__ import annotations

from tutor.policy import Policy
from tutor.question import Question, as_question
from tutor.reasons import Reason


def input_refusal(question: Question | str, passage: str | None, policy: Policy) -> tuple[Reason, str] | None:
    """The reason and the note for the log, or None when the question may go on."""
    q = as_question(question)
    if len(q.typed) > policy.max_question_chars:
        return Reason.QUESTION_TOO_LONG, (f"the question had {len(q.typed):,} characters; the limit is "
                                          f"{policy.max_question_chars:,} (max_question_chars)")
    # a Tamil or Urdu question would be matched to an English or Hindi book only by accident, and wrongly; "¿Qué es la
    # ley de Ohm?" is about the book: refused for its language, not as off-topic (Question.read says which)
    if q.unread_language:
        return Reason.UNREAD_LANGUAGE, (f"{q.unread_language}; the tutor reads English and Hindi (Devanagari or Latin "
                                        "letters)")
    if passage is not None and len(passage) > policy.max_passage_chars:
        return Reason.PASSAGE_TOO_LONG, (f"the passage had {len(passage):,} characters; the limit is "
                                         f"{policy.max_passage_chars:,} (max_passage_chars)")
    return None


def cut(text: str, n: int) -> str:
    """The first n characters of an over-long text, marked as cut: what is logged and shown back, never the whole."""
    return text if len(text) <= n else text[:n] + "…"
