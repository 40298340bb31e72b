"""Evaluation on hand-made answers: false acceptance, false refusal, coverage only when the gold file is cited by a
sentence that is not the question printed again, page accuracy, answer recall; calibration curves and their pick."""
from __future__ import annotations

import pytest
from helpers_paths import TEST_DATA

from tutor.evaluation.calibrate import accepts, calibrate, gate_values, pareto, permissive, recommend, trade_off
from tutor.evaluation.evaluate import evaluate, judge, restates_question, summarise
from tutor.evaluation.questions import Question, load_questions
from tutor.types import REFUSAL_SENTENCE, AnswerSentence, TutorAnswer

from helpers_safety import policy, source

LENS_Q = "What is the power of a lens measured in?"
LENS_TEXT = "The power of a lens is measured in dioptres."


def question(expect="answer", qid="q1", origin="textbook", gold_file="books/class-10/science/light.pdf",
             gold_pages=(5,), answers=("dioptres",), text=LENS_Q) -> Question:
    return Question(qid, text, expect, "10", "science", "ncert", gold_file if expect == "answer" else None,
                    gold_pages if expect == "answer" else None, answers if expect == "answer" else None, origin)


def answer(sentences=((LENS_TEXT, (1,), 5),), sources=None, question=LENS_Q, ms=None) -> TutorAnswer:
    sources = sources or (source(1, LENS_TEXT, file="light.pdf", page=5),)
    sents = tuple(AnswerSentence(t, c, p) for t, c, p in sentences)
    return TutorAnswer(question=question, klass="10", subject="science", mode="library",
                       answer=" ".join(f"{s.text} [{s.citations[0]}]" for s in sents if s.citations),
                       was_refusal=False, reason="answered", message="", confidence=0.8, sentences=sents,
                       sources=tuple(sources), timings_ms=ms or {"embed": 2.0, "gate": 1.0, "audit": 50.0})


def refusal(question=LENS_Q, reason="low_confidence") -> TutorAnswer:
    return TutorAnswer(question=question, klass="10", subject="science", mode="library", answer=REFUSAL_SENTENCE,
                       was_refusal=True, reason=reason, message="", confidence=0.2, timings_ms={"gate": 1.0})


# ---------------------------------------------------------------- judge


def test_answer_citing_the_gold_file_on_the_gold_page_is_covered():
    r = judge(question(), answer())
    assert (r["answered"], r["covered"], r["page_ok"], r["answer_ok"]) == (True, True, True, True)
    assert r["ms"] == 3.0  # audit time is not the student's wait


def test_coverage_requires_citing_the_gold_file():
    other = (source(1, LENS_TEXT, file="lenses-extra.pdf", page=5),)
    r = judge(question(), answer(sources=other))
    assert r["answered"] and not r["covered"]
    assert r["page_ok"] is False  # right page number, wrong book


def test_gold_file_only_counts_when_a_sentence_cites_it():
    srcs = (source(1, "Light bends.", file="other.pdf", page=5), source(2, LENS_TEXT, file="light.pdf", page=5))
    assert not judge(question(), answer(sentences=((LENS_TEXT, (1,), 5),), sources=srcs))["covered"]
    assert judge(question(), answer(sentences=((LENS_TEXT, (2,), 5),), sources=srcs))["covered"]


def test_restated_question_does_not_count():
    # an exercise line that prints the question again, cited to the gold file, answers nothing
    r = judge(question(), answer(sentences=((LENS_Q, (1,), 5),),
                                 sources=(source(1, LENS_Q, file="light.pdf", page=5),)))
    assert r["answered"] and not r["covered"]
    assert r["page_ok"] is False and r["answer_ok"] is False


def test_restates_question_needs_most_of_the_same_terms():
    assert restates_question("What is the power of a lens measured in?", LENS_Q)
    assert restates_question("Power of a lens: measured in?", LENS_Q)
    assert not restates_question(LENS_TEXT + " One dioptre is the power of a lens of focal length one metre.", LENS_Q)


@pytest.mark.parametrize("page, page_end, sentence_page, ok", [
    (5, 5, 5, True),
    (4, 6, None, True),   # the cited chunk spans the gold page
    (7, 8, 7, False),
    (7, 8, None, False),
])
def test_page_accuracy(page, page_end, sentence_page, ok):
    srcs = (source(1, LENS_TEXT, file="light.pdf", page=page, page_end=page_end),)
    r = judge(question(gold_pages=(5,)), answer(sentences=((LENS_TEXT, (1,), sentence_page),), sources=srcs))
    assert r["page_ok"] is ok


def test_a_gold_page_number_from_another_book_is_not_page_accuracy():
    srcs = (source(1, "Lenses bend light.", file="other.pdf", page=5),
            source(2, LENS_TEXT, file="light.pdf", page=9))
    r = judge(question(gold_pages=(5,)), answer(sentences=(("Lenses bend light.", (1,), 5), (LENS_TEXT, (2,), 9)),
                                                sources=srcs))
    assert r["covered"]  # the gold file is cited ...
    assert r["page_ok"] is False  # ... but never on a gold page


def test_answer_recall_looks_for_a_gold_answer_in_the_sentences():
    assert judge(question(answers=("Dioptres", "D")), answer())["answer_ok"] is True
    assert judge(question(answers=("watts",)), answer())["answer_ok"] is False
    assert judge(question(answers=None), answer())["answer_ok"] is None


def test_direct_answer_and_first_sentence_accuracy_count_a_refusal_and_a_missing_bold_line_as_wrong():
    from dataclasses import replace

    led = replace(answer(sentences=((LENS_TEXT, (1,), 5), ("Lenses bend light.", (1,), 5))), direct_answer="dioptres")
    r = judge(question(), led)
    assert (r["direct_ok"], r["first_ok"]) == (True, True)
    second = answer(sentences=(("Lenses bend light.", (1,), 5), (LENS_TEXT, (1,), 5)))
    r = judge(question(), second)  # no bold line; the answer is only in the second sentence
    assert (r["direct_ok"], r["first_ok"], r["answer_ok"]) == (False, False, True)
    assert (judge(question(), refusal())["direct_ok"], judge(question(), refusal())["first_ok"]) == (False, False)
    assert judge(question(answers=None), led)["direct_ok"] is None
    m = summarise([judge(question(qid=str(i)), a) for i, a in enumerate((led, second, refusal()))])
    assert m["direct_answer_accuracy"] == m["first_sentence_accuracy"] == 0.3333  # rates to four places
    assert m["direct_answer_shown"] == 0.3333 and m["direct_answer_precision"] == 1.0
    # at a bar above a shown answer's probability it is not shown; a row with no probability is shown at bar 0 only
    rows = [judge(question(qid="a"), led), judge(question(qid="b"), replace(led, measures={"direct_p": 0.4}))]
    bars = summarise(rows)["direct_answer_by_bar"]
    assert bars["0.00"] == {"accuracy": 1.0, "precision": 1.0, "shown": 1.0}
    assert bars["0.50"] == {"accuracy": 0.0, "precision": None, "shown": 0.0}
    assert bars["0.40"]["shown"] == 0.5


def test_a_question_file_that_names_each_questions_half_is_split_that_way(tmp_path):
    from tutor.evaluation.questions import split_questions

    lines = [{"id": f"sa-{i}", "question": "What is it?", "expect": "answer", "class": "10", "subject": "science",
              "library": "ncert", "gold_file": "ncert/class-10/science/jesc112.pdf", "gold_pages": [1],
              "answers": ["it"], "split": "heldout" if i % 2 else "tuning"} for i in range(6)]
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(__import__("json").dumps(d) for d in lines))
    qs = load_questions(path)
    assert [q.id for q in split_questions(qs, "heldout")] == ["sa-1", "sa-3", "sa-5"]
    assert [q.id for q in split_questions(qs, "tuning")] == ["sa-0", "sa-2", "sa-4"]
    # a test file nobody tunes on (split "test") is held out whole, never part of what calibration reads
    path.write_text("\n".join(__import__("json").dumps({**d, "split": "test"}) for d in lines))
    assert len(split_questions(load_questions(path), "heldout")) == 6
    assert split_questions(load_questions(path), "tuning") == []


def test_refusal_of_an_answerable_question():
    r = judge(question(), refusal())
    assert (r["answered"], r["covered"], r["page_ok"], r["answer_ok"], r["reason"]) == (
        False, False, None, None, "low_confidence")


def test_answering_an_unanswerable_question_is_not_covered():
    r = judge(question(expect="refuse"), answer())
    assert r["answered"] and not r["covered"] and r["expect"] == "refuse"


# ---------------------------------------------------------------- summarise and evaluate


def test_summarise_false_acceptance_false_refusal_coverage():
    rows = [
        judge(question(qid="a1"), answer()),                                   # answered, covered
        judge(question(qid="a2"), answer(sources=(source(1, LENS_TEXT, file="x.pdf", page=5),))),  # wrong file
        judge(question(qid="a3"), refusal()),                                  # false refusal
        judge(question(qid="a4"), refusal(reason="not_answerable")),           # false refusal
        judge(question("refuse", qid="r1"), answer()),                         # false acceptance
        judge(question("refuse", qid="r2"), refusal(reason="off_topic")),
        judge(question("refuse", qid="r3"), refusal(reason="off_topic")),
        judge(question("refuse", qid="r4"), refusal()),
    ]
    s = summarise(rows)
    assert (s["questions"], s["answerable"], s["unanswerable"]) == (8, 4, 4)
    assert s["false_acceptance_rate"] == 0.25
    assert s["false_refusal_rate"] == 0.5
    assert s["coverage"] == 0.25
    assert s["page_accuracy"] == 0.5      # a1 right, a2 wrong file
    assert s["answer_recall"] == 1.0      # both answered ones quote "dioptres"
    assert s["refusal_reasons"] == {"low_confidence": 2, "off_topic": 2, "not_answerable": 1}


def test_summarise_without_either_kind_gives_none_not_zero():
    only_answerable = summarise([judge(question(), answer())])
    assert only_answerable["false_acceptance_rate"] is None and only_answerable["coverage"] == 1.0
    only_refuse = summarise([judge(question("refuse"), refusal())])
    assert only_refuse["false_refusal_rate"] is None and only_refuse["coverage"] is None
    assert only_refuse["false_acceptance_rate"] == 0.0


def test_evaluate_asks_every_question_and_splits_by_origin():
    qs = [question(qid="a1", origin="textbook"), question(qid="a2", origin="paraphrase"),
          question("refuse", qid="r1", origin="paraphrase")]
    replies = {"a1": answer(), "a2": refusal(), "r1": answer()}
    asked, progress = [], []
    out = evaluate(qs, lambda q: asked.append(q.id) or replies[q.id], progress=lambda i, n: progress.append((i, n)))
    assert asked == ["a1", "a2", "r1"] and progress == [(1, 3), (2, 3), (3, 3)]
    assert out["false_acceptance_rate"] == 1.0 and out["coverage"] == 0.5
    assert out["by_origin"]["textbook"]["coverage"] == 1.0
    assert out["by_origin"]["paraphrase"]["coverage"] == 0.0
    assert out["by_origin"]["paraphrase"]["false_acceptance_rate"] == 1.0
    assert [r["id"] for r in out["items"]] == ["a1", "a2", "r1"]


def test_load_questions_reads_the_jsonl_schema(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(
        '{"id": "a", "question": "Q1?", "expect": "answer", "class": 10, "subject": "science", "library": "ncert",'
        ' "gold_file": "x/light.pdf", "gold_pages": [5, 6], "answers": ["dioptre"], "origin": "textbook"}\n\n'
        '{"id": "b", "question": "Q2?", "expect": "refuse", "class": "10", "subject": "science", "library": "ncert"}\n')
    a, b = load_questions(path)
    assert (a.klass, a.gold_pages, a.answers, a.gold_file) == ("10", (5, 6), ("dioptre",), "x/light.pdf")
    assert (b.expect, b.gold_file, b.gold_pages, b.answers, b.origin) == ("refuse", None, None, None, "")
    assert len(load_questions(path, limit=1)) == 1


# ---------------------------------------------------------------- calibration


def measured(**measures) -> TutorAnswer:
    return TutorAnswer(question="q", klass="10", subject="science", mode="library", answer="", was_refusal=True,
                       reason="low_confidence", message="", confidence=0.1, measures=measures)


def gate(best, unknown=0.0, term_coverage=1.0, answerability=1.0, numbers_ok=1.0, mean=None):
    """Recorded gate values, made the way calibration makes them (gate_values of a measured answer)."""
    return gate_values(measured(best=best, unknown=unknown, coverage=term_coverage, sentence_coverage=answerability,
                                numbers_ok=numbers_ok, mean=best if mean is None else mean))


RECORDS = [
    {"expect": "answer", "gate": gate(0.8), "covered_if_answered": True, "passes_checks": True},
    {"expect": "answer", "gate": gate(0.6), "covered_if_answered": True, "passes_checks": True},
    {"expect": "answer", "gate": gate(0.4), "covered_if_answered": True, "passes_checks": True},
    {"expect": "refuse", "gate": gate(0.7), "covered_if_answered": False, "passes_checks": True},
    {"expect": "refuse", "gate": gate(0.5), "covered_if_answered": False, "passes_checks": True},
    {"expect": "refuse", "gate": gate(0.9), "covered_if_answered": False, "passes_checks": False},  # checks catch it
]
BASE = policy(offtopic_max_score=-1.0, min_mean_confidence=-1.0, min_term_coverage=0.0, min_sentence_coverage=0.0,
              unknown_term_penalty=0.0)
GRID = {"min_confidence": [0.35, 0.45, 0.55, 0.56, 0.65, 0.75, 0.85]}


def test_trade_off_counts_false_acceptance_and_coverage_per_threshold():
    curve = trade_off(RECORDS, BASE, GRID)
    got = {c["min_confidence"]: (c["false_acceptance_rate"], c["coverage"]) for c in curve}
    assert got == {0.35: (0.6667, 1.0), 0.45: (0.6667, 0.6667), 0.55: (0.3333, 0.6667), 0.56: (0.3333, 0.6667),
                   0.65: (0.3333, 0.3333), 0.75: (0.0, 0.3333), 0.85: (0.0, 0.0)}


def test_recommend_picks_the_highest_coverage_under_the_false_acceptance_target():
    curve = trade_off(RECORDS, BASE, GRID)
    assert recommend(curve, 0.34)["min_confidence"] == 0.56  # ties with 0.55: the stricter threshold
    assert recommend(curve, 0.0)["min_confidence"] == 0.75
    assert recommend(curve, 1.0)["min_confidence"] == 0.35
    assert recommend(curve, -0.01) is None
    for target in (0.0, 0.34, 0.7):
        pick = recommend(curve, target)
        ok = [c for c in curve if c["false_acceptance_rate"] <= target]
        assert pick["false_acceptance_rate"] <= target
        assert pick["coverage"] == max(c["coverage"] for c in ok)


def test_pareto_front_is_monotone_and_undominated():
    curve = trade_off(RECORDS, BASE, GRID)
    front = pareto(curve)
    fas = [p["false_acceptance_rate"] for p in front]
    covs = [p["coverage"] for p in front]
    assert fas == sorted(set(fas)) and covs == sorted(set(covs))  # both strictly rising
    assert [(p["false_acceptance_rate"], p["coverage"]) for p in front] == [(0.0, 0.3333), (0.3333, 0.6667),
                                                                            (0.6667, 1.0)]
    for c in curve:  # every point is matched or beaten by a front point
        assert any(p["false_acceptance_rate"] <= c["false_acceptance_rate"] and p["coverage"] >= c["coverage"]
                   for p in front)


def test_calibration_reports_what_each_cue_buys_even_when_no_policy_meets_the_bounds():
    # a second file no threshold can keep under 10% false acceptance: nothing is recommended, yet the ablation and
    # the ideas are still measured (at the base policy), so a cue that buys nothing can still be seen and dropped
    hopeless = [{"expect": "refuse", "gate": gate(0.9), "covered_if_answered": False, "passes_checks": True},
                {"expect": "answer", "gate": gate(0.2), "covered_if_answered": True, "passes_checks": True}]
    cal = calibrate({"a.jsonl": RECORDS, "b.jsonl": hopeless}, BASE, 0.34, others_max_fa=0.1,
                    others_min_coverage=0.5, grid=GRID)
    assert cal.recommended is None and cal.chosen is None
    assert set(cal.ablation) == {"a.jsonl", "b.jsonl"} and set(cal.ideas) == {"a.jsonl", "b.jsonl"}
    rows = {r["without"]: r for r in cal.ablation["b.jsonl"]}
    assert rows["all on"]["false_acceptance_rate"] == 1.0  # the 0.9 refusal passes at the base policy
    met = calibrate({"a.jsonl": RECORDS}, BASE, 0.34, others_max_fa=1.0, others_min_coverage=0.0, grid=GRID)
    assert met.chosen is not None and met.chosen.min_confidence == 0.56 and met.ablation["a.jsonl"]


def test_accepts_applies_every_gate_threshold():
    pol = policy(min_confidence=0.5, unknown_term_penalty=0.3, offtopic_max_score=0.3, min_mean_confidence=0.4,
                 min_term_coverage=0.3, min_sentence_coverage=0.3, require_question_numbers=True)
    assert accepts(gate(0.6), pol)
    assert not accepts(gate(0.6, unknown=0.5), pol)          # 0.6 - 0.15 < 0.5
    assert not accepts(gate(0.6, mean=0.39), pol)
    assert not accepts(gate(0.6, term_coverage=0.2), pol)
    assert not accepts(gate(0.6, answerability=0.2), pol)
    assert not accepts(gate(0.6, numbers_ok=0.0), pol)
    assert accepts(gate(0.6, numbers_ok=0.0), pol.with_values(require_question_numbers=False))
    assert accepts(gate(-0.5, term_coverage=0.0, answerability=0.0, numbers_ok=0.0), permissive(pol))


def test_gate_values_read_the_measures_of_an_answer():
    g = gate_values(measured(best=0.42, unknown=0.1, coverage=0.5, sentence_coverage=0.3, numbers_ok=0.0, mean=0.4))
    assert {k: g[k] for k in ("best", "unknown", "term_coverage", "answerability", "numbers_ok", "mean")} == {
        "best": 0.42, "unknown": 0.1, "term_coverage": 0.5, "answerability": 0.3, "numbers_ok": 0.0, "mean": 0.4}
    # an answer measured before the gate ran (e.g. empty question) reads as the worst values, never as a pass
    empty = gate_values(measured())
    assert empty["best"] == -1.0 and empty["term_coverage"] == 0.0 and empty["answerability"] == 0.0


# ---------------------------------------------------------------------------------------------- follow-ups
def test_the_follow_up_set_is_two_turn_conversations_half_answerable():

    from tutor.evaluation.followups import load_conversations

    convs = load_conversations(TEST_DATA / "followups.jsonl")
    assert len(convs) >= 44 and len({c.id for c in convs}) == len(convs)
    expects = [c.followup.expect for c in convs]
    assert expects.count("answer") == expects.count("refuse")
    assert all(c.first and c.followup.question and c.first_gold_file for c in convs)
    assert all((c.followup.gold_file is not None) == (c.followup.expect == "answer") for c in convs)


def test_evaluate_followups_counts_each_mode_on_a_real_tiny_shelf(tmp_path):
    from tutor.build import build_tutor
    from tutor.evaluation.followups import FOLLOWUP_MODES, Conversation, evaluate_followups
    from tutor.evaluation.questions import Question
    from tutor.retrieval.search import Library

    from helpers_safety import EMB, SOIL, policy, write_shelf

    write_shelf(tmp_path / "index", SOIL, subject="social-science")
    lib = Library(tmp_path / "index", embedder=EMB)
    # lenient gate, as in test_pipeline: the resolved question reaches the own-words check on this tiny shelf
    tutors = {m: build_tutor(lib, policy=policy(unknown_term_penalty=0.0, min_confidence=0.2).with_values(**s),
                             models=False) for m, s in FOLLOWUP_MODES.items()}

    def q(i, text, expect):
        return Question(i, text, expect, "10", "social-science", "tiny",
                        "tiny/soil.pdf" if expect == "answer" else None,
                        None, None, "test")

    convs = [Conversation("a", "Where is alluvial soil found?", q("a", "How is it deposited?", "answer"), "soil.pdf"),
             Conversation("b", "Where is alluvial soil found?", q("b", "Where is it exported?", "refuse"), "soil.pdf")]
    r = evaluate_followups(convs, lambda lib_name, mode: tutors[mode])
    assert r["conversations"] == 2 and r["first_answered"] == 2 and r["followups_resolved"] == 2
    assert r["modes"]["resolved+own-words"]["coverage"] == 1.0
    assert r["modes"]["resolved+own-words"]["false_acceptance_rate"] == 0.0  # refused by the own-words check
    assert r["examples"][1]["reason"] == "followup_not_covered"
    assert r["examples"][0]["resolved"] == "How is alluvial soil deposited?"
