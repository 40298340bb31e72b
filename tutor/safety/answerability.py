"""The reader's place in the question path: which windows of the evidence it reads, the gate check it makes, the
direct answer it finds, and the support check on an LLM's sentences.

Pure functions over the gate's decision and the reader's readings (tutor/reader/model.py runs the model); the pipeline
calls them after the gate passed and before any answer is written.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from tutor.answering.extractive import Draft
from tutor.policy import Policy
from tutor.question import LATIN, Question, as_question, question_word
from tutor.reasons import Reason, Tier
from tutor.safety.definitions import keeps_definition
from tutor.safety.gate import Candidate, GateDecision
from tutor.text.language import ENGLISH, passage_language
from tutor.types import AnswerSentence, Check, Hit, Source

WINDOW = 3  # sentences a window holds, as in training (tutor/reader/examples.py)


class ReaderModel(Protocol):
    """What the pipeline needs of a reader (tutor.reader.model.Reader; tests pass a fake)."""

    def read(self, question: str, passages: Sequence[str]): ...

    def supports(self, claims: Sequence[str], texts: Sequence[str]) -> list[float]: ...


@dataclass(frozen=True)
class Window:
    """A few neighbouring sentences of an evidence chunk, around a candidate sentence: what the reader reads."""

    hit: Hit
    first: int  # index of the window's first sentence in the chunk
    text: str
    offset: int  # where the window starts in the chunk's text


@dataclass(frozen=True)
class Finding:
    """The reader's best reading: P(answers), the answer span and the sentence of the book that holds it."""

    probability: float
    span: str
    chunk_id: str
    sentence: str  # the chunk's sentence that holds the span ("" when the span is empty)
    page: int
    # the reader's best spans inside that sentence, best first, as (text, P(this span)) (tutor.reader.model.Reading)
    spans: tuple[tuple[str, float], ...] = ()


def centred(index: int, n_sentences: int) -> int:
    """The first sentence of the window that holds sentence `index` in its middle (at a chunk's ends, its first or
    last WINDOW sentences)."""
    return max(0, min(index - 1, n_sentences - WINDOW))


def window_at(hit: Hit, spans: Sequence[tuple[int, int]], first: int) -> Window:
    """The window of `hit`'s chunk from sentence `first` (of `spans`, its sentences' character spans)."""
    last = min(len(spans), first + WINDOW) - 1
    return Window(hit, first, hit.chunk.text[spans[first][0]:spans[last][1]], spans[first][0])


def windows(candidates: Sequence[Candidate], n: int) -> list[Window]:
    """Windows around the best `n` candidate sentences (one window per place), best first."""
    out: list[Window] = []
    seen: set[tuple[str, int]] = set()
    for c in candidates:
        chunk = c.hit.chunk
        spans = [(s, e) for s, e, _ in chunk.sentences]
        if not spans:
            continue
        first = centred(c.index, len(spans))
        if (chunk.chunk_id, first) in seen:
            continue
        seen.add((chunk.chunk_id, first))
        out.append(window_at(c.hit, spans, first))
        if len(out) >= n:
            break
    return out


def applies(question: Question | str, wins: Sequence[Window]) -> bool:
    """The reader was trained on English (its encoder is English-only): it reads English questions and evidence."""
    return (as_question(question).detected_language == ENGLISH
            and any(passage_language(w.text) == ENGLISH for w in wins))


def finding(readings: Sequence, wins: Sequence[Window], noun: str = "") -> Finding | None:
    """The best reading with the sentence of its chunk that holds the span, and the reader's spans inside that
    sentence. With `noun` (Question.asked_noun: "which non-metal ..."), a reading of P >= NOUN_P whose sentence names
    that noun is preferred to a more probable one whose sentence does not: "The non-metals are ... except bromine
    which is a liquid" over "They [metals] are solids ..., except mercury which is a liquid"."""
    if not readings:
        return None
    found = [(r.probability, _finding(r, w)) for r, w in zip(readings, wins)]
    noun = "" if noun in _MEASURE_NOUNS else noun
    named = [(p, f) for p, f in found if noun and f.sentence and p >= NOUN_P and _names(f.sentence, noun)]
    return max(named or found, key=lambda pf: pf[0])[1]


# nouns that name the answer's measure, not its class: "in which year" is answered by a sentence with a year in it,
# not by one that says "year" ("in the year 2017")
_MEASURE_NOUNS = frozenset("year years date century decade month day period time percentage number amount".split())
# the least P a reading whose sentence names the asked noun needs to be preferred to a more probable one (more
# likely than not to answer)
NOUN_P = 0.5


def _names(sentence: str, noun: str) -> bool:
    """Whether the sentence names the noun, hyphenated compounds whole ("non-metals" names "non-metal", "metals"
    does not)."""
    return _stem(noun) in {_stem(w) for w in re.findall(r"[A-Za-z]+(?:-[A-Za-z]+)*", sentence)}


def _finding(r, w: Window) -> Finding:
    """One reading of window `w` as a Finding: the chunk's sentence that holds the span and the spans inside it."""
    chunk = w.hit.chunk
    sentence, page, inside = "", chunk.page_start, ()
    if r.span:
        at = w.offset + r.start
        for s, e, p in chunk.sentences:
            if s <= at < e:
                sentence, page = chunk.text[s:e], p
                top = getattr(r, "spans", ()) or ((r.start, r.end, 1.0),)
                inside = tuple((chunk.text[w.offset + a:w.offset + b].strip(), q) for a, b, q in top
                               if s <= w.offset + a and w.offset + b <= e)
                inside = tuple((t, q) for t, q in inside if t)
                break
    return Finding(round(r.probability, 4), r.span if sentence else "", chunk.chunk_id, sentence, page, inside)


def read_decision(reader: ReaderModel, question: Question | str, decision: GateDecision,
                  policy: Policy) -> tuple[GateDecision, Finding | None]:
    """The gate's decision with the reader's check added: the question is answered only if some window of the
    evidence answers it with P >= min_reader_probability. Not applied (a passing check saying so) to questions or
    evidence not in English. A question the gate refused for low confidence alone, or for its scores alone while one
    sentence holds every word of it (GateDecision.rescuable), is answered when the reader's P reaches that rescue's
    bar (GateDecision.rescue_bar), and stays refused otherwise."""
    q = as_question(question)
    rescue = decision.rescuable(policy)
    wins = windows(decision.candidates, policy.reader_windows)
    if not wins or not (decision.passed or rescue):
        return decision, None
    if not applies(q, wins):
        if rescue:
            return decision, None
        check = Check("reader", "gate", True, "not applied", policy.min_reader_probability,
                      "the answerability reader reads English only; this question or its evidence is not English",
                      Reason.READER_NOT_ANSWERABLE)
        return replace(decision, checks=decision.checks + (check,)), None
    readings = _read(reader, q.gate_text, wins, decision.rescue_bar(policy) if rescue
                     else policy.min_reader_probability, policy.reader_stop_early)
    wins = wins[:len(readings)]
    best = finding(readings, wins)
    assert best is not None
    # and the best P among the first k windows, for each k read: calibration chooses how many windows to read
    # (tutor/evaluation/calibrate.py) from one run that read them all
    values = {**decision.values, "reader_p": best.probability,
              **{f"reader_p{k}": round(max(r.probability for r in readings[:k]), 4)
                 for k in range(1, len(readings) + 1)}}
    if rescue:
        return _rescued(decision, best, values, policy), best
    ok = best.probability >= policy.min_reader_probability
    detail = (f"P(the passage answers) {best.probability:.2f} in {best.chunk_id} (p. {best.page}), best of "
              f"{len(wins)} window(s): " + ", ".join(f"{r.probability:.2f}" for r in readings)
              + (f"; answer span: {best.span!r}" if best.span else "; no answer span"))
    check = Check("reader", "gate", ok, best.probability, policy.min_reader_probability, detail,
                  Reason.READER_NOT_ANSWERABLE)
    return _checked(decision, check, values), best


def _read(reader: ReaderModel, text: str, wins: Sequence[Window], bar: float, stop_early: bool) -> list:
    """The reader's readings of the windows, best first: all in one batch, or (`stop_early`) the first alone and the
    rest only when it falls short of `bar`. The decision is the same either way (the best P reaches the bar or it
    does not); a question answered on its first window pays for one window."""
    if not stop_early or len(wins) < 2:
        return list(reader.read(text, [w.text for w in wins]))
    first = list(reader.read(text, [wins[0].text]))
    if first[0].probability >= bar:
        return first
    return first + list(reader.read(text, [w.text for w in wins[1:]]))


def _checked(decision: GateDecision, check: Check, values: dict[str, float]) -> GateDecision:
    """The decision with a reader's gate check and its values added: refused (`reader_not_answerable`, decided by the
    reader, confidence under one half) when the check failed."""
    if check.passed:
        return replace(decision, checks=decision.checks + (check,), values=values)
    return replace(decision, passed=False, reason=Reason.READER_NOT_ANSWERABLE, checks=decision.checks + (check,),
                   tier=Tier.READER, values=values, confidence=min(decision.confidence, 0.49))


def _rescued(decision: GateDecision, best: Finding, values: dict[str, float], policy: Policy) -> GateDecision:
    """A rescuable refusal (GateDecision.rescuable) passed by the reader at its rescue's bar, or left as it was with
    the reader's check added; `values` are the decision's with the reader's probabilities (read_decision)."""
    bar = decision.rescue_bar(policy)
    check = Check("reader_rescue", "gate", (ok := best.probability >= bar), best.probability, bar,
                  ("the evidence scored low, but one sentence holds every word of the question"
                   if decision.rescued_by_words(policy) else "the evidence scored below min_confidence")
                  + "; the reader's P(the passage answers) "
                  f"{best.probability:.2f} in {best.chunk_id} (p. {best.page})"
                  + (f", answer span {best.span!r}" if best.span else ", no answer span")
                  + (": the reader found the answer, which is enough" if ok else ""), Reason.LOW_CONFIDENCE)
    if not ok:
        return replace(decision, checks=decision.checks + (check,), values=values)
    # the confidence check stays as it failed, for the diagnostics; the reader's check is what passed the question
    return replace(decision, passed=True, reason=Reason.ANSWERED, checks=decision.checks + (check,),
                   tier=Tier.READER, values=values)


def span_finding(span_reader: ReaderModel | None, question: Question | str, decision: GateDecision,
                 found: Finding | None, policy: Policy, band: GateDecision | None = None) -> Finding | None:
    """Where the answer is, by the span reader (`policy.span_reader`), in the windows around the best candidate
    sentences, once a short factual question passed (Question.asks_fact: the questions a bold first line answers);
    else the gate reader's own finding. Decides nothing: only the direct answer and the sentence it leads come from it.

    `band` is the decision before gate.widened joined chunks to `decision`: the windows of its best candidates are
    read too when widening changed them, so a joined chunk's sentence that ranks first ("the Aam Aadmi Party ... the
    Indian National Congress") adds a window rather than pushing out the band's ("Founded in 1885")."""
    q = as_question(question)
    if not _reads_span(span_reader, q, decision, policy):
        return found
    n = policy.span_reader_windows or policy.reader_windows
    wins = windows(decision.candidates, n)
    if band is not None and band is not decision:  # gate.widened returns the decision itself when it joins nothing
        wins += [w for w in windows(band.candidates, n) if w not in wins]
    return finding(span_reader.read(q.gate_text, [w.text for w in wins]), wins, q.asked_noun) or found


def _reads_span(span_reader: ReaderModel | None, q: Question, decision: GateDecision, policy: Policy) -> bool:
    return span_reader is not None and policy.span_reader and decision.passed and q.asks_fact


def span_decision(span_reader: ReaderModel | None, question: Question | str, decision: GateDecision,
                  found: Finding | None, policy: Policy, band: GateDecision | None = None
                  ) -> tuple[GateDecision, Finding | None]:
    """span_finding, and then the decision with the span check added for a question typed in English that asks for
    something the book must name (Question.asks_thing: who, where, when, which, how many): it is answered only when
    the span reader found an answer of that kind (Question.span_type; for "who", any: "pedlars" answers a "who") in
    the sentence it leads, with probability >= `min_thing_span_probability` (0: measured, as `thing_span_p` in its
    values, but not checked). A book that talks about the topic but never names the answer ("Which scientist defined
    acids ...?") gives the reader nothing of the kind to point at."""
    from tutor.answering.compose import quotable

    q = as_question(question)
    read = _reads_span(span_reader, q, decision, policy)
    found = span_finding(span_reader, q, decision, found, policy, band)
    bar = policy.min_thing_span_probability
    if policy.reading_thing_span and decision.passed and q.asks_thing and q.read_from == "Hindi":
        # a Devanagari question's reading (only Devanagari is read "from Hindi"): the reader of readings' span
        read, bar = True, policy.min_reading_thing_span_probability
    elif not read or not q.asks_thing or q.reading or q.script != LATIN:
        return decision, found
    # "pedlars", "whips": a "who" may be answered by no name, so any span counts for it
    needs = None if question_word(q.gate_text) in ("who", "whom", "whose") else q.span_type
    kind = _span_of_kind(found, quotable(found.sentence), needs) if found is not None and found.span else None
    p = kind[1] if kind else 0.0
    values = {**decision.values, "thing_span_p": round(p, 4)}  # measured at 0 too: calibration replays the bar
    if not bar:
        return replace(decision, values=values), found
    ok = p >= bar
    detail = (f"the span reader's most probable answer of the kind asked: P {p:.4f}, in {found.chunk_id} "
              f"(p. {found.page})" if p and found is not None
              else "the span reader found no answer of the kind asked (a name, a place, a time, a number) in the "
                   "passages")
    check = Check("answer_span", "gate", ok, round(p, 4), bar, detail, Reason.READER_NOT_ANSWERABLE)
    return _checked(decision, check, values), found


def _span_of_kind(found: Finding, lead: str, needs: re.Pattern[str] | None) -> tuple[str, float] | None:
    """The reader's most probable span inside the lead sentence that `needs` finds (any span when None), with its P."""
    for text, p in found.spans or ((found.span, 1.0),):
        if text and text in lead and (needs is None or needs.search(text)):
            return text, p
    return None


def direct_answer(question: Question | str, found: Finding, lead: str, policy: Policy) -> tuple[str, float | None]:
    """The bold first line and its probability (lead_with_span asks only for a short factual question): the reader's
    most probable span inside the lead sentence that is of the kind the question asks for (a number for "how many", a
    date for "when", a name for "who": Question.span_type),
    shown only when its probability clears `min_direct_answer_probability`; ("", P) when it does not, ("", None) when
    no span is of that kind."""
    q = as_question(question)
    if (kind := _span_of_kind(found, lead, q.span_type)) is None:
        return "", None
    text, p = kind
    shown = with_possessor(with_unit(with_asked_noun(text.strip(" ,;:"), lead, q.asked_noun), lead), lead)
    return (shown, p) if p >= policy.min_direct_answer_probability else ("", p)


def _stem(word: str) -> str:
    return word.lower().removesuffix("es") if word.lower().endswith(("ses", "xes", "ches", "shes")) \
        else word.lower().removesuffix("s")


def with_asked_noun(span: str, lead: str, noun: str) -> str:
    """The span with the noun the question asks for when the book's sentence puts it right after the span: "which
    acid" -> "methanoic acid" (not "methanoic"), "how many carats" -> "24 carat" (not "24"). The span as it is when
    the noun is already in it, or the sentence goes on otherwise."""
    if not noun or not span or _stem(noun) in {_stem(w) for w in re.findall(r"[A-Za-z-]+", span)}:
        return span
    at = lead.find(span)
    after = re.match(r"\s+([A-Za-z][A-Za-z-]*)\b", lead[at + len(span):]) if at >= 0 else None
    return f"{span} {after.group(1)}" if after and _stem(after.group(1)) == _stem(noun) else span


def with_possessor(span: str, lead: str) -> str:
    """The span with the name the book puts before it in the possessive: "left-hand rule" -> "Fleming's left-hand
    rule", "law" -> "Ohm's law" (the rule is known by its owner's name). Any other span as it is."""
    at = lead.find(span)
    owner = re.search(r"\b[A-Z][A-Za-z-]+['’]s\s+$", lead[:at]) if at > 0 else None
    return f"{owner.group(0)}{span}" if owner else span


# what a number is counted in, when the book writes it right after the number: "54 per cent", "220 V", "1.5 km",
# "3 crore", "25 °C" (symbols are matched as written: "V" is volts, "v" is not)
_UNIT = re.compile(
    r"\s*(per\s+cent|percent|%|°\s?[CF]|(?:(?:kilo|centi|milli|micro)?(?:metre|meter|gram|litre|liter|volt|ampere|watt|"
    r"joule|ohm|hertz|newton|pascal|second|calorie|tonne)s?|dioptres?|kelvin|crores?|lakhs?|millions?|billions?|"
    r"thousands?|hundreds?|hectares?|acres?|years?|months?|days?|hours?|minutes?|degrees?|km/h|"
    r"(?:k|c|m|µ|n)?(?:m|g|l|L|V|A|W|J|Hz|N|Pa|s)|Ω|kWh|D)(?:\s*(?:2|3|²|³)\b)?)(?![A-Za-z])")


def with_unit(span: str, lead: str) -> str:
    """A span that ends in a number with the unit the book writes right after it: "54" -> "54 per cent", "220" ->
    "220 V" (a bare number answers "how much" only half). Any other span as it is."""
    if not re.search(r"\d(?:[.,]\d+)?$", span):
        return span
    at = lead.find(span)
    unit = _UNIT.match(lead[at + len(span):]) if at >= 0 else None
    return f"{span}{unit.group(0).rstrip()}" if unit else span


def lead_with_span(draft: Draft, found: Finding | None, sources: Sequence[Source], question: Question | str = "",
                   policy: Policy | None = None, measures: dict | None = None
                   ) -> tuple[Draft, list[Source], str, dict]:
    """An extractive draft of a short factual question (Question.asks_fact) led by the sentence that holds the reader's
    answer span (added, cited, when the answerer had not chosen it; the others follow in the book's reading order, at
    most max_answer_sentences in all; any other question keeps the answerer's order), with the
    citations renumbered in the order they appear; returns the draft, its sources, the direct answer ("" when there
    is none to show) and `measures` with its probability as `direct_p` (direct_answer; shown or not)."""
    from tutor.answering.compose import draft_text, in_reading_order, quotable, renumbered

    policy, measures, q = policy or Policy(), dict(measures or {}), as_question(question)
    if not q.asks_fact or policy.definition_lead and keeps_definition(q, draft.sentences, found and found.span):
        found = None  # "why", "explain", and a definition the answer begins with: the answerer's first sentence leads
    n = next((s.n for s in sources if found is not None and s.chunk_id == found.chunk_id), None)
    lead_text = quotable(found.sentence) if found is not None and found.span else ""
    if n is None or not lead_text:
        return (*renumbered(draft, sources), "", measures)
    sents = list(draft.sentences)
    target = " ".join(lead_text.split())
    at = next((i for i, s in enumerate(sents) if " ".join(s.text.split()) == target), None)
    lead = sents.pop(at) if at is not None else AnswerSentence(lead_text, (n,), found.page)
    ordered = tuple(in_reading_order(lead, sents, sources, policy.max_answer_sentences))
    direct, p = direct_answer(q, found, lead_text, policy)
    if p is not None:
        measures["direct_p"] = round(p, 4)
    led, renumbered_sources = renumbered(replace(draft, text=draft_text(ordered), sentences=ordered), sources)
    return led, renumbered_sources, direct, measures


def check_support(reader: ReaderModel, sentences: Sequence[AnswerSentence], passages: Sequence[str | None],
                  policy: Policy) -> tuple[Check, list[float | None]]:
    """Each sentence an LLM wrote, read against the passage of the text it cites that supports it best (None: a
    quote or an uncited sentence, not read): every one must be supported with P >= min_support_probability."""
    idx = [i for i, p in enumerate(passages) if p]
    probs: list[float | None] = [None] * len(sentences)
    if idx:
        got = reader.supports([sentences[i].text for i in idx], [passages[i] for i in idx])  # type: ignore[misc]
        for i, p in zip(idx, got):
            probs[i] = round(p, 4)
    bad = [i + 1 for i, p in enumerate(probs) if p is not None and p < policy.min_support_probability]
    read = [p for p in probs if p is not None]
    detail = ("; ".join(f"sentence {i + 1}: {p:.2f}" for i, p in enumerate(probs) if p is not None)
              or "every sentence is a quote of the book (not read)")
    return Check("reader_support", "answer", not bad, min(read) if read else "not read",
                 policy.min_support_probability, detail, Reason.LOW_GROUNDING), probs


def llm_support_check(reader: ReaderModel, sentences: Sequence[AnswerSentence], sources: Sequence[Source],
                      policy: Policy) -> Check:
    """The reader's support head on each LLM sentence against the passage of its cited text that supports it
    best; quotes of the book and uncited sentences are not read (the other checks judge them)."""
    from tutor.safety.checks import quoted, supporting_passage

    by_n = {s.n: s.text for s in sources}
    passages = []
    for s in sentences:
        cited = " ".join(by_n[n] for n in s.citations if n in by_n)
        passages.append(None if not cited or quoted(s.text, cited) else supporting_passage(s.text, cited))
    return check_support(reader, sentences, passages, policy)[0]
