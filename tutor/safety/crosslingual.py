"""The gate across languages: a Hindi question about an English chapter, judged by the cross-lingual reader.

The English gate's checks compare words and MiniLM cosines. Across scripts they only see the dictionary's keyword
reading of a Hindi question ("what combination अभिक्रिया"), whose cosine to the passage that answers it is far below
an English question's, and whose unread words count as unknown. So for a question in Hindi (Devanagari) asked of a
shelf with no Hindi chapter, what decides is the cross-lingual reader (tutor/reader/model.py with base "e5": a
cross-encoder on multilingual e5-small, trained on the English examples with part-Hindi questions,
tutor/reader/codemix.py). It reads the student's own question against windows of the evidence that retrieval found
for the reading:

- applies across languages: the cross-lingual reader (P that the window answers, >= min_cross_lingual_probability),
  and the gate's own verdict when it passed (an English-scale pass stands: the reading already matched the book);
- not applied across languages: confidence, mean confidence, term coverage, unknown-term penalty, names, negation and
  answer-type cues (they compare words of one language), and the English-only reader.

Pure functions over the hits and the reader's readings; the pipeline calls `cross_decision` after the gate and before
any answer is written, so an LLM is never called for a question it refuses.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tutor.policy import Policy
from tutor.reasons import Reason, Tier
from tutor.safety.answerability import WINDOW, Finding, ReaderModel, Window, finding
from tutor.safety.gate import Candidate, GateDecision
from tutor.types import Check, Hit

NOT_APPLIED = ("confidence, term and cue checks compare words of one language: not applied to a Hindi question "
               "about an English chapter; the cross-lingual reader decides")


def chunk_windows(hits: Sequence[Hit], n_chunks: int) -> list[Window]:
    """Windows of WINDOW sentences over each of the first `n_chunks` evidence hits (one every two sentences, so each
    sentence is read with a neighbour), in retrieval order."""
    out: list[Window] = []
    for hit in [h for h in hits if h.chunk.is_evidence][:n_chunks]:
        spans = [(s, e) for s, e, _ in hit.chunk.sentences] or [(0, len(hit.chunk.text))]
        for first in range(0, max(1, len(spans) - WINDOW + 2), 2):
            last = min(len(spans), first + WINDOW) - 1
            out.append(Window(hit, first, hit.chunk.text[spans[first][0]:spans[last][1]], spans[first][0]))
    return out


def window_candidates(win: Window, probability: float) -> tuple[Candidate, ...]:
    """The answering window's sentences as the answerer's candidates, in their order (the answer quotes them)."""
    chunk = win.hit.chunk
    sents = chunk.sentences[win.first:win.first + WINDOW] or [(0, len(chunk.text), chunk.page_start)]
    return tuple(Candidate(win.hit, win.first + i, chunk.text[s:e], page, probability, True,
                           rank_score=probability - 0.001 * i) for i, (s, e, page) in enumerate(sents))


def cross_decision(reader: ReaderModel, question: str, hits: Sequence[Hit], gate: GateDecision,
                   policy: Policy) -> tuple[GateDecision, Finding | None]:
    """The decision for a question in another language than its shelf: answered when some window of the first
    `cross_lingual_chunks` evidence chunks answers the student's own words with P >= min_cross_lingual_probability,
    with that window's chunk as the evidence; otherwise refused as not answerable (the gate's checks are kept in the
    diagnostics, marked as not applied)."""
    wins = chunk_windows(hits, policy.cross_lingual_chunks)
    skipped = Check("cross_lingual", "gate", True, "not applied", "-", NOT_APPLIED, Reason.READER_NOT_ANSWERABLE)
    if not wins:
        return replace(gate, checks=gate.checks + (skipped,)), None
    readings = reader.read(question, [w.text for w in wins])
    best_i = max(range(len(readings)), key=lambda i: readings[i].probability)
    best, win = finding(readings, wins), wins[best_i]
    assert best is not None
    ok = best.probability >= policy.min_cross_lingual_probability
    detail = (f"P(the passage answers the question as asked) {best.probability:.2f} in {best.chunk_id} (p. "
              f"{best.page}), best of {len(wins)} window(s) of {len({w.hit.chunk.chunk_id for w in wins})} chunk(s)"
              + (f"; answer span: {best.span!r}" if best.span else ""))
    check = Check("cross_lingual_reader", "gate", ok, best.probability, policy.min_cross_lingual_probability, detail,
                  Reason.READER_NOT_ANSWERABLE)
    values = {**gate.values, "cross_lingual_p": best.probability}
    checks = gate.checks + (skipped, check)
    if not ok:
        return replace(gate, passed=False, reason=Reason.READER_NOT_ANSWERABLE, checks=checks, tier=Tier.READER,
                       values=values, confidence=min(gate.confidence, 0.49)), best
    others = tuple({w.hit.chunk.chunk_id: w.hit for w in wins if w.hit.chunk.chunk_id != win.hit.chunk.chunk_id}
                   .values())
    return replace(gate, passed=True, reason=Reason.ANSWERED, checks=checks, tier=Tier.READER, values=values,
                   evidence=(win.hit,), near_misses=others[:3], candidates=window_candidates(win, best.probability),
                   confidence=round(best.probability, 4), other_shelf=None), best
