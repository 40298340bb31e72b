"""The types that pass between the stages: a chunk of a chapter (`Chunk`), a retrieved chunk with its scores (`Hit`),
and the tutor's answer with its parts (sources, checks, answer sentences), which a page shows and the audit log stores.

Plain frozen dataclasses with `to_dict`/`from_dict` for JSON; nothing here decides anything.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from tutor.reasons import Tier

# section kinds of a chunk (tutor/ingest/chunking.py marks them): exercises and in-text question boxes restate
# questions without answering them, so they never count as evidence
BODY, QUESTION_BOX, EXERCISE = "body", "question_box", "exercise"
NON_EVIDENCE_KINDS = frozenset({QUESTION_BOX, EXERCISE})


@dataclass(frozen=True)
class Chunk:
    """One retrievable piece of a chapter.

    Identity and place: chunk_id, class, subject, chapter title, chapter code, file, pages, section kind and title.
    Text: the exact text, and for each sentence its (start, end) offsets in the text and its 1-based PDF page.
    """

    chunk_id: str
    klass: str
    subject: str
    chapter: str
    chapter_code: str
    file: str
    page_start: int
    page_end: int
    section_kind: str
    section: str
    text: str
    sentences: tuple[tuple[int, int, int], ...] = field(default=())

    @property
    def is_evidence(self) -> bool:
        """Exercises and question boxes restate questions; they never count as evidence."""
        return self.section_kind not in NON_EVIDENCE_KINDS

    def sentence_texts(self) -> list[tuple[str, int]]:
        """Each sentence of the chunk with the page it came from."""
        return [(self.text[s:e], p) for s, e, p in self.sentences]

    def to_dict(self) -> dict:
        d = asdict(self)
        d["class"] = d.pop("klass")
        d["sentences"] = [list(s) for s in self.sentences]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Chunk:
        d = dict(d)
        d["klass"] = str(d.pop("class"))
        d["sentences"] = tuple(tuple(s) for s in d.get("sentences", ()))
        return cls(**d)


@dataclass(frozen=True)
class Hit:
    """A retrieved chunk with its cosine similarity to the question (unit vectors: higher is closer, in [-1, 1]).

    `score` is always the exact cosine, whichever retriever found the chunk, and `rank` its 0-based place in the
    list it came in (the fused order for hybrid search). The hybrid fields say how each retriever saw it (None: not
    in that retriever's list): 0-based ranks, BM25 score (unbounded, higher is better), trigram cosine in [0, 1],
    and the reciprocal-rank-fusion score.
    """

    chunk: Chunk
    score: float
    rank: int
    dense_rank: int | None = None
    bm25: float | None = None
    bm25_rank: int | None = None
    trigram: float | None = None
    trigram_rank: int | None = None
    fused: float | None = None


@dataclass(frozen=True)
class Passage:
    """A passage the student selected while reading, and where it is in the book (when known)."""

    text: str
    chapter: str = ""
    file: str = ""
    page: int = 0


REFUSAL_SENTENCE = "I don't know based on the textbooks."
# the same in Hindi, used when the question is in Hindi (tutor.text.language.detect_language)
REFUSAL_SENTENCE_HI = "पाठ्यपुस्तकों के आधार पर मुझे नहीं पता।"
# the "chapter" of a passage the student pasted or typed that is not on the book's page: never cited as the book
PASTED_TEXT = "Your pasted text"

def refusal_sentence(language: str = "en") -> str:
    """The refusal sentence in the student's language ("hi" or "en")."""
    return REFUSAL_SENTENCE_HI if language == "hi" else REFUSAL_SENTENCE


def wrong_shelf_message(klass: str, subject_label: str, language: str = "en") -> str:
    """Names the shelf a question looks like it belongs to."""
    if language == "hi":
        return f"यह {subject_label} का प्रश्न लगता है: कक्षा {klass} की {subject_label} पुस्तक में पूछिए।"
    return f"This looks like a {subject_label} question: try the Class {klass} {subject_label} shelf."


@dataclass(frozen=True)
class Check:
    """One check: what was measured, against which threshold, and whether it passed."""

    name: str
    stage: str  # "gate" or "answer"
    passed: bool
    value: float | str | None
    threshold: float | str | None
    detail: str = ""
    reason: str = ""  # the reason code this check gives when it fails (a tutor.reasons.Reason)

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

    @classmethod
    def from_hit(cls, n: int, h: Hit) -> Source:
        """Source number `n` for a retrieved chunk: its place in the book, its text and its cosine."""
        c = h.chunk
        return cls(n=n, chunk_id=c.chunk_id, score=round(h.score, 4), chapter=c.chapter, chapter_code=c.chapter_code,
                   file=c.file, page=c.page_start, page_end=c.page_end, section=c.section, text=c.text)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class AnswerSentence:
    """One sentence of the answer with the sources it cites and the page of the quoted sentence."""

    text: str
    citations: tuple[int, ...]
    page: int | None = None
    supported: bool | None = None  # the grounding check's verdict on this sentence (None: not judged)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "citations": list(self.citations), "page": self.page, "supported": self.supported}


@dataclass(frozen=True)
class Draft:
    """What an answerer wrote: the raw text and its sentences with the citations parsed out."""

    text: str
    sentences: tuple[AnswerSentence, ...]
    declined: str = ""  # a reason code when the answerer itself declined (the LLM's failsafe); text is then raw
    detail: str = ""  # what made it decline, for the audit log


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
    reason: str  # a tutor.reasons.Reason code
    message: str
    confidence: float
    sentences: tuple[AnswerSentence, ...] = ()
    sources: tuple[Source, ...] = ()
    near_misses: tuple[Source, ...] = ()
    checks: tuple[Check, ...] = ()
    suggestions: tuple[Suggestion, ...] = ()
    decided_by: str = Tier.RETRIEVAL  # the tier that decided: a tutor.reasons.Tier
    llm_called: bool = False
    answerer: str = "extractive"
    timings_ms: dict[str, float] = field(default_factory=dict)
    other_shelf: str = ""
    error: str = ""
    measures: dict[str, float] = field(default_factory=dict)  # the gate's measured values, for calibration
    language: str = "en"  # the question's language ("en" or "hi"): refusals and reasons are written in it
    # what the answerer wrote before the checks, sentence by sentence with the grounding verdict: kept for the audit
    # log and the hallucination measurement, never shown to a student when the checks refused it
    draft: str = ""
    draft_sentences: tuple[AnswerSentence, ...] = ()
    notes: tuple[str, ...] = ()  # what happened on the way that a maintainer should know (e.g. a reranker fallback)
    direct_answer: str = ""  # the reader's answer span, a quote inside the first answer sentence ("" when none)
    # a follow-up ("What are its uses?") is read against the previous turn: `question` is what the student typed,
    # `resolved_question` what retrieval, the gate and the answerer read ("" when the question stood alone)
    resolved_question: str = ""
    followup: bool = False
    # what the tutor understood of the question (tutor.question.Question.understood): script, reading, terms, numbers,
    # names, negation, the kind of answer asked for; shown in the diagnostics panel
    understood: dict[str, str] = field(default_factory=dict)

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

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TutorAnswer:
        """A TutorAnswer back from its `to_dict` form (the audit log's JSON), ignoring fields it does not know."""
        d = dict(d)
        d["klass"] = str(d.pop("class", d.get("klass", "")))
        d["sentences"] = tuple(
            AnswerSentence(s["text"], tuple(s.get("citations", ())), s.get("page"), s.get("supported"))
            for s in d.get("sentences") or ()
        )
        d["draft_sentences"] = tuple(_known(AnswerSentence, {**s, "citations": tuple(s.get("citations", ()))})
                                     for s in d.get("draft_sentences") or ())
        d["notes"] = tuple(d.get("notes") or ())
        d["sources"] = tuple(_known(Source, s) for s in d.get("sources") or ())
        d["near_misses"] = tuple(_known(Source, s) for s in d.get("near_misses") or ())
        d["checks"] = tuple(_known(Check, c) for c in d.get("checks") or ())
        d["suggestions"] = tuple(_known(Suggestion, s) for s in d.get("suggestions") or ())
        return _known(cls, d)


def _known(cls, d: dict[str, Any]):
    """`cls(**d)` with the keys `cls` has no field for left out (an older or newer log row)."""
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in d.items() if k in names})
