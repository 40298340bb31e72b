"""The question path: retrieval -> gate -> answerer -> answer checks -> audit, as one `Tutor.ask` call.

Owns the order of the stages and their timings; every decision is made by the pure stage modules. Every question
is logged, also when a stage raises: the failure itself is the logged outcome.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from typing import Callable

from tutor.answer import Answerer, ExtractiveAnswerer
from tutor.audit import AuditLog
from tutor.checks import check_citations, check_grounding, check_phrasing, verdict
from tutor.chunking import Chunk
from tutor.errors import EmptyQuestion, ShelfNotFound
from tutor.gate import GateDecision, decide
from tutor.policy import Policy
from tutor.result import REASONS, REFUSAL_SENTENCE, Check, Source, Suggestion, TutorAnswer
from tutor.retrieval import Library
from tutor.shelf import Hit, Shelf, ShelfKey
from tutor.text import TermStats

Reranker = Callable[[str, list[Hit]], dict[str, float]]


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
                 audit: AuditLog | None = None, reranker: Reranker | None = None):
        self.library, self.policy, self.audit, self.reranker = library, policy, audit, reranker
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
        return TutorAnswer(
            question=question, klass=str(klass), subject=subject, mode=mode, answer=REFUSAL_SENTENCE, was_refusal=True,
            reason=reason, message=message or REASONS.get(reason, reason), confidence=confidence, checks=checks,
            answerer=self.answerer.name, timings_ms=timer.ms, **kw,
        )

    def _log(self, ans: TutorAnswer, timer: _Timer, selected: str | None) -> TutorAnswer:
        if self.audit is None:
            return ans
        with timer.stage("audit"):
            self.audit.log(replace(ans, timings_ms=dict(timer.ms)), selected_text=selected)
        return replace(ans, timings_ms=dict(timer.ms))

    # ------------------------------------------------------------------ entry point
    def ask(self, question: str, klass: str, subject: str, selected: Passage | None = None) -> TutorAnswer:
        """Answer from the shelf (or only from `selected`), or refuse with the reason; always logged."""
        timer = _Timer()
        mode = "selected_text" if selected is not None else "library"
        question = (question or "").strip()
        try:
            if not question:
                raise EmptyQuestion()
            if selected is not None:
                ans = self._ask_selected(question, str(klass), subject, selected, timer)
            else:
                ans = self._ask_library(question, str(klass), subject, timer)
        except EmptyQuestion:
            ans = self._refusal(question, klass, subject, mode, "empty_question", timer)
        except ShelfNotFound as e:
            ans = self._refusal(question, klass, subject, mode, "no_shelf", timer, message=str(e))
        except Exception as e:  # noqa: BLE001 - the student gets a refusal, the log gets the failure
            ans = self._refusal(question, klass, subject, mode, "answerer_error", timer, decided_by="error",
                                error=f"{type(e).__name__}: {e}",
                                llm_called=self.answerer.uses_llm and "answer" in timer.ms)
        return self._log(ans, timer, selected.text if selected is not None else None)

    # ------------------------------------------------------------------ library mode
    def _ask_library(self, question: str, klass: str, subject: str, timer: _Timer) -> TutorAnswer:
        p = self.policy
        shelf = self.library.shelf(klass, subject)
        stats = self._shelf_stats(shelf)
        with timer.stage("embed"):
            qvec = self.library.embed_query(question, shelf)
        with timer.stage("search"):
            hits = self.library.retrieve(question, shelf, qvec, p)  # dense or hybrid, per the policy; scores are cosines
            # every other shelf's best evidence score, so a refusal can name the subject the question belongs to
            others = [(s.key, s.best) for s in self.library.shelf_scores(question, k=5, query_vec=qvec)
                      if s.key != shelf.key and s.best > -1.0]
        rerank = None
        if self.reranker is not None:
            with timer.stage("rerank"):
                try:
                    rerank = self.reranker(question, [h for h in hits if h.chunk.is_evidence])
                except Exception:  # noqa: BLE001 - fall back to retrieval scores, noted in the decision's tier
                    rerank = None
        with timer.stage("gate"):
            decision = decide(question, hits, p, stats, others, rerank)
        near = tuple(_source(i + 1, h) for i, h in enumerate(decision.near_misses))
        if not decision.passed:
            other_label = decision.other_shelf.subject.replace("-", " ").title() if decision.other_shelf else ""
            message = REASONS[decision.reason]
            if decision.other_shelf is not None:
                message = f"This looks like a {other_label} question: try the Class {decision.other_shelf.klass} {other_label} shelf."
            return self._refusal(
                question, klass, subject, "library", decision.reason, timer, checks=decision.checks,
                confidence=decision.confidence, message=message, near_misses=near,
                sources=tuple(_source(i + 1, h) for i, h in enumerate(decision.evidence)),
                suggestions=_suggestions(hits), decided_by=decision.tier, other_shelf=other_label,
                measures=decision.values,
            )
        sources = [_source(i + 1, h) for i, h in enumerate(decision.evidence)]
        return self._answer_and_check(question, klass, subject, "library", decision, sources, near, timer, shelf)

    # ------------------------------------------------------------------ shared: answer, then check
    def _answer_and_check(self, question, klass, subject, mode, decision: GateDecision, sources: list[Source],
                          near, timer: _Timer, shelf: Shelf | None) -> TutorAnswer:
        with timer.stage("answer"):
            draft = self.answerer.answer(question, sources, list(decision.candidates), self.policy)
        with timer.stage("checks"):
            sentences = draft.sentences
            embedder = self.library.embedder_for(shelf) if shelf is not None else self._any_embedder()

            def similarity(a: str, b: str) -> float:
                va, vb = embedder.embed([a, b])
                return float(va @ vb)

            checks = (check_citations(sentences, len(sources))
                      + check_grounding(sentences, sources, self.policy, similarity)
                      + check_phrasing(sentences, sources))
        all_checks = decision.checks + tuple(checks)
        reason = verdict(checks)
        if reason != "answered":
            return self._refusal(question, klass, subject, mode, reason, timer, checks=all_checks,
                                 confidence=min(decision.confidence, 0.49), sources=tuple(sources), near_misses=near,
                                 decided_by="answer_checks", llm_called=self.answerer.uses_llm, measures=decision.values)
        grounded = next(c for c in checks if c.name == "grounding").value
        return TutorAnswer(
            question=question, klass=klass, subject=subject, mode=mode, answer=draft.text, was_refusal=False,
            reason="answered", message=REASONS["answered"], confidence=round(min(decision.confidence, float(grounded)), 4),
            sentences=tuple(sentences), sources=tuple(sources), near_misses=near, checks=all_checks,
            decided_by=decision.tier, llm_called=self.answerer.uses_llm, answerer=self.answerer.name, timings_ms=timer.ms,
            measures=decision.values,
        )

    def _any_embedder(self):
        keys = self.library.keys()
        if keys:
            return self.library.embedder_for(self.library.shelf(keys[0].klass, keys[0].subject))
        from tutor.embedding import default_embedder

        return default_embedder()

    # ------------------------------------------------------------------ selected-text mode
    def _ask_selected(self, question: str, klass: str, subject: str, passage: Passage, timer: _Timer) -> TutorAnswer:
        """The selected passage is the only context: no retrieval; refuse if it does not answer."""
        from tutor.chunking import ChapterInfo, chunk_pages
        from tutor.pdftext import PageText

        p = self.policy
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
                                 message=REASONS["selected_text_insufficient"],
                                 sources=(_source(1, hit),))
        sources = [_source(1, hit)]
        return self._answer_and_check(question, klass, subject, "selected_text", decision, sources, (), timer, None)


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
