"""Answerers: turn the gate's evidence into sentences that each end with a citation [n].

One interface (`Answerer`) so an LLM answerer can plug in later; the default is extractive, offline and
deterministic: it quotes the evidence sentence that covers the question best, then the sentences that support it in
the book's reading order (tutor/answering/compose.py).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol

from tutor.policy import Policy
from tutor.question import Question, as_question
from tutor.safety.gate import Candidate
from tutor.safety.vocabulary import is_instruction_like
from tutor.text.terms import term_set
from tutor.types import AnswerSentence, Draft, Source  # Draft: imported from here by the answerers

_CITATION = re.compile(r"\[(\d+)\]")


OnToken = Callable[[str], None]


class Answerer(Protocol):
    """Writes an answer from numbered sources; `uses_llm` says whether a language model is called. `question` is the
    pipeline's Question (tutor/question.py): an answerer reads its facts or its `stated` text, never re-reads it."""

    name: str
    uses_llm: bool

    def answer(self, question: Question, sources: list[Source], candidates: list[Candidate], policy: Policy,
               on_token: OnToken | None = None) -> Draft: ...


_START = "[A-Z(\"'“‘0-9\u0900-\u097f]"  # what a new sentence may begin with
_DRAFT_SPLIT = re.compile(rf"(?<=[.!?\u0964\u0965])\s+(?={_START})|(?<=\])\s+(?={_START})|\n+")


def parse_sentences(text: str) -> tuple[AnswerSentence, ...]:
    """Split a cited draft into sentences; each keeps the [n] markers that follow it ("Light bends. [1] It ..." gives
    [1] to the first sentence, which punkt in tutor.text.sentences would hand to the second). A sentence ends at
    . ! ? or the danda (। ॥) before a capital, a digit, a quote or a Devanagari letter, after a marker, or at a line
    break."""
    parts = _DRAFT_SPLIT.split(text.strip())
    out = []
    for p in parts:
        p = p.strip()
        if not p:
            continue
        cites = tuple(int(n) for n in _CITATION.findall(p))
        clean = _CITATION.sub("", p).strip()
        if clean in {".", ""}:
            if out and cites:  # a stray "[2]" after a sentence belongs to it
                prev = out.pop()
                out.append(AnswerSentence(prev.text, prev.citations + cites, prev.page))
            continue
        out.append(AnswerSentence(clean, cites))
    return tuple(out)


class ExtractiveAnswerer:
    """Quotes the best-covering evidence sentence, then those that support it (at most `max_answer_sentences` in all)
    in reading order; every one shares a word with the question (none: an empty draft, refused as not answerable)."""

    name = "extractive"
    uses_llm = False

    def answer(self, question: Question, sources: list[Source], candidates: list[Candidate], policy: Policy,
               on_token: OnToken | None = None) -> Draft:
        # the question is already in the candidates: the gate ranked the sentences by its terms
        from tutor.answering.compose import draft_text, in_reading_order, quotable

        n_of = {s.chunk_id: s.n for s in sources}
        chosen: list[tuple[Candidate, str]] = []
        seen_text: set[str] = set()
        covered: set[str] = set()
        q = as_question(question)
        asked = set(q.terms)
        if q.reading and not any(term_set(c.text) & asked for c in candidates):
            asked = set()  # a Hindi reading that shares no word with the evidence: the cross-lingual judge passed it
        for c in candidates:
            text = quotable(c.text)  # never a caption, an instruction, a question or an equation
            if not text or text in seen_text or c.hit.chunk.chunk_id not in n_of or is_instruction_like(c.text):
                continue  # planted text (orders to the tutor, requests for passwords) is never quoted
            # a quote shares a word with the question: a sentence ranked by its neighbours' words alone ("It would be
            # better if students wear suitable eyeglasses.", asked why a magnesium ribbon is cleaned) or a chapter
            # summary's next points ("The eye loses its power of accommodation at old age.", asked why the sky is
            # blue) do not answer it
            words = term_set(text)
            if asked and not words & asked:
                continue
            if chosen:
                best = chosen[0][0]
                same_place = c.hit.chunk.chunk_id == best.hit.chunk.chunk_id and abs(c.index - best.index) <= 2
                adds = words - covered
                # from elsewhere, a sentence must cover the question about as well as the best one: a sentence that
                # shares only some of its words is about something else (the unit of power, asked about current)
                if not same_place and (c.rank_score < 0.75 * best.rank_score or c.coverage < 0.9 * best.coverage
                                       or not adds):
                    continue
            chosen.append((c, text))
            seen_text.add(text)
            covered |= words
            if len(chosen) >= policy.max_answer_sentences:
                break
        if not chosen:
            return Draft("", ())
        sents = [AnswerSentence(t, (n_of[c.hit.chunk.chunk_id],), c.page) for c, t in chosen]
        ordered = tuple(in_reading_order(sents[0], sents[1:], sources, policy.max_answer_sentences))
        return Draft(draft_text(ordered), ordered)
