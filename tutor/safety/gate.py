"""The confidence gate: decides, before any answer is written, whether the evidence can answer the question.

Pure functions over scores, texts and the policy. The decision carries every check (value, threshold, verdict),
the chunks kept as evidence, the near misses and the dropped chunks with the reason each was dropped.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from tutor.answering.compose import quotable
from tutor.ingest.chunking import is_asking
from tutor.policy import Policy
from tutor.question import Question, as_question
from tutor.reasons import Reason, Tier
from tutor.safety.definitions import definition_led, definition_sentence, spaced_words
from tutor.safety.vocabulary import is_instruction_like
from tutor.store.shelf import ShelfKey
from tutor.text.language import passage_language
from tutor.text.sentences import tells_as_question, without_bullet
from tutor.text.terms import TermStats, has_phrase, negated, numbers, term_set
from tutor.types import Check, Hit

GATE = "gate"


@dataclass(frozen=True)
class Candidate:
    """A sentence of the evidence that may answer: where it is and how much of the question it covers."""

    hit: Hit
    index: int  # sentence index in the chunk
    text: str
    page: int
    coverage: float  # IDF-weighted share of question terms in this sentence and its neighbours
    numbers_ok: bool
    polarity_ok: bool = True  # a negated question needs a negation beside the answer
    type_ok: bool = True  # the kind of answer the question asks for (a number, a date, a name) is beside it
    rank_score: float = 0.0  # coverage with small preferences (definitions up, captions and instructions down)


@dataclass(frozen=True)
class GateDecision:
    """The gate's verdict, made by the code that decides: checks, evidence, near misses, drops, confidence."""

    passed: bool
    reason: Reason
    checks: tuple[Check, ...]
    evidence: tuple[Hit, ...]
    near_misses: tuple[Hit, ...]
    dropped: tuple[tuple[Hit, str], ...]
    candidates: tuple[Candidate, ...]
    confidence: float
    tier: Tier
    other_shelf: ShelfKey | None = None
    values: dict[str, float] = field(default_factory=dict)

    def rescuable(self, policy: Policy) -> bool:
        """Whether this refusal was for the confidence check alone, with a score of at least min_rescue_confidence:
        the reader then reads the evidence anyway, and a window it finds answering with P >=
        min_rescue_reader_probability passes the question (tutor/safety/answerability.py). Short factual questions
        often score low against a whole chunk yet are answered word for word in one sentence of it. Every other
        check must have passed and no other shelf be better. Or word_rescuable, below."""
        return self._confidence_rescuable(policy) or self.word_rescuable(policy)

    def _confidence_rescuable(self, policy: Policy) -> bool:
        if self.passed or self.other_shelf is not None or policy.min_rescue_confidence >= 1.0:
            return False
        failed = [c for c in self.checks if not c.passed]
        return (len(failed) == 1 and failed[0].name == "confidence" and isinstance(failed[0].value, (int, float))
                and failed[0].value >= policy.min_rescue_confidence)

    def word_rescuable(self, policy: Policy) -> bool:
        """Whether this refusal was for its scores alone (off_topic, confidence, mean_confidence: the chunk's cosine)
        while one sentence of the evidence, with its neighbours, holds every term of the question and the evidence
        holds them all, its best score at least min_word_rescue_score: read by the reader anyway, and answered at
        min_word_rescue_reader_probability. A short question scores low against a long chunk about many things
        ("Into which elastic bag-like structure do the two oviducts unite?", 0.26) though the book says it word for
        word ("The two oviducts unite into an elastic bag-like structure known as the uterus."). Across languages
        both shares read 1.0 unmeasured, but the reader reads English questions and evidence only (applies): such a
        refusal is not read. A Hindi or Hinglish question's English reading is rescued as an English question is."""
        if self.passed or self.other_shelf is not None or policy.min_word_rescue_score >= 1.0:
            return False
        failed = {c.reason for c in self.checks if not c.passed}
        value = {c.name: c.value for c in self.checks}
        score = value.get("confidence")
        return (bool(failed) and failed <= _SCORES and value.get("answerability") == 1.0
                and value.get("term_coverage") == 1.0 and isinstance(score, (int, float))
                and score >= policy.min_word_rescue_score)

    def rescued_by_words(self, policy: Policy) -> bool:
        """Whether this refusal is rescuable for its words alone (word_rescuable), not for its confidence."""
        return not self._confidence_rescuable(policy) and self.word_rescuable(policy)

    def rescue_bar(self, policy: Policy) -> float:
        """The reader's probability a rescuable refusal needs to be answered."""
        return (policy.min_word_rescue_reader_probability if self.rescued_by_words(policy)
                else policy.min_rescue_reader_probability)


# what the checks that read the evidence's scores alone refuse for (off_topic, confidence, mean_confidence; and
# term_coverage, which word_rescuable asks to be 1.0): word_rescuable
_SCORES = frozenset({Reason.OFF_TOPIC, Reason.LOW_CONFIDENCE})


def term_weights(question: Question | str, stats: TermStats) -> dict[str, float]:
    """IDF weight of each content term of the question on this shelf."""
    return as_question(question).weights(stats)


def weighted_share(weights: dict[str, float], present: set[str]) -> float:
    total = sum(weights.values())
    return sum(w for t, w in weights.items() if t in present) / total if total else 0.0


def rank_sentences(question: Question | str, evidence: list[Hit], weights: dict[str, float]) -> list[Candidate]:
    """Sentences of the evidence that state something, best first by how much of the question they cover.

    A sentence's coverage blends its own terms with its neighbours' (an answer often spans two sentences);
    questions and numbered tasks printed in the text are never candidates.
    """
    q = as_question(question)
    q_numbers, q_negated, q_type = q.numbers, q.negated, q.answer_type
    out: list[Candidate] = []
    for hit in evidence:
        sents = hit.chunk.sentence_texts()
        # held-back book text (orders to the tutor, addresses, requests for credentials) is not evidence: neither a
        # candidate nor a neighbour that lends one its words, so it cannot make the questions around it refuse
        held = [is_instruction_like(s) for s, _ in sents]
        term_sets = [set() if h else term_set(s) for (s, _), h in zip(sents, held)]
        for i, (s, page) in enumerate(sents):
            # headings and captions end without a full stop: they name a topic, they do not state anything
            if held[i] or len(s.split()) < 4 or is_asking(s) or not (_STATES.search(s) or tells_as_question(s)):
                continue
            window = set().union(*term_sets[max(0, i - 1) : i + 2])
            cov = 0.6 * weighted_share(weights, term_sets[i]) + 0.4 * weighted_share(weights, window)
            win_text = " ".join(t for j, (t, _) in enumerate(sents[max(0, i - 1) : i + 2], start=max(0, i - 1))
                                if not held[j])
            out.append(Candidate(hit, i, s, page, cov, q_numbers <= numbers(win_text),
                                 not q_negated or negated(win_text), q_type is None or bool(q_type.search(win_text)),
                                 _rank_score(s, cov, hit.score)))
    out.sort(key=_best_first)
    return out


def _best_first(c: Candidate) -> tuple[float, int, int]:
    """The candidates' order: rank score; ties: the better-retrieved chunk first, then reading order."""
    return -round(c.rank_score, 6), c.hit.rank, c.index


_STATES = re.compile(r"[.!;:)\"'”’\u0964\u0965]\s*$")  # \u0964 \u0965: the Devanagari danda and double danda
_DEFINES = re.compile(r"\b(?:is|are) (?:called|known as|termed|defined as)\b|\bmeans\b"
                      r"|\bis the (?:process|property)\b", re.I)
_NOT_PROSE = re.compile(r"^(?:Let us|Activity|Figure|Fig\.|Table|Take |Observe|Note\b|Think|Recall)", re.I)


def _rank_score(sentence: str, coverage: float, retrieval: float) -> float:
    """How good a sentence is as an answer: coverage first; the chunk's retrieval score and the sentence's form
    break ties (a definition beats a caption, an instruction to do an activity or anything else the answer would not
    quote: compose.quotable)."""
    words = len(sentence.split())
    return (coverage + 0.25 * retrieval + (0.08 if _DEFINES.search(sentence) else 0.0)
            - (0.12 if _NOT_PROSE.match(without_bullet(sentence)) or not quotable(sentence) else 0.0)
            - (0.05 if words < 8 else 0.0)
            - (0.05 if words > 60 else 0.0))


def _confidence(adjusted: float, policy: Policy) -> float:
    """Adjusted retrieval score mapped to [0, 1]: 0.5 at the threshold, 1 at threshold + 0.3."""
    return max(0.0, min(1.0, 0.5 + (adjusted - policy.min_confidence) / 0.6))


def decide(
    question: Question | str,
    hits: list[Hit],
    policy: Policy,
    stats: TermStats,
    other_shelves: list[tuple[ShelfKey, float]] = (),  # type: ignore[assignment]
    rerank: dict[str, float] | None = None,
) -> GateDecision:
    """Decide whether to answer from `hits` (best first, cosine scores) on the chosen shelf. `question`: the
    pipeline's Question (tutor/question.py); a plain string is read as Question.of reads it."""
    q = as_question(question)
    q_lang = q.detected_language
    dropped: list[tuple[Hit, str]] = []
    usable: list[Hit] = []
    for h in hits:
        if not h.chunk.is_evidence:
            dropped.append((h, f"{h.chunk.section_kind.replace('_', ' ')}: restates questions, not evidence"))
        else:
            usable.append(h)

    tier = Tier.RETRIEVAL
    if rerank is not None:
        tier = Tier.RERANKER
        usable = sorted(usable, key=lambda h: -rerank.get(h.chunk.chunk_id, 0.0))

    checks: list[Check] = []
    best = -1.0
    if usable:  # hybrid hits come in fused order: confidence reads the best cosine among them, as dense order gave it
        best = usable[0].score if rerank is not None else max(h.score for h in usable)
    if rerank is not None:
        relevance = {h.chunk.chunk_id: rerank.get(h.chunk.chunk_id, 0.0) for h in usable}
        evidence = [h for h in usable if relevance[h.chunk.chunk_id] >= policy.min_rerank_score][: policy.max_evidence]
        near = [h for h in usable if h not in evidence and relevance[h.chunk.chunk_id] >= policy.min_rerank_score - 1]
    else:
        band = best - policy.evidence_drop
        in_band = [h for h in usable if h.score >= band]
        # answers come in the student's language where the chapter is in that language: on a bilingual shelf, when
        # the band holds chunks in the question's language, only those are evidence (a Hindi question is answered
        # from the Hindi chapter, in Hindi); otherwise the other language's chunks answer (quoted as printed)
        same_language = [h for h in in_band if passage_language(h.chunk.text) == q_lang]
        evidence = (same_language or in_band)[: policy.max_evidence]
        near = [h for h in usable if h not in evidence and h.score >= band - policy.near_miss_margin]
    for h in usable:
        if h not in evidence and h not in near:
            dropped.append((h, "scored below the evidence and near-miss bands"))
        elif h in near:
            dropped.append((h, "near miss: logged, not used"))

    context_chars = sum(len(h.chunk.text) for h in evidence)
    checks.append(Check("context", GATE, bool(evidence) and context_chars >= policy.min_context_chars,
                        float(context_chars), float(policy.min_context_chars),
                        f"{len(evidence)} evidence chunk(s), {context_chars} characters", Reason.INSUFFICIENT_CONTEXT))

    # Which checks apply to which language. Scores (off_topic, confidence, mean_confidence, context) apply to every
    # question. Term cues (IDF weights: unknown-term penalty, term_coverage, answerability, sentence ranking) compare
    # words, so they apply only when the evidence is in the question's language: a Hindi question answered from an
    # English chapter is judged on scores alone. Numbers and negation apply to Hindi too (Devanagari digits read as
    # ASCII, नहीं/न/बिना). Definitions ("What is X?") and names (capital letters) are English-only; answer type covers
    # Hindi कितने (a number) and कब (a time).
    lexical = not evidence or any(passage_language(h.chunk.text) == q_lang for h in evidence)
    weights = q.weights(stats) if lexical else {}
    unknown = 1.0 - weighted_share(weights, {t for t in weights if stats.known(t)}) if weights else 0.0
    adjusted = best - policy.unknown_term_penalty * unknown
    candidates = rank_sentences(q, evidence, weights) if evidence else []
    definition = definition_sentence(q, candidates) if policy.accept_definitions and rerank is None else None
    checks.append(Check("off_topic", GATE, best >= policy.offtopic_max_score or definition is not None, round(best, 4),
                        policy.offtopic_max_score, "best evidence score on the chosen shelf"
                        + ("; the evidence defines the term asked about" if definition is not None else ""),
                        Reason.OFF_TOPIC))
    if rerank is not None:
        top = max((rerank.get(h.chunk.chunk_id, 0.0) for h in usable), default=0.0)
        checks.append(Check("rerank_confidence", GATE, top >= policy.min_rerank_score, top, policy.min_rerank_score,
                            "best reranker relevance (0-3)", Reason.LOW_CONFIDENCE))
    else:
        detail = f"best score {best:.3f} less {policy.unknown_term_penalty} x unknown-term share {unknown:.2f}"
        if definition is not None:
            detail += f"; the evidence defines the term asked about (p. {definition.page}), which is enough"
        checks.append(Check("confidence", GATE, adjusted >= policy.min_confidence or definition is not None,
                            round(adjusted, 4), policy.min_confidence, detail, Reason.LOW_CONFIDENCE))
        mean = sum(h.score for h in evidence) / len(evidence) if evidence else -1.0
        checks.append(Check("mean_confidence", GATE, mean >= policy.min_mean_confidence or definition is not None,
                            round(mean, 4), policy.min_mean_confidence, "mean score of the evidence chunks",
                            Reason.LOW_CONFIDENCE))
    present = set().union(*(term_set(h.chunk.text) for h in evidence[:3])) if evidence else set()
    coverage = weighted_share(weights, present) if weights else 1.0
    checks.append(Check("term_coverage", GATE, coverage >= policy.min_term_coverage, round(coverage, 4),
                        policy.min_term_coverage, "weighted share of the question's terms in the evidence",
                        Reason.LOW_CONFIDENCE))
    if policy.require_clear_winner and len(usable) > 1:
        a, b = usable[0], next((h for h in usable[1:] if h.chunk.section != usable[0].chunk.section), None)
        ratio = a.score / b.score if b is not None and b.score > 0 else 99.0
        checks.append(Check("clear_winner", GATE, ratio >= policy.min_top_ratio, round(ratio, 4), policy.min_top_ratio,
                            "top-1 over top-2 score (different sections)", Reason.NO_CLEAR_WINNER))

    if definition is not None:  # the defining sentence leads the answer
        candidates = ([c for c in candidates if c.text == definition.text][:1]
                      + [c for c in candidates if c.text != definition.text])
    top_cand = max(candidates, key=lambda c: c.coverage) if candidates else None
    # not measured across languages (no shared words): 1.0, as term_coverage is without weights
    sentence_coverage = (top_cand.coverage if top_cand else 0.0) if lexical else 1.0
    checks.append(Check("answerability", GATE, bool(top_cand) and sentence_coverage >= policy.min_sentence_coverage,
                        round(sentence_coverage, 4), policy.min_sentence_coverage,
                        "share of the question's terms in the best sentence of the evidence"
                        + ("" if lexical else " (not measured: the evidence is in another language)"),
                        Reason.NOT_ANSWERABLE))
    q_numbers = set(q.numbers) if q.factoid else set()
    # the numbers a factual question turns on must occur somewhere in the evidence (not necessarily the chosen sentence)
    numbers_ok = q_numbers <= numbers(" ".join(h.chunk.text for h in evidence)) if q_numbers else True
    if policy.require_question_numbers and q_numbers:
        checks.append(Check("question_numbers", GATE, numbers_ok, ", ".join(sorted(q_numbers)), "present",
                            "numbers in the question must appear beside the answer", Reason.NOT_ANSWERABLE))

    # a factual question asking what is NOT so ("Which city did not ...?") must find a negation beside its answer;
    # a why/how question about a negative fact ("Why does dry HCl not ...?") asks for an explanation instead
    factoid_negated = q.negated and q.factoid
    polarity_ok = any(c.polarity_ok for c in candidates[:3]) if factoid_negated else True
    if policy.require_negation_match and factoid_negated:
        checks.append(Check("negation", GATE, polarity_ok, "negated question", "negation beside the answer",
                            "a question asking what is NOT so needs the book to say so", Reason.NOT_ANSWERABLE))

    # the names a factual question turns on ("New France", "Circuit Switching") must occur in the evidence
    evidence_words = spaced_words(" ".join(h.chunk.text for h in evidence))
    q_names = list(q.names) if q.factoid else []
    missing_names = [n for n in q_names if not _named(evidence_words, n, policy.home_country)]
    if policy.require_names and q_names:
        checks.append(Check("names", GATE, not missing_names, ", ".join(missing_names) or "all present", "present",
                            "names in the question must occur in the evidence", Reason.NOT_ANSWERABLE))

    type_ok = any(c.type_ok for c in candidates[:3]) if q.answer_type is not None else True
    if policy.require_answer_type and q.answer_type is not None:
        checks.append(Check("answer_type", GATE, type_ok, "typed question", "that type beside the answer",
                            "a how-many, when or who question needs a number, a date or a name beside the answer",
                            Reason.NOT_ANSWERABLE))

    failed = [c for c in checks if not c.passed]
    reason = failed[0].reason if failed else Reason.ANSWERED
    other: ShelfKey | None = None
    if failed:
        for key, score in other_shelves:
            if score >= policy.min_confidence and score >= best + policy.wrong_shelf_margin:
                other, reason = key, Reason.WRONG_SUBJECT
                break
    conf = _confidence(adjusted, policy) if rerank is None else max(0.0, min(1.0, max(
        (rerank.get(h.chunk.chunk_id, 0.0) for h in usable), default=0.0) / 3))
    if failed:
        conf = min(conf, 0.49)
    return GateDecision(
        passed=not failed, reason=reason, checks=tuple(checks), evidence=tuple(evidence), near_misses=tuple(near),
        dropped=tuple(dropped), candidates=tuple(candidates), confidence=round(conf, 4), tier=tier, other_shelf=other,
        values={"best": best, "adjusted": adjusted, "unknown": unknown, "coverage": coverage,
                "sentence_coverage": sentence_coverage,
                "mean": sum(h.score for h in evidence) / len(evidence) if evidence else -1.0,
                "numbers_ok": float(numbers_ok), "polarity_ok": float(polarity_ok),
                "definition": float(rerank is None and definition is not None), "type_ok": float(type_ok),
                "names_ok": float(not missing_names)},
    )


def _named(evidence_words: str, name: str, home: str) -> bool:
    """Whether the evidence (`spaced_words`) names `name` (lower-cased, Question.names): as written, or for the books'
    own country (`policy.home_country`) as the books write it, "our country" ("In our country, the potential difference
    between the two is 220 V" names the India of "... in India?")."""
    return has_phrase(evidence_words, name) or (bool(home) and name == home.lower()
                                                and has_phrase(evidence_words, "our country"))


def widened(decision: GateDecision, hits: list[Hit], question: Question | str, stats: TermStats,
            policy: Policy) -> GateDecision:
    """A passed decision with the first `policy.evidence_fused_top` chunks of the hybrid's fused ranking added to its
    evidence, after the band, and the candidate sentences ranked again over all of it.

    The gate decides on the band (chunks within evidence_drop of the best cosine). A short question scores a low
    cosine against a long chunk, so the chunk its words find first can fall below the band while holding the answer
    ("... dictatorships have slightly higher rate of economic growth": first in the fused ranking, 0.006 below the
    band). Once the gate has passed, the answer may quote it: its sentences compete with the band's on coverage, its
    lower score counting as in `_rank_score`. Nothing the gate measured changes.

    Only a short factual question (Question.asks_fact) is widened: the words of an explanation ("State different
    forms of communal politics") also find the exercises that restate them. Only a chunk of a chapter the band holds
    joins: another chapter's words are another topic (on the SQuAD shelves they found another article's fort). A
    question the reader rescued (GateDecision.rescuable) is widened too: its band scored low, the case this is for.
    A refusal, a reranked decision (the reranker chose the evidence), a decision led by a definition, dense retrieval
    (no fused ranking) and chunks in another language than the evidence are left as they are. Last, a definition
    question's answer is led by a sentence that defines its term, where one does (definitions.definition_led;
    policy.definition_lead)."""
    joined = _joined(decision, hits, question, stats, policy)
    return definition_led(joined, question) if policy.definition_lead else joined


def _joined(decision: GateDecision, hits: list[Hit], question: Question | str, stats: TermStats,
            policy: Policy) -> GateDecision:
    """`widened`'s joining of the fused ranking's chunks."""
    q = as_question(question)
    if (not decision.passed or not policy.evidence_fused_top or policy.retriever != "hybrid" or not decision.evidence
            or not q.asks_fact or decision.tier == Tier.RERANKER or decision.values.get("definition")):
        return decision
    written = passage_language(decision.evidence[0].chunk.text)
    chapters = {h.chunk.file for h in decision.evidence}
    usable = [h for h in hits if h.chunk.is_evidence][: policy.evidence_fused_top]
    extra = [h for h in usable if h not in decision.evidence and h.chunk.file in chapters
             and passage_language(h.chunk.text) == written]
    if not extra:
        return decision
    # the weights decide ranked the band with (the joined chunks are in the band's language); each chunk's sentences
    # are ranked on their own, so the band's candidates are kept and only the joined chunks' are added
    lexical = any(passage_language(h.chunk.text) == q.detected_language for h in decision.evidence)
    joined = rank_sentences(q, extra, q.weights(stats) if lexical else {})
    return replace(decision, evidence=(*decision.evidence, *extra),
                   candidates=tuple(sorted((*decision.candidates, *joined), key=_best_first)),
                   near_misses=tuple(h for h in decision.near_misses if h not in extra),
                   dropped=tuple((h, why) for h, why in decision.dropped if h not in extra))
