"""The question path: retrieval -> gate -> answerer -> answer checks -> audit, as one `Tutor.ask` call. Owns the
order of the stages and their timings; every decision is made by the pure stage modules. Every question is logged,
also when a stage raises: the failure itself is the logged outcome. Long because one question's path reads whole."""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from tutor import reasons
from tutor.answering.extractive import Answerer, ExtractiveAnswerer, OnToken
from tutor.audit.log import AuditLog
from tutor.audit.releases import ReleaseSync
from tutor.budget import StageTimer
from tutor.errors import (
    EmptyQuestion,
    QuestionTimeout,
    ShelfDamaged,
    ShelfNotFound,
    is_database_too_slow,
    is_database_unreachable,
)
from tutor.kind_followups import KindFollowups
from tutor.policy import Policy
from tutor.question import Question
from tutor.reasons import BOOK_REFUSALS, Reason, Tier
from tutor.retrieval.followup import Resolution, check_own_words, on_shelf, resolve_on_shelf
from tutor.retrieval.passage import on_page, passage_chunk
from tutor.retrieval.search import Library
from tutor.safety.answerability import (
    Finding,
    ReaderModel,
    lead_with_span,
    llm_support_check,
    read_decision,
    span_decision,
)
from tutor.safety.checks import (
    ANSWER,
    check_citations,
    check_grounding,
    check_instructions,
    check_phrasing,
    sentence_support,
    verdict,
)
from tutor.safety.crosslingual import cross_decision
from tutor.safety.gate import GateDecision, decide, widened
from tutor.safety.inputs import cut, input_refusal
from tutor.store.shelf import Shelf, ShelfKey
from tutor.suggestions import Suggestion, suggest_instead
from tutor.text.language import ENGLISH, HINDI
from tutor.text.readings import hinglish_respelt, shelf_reading
from tutor.text.terms import TermStats, valid_text
from tutor.types import (
    PASTED_TEXT,
    AnswerSentence,
    Check,
    Draft,
    Hit,
    Passage,
    Source,
    TutorAnswer,
    refusal_sentence,
    wrong_shelf_message,
)

Reranker = Callable[[str, list[Hit]], dict[str, float]]
if TYPE_CHECKING:  # the judge module loads the LLM client; only its verdict type is named here
    from tutor.answering.llm_judge import JudgeVerdict

Judge = Callable[[str, list[Hit]], "JudgeVerdict"]  # tutor.answering.llm_judge.AnswerabilityJudge
RERANK_FALLBACK = "reranker failed/timed out: fell back to retrieval scores"
JUDGE_FALLBACK = "answerability judge failed/timed out: the gate's decision stands"


def error_reason(e: Exception) -> Reason:
    """The refusal for a question a stage raised on: the database too slow (the server cancelled a statement for
    time), the database unreachable (said plainly, and the question spooled by the audit log), or a fault."""
    if is_database_too_slow(e):
        return Reason.LIBRARY_BUSY
    return Reason.LIBRARY_UNREACHABLE if is_database_unreachable(e) else Reason.ANSWERER_ERROR


class Tutor(KindFollowups):
    """Answers questions from one library under one policy; shared by every user (holds no per-question state)."""

    def __init__(self, library: Library, policy: Policy, answerer: Answerer | None = None,
                 audit: AuditLog | None = None, reranker: Reranker | None = None, judge: Judge | None = None,
                 reader: ReaderModel | None = None, clock: Callable[[], float] = time.monotonic,
                 cross_judge: ReaderModel | None = None, hindi_reader: ReaderModel | None = None,
                 span_reader: ReaderModel | None = None):
        self.library, self.policy, self.audit, self.reranker, self.judge = library, policy, audit, reranker, judge
        self.reader = reader  # the answerability reader (tutor/reader/model.py); None: its checks are not made
        self.hindi_reader = hindi_reader  # reads a Hinglish or Devanagari question's English reading, where given
        self.answerer = answerer or ExtractiveAnswerer()
        # the bold answer's (an LLM writes its own) and the gate's span check's, whatever the answerer
        self.span_reader = span_reader
        self.cross_judge = cross_judge  # decides Hindi questions about English chapters (tutor/safety/crosslingual.py)
        self.clock = clock  # the time budget's clock (a test passes a fake one)
        self.releases = ReleaseSync.started(audit, policy.release_refresh_s)  # released sentences, read now and then

    # ------------------------------------------------------------------ helpers
    def _refusal(self, question: str, klass: str, subject: str, mode: str, reason: Reason, timer: StageTimer, *,
                 checks: tuple[Check, ...] = (), confidence: float = 0.0, message: str | None = None,
                 sources: tuple[Source, ...] = (), near_misses: tuple[Source, ...] = (),
                 suggestions: tuple[Suggestion, ...] = (), measures: dict[str, float] | None = None,
                 decided_by: Tier = Tier.RETRIEVAL, other_shelf: str = "", llm_called: bool = False,
                 error: str = "", draft: str = "", draft_sentences: tuple[AnswerSentence, ...] = (),
                 notes: tuple[str, ...] = (), lang: str = ENGLISH) -> TutorAnswer:
        """A refusal, its sentence and reason in the student's language (Question.language)."""
        return TutorAnswer(
            question=question, klass=str(klass), subject=subject, mode=mode, answer=refusal_sentence(lang),
            was_refusal=True, reason=reason, message=message or reasons.message(reason, lang), confidence=confidence,
            checks=checks, answerer=self.answerer.name, timings_ms=timer.ms, language=lang, sources=sources,
            near_misses=near_misses, suggestions=suggestions, measures=dict(measures or {}), decided_by=decided_by,
            other_shelf=other_shelf, llm_called=llm_called, error=error, draft=draft, draft_sentences=draft_sentences,
            notes=notes)

    def _log(self, ans: TutorAnswer, timer: StageTimer, selected: str | None) -> TutorAnswer:
        if self.audit is None:
            return ans
        with timer.stage("audit"):
            try:
                self.audit.log(replace(ans, timings_ms=dict(timer.ms)), selected_text=selected)
            except Exception as e:  # noqa: BLE001 - logging never blocks an answer (AuditLog spools what it cannot write)
                ans = replace(ans, notes=ans.notes + (f"audit log failed: {type(e).__name__}",))
        return replace(ans, timings_ms=dict(timer.ms))

    # ------------------------------------------------------------------ entry point
    def ask(self, question: str, klass: str, subject: str, selected: Passage | None = None,
            on_token: OnToken | None = None, previous: TutorAnswer | None = None) -> TutorAnswer:
        """Answer from the shelf (or only from `selected`), or refuse with the reason; always logged.

        `previous` is the conversation's last turn on the whole shelf: a follow-up ("What are its uses?") is read
        against it before retrieval (tutor/retrieval/followup.py); the gate and every check judge the resolved one.
        `on_token` receives an LLM answer's text as it is written, BEFORE the answer checks: show it only as
        pending, and replace it by the returned answer (which may be a refusal)."""
        p = self.policy
        self.releases.refresh_soon()  # a clock reading; every release_refresh_s a read on a thread of its own
        timer = StageTimer(p.question_time_budget_s, self.clock)
        mode = "selected_text" if selected is not None else "library"
        # read once (tutor/question.py): valid Unicode (nothing after this, tokenizers or SQLite, sees a lone
        # surrogate), faux bold collapsed ("JJJJJute"), its script and language, a Hinglish question's first reading
        q = Question.read(question)
        typed, question, lang = q.typed, q.text, q.language
        refuse = partial(self._refusal, question, klass, subject, mode, lang=lang)
        if selected is not None:
            selected = Passage(valid_text(selected.text or ""), valid_text(selected.chapter or ""),
                               valid_text(selected.file or ""), selected.page)
        refused = input_refusal(q, selected.text if selected is not None else None, p)  # before any embedding
        if refused is not None:
            ans = self._refusal(cut(typed, p.max_question_chars), klass, subject, mode, refused[0], timer,
                                notes=(refused[1],), lang=lang)
            return self._log(ans, timer, cut(selected.text, p.max_passage_chars) if selected else None)
        res = Resolution(question, question, False)
        try:
            if not question:
                raise EmptyQuestion()
            if selected is not None:
                ans = self._ask_selected(q, str(klass), subject, selected, timer, on_token)
            elif q.followup_kind and p.followup_kinds:  # "Why?", "Give an example.": tutor/kind_followups.py
                ans, res = self._ask_kind(q, str(klass), subject, timer, on_shelf(previous, klass, subject), on_token)
            else:  # the follow-up resolution takes microseconds: not a timed stage
                if q.reading:  # Hinglish: Hindi words read through the dictionary where the policy says so, or named
                    got, unread = self._shelf_reading(question, str(klass), subject, hinglish=True)
                    q = replace(q, reading=got or q.reading, unread=unread)
                    if p.hinglish_respelt_score:  # and in Devanagari, for the cross-lingual judge
                        q = replace(q, respelt=hinglish_respelt(question, self._shelf_stats(str(klass), subject), p))
                elif lang == HINDI:  # Devanagari, asked of a shelf with no Hindi chapter: read as English
                    reading, unread = self._shelf_reading(question, str(klass), subject)
                    q = replace(q, reading=reading, unread=unread, read_from="Hindi")
                res = (resolve_on_shelf(q, str(klass), subject, previous)
                       if p.resolve_followups else Resolution(q.gate_text, q.gate_text, False))
                q = replace(q, resolved=res.resolved, followup=res.followup)
                cross = bool(q.reading) and (q.read_from == "Hindi" or bool(p.hinglish_cross_lingual_score)
                                             or bool(q.respelt))
                ans = self._ask_library(q, str(klass), subject, timer, on_token, res, cross)
                # the dictionary, not the book, may lack them: retrieval (and the judge's chunks) read without them
                if q.about_you and ans.reason in BOOK_REFUSALS:  # no book answers what the student does or thinks
                    ans = replace(ans, reason=Reason.ABOUT_YOU, message=Reason.ABOUT_YOU.message(lang))
                elif q.unread and ans.reason in BOOK_REFUSALS:
                    words = ("शब्द: " if lang == HINDI else "words: ") + ", ".join(q.unread)  # named to the student
                    ans = replace(ans, reason=Reason.UNREAD_WORDS, message=f"{Reason.UNREAD_WORDS.message(lang)} "
                                  f"({words})", notes=ans.notes + (f"Hindi words not read: {', '.join(q.unread)}",))
        except EmptyQuestion:
            ans = refuse(Reason.EMPTY_QUESTION, timer)
        except ShelfNotFound as e:
            ans = refuse(Reason.NO_SHELF, timer, message=str(e) if lang == "en" else None)
        except QuestionTimeout as e:
            ans = refuse(Reason.QUESTION_TIMEOUT, timer, decided_by=Tier.ERROR, error=str(e),
                         llm_called=self.answerer.uses_llm and "answer" in timer.ms)
        except ShelfDamaged as e:  # this shelf is isolated; every other shelf keeps answering
            ans = refuse(Reason.SHELF_DAMAGED, timer, decided_by=Tier.ERROR, error=str(e))
        except Exception as e:  # noqa: BLE001 - the student gets a refusal, the log gets the failure
            ans = refuse(error_reason(e), timer, decided_by=Tier.ERROR, error=f"{type(e).__name__}: {e}",
                         llm_called=self.answerer.uses_llm and "answer" in timer.ms)
        if res.cues or q.reading or question != typed:  # the student's own words are what the log and the page show
            read = (f"read the {q.read_from} question as {q.reading!r}",) if q.reading else (
                (f"read the question as {question!r}",) if question != typed else ())  # the reading beside them
            cleaned = question if question != typed else ""
            ans = replace(ans, question=typed, followup=res.followup,
                          resolved_question=res.resolved if res.followup else q.reading or cleaned,
                          notes=((res.note,) if res.cues else ()) + read + ans.notes)
        return self._log(replace(ans, understood=ans.understood or q.understood()), timer,
                         selected.text if selected is not None else None)

    def _shelf_reading(self, question: str, klass: str, subject: str,
                       hinglish: bool = False) -> tuple[str, tuple[str, ...]]:
        """tutor/text/readings.py on this shelf (and policy): the reading of a Devanagari (or Hinglish) question for a
        shelf with no Hindi chapter, and the Hindi words it could not read."""
        return shelf_reading(question, self._shelf_stats(klass, subject), hinglish, self.policy)

    def _shelf_stats(self, klass: str, subject: str) -> TermStats:
        return self.library.term_stats(self.library.shelf(klass, subject))

    def _reader_for(self, lang: str) -> ReaderModel | None:  # a Hindi question's reading: the reader of readings
        return self.hindi_reader if lang == HINDI and self.hindi_reader is not None else self.reader

    # ------------------------------------------------------------------ library mode
    def _ask_library(self, q: Question, klass: str, subject: str, timer: StageTimer,
                     on_token: OnToken | None = None, followup: Resolution | None = None,
                     cross: bool = False) -> TutorAnswer:
        """`q` read and resolved (ask); `cross`: a Hindi question the cross-lingual judge may decide from its words."""
        shelf = self.library.shelf(klass, subject)
        p, stats = self._policy_for(shelf), self.library.term_stats(shelf)
        question, lang = q.gate_text, q.language
        asked, notes = question, []  # what retrieval and the gate read: the question with its misspelt words mended
        if p.correct_spelling and p.retriever != "dense":
            with timer.stage("spelling"):
                asked, fixes = shelf.lexical.correct(q, p.fuzzy_min_similarity)
            notes += [f"read {f.word!r} as {f.match!r} (a word of the shelf one or two letters away)" for f in fixes]
            timer.check("spelling")
        q = replace(q, asked=asked, repairs=tuple(notes))
        with timer.stage("embed"):
            qvec = self.library.embed_query(asked, shelf)
        timer.check("embed")
        with timer.stage("search"):
            hits = self.library.retrieve(q, shelf, qvec, p)  # dense or hybrid, per the policy; scores are cosines
            # every other shelf's best evidence score, so a refusal can name the subject the question belongs to
            others = [(s.key, s.best) for s in self.library.shelf_scores(asked, k=5, query_vec=qvec)
                      if s.key != shelf.key and s.best > -1.0]
        if followup is not None and followup.followup and followup.chapter and p.followup_same_chapter:
            # a follow-up continues the previous answer's chapter when the resolved question finds evidence there
            same = [h for h in hits if h.chunk.chapter == followup.chapter]
            if any(h.chunk.is_evidence for h in same) and len(same) < len(hits):
                hits = same
                notes.append(f"follow-up: kept to the earlier answer's chapter, {followup.chapter!r}")
        # another model's shelf scores on its own scale: the wrong-shelf check compares margins over min_confidence
        others = [(k, self._on_scale(k, score, shelf, p)) for k, score in others]
        timer.check("search")
        rerank = None
        if self.reranker is not None:
            with timer.stage("rerank"):
                try:
                    rerank = self.reranker(question, [h for h in hits if h.chunk.is_evidence])
                except Exception as e:  # noqa: BLE001 - fall back to retrieval scores, noted in diagnostics
                    rerank = None
                    notes.append(f"{RERANK_FALLBACK} ({type(e).__name__}: {e})")
        reranker_llm = self.reranker is not None and getattr(self.reranker, "llm", None) is not None
        timer.check("rerank" if self.reranker is not None else "search")
        with timer.stage("gate"):
            decision = decide(q, hits, p, stats, others, rerank)
            if decision.passed and followup is not None and followup.followup:
                # the earlier topic found the evidence; the follow-up's own words ("uses", "discovered") must be in it
                own = check_own_words(followup, [h.chunk.text for h in decision.evidence], p.min_followup_own_words)
                decision = replace(decision, checks=decision.checks + (own,))
                if not own.passed:
                    decision = replace(decision, passed=False, reason=own.reason)
        timer.check("gate")
        found, reader = None, self._reader_for(lang)
        rp = p.for_hindi(not q.in_devanagari) if lang == HINDI else p  # its rescue and reader bar
        if (decision.passed or decision.rescuable(rp)) and reader is not None and p.reader:
            with timer.stage("reader"):
                band, found = read_decision(reader, q, decision, rp)
                decision = widened(band, hits, q, stats, p)  # what a passed answer may quote, for the span reader
                english_span = reader is self.reader or (p.reading_span_reader and q.read_from == "Hindi")
                span_reader = self.span_reader if english_span else None
                decision, found = span_decision(span_reader, q, decision, found, p, band)
            timer.check("reader")
        else:
            decision = widened(decision, hits, q, stats, p)
        if cross and not decision.passed and self.cross_judge is not None and p.cross_lingual:  # Hindi, English book
            with timer.stage("cross_lingual"):  # what the English gate refused, judged from the student's own words
                decision, found = cross_decision(self.cross_judge, q, hits, decision, p)
            timer.check("cross_lingual")
        near = tuple(Source.from_hit(i + 1, h) for i, h in enumerate(decision.near_misses))
        if not decision.passed:
            other_label = decision.other_shelf.subject.replace("-", " ").title() if decision.other_shelf else ""
            message = None  # the reason's message in the question's language (_refusal)
            if decision.other_shelf is not None:
                message = wrong_shelf_message(decision.other_shelf.klass, other_label, lang)
            return replace(self._refusal(
                question, klass, subject, "library", decision.reason, timer, checks=decision.checks,
                confidence=decision.confidence, message=message, near_misses=near, decided_by=decision.tier,
                sources=tuple(Source.from_hit(i + 1, h) for i, h in enumerate(decision.evidence)),
                suggestions=suggest_instead(q, hits, decision.reason, stats), other_shelf=other_label,
                measures=decision.values, notes=tuple(notes), llm_called=reranker_llm, lang=lang,
            ), understood=q.understood())
        sources = [Source.from_hit(i + 1, h) for i, h in enumerate(decision.evidence)]
        return replace(self._answer_and_check(q, klass, subject, "library", decision, sources, near, timer, shelf,
                                              on_token, notes, found), understood=q.understood())

    # ------------------------------------------------------------------ shared: answer, then check
    def _answer_and_check(self, q: Question, klass: str, subject: str, mode: str, decision: GateDecision,
                          sources: list[Source], near: tuple[Source, ...], timer: StageTimer, shelf: Shelf | None,
                          on_token: OnToken | None = None, notes: list[str] | None = None,
                          found: Finding | None = None, given: Draft | None = None) -> TutorAnswer:
        notes, question, lang = list(notes or ()), q.stated, q.language
        policy = self._policy_for(shelf)
        gate_checks, measures = decision.checks, dict(decision.values)
        llm = self.answerer.uses_llm and given is None
        # what every refusal below carries: the passages found, the gate's measures, a confidence under one half
        found_sources, low = tuple(sources), min(decision.confidence, 0.49)
        if self.judge is not None:  # after the gate passed, before any answer is written
            verdict_j = None
            with timer.stage("judge"):
                try:
                    verdict_j = self.judge(question, list(decision.evidence))
                except Exception as e:  # noqa: BLE001 - the gate's decision stands, noted in diagnostics
                    notes.append(f"{JUDGE_FALLBACK} ({type(e).__name__}: {e})")
            if verdict_j is not None:
                gate_checks = gate_checks + (verdict_j.check,)
                measures["judge_p"] = verdict_j.best
                if not verdict_j.answerable:
                    return self._refusal(question, klass, subject, mode, Reason.JUDGE_NOT_ANSWERABLE, timer,
                                         checks=gate_checks, decided_by=Tier.JUDGE, llm_called=True, notes=tuple(notes),
                                         sources=found_sources, near_misses=near, measures=measures, confidence=low,
                                         lang=lang)
        timer.check("judge" if self.judge is not None else "gate")
        with timer.stage("answer"):
            draft = given or self.answerer.answer(q, sources, list(decision.candidates), policy,
                                                  on_token=on_token)
        timer.check("answer")
        direct = ""  # the reader's span leads an extractive answer; direct_p (shown or not) calibrates the bar
        if not llm and not draft.declined and given is None:
            draft, sources, direct, measures = lead_with_span(draft, found, sources, q, policy, measures)
        if not llm and not draft.declined and not draft.sentences:  # no sentence found shares a word with it
            none = Check("quotable", ANSWER, False, 0.0, 1.0, "no sentence of the evidence that shares a word with the "
                         "question can be quoted as its answer", Reason.NOT_ANSWERABLE)
            return self._refusal(question, klass, subject, mode, Reason.NOT_ANSWERABLE, timer,
                                 checks=gate_checks + (none,), decided_by=Tier.ANSWERER, sources=found_sources,
                                 near_misses=near, measures=measures, confidence=low, lang=lang)
        if draft.declined:  # the LLM's own words said it cannot answer well (tutor.safety.failsafe): never shown
            return self._refusal(question, klass, subject, mode, draft.declined, timer, checks=gate_checks,
                                 decided_by=Tier.ANSWERER, llm_called=llm, draft=draft.text,
                                 draft_sentences=draft.sentences, notes=tuple(notes + [draft.detail]),
                                 sources=found_sources, near_misses=near, measures=measures, confidence=low, lang=lang)
        with timer.stage("checks"):
            sentences = draft.sentences
            embedder = self.library.embedder_for(shelf) if shelf is not None else self.library.any_embedder()

            def similarity(a: str, b: str) -> float:
                va, vb = embedder.embed([a, b])
                return float(va @ vb)

            # each sentence's own verdict (uncited ones too): the grounding check, audit log and hallucination measure
            verdicts = sentence_support(sentences, sources, policy, similarity)
            checks = (check_citations(sentences, len(sources))
                      + check_grounding(sentences, sources, policy, similarity, verdicts)
                      + check_phrasing(sentences, sources)
                      + check_instructions(sentences))
            if llm and self.reader is not None and policy.reader and policy.reader_support:
                checks.append(llm_support_check(self.reader, sentences, sources, policy))
            judged = tuple(replace(s, supported=ok) for s, (ok, _, _) in zip(sentences, verdicts))
        timer.check("checks")
        all_checks = gate_checks + tuple(checks)
        reason = verdict(checks)
        if reason != Reason.ANSWERED:
            return self._refusal(question, klass, subject, mode, reason, timer, checks=all_checks,
                                 decided_by=Tier.ANSWER_CHECKS, llm_called=llm, draft=draft.text,
                                 draft_sentences=judged, notes=tuple(notes), sources=found_sources, near_misses=near,
                                 measures=measures, confidence=low, lang=lang)
        grounded = next(c for c in checks if c.name == "grounding").value
        return TutorAnswer(
            question=question, klass=klass, subject=subject, mode=mode, answer=draft.text, was_refusal=False,
            reason=Reason.ANSWERED, message=Reason.ANSWERED.message(lang), language=lang,
            confidence=round(min(decision.confidence, float(grounded)), 4),
            sentences=judged, sources=tuple(sources), near_misses=near, checks=all_checks,
            decided_by=decision.tier, llm_called=llm, answerer=self.answerer.name, timings_ms=timer.ms,
            measures=measures, draft=draft.text, draft_sentences=judged, notes=tuple(notes), direct_answer=direct,
        )

    def _policy_for(self, shelf: Shelf | None) -> Policy:
        """The policy for the embedding model that built the shelf (its cosine scores have their own range)."""
        model = shelf.manifest.embedding_model if shelf is not None else self.library.any_embedder().name
        return self.policy.for_model(model)

    def _on_scale(self, key: ShelfKey, score: float, shelf: Shelf, p: Policy) -> float:
        model = self.library.shelf(key.klass, key.subject).manifest.embedding_model
        if model == shelf.manifest.embedding_model:
            return score
        return score - self.policy.for_model(model).min_confidence + p.min_confidence

    # ------------------------------------------------------------------ selected-text mode
    def _ask_selected(self, q: Question, klass: str, subject: str, passage: Passage, timer: StageTimer,
                      on_token: OnToken | None = None) -> TutorAnswer:
        """The selected passage is the only context: no retrieval; refuse if it does not answer.

        A passage said to come from a page of the book is looked up there first: one that is not on that page (pasted
        or typed) is answered only as "your pasted text", never cited as the book's chapter and page."""
        p, question, lang, notes = self._policy_for(None), q.gate_text, q.language, []
        if passage.file and not self._on_page(klass, subject, passage):
            notes.append(f"the passage is not on page {passage.page} of {passage.file}: answered as the student's "
                         "pasted text, not cited as the book")
            passage = Passage(" ".join(passage.text.split()), PASTED_TEXT, "", 0)
        chunk = passage_chunk(passage, klass, subject)
        embedder = self.library.any_embedder()
        with timer.stage("embed"):
            vecs = embedder.embed([question, chunk.text]) if chunk.text else None
        score = float(vecs[0] @ vecs[1]) if vecs is not None else -1.0
        hit = Hit(chunk, score, 0)
        with timer.stage("gate"):
            stats = TermStats([chunk.text])
            sel_policy = p.with_values(min_confidence=min(p.min_confidence, p.offtopic_max_score),
                                       unknown_term_penalty=0.0, min_mean_confidence=-1.0)
            decision = decide(q, [hit] if chunk.text else [], sel_policy, stats)
        found, reader = None, self._reader_for(lang)
        if (decision.passed or decision.rescuable(p)) and reader is not None and p.reader:
            with timer.stage("reader"):
                decision, found = read_decision(reader, q, decision, p)
        if not decision.passed:
            return self._refusal(question, klass, subject, "selected_text", Reason.SELECTED_TEXT_INSUFFICIENT, timer,
                                 checks=decision.checks, confidence=decision.confidence,
                                 sources=(Source.from_hit(1, hit),), notes=tuple(notes), measures=decision.values,
                                 lang=lang)
        sources = [Source.from_hit(1, hit)]
        return self._answer_and_check(q, klass, subject, "selected_text", decision, sources, (), timer, None,
                                      on_token, notes, found)

    def _on_page(self, klass: str, subject: str, passage: Passage) -> bool:
        try:
            return on_page(self.library.shelf(klass, subject).chunks, passage)
        except (ShelfNotFound, ShelfDamaged):
            return False
