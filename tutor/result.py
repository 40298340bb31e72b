"""The tutor's answer object and its parts: what a page shows and what the audit log stores.

Plain frozen dataclasses with `to_dict` for JSON; nothing here decides anything.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

REFUSAL_SENTENCE = "I don't know based on the textbooks."

# reason codes and the sentence a 15-year-old understands
REASONS: dict[str, str] = {
    "answered": "The answer is taken from your textbook.",
    "empty_question": "The question was empty. Type a question about your textbook.",
    "no_shelf": "There is no textbook for this class and subject yet.",
    "insufficient_context": "Your textbook has too little text about this to answer it.",
    "low_confidence": "Your textbook does not seem to talk about this clearly enough for me to answer.",
    "off_topic": "This question is not about anything in this textbook.",
    "wrong_subject": "This looks like a question for a different subject's textbook.",
    "no_clear_winner": "Several different parts of the book match equally, so I can't tell which one answers you.",
    "not_answerable": "Your textbook talks about this topic but does not give this exact answer.",
    "missing_citations": "I could not point to the page for every sentence, so I won't answer.",
    "invalid_citations": "The answer pointed to a page that was not among the sources, so I won't answer.",
    "low_grounding": "The answer was not close enough to what the book says, so I won't answer.",
    "forbidden_phrasing": "The answer used guessing or hedging words instead of the book's words, so I won't answer.",
    "answerer_error": "Something went wrong while writing the answer. Please try again.",
    "multiple_issues": "The answer failed several safety checks, so I won't answer.",
    "selected_text_insufficient": "The passage you selected does not answer this question.",
}


@dataclass(frozen=True)
class Check:
    """One check: what was measured, against which threshold, and whether it passed."""

    name: str
    stage: str  # "gate" or "answer"
    passed: bool
    value: float | str | None
    threshold: float | str | None
    detail: str = ""
    reason: str = ""  # the reason code this check gives when it fails

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Source:
    """A numbered source the answer may cite ([n] is 1-based): where it is and its exact text."""

    n: int
    chunk_id: str
    score: float
    chapter: str
    chapter_code: str
    file: str
    page: int
    page_end: int
    section: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class AnswerSentence:
    """One sentence of the answer with the sources it cites and the page of the quoted sentence."""

    text: str
    citations: tuple[int, ...]
    page: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "citations": list(self.citations), "page": self.page}


@dataclass(frozen=True)
class Suggestion:
    """A chapter or section near the question on the student's shelf, to ask about instead."""

    chapter: str
    section: str
    page: int
    score: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class TutorAnswer:
    """Everything about one question: the answer or refusal, why, every check, the sources and the timings.

    Outcome: answer text (sentences with [n] citations) or the refusal sentence; was_refusal; reason code and message.
    Evidence: sources cited or considered; near misses; suggestions for a refused question.
    Audit: checks with values and thresholds, the tier that decided, whether an LLM was called, stage timings.
    """

    question: str
    klass: str
    subject: str
    mode: str  # "library" or "selected_text"
    answer: str
    was_refusal: bool
    reason: str
    message: str
    confidence: float
    sentences: tuple[AnswerSentence, ...] = ()
    sources: tuple[Source, ...] = ()
    near_misses: tuple[Source, ...] = ()
    checks: tuple[Check, ...] = ()
    suggestions: tuple[Suggestion, ...] = ()
    decided_by: str = "retrieval"  # tier: "retrieval", "reranker", "answer_checks", "error"
    llm_called: bool = False
    answerer: str = "extractive"
    timings_ms: dict[str, float] = field(default_factory=dict)
    other_shelf: str = ""
    error: str = ""
    measures: dict[str, float] = field(default_factory=dict)  # the gate's measured values, for calibration

    @property
    def failed_checks(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]

    @property
    def passed_checks(self) -> list[Check]:
        return [c for c in self.checks if c.passed]

    @property
    def cited_sources(self) -> list[Source]:
        cited = {n for s in self.sentences for n in s.citations}
        return [s for s in self.sources if s.n in cited]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["class"] = d.pop("klass")
        return d
