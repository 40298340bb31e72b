"""The reader's place in the question path, with a fake reader whose probabilities a test sets: which windows it
reads, the gate check (a question is answered only if some window answers it), the direct answer leading the
extractive answer, the support check on LLM sentences, and the calibration and held-out split that read it."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import pytest

from tutor.answering.extractive import Draft
from tutor.evaluation.calibrate import accepts, gate_values, permissive
from tutor.evaluation.questions import Question, split_questions
from tutor.pipeline import Tutor
from tutor.question import HINGLISH
from tutor.question import Question as Asked
from tutor.reader.model import Reading
from tutor.safety.answerability import (
    check_support,
    finding,
    lead_with_span,
    read_decision,
    span_decision,
    span_finding,
    windows,
)
from tutor.safety.gate import decide, widened
from tutor.testing import RecordingAnswerer
from tutor.text.terms import TermStats
from tutor.types import AnswerSentence, Passage

from helpers_safety import LIGHT, check, chunk, hits, policy


@dataclass
class FakeReader:
    """Answers with P = `p` for passages containing `needle` (and the span `span` where it occurs), else `other`;
    support: `support` for every claim. Records what it read."""

    needle: str = ""
    p: float = 0.9
    other: float = 0.05
    span: str = ""
    span_p: float = 1.0  # P(this span), the span head's
    support: float = 0.9
    read_calls: list = field(default_factory=list)
    support_calls: list = field(default_factory=list)

    def read(self, question, passages):
        self.read_calls.append((question, list(passages)))
        out = []
        for t in passages:
            hit = bool(self.needle) and self.needle in t
            i = t.find(self.span) if hit and self.span else -1
            start, end = max(i, 0), max(i, 0) + len(self.span) if i >= 0 else 0
            out.append(Reading(self.p if hit else self.other, self.span if i >= 0 else "", start, end,
                               spans=((start, end, self.span_p),) if i >= 0 else ()))
        return out

    def supports(self, claims, texts):
        self.support_calls.append((list(claims), list(texts)))
        return [self.support] * len(claims)


LONG = chunk("light:0010", "Light travels in straight lines. A convex lens converges parallel rays of light. "
             "The power of a lens is measured in dioptres. A concave lens diverges rays. Mirrors reflect light. "
             "Lenses are used in spectacles.", section="10.2 Lenses", page=5)


def _decision(question, chunks_scores, **pol):
    p = policy(**pol)
    return decide(question, hits(*chunks_scores), p, TermStats([c.text for c, _ in chunks_scores])), p


def test_windows_hold_three_sentences_around_each_candidate_one_per_place():
    decision, _ = _decision("What is the power of a lens measured in?", [(LONG, 0.8)])
    wins = windows(decision.candidates, 3)
    assert wins, "the gate found candidate sentences"
    top = wins[0]
    assert "dioptres" in top.text
    assert len({(w.hit.chunk.chunk_id, w.first) for w in wins}) == len(wins)
    for w in wins:
        assert LONG.text[w.offset:w.offset + len(w.text)] == w.text
        assert 1 <= sum(1 for s, e, _ in LONG.sentences if w.offset <= s and e <= w.offset + len(w.text)) <= 3


def test_reader_refuses_what_no_window_answers_and_says_so():
    decision, p = _decision("What is the power of a lens measured in?", [(LONG, 0.8)], min_reader_probability=0.5)
    assert decision.passed
    out, found = read_decision(FakeReader(needle="nowhere"), "What is the power of a lens measured in?", decision, p)
    assert not out.passed and out.reason == "reader_not_answerable" and out.tier == "reader"
    c = check(out.checks, "reader")
    assert not c.passed and c.value == pytest.approx(0.05) and c.threshold == 0.5
    assert out.values["reader_p"] == pytest.approx(0.05)
    assert found is not None and found.probability == pytest.approx(0.05)


def test_reader_passes_an_answering_window_and_finds_the_sentence_of_its_span():
    decision, p = _decision("What is the power of a lens measured in?", [(LONG, 0.8)], min_reader_probability=0.5)
    reader = FakeReader(needle="dioptres", p=0.93, span="dioptres")
    out, found = read_decision(reader, "What is the power of a lens measured in?", decision, p)
    assert out.passed and check(out.checks, "reader").passed
    assert found.span == "dioptres" and found.sentence == "The power of a lens is measured in dioptres."
    assert found.page == 5 and found.chunk_id == "light:0010"
    assert len(reader.read_calls) == 1 and len(reader.read_calls[0][1]) <= p.reader_windows


def test_reader_records_the_best_probability_of_its_first_k_windows():
    # the answering sentence is not in the first window read: calibration must see that one window would refuse
    decision, p = _decision("What is the power of a lens measured in?", [(LONG, 0.8)], reader_windows=3)
    wins = windows(decision.candidates, 3)
    at = next(i for i, w in enumerate(wins) if "Mirrors" in w.text)
    assert at > 0, "the test needs a later window that alone holds the needle"
    out, _ = read_decision(FakeReader(needle="Mirrors", p=0.9, other=0.1), "What is it?", decision, p)
    assert [out.values[f"reader_p{k}"] for k in range(1, len(wins) + 1)] == [
        0.9 if k > at else pytest.approx(0.1) for k in range(1, len(wins) + 1)]
    assert out.values["reader_p"] == pytest.approx(0.9)


@pytest.mark.parametrize("needle, reads", [("dioptres", [1]), ("Mirrors", [1, 2]), ("nowhere", [1, 2])])
def test_reader_stops_after_a_first_window_that_passes_and_decides_as_reading_all(needle, reads):
    decision, p = _decision("What is the power of a lens measured in?", [(LONG, 0.8)], reader_windows=3,
                            min_reader_probability=0.5)
    assert len(windows(decision.candidates, 3)) == 3 and "dioptres" in windows(decision.candidates, 3)[0].text
    early, full = FakeReader(needle=needle), FakeReader(needle=needle)
    out, found = read_decision(early, "What is it?", decision, p)
    whole, found_all = read_decision(full, "What is it?", decision, p.with_values(reader_stop_early=False))
    assert [len(c[1]) for c in early.read_calls] == reads and [len(c[1]) for c in full.read_calls] == [3]
    assert out.passed == whole.passed == (needle != "nowhere") and out.reason == whole.reason
    assert found.probability == found_all.probability


def test_reader_is_not_applied_to_a_hindi_question():
    decision, p = _decision("What is the power of a lens measured in?", [(LONG, 0.8)])
    reader = FakeReader(needle="nowhere")
    out, found = read_decision(reader, "लेंस की क्षमता किसमें मापी जाती है?", decision, p)
    c = check(out.checks, "reader")
    assert c.passed and c.value == "not applied" and found is None and not reader.read_calls


def _low_confidence(score=0.45, **pol):
    """The lens question with its evidence scoring `score`, under min_confidence 0.5 and the rescue at 0.35 / 0.8."""
    return _decision("What is the power of a lens measured in?", [(LONG, score)], **{
        "min_confidence": 0.5, "min_mean_confidence": 0.0, "min_term_coverage": 0.0, "min_rescue_confidence": 0.35,
        "min_rescue_reader_probability": 0.8, **pol})


def test_a_low_confidence_refusal_is_rescued_when_the_reader_finds_the_answer():
    decision, p = _low_confidence()
    assert not decision.passed and decision.reason == "low_confidence" and decision.rescuable(p)
    reader = FakeReader(needle="dioptres", p=0.93, span="dioptres")
    out, found = read_decision(reader, "What is the power of a lens measured in?", decision, p)
    assert out.passed and out.reason == "answered" and out.tier == "reader"
    assert not check(out.checks, "confidence").passed  # kept as it was, for the diagnostics
    rescue = check(out.checks, "reader_rescue")
    assert rescue.passed and rescue.value == pytest.approx(0.93) and rescue.threshold == 0.8
    assert found.span == "dioptres" and out.values["reader_p"] == pytest.approx(0.93)


def test_a_low_confidence_refusal_stays_refused_below_the_rescue_bar_or_the_rescue_score():
    decision, p = _low_confidence()
    # P 0.7 would pass the ordinary reader check (min_reader_probability) but not the rescue's higher bar
    out, _ = read_decision(FakeReader(needle="dioptres", p=0.7), "What is the power of a lens measured in?",
                           decision, p.with_values(min_reader_probability=0.15))
    assert not out.passed and out.reason == "low_confidence" and not check(out.checks, "reader_rescue").passed
    # evidence scoring under min_rescue_confidence is not read at all
    low, p = _low_confidence(score=0.3)
    assert not low.rescuable(p)
    reader = FakeReader(needle="dioptres", p=0.99)
    out, found = read_decision(reader, "What is the power of a lens measured in?", low, p)
    assert not out.passed and found is None and not reader.read_calls
    # nor when the rescue is off (1.0), or a second check failed too
    assert not decision.rescuable(p.with_values(min_rescue_confidence=1.0))
    two, p2 = _low_confidence(min_mean_confidence=0.9)
    assert not two.passed and [c.name for c in two.checks if not c.passed] != ["confidence"]
    assert not two.rescuable(p2)


def test_a_rescue_stops_early_only_at_the_rescue_bar():
    decision, p = _low_confidence(reader_windows=3, min_rescue_reader_probability=0.95, min_reader_probability=0.5)
    assert not decision.passed and decision.rescuable(p)
    reader = FakeReader(needle="dioptres", p=0.9)  # over the gate's bar, under the rescue's: the rest is read
    out, _ = read_decision(reader, "What is the power of a lens measured in?", decision, p)
    assert [len(c[1]) for c in reader.read_calls] == [1, 2] and not out.passed


def _scored_low(question="What is the power of a lens measured in?", score=0.25, **pol):
    """`question` against LONG scoring `score`: under the off-topic bar (0.3), min_confidence 0.5 and the mean's 0.35;
    the confidence rescue at 0.35 / 0.8, the rescue for every word at 0.2 / 0.9."""
    return _decision(question, [(LONG, score)], **{
        "min_confidence": 0.5, "min_mean_confidence": 0.35, "min_term_coverage": 0.0, "min_rescue_confidence": 0.35,
        "min_rescue_reader_probability": 0.8, "min_word_rescue_score": 0.2, "min_word_rescue_reader_probability": 0.9,
        **pol})


def test_a_refusal_for_its_scores_alone_is_read_when_one_sentence_holds_every_word_of_the_question():
    decision, p = _scored_low()
    failed = {c.name for c in decision.checks if not c.passed}
    assert not decision.passed and decision.reason == "off_topic" and failed == {"off_topic", "confidence",
                                                                                  "mean_confidence"}
    assert decision.word_rescuable(p) and decision.rescuable(p) and decision.rescued_by_words(p)
    assert decision.rescue_bar(p) == 0.9  # its own bar, not the confidence rescue's 0.8
    reader = FakeReader(needle="dioptres", p=0.93, span="dioptres")
    out, found = read_decision(reader, "What is the power of a lens measured in?", decision, p)
    rescue = check(out.checks, "reader_rescue")
    assert out.passed and out.tier == "reader" and rescue.threshold == 0.9 and "every word" in rescue.detail
    assert found.span == "dioptres"
    # P 0.85 would pass the confidence rescue (0.8) but not this one's bar
    out, _ = read_decision(FakeReader(needle="dioptres", p=0.85), "What is the power of a lens measured in?",
                           decision, p)
    assert not out.passed and out.reason == "off_topic" and not check(out.checks, "reader_rescue").passed


def test_the_rescue_for_every_word_needs_every_word_a_score_over_its_floor_and_no_other_failed_check():
    # a word the evidence lacks ("Mars")
    missing, p = _scored_low("What is the power of a lens measured in on Mars?")
    assert not missing.passed and not missing.word_rescuable(p) and not missing.rescuable(p)
    # under its floor, or off
    low, p = _scored_low(score=0.15)
    assert not low.passed and not low.word_rescuable(p)
    decision, p = _scored_low()
    assert not decision.word_rescuable(p.with_values(min_word_rescue_score=1.0))
    # a check that is not a score failed too: the question's number is not in the evidence
    numbered, p = _scored_low("What is the power of a lens of 25 cm measured in?")
    assert not numbered.passed and "question_numbers" in {c.name for c in numbered.checks if not c.passed}
    assert not numbered.word_rescuable(p)
    # a refusal the confidence rescue reads keeps the confidence rescue's bar
    conf, p = _low_confidence(min_word_rescue_score=0.2, min_word_rescue_reader_probability=0.9)
    assert conf.rescuable(p) and not conf.rescued_by_words(p) and conf.rescue_bar(p) == 0.8


def test_pipeline_answers_a_rescued_question_and_refuses_it_without_the_rescue(library):
    q = "What is the power of a lens measured in?"
    base = policy(min_confidence=0.99, min_mean_confidence=0.0, min_term_coverage=0.0)
    reader = FakeReader(needle="dioptres", p=0.95, span="dioptres")
    refused = Tutor(library, base, reader=reader).ask(q, "10", "science")
    assert refused.was_refusal and refused.reason == "low_confidence" and not reader.read_calls
    ans = Tutor(library, base.with_values(min_rescue_confidence=0.0, min_rescue_reader_probability=0.8),
                reader=reader).ask(q, "10", "science")
    assert not ans.was_refusal and ans.decided_by == "reader" and ans.direct_answer == "dioptres"
    assert check(ans.checks, "reader_rescue").passed


def test_span_sentence_leads_the_extractive_answer_and_is_added_when_missing():
    sources_decision, p = _decision("What is the power of a lens measured in?", [(LONG, 0.8)])
    from tutor.types import Source

    sources = [Source.from_hit(1, h) for h in sources_decision.evidence]
    other = AnswerSentence("Light travels in straight lines.", (1,), 5)
    draft = Draft("Light travels in straight lines. [1]", (other,))
    win = [w for w in windows(sources_decision.candidates, 3) if "dioptres" in w.text][0]
    at = win.text.find("dioptres")
    found = finding([Reading(0.9, "dioptres", at, at + 8)], [win])
    led, srcs, span, measures = lead_with_span(draft, found, sources, "What is the power of a lens measured in?")
    assert span == "dioptres" and measures == {"direct_p": 1.0}  # a reading without span probabilities: sure
    assert [s.text for s in led.sentences] == ["The power of a lens is measured in dioptres.",
                                              "Light travels in straight lines."]
    assert led.sentences[0].citations == (1,)
    assert led.text.startswith("The power of a lens is measured in dioptres. [1]")
    # no span: the draft is left as it was
    assert lead_with_span(draft, None, sources) == (draft, sources, "", {})


def test_the_span_reader_finds_the_direct_answer_and_never_decides(library):
    gate = FakeReader(needle="dioptres", span="lens")  # the gate's reader passes it, with a poor span
    spans = FakeReader(needle="dioptres", p=0.01, span="dioptres")  # the span reader's own P is never a decision
    t = Tutor(library, policy(), reader=gate, span_reader=spans)
    ans = t.ask("What is the power of a lens measured in?", "10", "science")
    assert not ans.was_refusal and ans.direct_answer == "dioptres" and len(spans.read_calls) == 1
    assert ans.measures["reader_p"] == pytest.approx(0.9)  # the gate's reader decided
    # a question the gate's reader refuses is never read for a span; with span_reader off, the gate reader's span
    refused = Tutor(library, policy(), reader=FakeReader(needle="nowhere"), span_reader=spans)
    assert refused.ask("What is the power of a lens measured in?", "10", "science").was_refusal
    assert len(spans.read_calls) == 1
    off = Tutor(library, policy(span_reader=False), reader=gate, span_reader=spans)
    assert off.ask("What is the power of a lens measured in?", "10", "science").direct_answer == "lens"
    assert len(spans.read_calls) == 1
    # an LLM writes its own sentences: the span is read (the gate's span check reads it) but leads nothing
    llm = RecordingAnswerer(reply="The power of a lens is measured in dioptres. [1]")
    by_llm = Tutor(library, policy(), answerer=llm, reader=gate, span_reader=spans).ask(
        "What is the power of a lens measured in?", "10", "science")
    assert llm.calls and len(spans.read_calls) == 2 and by_llm.direct_answer == ""


def test_support_check_fails_an_unsupported_llm_sentence_and_skips_quotes():
    p = policy(min_support_probability=0.5)
    sents = (AnswerSentence("Respiration is an endothermic process.", (1,)), AnswerSentence("Quoted.", (1,)))
    c, probs = check_support(FakeReader(support=0.1), sents, ["respiration is an exothermic process.", None], p)
    assert not c.passed and c.reason == "low_grounding" and probs == [0.1, None]
    c, _ = check_support(FakeReader(support=0.8), sents, ["respiration is an exothermic process.", None], p)
    assert c.passed


def test_pipeline_never_calls_the_answerer_when_the_reader_refuses(library):
    llm = RecordingAnswerer(reply="The power of a lens is measured in dioptres. [1]")
    t = Tutor(library, policy(), answerer=llm, reader=FakeReader(needle="nowhere"))
    ans = t.ask("What is the power of a lens measured in?", "10", "science")
    assert ans.was_refusal and ans.reason == "reader_not_answerable" and ans.decided_by == "reader"
    assert llm.calls == [] and not ans.llm_called
    assert "reader" in ans.timings_ms and ans.measures["reader_p"] == pytest.approx(0.05)


def test_pipeline_answers_with_the_direct_answer_first(library):
    t = Tutor(library, policy(), reader=FakeReader(needle="dioptres", span="dioptres"))
    ans = t.ask("What is the power of a lens measured in?", "10", "science")
    assert not ans.was_refusal and ans.direct_answer == "dioptres"
    assert "dioptres" in ans.sentences[0].text and ans.sentences[0].citations
    assert ans.to_dict()["direct_answer"] == "dioptres"


def test_pipeline_reads_llm_sentences_with_the_support_head(library):
    llm = RecordingAnswerer(reply="Lens power is given in dioptres by the book. [1]")
    reader = FakeReader(needle="dioptres", support=0.05)
    t = Tutor(library, policy(min_token_overlap=0.0, min_window_overlap=0.0, min_sentence_similarity=-1.0,
                              min_answer_word_share=0.0), answerer=llm, reader=reader)
    ans = t.ask("What is the power of a lens measured in?", "10", "science")
    assert ans.was_refusal and ans.reason == "low_grounding"
    assert not check(ans.checks, "reader_support").passed and reader.support_calls


def test_selected_passage_is_read_too(library):
    t = Tutor(library, policy(), reader=FakeReader(needle="nowhere"))
    ans = t.ask("What is the power of a lens measured in?", "10", "science",
                selected=Passage("The power of a lens is measured in dioptres. A convex lens converges light."))
    assert ans.was_refusal and ans.reason == "selected_text_insufficient"
    assert not check(ans.checks, "reader").passed


def test_calibration_reads_the_reader_probability():
    g = {"best": 0.8, "unknown": 0.0, "term_coverage": 1.0, "answerability": 1.0, "numbers_ok": 1.0, "mean": 0.8,
         "polarity_ok": 1.0, "definition": 0.0, "type_ok": 1.0, "names_ok": 1.0, "reader_p": 0.3}
    assert not accepts(g, policy(min_reader_probability=0.5))
    assert accepts(g, policy(min_reader_probability=0.2))
    assert accepts(g, policy(min_reader_probability=0.5, reader=False))
    assert accepts({**g, "reader_p": 1.0}, policy(min_reader_probability=0.9))  # not read: no constraint


def test_calibration_replays_the_span_check_from_the_span_probability_measured_with_it_off(library):
    g = {"best": 0.8, "unknown": 0.0, "term_coverage": 1.0, "answerability": 1.0, "numbers_ok": 1.0, "mean": 0.8,
         "polarity_ok": 1.0, "definition": 0.0, "type_ok": 1.0, "names_ok": 1.0, "reader_p": 0.9,
         "thing_span_p": 0.05}
    assert not accepts(g, policy(min_thing_span_probability=0.2))
    assert accepts(g, policy(min_thing_span_probability=0.01)) and accepts(g, policy(min_thing_span_probability=0.0))
    assert accepts({k: v for k, v in g.items() if k != "thing_span_p"}, policy(min_thing_span_probability=0.9))
    # the permissive policy calibration records under measures it without refusing on it
    assert permissive(policy(min_thing_span_probability=0.2)).min_thing_span_probability == 0.0
    gate = FakeReader(needle="dioptres", span="dioptres")
    t = Tutor(library, permissive(policy(min_thing_span_probability=0.2)), reader=gate,
              span_reader=FakeReader(needle="dioptres", span="dioptres", span_p=0.05))
    ans = t.ask("In which unit is the power of a lens measured?", "10", "science")
    assert not ans.was_refusal and gate_values(ans)["thing_span_p"] == pytest.approx(0.05)


def test_calibration_reads_as_many_windows_as_the_policy_reads():
    g = {"best": 0.8, "unknown": 0.0, "term_coverage": 1.0, "answerability": 1.0, "numbers_ok": 1.0, "mean": 0.8,
         "polarity_ok": 1.0, "definition": 0.0, "type_ok": 1.0, "names_ok": 1.0, "reader_p": 0.7,
         "reader_p1": 0.1, "reader_p2": 0.1, "reader_p3": 0.7}
    assert not accepts(g, policy(min_reader_probability=0.5, reader_windows=1))
    assert not accepts(g, policy(min_reader_probability=0.5, reader_windows=2))
    assert accepts(g, policy(min_reader_probability=0.5, reader_windows=3))
    # a record made before the windows were recorded reads as all of them
    old = {k: v for k, v in g.items() if not k.startswith("reader_p") or k == "reader_p"}
    assert accepts(old, policy(min_reader_probability=0.5, reader_windows=1))


def test_policy_rejects_impossible_reader_settings():
    from tutor.errors import PolicyError

    with pytest.raises(PolicyError, match="min_reader_probability"):
        policy(min_reader_probability=1.5)
    with pytest.raises(PolicyError, match="reader_windows"):
        policy(reader_windows=0)


def _q(id_, expect, library, gold=None):
    return Question(id_, "q?", expect, "10", "x", library, gold, None, None, "o")


def test_held_out_split_is_by_article_and_chapter(tmp_path):
    import json

    from tutor.reader.examples import heldout_articles, heldout_chapter

    data = {"data": [{"title": t, "paragraphs": [{"context": "c", "qas": [{"id": f"id-{t}", "question": "q"}]}]}
                     for t in ("Alpha", "Beta", "Gamma", "Delta")]}
    path = tmp_path / "train.json"
    path.write_text(json.dumps(data))
    held = {t.lower() for t in heldout_articles(["Alpha", "Beta", "Gamma", "Delta"])}
    assert len(held) == 2
    qs = [_q(f"squad2-id-{t}", "refuse", "squad2") for t in ("Alpha", "Beta", "Gamma", "Delta")]
    qs += [_q(f"a-{t}", "answer", "squad2", f"squad2/x/{t.lower()}.pdf") for t in ("Alpha", "Beta", "Gamma", "Delta")]
    qs += [_q(f"n-{c}", "answer", "ncert", f"ncert/x/{c}.pdf") for c in ("jesc101", "jesc102", "jess301", "jemh105")]
    h, t = split_questions(qs, "heldout", path), split_questions(qs, "tuning", path)
    assert len(h) + len(t) == len(qs) and not {q.id for q in h} & {q.id for q in t}
    for q in h:
        if q.library == "squad2":
            assert q.id.split("-")[-1].lower() in held
        else:
            assert heldout_chapter(q.id.split("-")[-1])
    assert split_questions(qs, "all", path) == qs


def test_a_reading_whose_sentence_names_the_asked_noun_is_preferred_when_likely_enough():
    from tutor.safety.answerability import Window

    metals = chunk("met:0001", "Metals are good conductors. They are solids at room temperature, except mercury "
                               "which is a liquid.")
    nonmetals = chunk("met:0002", "The non-metals are either solids or gases except bromine which is a liquid.")
    wins = [Window(h, 0, h.chunk.text, 0) for h in hits((metals, 0.8), (nonmetals, 0.7))]

    def reading(win, span, p):
        at = win.text.find(span)
        return Reading(p, span, at, at + len(span))

    readings = [reading(wins[0], "mercury", 0.98), reading(wins[1], "bromine", 0.6)]
    # "which non-metal": the sentence naming non-metals wins over the more probable one that names only metals
    assert finding(readings, wins, "non-metal").span == "bromine"
    # no noun asked for, or the naming reading is less likely than not: the most probable reading, as before
    assert finding(readings, wins).span == "mercury"
    assert finding([readings[0], reading(wins[1], "bromine", 0.4)], wins, "non-metal").span == "mercury"
    # "which metal": neither sentence names it ("non-metals" is another word): the most probable reading
    assert finding(readings, wins, "metal").span == "mercury"
    # a noun that names the answer's measure ("in which year") prefers nothing
    years = [Window(h, 0, h.chunk.text, 0) for h in hits((chunk("y:1", "Ford came to India in 1995."), 0.8),
                                                         (chunk("y:2", "In the year 2017 sales grew."), 0.7))]
    assert finding([reading(years[0], "1995", 0.9), reading(years[1], "2017", 0.8)], years, "year").span == "1995"


def test_the_span_reader_still_reads_the_bands_windows_when_a_joined_chunk_outranks_them():
    refraction, lenses, mirrors, _ = LIGHT
    q = "In what unit is the power of a lens measured?"
    hs = hits((lenses, 0.45), (refraction, 0.8), (mirrors, 0.5))
    p = policy(min_term_coverage=0.0, min_sentence_coverage=0.0, require_answer_type=False, span_reader_windows=1,
               evidence_fused_top=1)
    stats = TermStats([c.text for c in LIGHT])
    band = decide(q, hs, p, stats)
    wide = widened(band, hs, q, stats, p)
    assert band.passed and wide.candidates[0].hit.chunk.chunk_id == "light:0001"  # the joined chunk leads
    # a reader that finds its answer only in the band's chunk (the book's sentence the joined one pushed out)
    spans = FakeReader(needle="boundary", span="boundary", p=0.9)
    assert span_finding(spans, q, wide, None, p).span == ""  # one window: the joined chunk's alone
    found = span_finding(spans, q, wide, None, p, band)
    assert found.span == "boundary" and found.chunk_id == "light:0000"
    assert [len(passages) for _, passages in spans.read_calls] == [1, 2]
    # not widened (the band's candidates as they were): its windows only, read once
    spans.read_calls.clear()
    assert span_finding(spans, q, band, None, p, band).span == "boundary"
    assert [len(passages) for _, passages in spans.read_calls] == [1]


def test_a_question_after_something_named_is_refused_when_the_span_reader_finds_no_likely_answer(library):
    q = "In which unit is the power of a lens measured?"
    gate = FakeReader(needle="dioptres", span="dioptres")  # the gate's reader would answer it
    llm = RecordingAnswerer(reply="The power of a lens is measured in dioptres. [1]")
    unsure = FakeReader(needle="dioptres", span="dioptres", span_p=0.05)
    ans = Tutor(library, policy(min_thing_span_probability=0.2), answerer=llm, reader=gate,
                span_reader=unsure).ask(q, "10", "science")
    assert ans.was_refusal and ans.reason == "reader_not_answerable" and not llm.calls  # before any LLM call
    span_check = next(c for c in ans.checks if c.name == "answer_span")
    assert not span_check.passed and span_check.value == pytest.approx(0.05) and span_check.threshold == 0.2
    assert ans.measures["thing_span_p"] == pytest.approx(0.05)
    sure = FakeReader(needle="dioptres", span="dioptres", span_p=0.6)
    ans = Tutor(library, policy(min_thing_span_probability=0.2), reader=gate, span_reader=sure).ask(q, "10", "science")
    assert not ans.was_refusal and ans.direct_answer == "dioptres"
    assert next(c for c in ans.checks if c.name == "answer_span").passed
    # not checked at 0, nor for a question that asks for a description ("what ... in?" is not "which")
    off = Tutor(library, policy(min_thing_span_probability=0.0), reader=gate, span_reader=unsure)
    assert not off.ask(q, "10", "science").was_refusal
    on = Tutor(library, policy(min_thing_span_probability=0.2), reader=gate, span_reader=unsure)
    described = on.ask("What is the power of a lens measured in?", "10", "science")
    assert not described.was_refusal and all(c.name != "answer_span" for c in described.checks)


def test_the_span_check_wants_an_answer_of_the_kind_asked_and_reads_no_reading():
    q = "When was the power of a lens first measured in dioptres?"
    decision, p = _decision(q, [(LONG, 0.8)], min_thing_span_probability=0.2, min_sentence_coverage=0.0,
                            min_term_coverage=0.0, require_answer_type=False, require_names=False,
                            require_question_numbers=False)
    assert decision.passed
    # the span is sure, but "when" asks for a time and "dioptres" is none: nothing of the kind to point at
    spans = FakeReader(needle="dioptres", span="dioptres", span_p=0.9)
    out, found = span_decision(spans, q, decision, None, p)
    assert found.span == "dioptres" and not out.passed and out.values["thing_span_p"] == 0.0
    assert "no answer of the kind asked" in out.checks[-1].detail
    # "who" may be answered by a word that is no name ("pedlars"): any span counts
    out, _ = span_decision(spans, "Who measured the power of a lens in dioptres?", decision, None, p)
    assert out.passed and out.values["thing_span_p"] == pytest.approx(0.9)
    # a Hinglish question's English reading is telegraphic: the span reader's P says little of it, so it is not held
    typed = Asked.of(q)
    reading = replace(typed, reading=typed.text, script=HINGLISH)
    out, _ = span_decision(spans, reading, decision, None, p)
    assert out.passed and out is decision


def test_a_devanagari_readings_thing_question_is_held_to_the_reader_of_readings_span_where_measured():
    q = "Who measured the power of a lens in dioptres?"
    decision, p = _decision(q, [(LONG, 0.8)], min_thing_span_probability=0.2, min_sentence_coverage=0.0,
                            min_term_coverage=0.0, require_answer_type=False, require_names=False,
                            require_question_numbers=False, reading_thing_span=True,
                            min_reading_thing_span_probability=0.95)
    _, found = span_decision(FakeReader(needle="dioptres", span="dioptres", span_p=0.9), q, decision, None, p)
    reading = replace(Asked.read("लेंस की क्षमता डायोप्टर में किसने मापी?"), reading=q, read_from="Hindi")
    # no span reader reads a reading: the reader of readings' own finding is held to the bar
    out, _ = span_decision(None, reading, decision, found, p)
    assert not out.passed and out.values["thing_span_p"] == pytest.approx(0.9)
    assert out.checks[-1].name == "answer_span" and out.checks[-1].threshold == 0.95
    out, _ = span_decision(None, reading, decision, found, p.with_values(min_reading_thing_span_probability=0.5))
    assert out.passed and out.values["thing_span_p"] == pytest.approx(0.9)
    # measured at 0, checked by nothing; and not at all unless reading_thing_span says so
    out, _ = span_decision(None, reading, decision, found, p.with_values(min_reading_thing_span_probability=0.0))
    assert out.passed and out.values["thing_span_p"] == pytest.approx(0.9)
    out, _ = span_decision(None, reading, decision, found, p.with_values(reading_thing_span=False))
    assert out is decision
