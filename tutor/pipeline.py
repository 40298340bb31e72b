"""The question path: retrieval -> gate -> answerer -> answer checks -> audit, as one `Tutor.ask` call.

Owns the order of the stages and their timings; every decision is made by the pure stage modules. Every question
is logged, also when a stage raises: the failure itself is the logged outcome.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from typing import Callable

from tutor.answer import Answerer, ExtractiveAnswerer, OnToken
from tutor.audit import AuditLog
from tutor.checks import check_citations, check_grounding, check_instructions, check_phrasing, sentence_support, verdict
from tutor.chunking import Chunk
from tutor.errors import EmptyQuestion, ShelfNotFound
from tutor.followup import Resolution, check_own_words, resolve
from tutor.gate import GateDecision, decide
from tutor.policy import Policy
from tutor.language import detect_language
from tutor.result import Check, Source, Suggestion, TutorAnswer, reason_message, refusal_sentence, wrong_shelf_message
from tutor.retrieval import Library
from tutor.shelf import Hit, Shelf, ShelfKey
from tutor.text import TermStats

Reranker = Callable[[str, list[Hit]], dict[str, float]]
Judge = Callable[[str, list[Hit]], "JudgeVerdict"]  # tutor.judge.AnswerabilityJudge
RERANK_FALLBACK = "reranker failed/timed out: fell back to retrieval scores"
JUDGE_FALLBACK = "answerability judge failed/timed out: the gate's decision stands"


@dataclass(frozen=True)
class Passage:
    """A passage the student selected while reading, and where it is in the book (when known)."""

    text: str
    chapter: str = ""
    file: str = ""
    page: int = 0


class _Timer:
    def __init__(self) -> None:
        self.ms: dict[str, float] = {}

    def stage(self, name: str):
        timer = self

        class _Ctx:
            def __enter__(self):
                self.t = time.perf_counter()

            def __exit__(self, *exc):
                timer.ms[name] = round(timer.ms.get(name, 0.0) + (time.perf_counter() - self.t) * 1000, 3)

        return _Ctx()


class Tutor:
    """Answers questions from one library under one policy; shared by every user (holds no per-question state)."""

    def __init__(self, library: Library, policy: Policy, answerer: Answerer | None = None,
                 audit: AuditLog | None = None, reranker: Reranker | None = None, judge: Judge | None = None):
        self.library, self.policy, self.audit, self.reranker, self.judge = library, policy, audit, reranker, judge
        self.answerer = answerer or ExtractiveAnswerer()
        self._stats: dict[tuple[ShelfKey, str], TermStats] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ helpers
    def _shelf_stats(self, shelf: Shelf) -> TermStats:
        key = (shelf.key, shelf.version)
        with self._lock:
            got = self._stats.get(key)
        if got is None:
            got = TermStats([c.text for c in shelf.chunks])
            with self._lock:
                self._stats = {k: v for k, v in self._stats.items() if k[0] != shelf.key}
                self._stats[key] = got
        return got

    def _refusal(self, question: str, klass: str, subject: str, mode: str, reason: str, timer: _Timer, *,
                 checks: tuple[Check, ...] = (), confidence: float = 0.0, message: str | None = None, **kw) -> TutorAnswer:
        # the refusal and its reason come in the student's language, told by the question's script
        lang = detect_language(question)
        return TutorAnswer(
            question=question, klass=str(klass), subject=subject, mode=mode, answer=refusal_sentence(lang),
            was_refusal=True, reason=reason, message=message or reason_message(reason, lang), confidence=confidence,
            checks=checks, answerer=self.answerer.name, timings_ms=timer.ms, language=lang, **kw,
        )

    def _log(self, ans: TutorAnswer, timer: _Timer, selected: str | None) -> TutorAnswer:
        if self.audit is None:
            return ans
        with timer.stage("audit"):
            self.audit.log(replace(ans, timings_ms=dict(timer.ms)), selected_text=selected)
        return replace(ans, timings_ms=dict(timer.ms))

    # ------------------------------------------------------------------ entry point
    def ask(self, question: str, klass: str, subject: str, selected: Passage | None = None,
            on_token: OnToken | None = None, previous: TutorAnswer | None = None) -> TutorAnswer:
        """Answer from the shelf (or only from `selected`), or refuse with the reason; always logged.

        `previous` is the conversation's last turn on the whole shelf: a follow-up ("What are its uses?") is read
        against it before retrieval (tutor/followup.py), and the gate and every check judge the resolved question.
        `on_token` receives an LLM answer's text as it is written, BEFORE the answer checks: show it only as
        pending, and replace it by the returned answer (which may be a refusal)."""
        timer = _Timer()
        mode = "selected_text" if selected is not None else "library"
        question = (question or "").strip()
        res = Resolution(question, question, False)
        try:
            if not question:
                raise EmptyQuestion()
            if selected is not None:
                ans = self._ask_selected(question, str(klass), subject, selected, timer, on_token)
            else:
                res = self._resolution(question, str(klass), subject, previous)  # microseconds: not a timed stage
                ans = self._ask_library(res.resolved, str(klass), subject, timer, on_token, res)
        except EmptyQuestion:
            ans = self._refusal(question, klass, subject, mode, "empty_question", timer)
        except ShelfNotFound as e:
            ans = self._refusal(question, klass, subject, mode, "no_shelf", timer,
                                message=str(e) if detect_language(question) == "en" else None)
        except Exception as e:  # noqa: BLE001 - the student gets a refusal, the log gets the failure
            ans = self._refusal(question, klass, subject, mode, "answerer_error", timer, decided_by="error",
                                error=f"{type(e).__name__}: {e}",
                                llm_called=self.answerer.uses_llm and "answer" in timer.ms)
        if res.cues:  # the student's own words are what the log and the page show; the resolution beside them
            ans = replace(ans, question=question, resolved_question=res.resolved if res.followup else "",
                          followup=res.followup, notes=(res.note,) + ans.notes)
        return self._log(ans, timer, selected.text if selected is not None else None)

    def _resolution(self, question: str, klass: str, subject: str, previous: TutorAnswer | None) -> Resolution:
        if not self.policy.resolve_followups:
            return Resolution(question, question, False)
        # only a turn on the same shelf, asked of the whole shelf, is a conversation to lean on
        if previous is not None and (previous.mode != "library" or (str(previous.klass), previous.subject)
                                     != (str(klass), subject)):
            previous = None
        return resolve(question, previous)

    # ------------------------------------------------------------------ library mode
    def _ask_library(self, question: str, klass: str, subject: str, timer: _Timer,
                     on_token: OnToken | None = None, followup: Resolution | None = None) -> TutorAnswer:
        shelf = self.library.shelf(klass, subject)
        p = self._policy_for(shelf)
        stats = self._shelf_stats(shelf)
        notes: list[str] = []
        asked = question  # what retrieval and the gate read: the question with its misspelt words mended
        if p.correct_spelling and p.retriever != "dense":
            with timer.stage("spelling"):
                asked, fixes = shelf.lexical.correct(question, p.fuzzy_min_similarity)
            notes += [f"read {f.word!r} as {f.match!r} (a word of the shelf one or two letters away)" for f in fixes]
        with timer.stage("embed"):
            qvec = self.library.embed_query(asked, shelf)
        with timer.stage("search"):
            hits = self.library.retrieve(asked, shelf, qvec, p)  # dense or hybrid, per the policy; scores are cosines
            # every other shelf's best evidence score, so a refusal can name the subject the question belongs to
            others = [(s.key, s.best) for s in self.library.shelf_scores(asked, k=5, query_vec=qvec)
                      if s.key != shelf.key and s.best > -1.0]
        if followup is not None and followup.followup and followup.chapter and p.followup_same_chapter:
            # a follow-up continues the previous answer's chapter when the resolved question finds evidence there
            same = [h for h in hits if h.chunk.chapter == followup.chapter]
            if any(h.chunk.is_evidence for h in same) and len(same) < len(hits):
                hits = same
                notes.append(f"follow-up: kept to the earlier answer's chapter, {followup.chapter!r}")
        # a shelf built with another embedding model scores on its own scale: its margin over its own model's
        # min_confidence, put on this shelf's scale, is what the gate's wrong-shelf check compares
        others = [(k, self._on_scale(k, score, shelf, p)) for k, score in others]
        rerank = None
        if self.reranker is not None:
            with timer.stage("rerank"):
                try:
                    rerank = self.reranker(question, [h for h in hits if h.chunk.is_evidence])
                except Exception as e:  # noqa: BLE001 - fall back to retrieval scores, noted in diagnostics
                    rerank = None
                    notes.append(f"{RERANK_FALLBACK} ({type(e).__name__}: {e})")
        reranker_llm = self.reranker is not None and getattr(self.reranker, "llm", None) is not None
        with timer.stage("gate"):
            decision = decide(asked, hits, p, stats, others, rerank)
            if decision.passed and followup is not None and followup.followup:
                # the earlier topic found the evidence; the follow-up's own words ("uses", "discovered") must be in it
                own = check_own_words(followup, [h.chunk.text for h in decision.evidence], p.min_followup_own_words)
                decision = replace(decision, checks=decision.checks + (own,),
                                   **({} if own.passed else {"passed": False, "reason": own.reason}))
        near = tuple(_source(i + 1, h) for i, h in enumerate(decision.near_misses))
        if not decision.passed:
            other_label = decision.other_shelf.subject.replace("-", " ").title() if decision.other_shelf else ""
            message = None  # the reason's message in the question's language (_refusal)
            if decision.other_shelf is not None:
                message = wrong_shelf_message(decision.other_shelf.klass, other_label, detect_language(question))
            return self._refusal(
                question, klass, subject, "library", decision.reason, timer, checks=decision.checks,
                confidence=decision.confidence, message=message, near_misses=near,
                sources=tuple(_source(i + 1, h) for i, h in enumerate(decision.evidence)),
                suggestions=_suggestions(hits), decided_by=decision.tier, other_shelf=other_label,
                measures=decision.values, notes=tuple(notes), llm_called=reranker_llm,
            )
        sources = [_source(i + 1, h) for i, h in enumerate(decision.evidence)]
        return self._answer_and_check(question, klass, subject, "library", decision, sources, near, timer, shelf,
                                      on_token, notes)

    # ------------------------------------------------------------------ shared: answer, then check
    def _answer_and_check(self, question, klass, subject, mode, decision: GateDecision, sources: list[Source],
                          near, timer: _Timer, shelf: Shelf | None, on_token: OnToken | None = None,
                          notes: list[str] | None = None) -> TutorAnswer:
        notes = list(notes or ())
        policy = self._policy_for(shelf)
        gate_checks, measures = decision.checks, dict(decision.values)
        llm = self.answerer.uses_llm
        refuse = dict(sources=tuple(sources), near_misses=near, measures=measures,
                      confidence=min(decision.confidence, 0.49))
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
                    return self._refusal(question, klass, subject, mode, "judge_not_answerable", timer,
                                         checks=gate_checks, decided_by="judge", llm_called=True, notes=tuple(notes),
                                         **refuse)
        with timer.stage("answer"):
            draft = self.answerer.answer(question, sources, list(decision.candidates), policy, on_token=on_token)
        if draft.declined:  # the LLM's own words said it cannot answer well (tutor.failsafe): never shown
            return self._refusal(question, klass, subject, mode, draft.declined, timer, checks=gate_checks,
                                 decided_by="answerer", llm_called=llm, draft=draft.text,
                                 draft_sentences=draft.sentences, notes=tuple(notes + [draft.detail]), **refuse)
        with timer.stage("checks"):
            sentences = draft.sentences
            embedder = self.library.embedder_for(shelf) if shelf is not None else self._any_embedder()

            def similarity(a: str, b: str) -> float:
                va, vb = embedder.embed([a, b])
                return float(va @ vb)

            # every sentence's own verdict, uncited ones included: the grounding check, the audit log and the
            # hallucination measure all read these
            verdicts = sentence_support(sentences, sources, policy, similarity)
            checks = (check_citations(sentences, len(sources))
                      + check_grounding(sentences, sources, policy, similarity, verdicts)
                      + check_phrasing(sentences, sources)
                      + check_instructions(sentences))
            judged = tuple(replace(s, supported=ok) for s, (ok, _, _) in zip(sentences, verdicts))
        all_checks = gate_checks + tuple(checks)
        reason = verdict(checks)
        if reason != "answered":
            return self._refusal(question, klass, subject, mode, reason, timer, checks=all_checks,
                                 decided_by="answer_checks", llm_called=llm, draft=draft.text, draft_sentences=judged,
                                 notes=tuple(notes), **refuse)
        grounded = next(c for c in checks if c.name == "grounding").value
        return TutorAnswer(
            question=question, klass=klass, subject=subject, mode=mode, answer=draft.text, was_refusal=False,
            reason="answered", message=reason_message("answered", detect_language(question)), language=detect_language(question), confidence=round(min(decision.confidence, float(grounded)), 4),
            sentences=judged, sources=tuple(sources), near_misses=near, checks=all_checks,
            decided_by=decision.tier, llm_called=llm, answerer=self.answerer.name, timings_ms=timer.ms,
            measures=measures, draft=draft.text, draft_sentences=judged, notes=tuple(notes),
        )

    def _policy_for(self, shelf: Shelf | None) -> Policy:
        """The policy for the embedding model that built the shelf (its cosine scores have their own range)."""
        model = shelf.manifest.embedding_model if shelf is not None else getattr(self._any_embedder(), "name", "")
        return self.policy.for_model(model)

    def _on_scale(self, key: ShelfKey, score: float, shelf: Shelf, p: Policy) -> float:
        model = self.library.shelf(key.klass, key.subject).manifest.embedding_model
        if model == shelf.manifest.embedding_model:
            return score
        return score - self.policy.for_model(model).min_confidence + p.min_confidence

    def _any_embedder(self):
        keys = self.library.keys()
        if keys:
            return self.library.embedder_for(self.library.shelf(keys[0].klass, keys[0].subject))
        from tutor.embedding import default_embedder

        return default_embedder()

    # ------------------------------------------------------------------ selected-text mode
    def _ask_selected(self, question: str, klass: str, subject: str, passage: Passage, timer: _Timer,
                      on_token: OnToken | None = None) -> TutorAnswer:
        """The selected passage is the only context: no retrieval; refuse if it does not answer."""
        from tutor.chunking import ChapterInfo, chunk_pages
        from tutor.pdftext import PageText

        p = self._policy_for(None)
        text = " ".join(passage.text.split())
        chunks = chunk_pages([PageText(passage.page or 1, text)], klass=klass, subject=subject,
                             file=passage.file or "selection", chapter=ChapterInfo(passage.chapter or "Selected passage", "selection", ""),
                             max_words=10_000)
        chunk = chunks[0] if chunks else Chunk("selection:0000", klass, subject, passage.chapter, "selection",
                                               passage.file, passage.page, passage.page, "body", "", text, ())
        chunk = replace(chunk, section_kind="body", section="Selected passage")
        embedder = self._any_embedder()
        with timer.stage("embed"):
            vecs = embedder.embed([question, chunk.text]) if chunk.text else None
        score = float(vecs[0] @ vecs[1]) if vecs is not None else -1.0
        hit = Hit(chunk, score, 0)
        with timer.stage("gate"):
            stats = TermStats([chunk.text])
            sel_policy = p.with_values(min_confidence=min(p.min_confidence, p.offtopic_max_score), unknown_term_penalty=0.0,
                                       min_mean_confidence=-1.0)
            decision = decide(question, [hit] if chunk.text else [], sel_policy, stats)
        if not decision.passed:
            return self._refusal(question, klass, subject, "selected_text", "selected_text_insufficient", timer,
                                 checks=decision.checks, confidence=decision.confidence,
                                 sources=(_source(1, hit),))
        sources = [_source(1, hit)]
        return self._answer_and_check(question, klass, subject, "selected_text", decision, sources, (), timer, None,
                                      on_token)


def _source(n: int, h: Hit) -> Source:
    c = h.chunk
    return Source(n=n, chunk_id=c.chunk_id, score=round(h.score, 4), chapter=c.chapter, chapter_code=c.chapter_code,
                  file=c.file, page=c.page_start, page_end=c.page_end, section=c.section, text=c.text)


def _suggestions(hits: list[Hit], n: int = 3) -> tuple[Suggestion, ...]:
    """The nearest chapters and sections on the shelf, to ask about instead."""
    out: list[Suggestion] = []
    seen: set[tuple[str, str]] = set()
    for h in hits:
        key = (h.chunk.chapter, h.chunk.section)
        if key in seen:
            continue
        seen.add(key)
        out.append(Suggestion(h.chunk.chapter, h.chunk.section, h.chunk.page_start, round(h.score, 4)))
        if len(out) >= n:
            break
    return tuple(out)
