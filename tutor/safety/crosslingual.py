"""The gate across languages: a Hindi question about an English chapter, judged from the student's own words.

The English gate's checks compare words and MiniLM cosines. Across scripts they only see the dictionary's keyword
reading of a Hindi question ("what combination अभिक्रिया"), whose cosine to the passage that answers it is far below
an English question's, and whose unread words count as unknown. So for a question in Hindi (Devanagari) asked of a
shelf with no Hindi chapter, retrieval still runs on that reading (it finds the gold chapter among the first five
evidence chunks for 80% of the answerable Devanagari questions), but a cross-lingual judge decides, reading the
question as typed against those chunks:

- `e5` (`E5Similarity`): multilingual e5's cosine of the question ("query: ") and each chunk ("passage: "); the best
  chunk must reach `min_cross_lingual_score`, and the answer quotes the chunk's sentence e5 finds closest to the
  question with its neighbours;
- `reader`: the cross-lingual reader (tutor/reader/model.py, base "e5", trained on the English examples with
  part-Hindi questions, tutor/reader/codemix.py): its P that a window (three sentences) answers.

A question whose reading passed the English gate and reader stands as answered (the dictionary read it whole and
the book matched); what they refused goes to the judge. In its decision the judge applies across languages; not
applied (listed in the diagnostics as such) are confidence, mean confidence, term coverage, the unknown-term penalty,
names, negation and answer-type cues, which compare words of one language, and the English-only reader. The pipeline
calls `cross_decision` before any answer is written, so an LLM is never called for a question it refuses.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from tutor.policy import Policy
from tutor.question import Question, as_question
from tutor.reader.model import Reading
from tutor.reasons import Reason, Tier
from tutor.safety.answerability import WINDOW, Finding, ReaderModel, Window, centred, finding, window_at
from tutor.safety.gate import Candidate, GateDecision
from tutor.types import Check, Hit

NOT_APPLIED = ("confidence, term and cue checks compare words of one language: not applied to a Hindi question "
               "about an English chapter; the cross-lingual judge decides")


class E5Similarity:
    """Multilingual e5's cosine of a question and passages, shaped as a reader's readings (P = the cosine, no span):
    the `e5` cross-lingual judge. One model per process. The passages' vectors are kept in memory (`cache_size` of
    them, about 1.5 KB each, least recently used out) and, given a `store` (tutor/retrieval/vector_cache.py), on disk,
    where ingest puts every chunk of an English shelf (`warm`): a question then embeds only itself."""

    def __init__(self, embedder=None, cache_size: int = 20000, store=None, unit: str = "chunk",
                 precision: str | None = None) -> None:
        self._embedder = embedder  # embed_query / embed_passages: unit vectors; None: the shared e5, on first use
        self.precision = precision  # of that shared e5 (judge_precision); its store must hold vectors of the same
        self.store = store
        self.unit = unit  # what the policy has it compare with a question (cross_lingual_unit): what ingest warms
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._size = cache_size
        self._lock = threading.Lock()

    @property
    def embedder(self):
        if self._embedder is None:
            from tutor.retrieval.embedding import e5_embedder, judge_precision

            self._embedder = e5_embedder(judge_precision(self.precision))
        return self._embedder

    def vectors(self, passages: Sequence[str]) -> list[np.ndarray]:
        """Each passage's vector: from memory, else the store, else embedded now (one batch) and stored."""
        with self._lock:
            new = list(dict.fromkeys(p for p in passages if p not in self._vectors))
        store = self._store()
        fresh = store.get(new) if store is not None and new else {}
        todo = [p for p in new if p not in fresh]
        if todo:
            made = dict(zip(todo, self.embedder.embed_passages(todo)))
            if store is not None:
                store.put(made)
            fresh.update(made)
        with self._lock:
            self._vectors.update(fresh)
            vecs = [fresh[p] if p in fresh else self._vectors[p] for p in passages]
            for p in passages:
                self._vectors.move_to_end(p)
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)
        return vecs

    def read(self, question: str, passages: Sequence[str]) -> list[Reading]:
        if not passages:
            return []
        q = self.embedder.embed_query([question])[0]
        return [Reading(float(v @ q), "", 0, 0) for v in self.vectors(passages)]

    def _store(self):
        """The store keyed by the precision the e5 in use actually runs in (`vector_cache.in_precision`); a store of
        another model (a test's) or an embedder that does not say its precision: the store as given."""
        from tutor.retrieval.embedding import E5_NAME
        from tutor.retrieval.vector_cache import in_precision, passage_model

        actual = getattr(self.embedder, "precision", None) if self.store is not None else None
        if actual is not None and self.store.model.startswith(passage_model(E5_NAME, "fp32")):
            self.store = in_precision(self.store, E5_NAME, actual)  # the same store where the names agree
        return self.store

    def passages_of(self, chunks) -> list[str]:
        """The texts this judge compares with a question, over `chunks`: their texts, or their windows'
        (`hit_windows`)."""
        if self.unit == "chunk":
            return [c.text for c in chunks]
        return [w.text for c in chunks for w in hit_windows(Hit(c, 0.0, 0))]

    def warm(self, passages: Sequence[str], progress=None, batch: int = 64) -> int:
        """Put the vectors of `passages` the store lacks into it (ingest calls this for every English shelf);
        `progress(done, total)` hears of each batch. Returns how many were embedded. Without a store, nothing."""
        if self.store is None:
            return 0

        def missing(store) -> list[str]:
            have = store.get(passages)
            return list(dict.fromkeys(p for p in passages if p not in have))

        store = self.store
        todo = missing(store)
        # the e5 is loaded only when there is something to embed; its store then follows the precision it runs in
        if todo and self._store() is not store:
            store = self.store
            todo = missing(store)
        for s in range(0, len(todo), batch):
            part = todo[s:s + batch]
            store.put(dict(zip(part, self.embedder.embed_passages(part))))
            if progress is not None:
                progress(min(s + batch, len(todo)), len(todo))
        return len(todo)


def ingest_judge(policy: Policy | None = None) -> E5Similarity | None:
    """The judge whose passage vectors ingest prepares (`ingest(cross_judge=...)`): e5 on the configured vector store
    when the policy judges Hindi questions about English chapters with e5, else None."""
    from tutor.policy import load_policy
    from tutor.retrieval.vector_cache import e5_passage_cache

    policy = policy or load_policy()
    use = policy.cross_lingual and policy.cross_lingual_judge == "e5"
    return E5Similarity(store=e5_passage_cache(), unit=policy.cross_lingual_unit) if use else None


def hit_windows(hit: Hit) -> list[Window]:
    """Windows of WINDOW sentences over a hit's chunk, one centred on each sentence (`centred`: at the chunk's ends
    the first or last WINDOW sentences; the same window once), so every sentence is read with both neighbours."""
    spans = [(s, e) for s, e, _ in hit.chunk.sentences] or [(0, len(hit.chunk.text))]
    return [window_at(hit, spans, f) for f in dict.fromkeys(centred(i, len(spans)) for i in range(len(spans)))]


def chunk_windows(hits: Sequence[Hit], n_chunks: int) -> list[Window]:
    """`hit_windows` of each of the first `n_chunks` evidence hits, in retrieval order."""
    return [w for hit in [h for h in hits if h.chunk.is_evidence][:n_chunks] for w in hit_windows(hit)]


def window_candidates(win: Window, score: float, lead: int = 0) -> tuple[Candidate, ...]:
    """The answering window's sentences as the answerer's candidates, in their order (the answer quotes them); the
    `lead`-th sentence of the window ranks first."""
    chunk = win.hit.chunk
    sents = chunk.sentences[win.first:win.first + WINDOW] or [(0, len(chunk.text), chunk.page_start)]
    return tuple(Candidate(win.hit, win.first + i, chunk.text[s:e], page, score, True,
                           rank_score=score - 0.001 * (i != lead) - 0.0001 * i) for i, (s, e, page) in enumerate(sents))


def _e5_units(judge: ReaderModel, question: str, hits: Sequence[Hit], n: int, threshold: float):
    """Whole chunks scored; then, when the best reaches `threshold`, its sentences, and the window around the closest
    one (a refusal quotes nothing: its sentences are not read)."""
    chunks = [h for h in hits if h.chunk.is_evidence][:n]
    if not chunks:
        return None
    scores = [r.probability for r in judge.read(question, [h.chunk.text for h in chunks])]
    best = max(range(len(chunks)), key=scores.__getitem__)
    hit = chunks[best]
    spans = [(s, e) for s, e, _ in hit.chunk.sentences] or [(0, len(hit.chunk.text))]
    at = 0
    if scores[best] >= threshold:
        near = [r.probability for r in judge.read(question, [hit.chunk.text[s:e] for s, e in spans])]
        at = max(range(len(spans)), key=near.__getitem__)
    win = window_at(hit, spans, centred(at, len(spans)))
    sentence = hit.chunk.text[spans[at][0]:spans[at][1]]
    page = hit.chunk.sentences[at][2] if hit.chunk.sentences else hit.chunk.page_start
    found = Finding(round(scores[best], 4), "", hit.chunk.chunk_id, sentence, page)
    return found, win, at - win.first, chunks, scores


def _reader_units(judge: ReaderModel, question: str, hits: Sequence[Hit], n: int, threshold: float):
    """Windows of the first chunks read; the best window."""
    wins = chunk_windows(hits, n)
    if not wins:
        return None
    readings = judge.read(question, [w.text for w in wins])
    i = max(range(len(readings)), key=lambda k: readings[k].probability)
    found = finding(readings, wins)
    assert found is not None
    return found, wins[i], 0, [w.hit for w in wins], [r.probability for r in readings]


def cross_decision(judge: ReaderModel, question: Question | str, hits: Sequence[Hit], gate: GateDecision,
                   policy: Policy) -> tuple[GateDecision, Finding | None]:
    """The decision for a Hindi question asked of an English shelf: answered when the judge scores some evidence chunk
    (e5) or window (reader) of the first `cross_lingual_chunks` at min_cross_lingual_score or more, with that chunk as
    the evidence; otherwise refused as not answerable (the gate's checks stay in the diagnostics). A Hinglish question
    (Latin letters) is held to its own threshold, `hinglish_cross_lingual_score`: e5's cosines of romanised Hindi sit
    on another scale, and a Devanagari question whose reading left Hindi words unread to
    `min_cross_lingual_score_unread` where set: its English path read less of it. The judge reads the student's own
    words (`Question.text`), not the English reading; a Hinglish question respelt in Devanagari (`Question.respelt`,
    where `hinglish_respelt_score` is set) is read so, to that bar."""
    q = as_question(question)
    question = q.text
    if not q.in_devanagari and q.respelt and policy.hinglish_respelt_score:  # Hinglish, read in Devanagari
        question = q.respelt
        policy = policy.with_values(min_cross_lingual_score=policy.hinglish_respelt_score)
    elif not q.in_devanagari:
        if not policy.hinglish_cross_lingual_score:  # Hinglish is not judged across languages: the refusal stands
            return gate, None
        policy = policy.with_values(min_cross_lingual_score=policy.hinglish_cross_lingual_score)
    elif q.unread and policy.min_cross_lingual_score_unread:  # the reading failed: the student's words decide more
        policy = policy.with_values(min_cross_lingual_score=policy.min_cross_lingual_score_unread)
    by_chunk = policy.cross_lingual_judge == "e5" and policy.cross_lingual_unit == "chunk"
    units = (_e5_units if by_chunk else _reader_units)(
        judge, question, hits, policy.cross_lingual_chunks, policy.min_cross_lingual_score)
    skipped = Check("cross_lingual", "gate", True, "not applied", "-", NOT_APPLIED, Reason.READER_NOT_ANSWERABLE)
    if units is None:
        return replace(gate, checks=gate.checks + (skipped,)), None
    best, win, lead, read, scores = units
    ok = best.probability >= policy.min_cross_lingual_score
    what = ("P(the window answers)" if policy.cross_lingual_judge == "reader" else
            f"cosine of the question and the {policy.cross_lingual_unit}")
    read_as = f"read as {question!r}; " if question != q.text else ""  # a Hinglish question respelt
    detail = (read_as + f"{policy.cross_lingual_judge}: {what} {best.probability:.3f} in {best.chunk_id} "
              f"(p. {best.page}), best of {len(scores)}: " + ", ".join(f"{v:.3f}" for v in scores)
              + (f"; answer span: {best.span!r}" if best.span else ""))
    check = Check("cross_lingual_judge", "gate", ok, best.probability, policy.min_cross_lingual_score, detail,
                  Reason.READER_NOT_ANSWERABLE)
    values = {**gate.values, "cross_lingual_score": best.probability}
    checks = gate.checks + (skipped, check)
    if not ok:
        return replace(gate, passed=False, reason=Reason.READER_NOT_ANSWERABLE, checks=checks, tier=Tier.READER,
                       values=values, confidence=min(gate.confidence, 0.49)), best
    others = tuple({h.chunk.chunk_id: h for h in read if h.chunk.chunk_id != win.hit.chunk.chunk_id}.values())
    return replace(gate, passed=True, reason=Reason.ANSWERED, checks=checks, tier=Tier.READER, values=values,
                   evidence=(win.hit,), near_misses=others[:3], other_shelf=None,
                   candidates=window_candidates(win, best.probability, lead),
                   confidence=round(best.probability, 4)), best
