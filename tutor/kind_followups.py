"""The question path of a follow-up that asks a kind of thing of the previous answer ("Why?", "Give an example.",
"Tell me more."): the book's sentences found beside that answer (tutor/retrieval/kinds.py), then the confidence gate
on their passages, then the same answer checks as any answer, or a refusal that says what the book lacks.

A mixin of `Tutor` (tutor/pipeline.py), kept apart so that the pipeline module stays one screenful per stage; it
uses the Tutor's refusal and its answer-and-check step, so a kind follow-up is logged, gated and checked like any
question. No retrieval: the sentences are where the previous answer was, and retrieval would find it again.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from tutor.answering.compose import draft_text
from tutor.question import EXAMPLE, MORE, WHY, Question
from tutor.reasons import Reason, Tier
from tutor.retrieval.followup import Resolution, topic_phrase, topic_words
from tutor.retrieval.kinds import Found, find, reading_order, topic_of
from tutor.safety.gate import decide
from tutor.types import AnswerSentence, Draft, Hit, Source, TutorAnswer

if TYPE_CHECKING:
    from tutor.budget import StageTimer
    from tutor.store.shelf import Shelf

_REFUSED = {WHY: Reason.NO_REASON_IN_BOOK, EXAMPLE: Reason.NO_EXAMPLE_IN_BOOK, MORE: Reason.NOTHING_MORE_IN_BOOK}
_SIMPLER = ("simpl", "easier", "aasan", "asaan")  # "explain it more simply": the summary's wording first


# per kind: the question the gate reads about a topic, and the plain refusal naming what the book lacks
_ASKED = {WHY: "What is the reason for {}?", EXAMPLE: "What is an example of {}?", MORE: "Tell me more about {}."}
_NONE = {WHY: "The book gives no reason for {}.", EXAMPLE: "The book gives no example of {}.",
         MORE: "The book says nothing more about {} than the answer you have."}


def kind_question(kind: str, topic: str) -> str:
    """The question the gate reads for a kind follow-up about `topic`."""
    return _ASKED.get(kind, _ASKED[MORE]).format(topic)


def none_message(kind: str, topic: str) -> str:
    """The plain refusal, naming what the book lacks: "The book gives no example of myopia." """
    return _NONE.get(kind, _NONE[MORE]).format(topic)


class KindFollowups:
    """`Tutor._ask_kind`: see the module's docstring."""

    def _ask_kind(self, q: Question, klass: str, subject: str, timer: StageTimer, previous: TutorAnswer | None,
                  on_token=None) -> tuple[TutorAnswer, Resolution]:
        """`q` asks q.followup_kind of `previous` (the conversation's last answered turn on this shelf, or None)."""
        kind, p, lang = q.followup_kind, self.policy, q.language
        if previous is None or previous.was_refusal or not previous.sources:
            res = Resolution(q.text, q.text, False, (f"asks {kind} of an earlier answer",),
                             "asks for more of an earlier answer, but this chat has none to go on from")
            return self._refusal(q.text, klass, subject, "library", Reason.NO_EARLIER_ANSWER, timer, lang=lang), res
        before = (previous.resolved_question or previous.question).strip()
        words = topic_words(before)
        phrase = topic_phrase(before)
        # "What colour is the insulation of the earth wire?" -> "colour" alone would misname it: its words, or the
        # question itself in the refusal
        whole = bool(phrase) and len(phrase.split()) * 2 >= len(words)
        asked = kind_question(kind, phrase if whole else " ".join(words) or before.rstrip("?. "))
        topic_text = phrase if whole else f"that (“{before}”)"
        chapter = (previous.cited_sources or list(previous.sources))[0]
        shelf = self.library.shelf(klass, subject)
        with timer.stage("followup"):
            lines = reading_order(shelf.chunks, chapter.chapter_code)
            found = find(kind, lines, [s.text for s in previous.sentences], topic_of(before),
                         p.followup_more_sentences if kind == MORE else p.followup_kind_sentences,
                         p.followup_kind_window,
                         simpler=any(w in q.text.lower() for w in _SIMPLER))
        timer.check("followup")
        note = f"follow-up asking {kind} of the earlier answer to {before!r}: read as {asked!r}; {found.note}"
        res = Resolution(q.text, asked, True, (f"asks {kind} of the earlier answer",), note, (), chapter.chapter)
        # the gate reads the earlier question: its passages must be confidently about that topic (the book seldom says
        # "reason" or "example": the kind's cue words found the sentences, the topic's words must find the passages)
        q = replace(q, resolved=asked, followup=True, asked=before)
        if not found.lines:
            message = none_message(kind, topic_text) if lang == "en" else None
            return self._refusal(asked, klass, subject, "library", _REFUSED[kind], timer, message=message,
                                 decided_by=Tier.RETRIEVAL, lang=lang), res
        return self._answer_found(q, klass, subject, timer, shelf, found, on_token), res

    def _answer_found(self, q: Question, klass: str, subject: str, timer: StageTimer, shelf: Shelf, found: Found,
                      on_token) -> TutorAnswer:
        """The found sentences quoted and cited, after the gate has read their passages (and the earlier answer's)."""
        p, lang = self._policy_for(shelf), q.language
        chunks = list(dict.fromkeys([ln.chunk for ln in found.lines] + [a.chunk for a in found.anchors[:1]]))
        at = {c.chunk_id: i for i, c in enumerate(shelf.chunks)}
        with timer.stage("embed"):
            qvec = self.library.embed_query(q.gate_text, shelf)
        scores = [float(s) for s in shelf.cosines([at[c.chunk_id] for c in chunks], qvec)]
        hits = sorted((Hit(c, s, 0) for c, s in zip(chunks, scores)), key=lambda h: -h.score)
        hits = [replace(h, rank=i) for i, h in enumerate(hits)]
        with timer.stage("gate"):
            decision = decide(q, hits, p, self.library.term_stats(shelf))
        timer.check("gate")
        if not decision.passed:
            return self._refusal(q.resolved, klass, subject, "library", decision.reason, timer,
                                 checks=decision.checks, confidence=decision.confidence, decided_by=decision.tier,
                                 measures=decision.values, lang=lang)
        sources = [Source.from_hit(i + 1, h) for i, h in enumerate(hits)]
        n_of = {s.chunk_id: s.n for s in sources}
        sentences = tuple(AnswerSentence(ln.text, (n_of[ln.chunk.chunk_id],), ln.page) for ln in found.lines)
        draft = Draft(draft_text(sentences), sentences)
        return self._answer_and_check(q, klass, subject, "library", decision, sources, (), timer, shelf, on_token,
                                      None, None, given=draft)
