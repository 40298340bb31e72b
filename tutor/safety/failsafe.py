"""The failsafe on the language model's own words: spot uncertainty, partial answers and errors in what it wrote
(or in how the call failed) and turn them into a refusal with a category and a message a student can act on.

Pure functions over the generated text; the raw text is kept for the audit log, never shown to the student.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from tutor.answering.prompts import SENTINEL
from tutor.reasons import Reason
from tutor.safety.checks import normalized_words, quoted
from tutor.text.sentences import split_sentences

# category -> reason code (tutor.reasons holds the student's message for each)
CATEGORIES = {
    "insufficient_information": Reason.LLM_DECLINED,
    "uncertainty": Reason.LLM_UNCERTAIN,
    "ambiguous_question": Reason.LLM_AMBIGUOUS,
    "tool_failure": Reason.LLM_TOOL_FAILURE,
    "timeout": Reason.LLM_TIMEOUT,
    "technical_limitation": Reason.LLM_LIMITATION,
}

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("technical_limitation", re.compile(
        r"\bas an ai\b|\b(?:language|ai) model\b|\bi (?:do not|don'?t) have (?:access|the ability)\b|"
        r"\b(?:context|token) (?:limit|length|window)\b|\bi(?:'m| am) (?:not able|unable) to "
        r"(?:access|browse|process)\b|"
        r"\bknowledge cut-?off\b", re.I)),
    ("tool_failure", re.compile(
        r"\b(?:an )?error (?:occurred|has occurred)\b|\bexception\b|\btraceback\b|\bfailed to "
        r"(?:load|process|retrieve)\b|"
        r"\binternal (?:server )?error\b|\bsomething went wrong\b", re.I)),
    ("ambiguous_question", re.compile(
        r"\b(?:question|it) is (?:ambiguous|unclear|vague)\b|\bcould you (?:clarify|specify|be more specific)\b|"
        r"\bplease (?:clarify|specify|rephrase)\b|\bwhat do you mean\b|\bwhich (?:one|of these) do you mean\b|"
        r"\bcan (?:mean|refer to) (?:several|different|many)\b", re.I)),
    ("insufficient_information", re.compile(
        re.escape(SENTINEL) + r"|\bnot (?:mentioned|provided|given|stated|covered|found|specified|described) in the "
        r"(?:sources?|text|context|passages?|book)\b|\bthe (?:sources?|context|passages?|text) (?:do|does) not\b|"
        r"\binsufficient (?:information|context)\b|\bnot enough information\b|\bonly partially\b|"
        r"\b(?:only )?(?:partly|partially) (?:answer|covered)\b|\bno information (?:about|on)\b|"
        r"\bi (?:cannot|can'?t) (?:answer|find)\b", re.I)),
    ("uncertainty", re.compile(
        r"\bi(?:'m| am) not (?:sure|certain)\b|\bnot certain\b|\bi (?:think|believe|guess|suppose)\b|\bperhaps\b|"
        r"\bmaybe\b|\bpossibly\b|\bprobably\b|\bi (?:do not|don'?t) know\b",
        re.I)),
]


@dataclass(frozen=True)
class Failsafe:
    """A category found in the model's reply, its reason code and what matched (for the audit log)."""

    category: str
    reason: Reason
    evidence: str


def classify(text: str, quoted_from: str = "") -> Failsafe | None:
    """The first category (most serious first) whose indicators occur in `text`; None for a plain answer.

    Sentences copied word for word from `quoted_from` (the sources) are the book's words and are not scanned:
    "perhaps" in a quoted sentence is the book's. An empty reply is a tool failure: nothing to check."""
    if not text.strip():
        return Failsafe("tool_failure", CATEGORIES["tool_failure"], "empty reply")
    if SENTINEL in text:
        return Failsafe("insufficient_information", CATEGORIES["insufficient_information"], SENTINEL)
    # a small model stuck in a loop repeats a sentence: the reply is broken, however well each copy is grounded
    plain = [re.sub(r"\[\d+\]", "", sent) for sent in split_sentences(text)]  # without their citations
    seen: dict[str, int] = {}
    for sent in plain:
        key = normalized_words(sent)
        if len(key) > 10:
            seen[key] = seen.get(key, 0) + 1
            if seen[key] >= 3:
                return Failsafe("technical_limitation", CATEGORIES["technical_limitation"],
                                f"the same sentence {seen[key]} times")
    text = " ".join(s for s in plain if not quoted(s, quoted_from))
    for category, pattern in _PATTERNS:
        m = pattern.search(text)
        if m:
            return Failsafe(category, CATEGORIES[category], m.group(0))
    return None


def from_error(kind: str, detail: str) -> Failsafe:
    """A failed call as a category: `kind` from LLMError (timeout, tool_failure, technical_limitation)."""
    category = kind if kind in CATEGORIES else "tool_failure"
    return Failsafe(category, CATEGORIES[category], detail)
