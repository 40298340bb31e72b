"""The tutor's answer object and its parts: what a page shows and what the audit log stores.

Plain frozen dataclasses with `to_dict` for JSON; nothing here decides anything.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

REFUSAL_SENTENCE = "I don't know based on the textbooks."
# the "chapter" of a passage the student pasted or typed that is not on the book's page: never cited as the book
PASTED_TEXT = "Your pasted text"

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
    # the language model's own words (tutor.safety.failsafe) and the answerability judge
    "llm_declined": "Your textbook's pages that I found do not give this answer, so I won't guess.",
    "llm_uncertain": "I was not sure enough of the answer from your textbook, so I won't guess. "
                     "Try asking about one term or idea at a time.",
    "llm_ambiguous": "Your question can be read in more than one way. Try asking it more precisely, "
                     "for example naming the chapter or the term you mean.",
    "llm_tool_failure": "The part of the tutor that writes answers had a problem. Please try again in a moment.",
    "llm_timeout": "Writing the answer took too long, so I stopped. Please try again, or ask a shorter question.",
    "llm_limitation": "This question is too long or too complex for me to answer from the book. "
                      "Try a shorter, simpler question.",
    "judge_not_answerable": "Your textbook talks about this topic, but the pages I found do not state this answer.",
    "reader_not_answerable": "Your textbook talks about this topic, but none of the passages I found answers "
                             "this exact question.",
    "source_instructions": "The answer repeated text that gives orders to a computer instead of teaching, so I won't show it.",
    # limits and damage (tutor.policy limits; a shelf whose files fail their checksums)
    "question_too_long": "Your question is too long. Please ask it in fewer words (the limit is shown under the chat box).",
    "passage_too_long": "The passage you chose is too long. Please select a shorter part of the page.",
    "question_timeout": "Answering this question took too long, so I stopped. Please ask a shorter or simpler question.",
    "shelf_damaged": "This textbook cannot be opened right now: its files are damaged. The maintainers can see this and "
                     "repair it; other subjects still work.",
    "followup_not_covered": "Your textbook's pages about what we were talking about do not say this, so I won't guess.",
}


# the same in Hindi, used when the question is in Hindi (tutor.text.language.detect_language)
REFUSAL_SENTENCE_HI = "पाठ्यपुस्तकों के आधार पर मुझे नहीं पता।"
REASONS_HI: dict[str, str] = {
    "answered": "उत्तर आपकी पाठ्यपुस्तक से लिया गया है।",
    "empty_question": "प्रश्न खाली था। अपनी पाठ्यपुस्तक के बारे में कोई प्रश्न लिखिए।",
    "no_shelf": "इस कक्षा और विषय की पाठ्यपुस्तक अभी उपलब्ध नहीं है।",
    "insufficient_context": "आपकी पाठ्यपुस्तक में इसके बारे में उत्तर देने लायक पाठ बहुत कम है।",
    "low_confidence": "आपकी पाठ्यपुस्तक इस बारे में इतना स्पष्ट नहीं बताती कि मैं उत्तर दे सकूँ।",
    "off_topic": "यह प्रश्न इस पाठ्यपुस्तक की किसी भी बात के बारे में नहीं है।",
    "wrong_subject": "यह किसी दूसरे विषय की पाठ्यपुस्तक का प्रश्न लगता है।",
    "no_clear_winner": "पुस्तक के कई अलग-अलग भाग एक जैसे मेल खाते हैं, इसलिए मैं नहीं बता सकता कि कौन-सा उत्तर देता है।",
    "not_answerable": "आपकी पाठ्यपुस्तक इस विषय पर बात करती है, पर यह सटीक उत्तर नहीं देती।",
    "missing_citations": "मैं हर वाक्य के लिए पृष्ठ नहीं बता सका, इसलिए उत्तर नहीं दूँगा।",
    "invalid_citations": "उत्तर ने ऐसे पृष्ठ का हवाला दिया जो स्रोतों में नहीं था, इसलिए उत्तर नहीं दूँगा।",
    "low_grounding": "उत्तर पुस्तक की बात से पर्याप्त मेल नहीं खाता था, इसलिए उत्तर नहीं दूँगा।",
    "forbidden_phrasing": "उत्तर में पुस्तक के शब्दों के बजाय अनुमान वाले शब्द थे, इसलिए उत्तर नहीं दूँगा।",
    "answerer_error": "उत्तर लिखते समय कुछ गड़बड़ हो गई। कृपया फिर से प्रयास कीजिए।",
    "multiple_issues": "उत्तर कई सुरक्षा जाँचों में विफल रहा, इसलिए उत्तर नहीं दूँगा।",
    "selected_text_insufficient": "आपके चुने हुए अंश में इस प्रश्न का उत्तर नहीं है।",
    "llm_declined": "मुझे मिले पाठ्यपुस्तक के पृष्ठ यह उत्तर नहीं देते, इसलिए मैं अनुमान नहीं लगाऊँगा।",
    "llm_uncertain": "पाठ्यपुस्तक से उत्तर के बारे में मैं पर्याप्त निश्चित नहीं था, इसलिए अनुमान नहीं लगाऊँगा। "
                     "एक समय में एक ही शब्द या विचार के बारे में पूछिए।",
    "llm_ambiguous": "आपके प्रश्न के एक से अधिक अर्थ हो सकते हैं। इसे अधिक स्पष्ट रूप से पूछिए, "
                     "जैसे अध्याय या जिस शब्द की बात है उसका नाम लेकर।",
    "llm_tool_failure": "उत्तर लिखने वाले भाग में समस्या आई। कृपया थोड़ी देर में फिर से प्रयास कीजिए।",
    "llm_timeout": "उत्तर लिखने में बहुत समय लगा, इसलिए मैंने रोक दिया। फिर से प्रयास कीजिए या छोटा प्रश्न पूछिए।",
    "llm_limitation": "यह प्रश्न पुस्तक से उत्तर देने के लिए बहुत लंबा या जटिल है। छोटा और सरल प्रश्न पूछिए।",
    "judge_not_answerable": "आपकी पाठ्यपुस्तक इस विषय पर बात करती है, पर मुझे मिले पृष्ठ यह उत्तर नहीं बताते।",
    "reader_not_answerable": "आपकी पाठ्यपुस्तक इस विषय पर बात करती है, पर मुझे मिला कोई भी अंश इस सटीक प्रश्न का "
                             "उत्तर नहीं देता।",
    "source_instructions": "उत्तर में ऐसा पाठ दोहराया गया जो पढ़ाने के बजाय कंप्यूटर को आदेश देता है, इसलिए मैं उसे नहीं दिखाऊँगा।",
    "question_too_long": "आपका प्रश्न बहुत लंबा है। कृपया इसे कम शब्दों में पूछिए (सीमा प्रश्न-बॉक्स के नीचे लिखी है)।",
    "passage_too_long": "आपका चुना हुआ अंश बहुत लंबा है। कृपया पृष्ठ का छोटा भाग चुनिए।",
    "question_timeout": "इस प्रश्न का उत्तर देने में बहुत समय लगा, इसलिए मैंने रोक दिया। कृपया छोटा या सरल प्रश्न पूछिए।",
    "shelf_damaged": "यह पाठ्यपुस्तक अभी खोली नहीं जा सकती: इसकी फ़ाइलें खराब हो गई हैं। अनुरक्षक इसे देख सकते हैं और "
                     "ठीक कर सकते हैं; दूसरे विषय काम करते हैं।",
    "followup_not_covered": "जिस विषय पर हम बात कर रहे थे, उसके बारे में पाठ्यपुस्तक के पृष्ठ यह नहीं बताते, इसलिए मैं अनुमान नहीं लगाऊँगा।",
}


def refusal_sentence(language: str = "en") -> str:
    """The refusal sentence in the student's language ("hi" or "en")."""
    return REFUSAL_SENTENCE_HI if language == "hi" else REFUSAL_SENTENCE


def reason_message(reason: str, language: str = "en") -> str:
    """The message for a reason code in the student's language; unknown codes are returned as they are."""
    table = REASONS_HI if language == "hi" else REASONS
    return table.get(reason) or REASONS.get(reason, reason)


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
    supported: bool | None = None  # the grounding check's verdict on this sentence (None: not judged)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "citations": list(self.citations), "page": self.page, "supported": self.supported}


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
    decided_by: str = "retrieval"  # tier: "retrieval", "reranker", "reader", "judge", "answerer", "answer_checks", "error"
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
