"""What is refused before any embedding, at no cost: a question or a selected passage over the policy's limits, and a
question in a script or a language the tutor cannot read (tutor/text/language.py). Pure: the pipeline logs the
refusal."""
from __future__ import annotations

from tutor.policy import Policy
from tutor.reasons import Reason
from tutor.text.hinglish import is_hinglish
from tutor.text.language import devanagari_language, latin_language, unread_script


def input_refusal(question: str, passage: str | None, policy: Policy) -> tuple[Reason, str] | None:
    """The reason and the note for the log, or None when the question may go on."""
    if len(question) > policy.max_question_chars:
        return Reason.QUESTION_TOO_LONG, (f"the question had {len(question):,} characters; the limit is "
                                          f"{policy.max_question_chars:,} (max_question_chars)")
    script = unread_script(question)
    if script:  # a Tamil or Urdu question would be matched to an English or Hindi book only by accident, and wrongly
        return Reason.UNREAD_LANGUAGE, (f"the question is written in {script} script; the tutor reads English and "
                                        "Hindi (Devanagari or Latin letters)")
    language = devanagari_language(question) or (None if is_hinglish(question) else latin_language(question))
    if language:  # "¿Qué es la ley de Ohm?" is about the book: refused for its language, not as off-topic
        return Reason.UNREAD_LANGUAGE, (f"the question seems to be in {language} (its function words); the tutor "
                                        "reads English and Hindi (Devanagari or Latin letters)")
    if passage is not None and len(passage) > policy.max_passage_chars:
        return Reason.PASSAGE_TOO_LONG, (f"the passage had {len(passage):,} characters; the limit is "
                                         f"{policy.max_passage_chars:,} (max_passage_chars)")
    return None


def cut(text: str, n: int) -> str:
    """The first n characters of an over-long text, marked as cut: what is logged and shown back, never the whole."""
    return text if len(text) <= n else text[:n] + "…"
