"""Evaluation on labelled questions: each answer scored against its label (`judge`), and false acceptance, false
refusal, coverage, page accuracy, answer recall, latency and refusal reasons, overall and per origin (`evaluate`).

The question sets are in questions.py, the threshold search in calibrate.py, retrieval recall in recall.py and the
two-turn follow-up measurement in followups.py.
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tutor.evaluation.metrics import percentile, rate
from tutor.evaluation.questions import Question, split_questions
from tutor.text.terms import content_terms
from tutor.types import TutorAnswer

if TYPE_CHECKING:
    from tutor.pipeline import Tutor


def restates_question(sentence: str, question: str) -> bool:
    """A sentence that is the question printed again (an exercise line) does not answer it."""
    q, s = set(content_terms(question)), set(content_terms(sentence))
    return bool(q) and len(q & s) / len(q | s) >= 0.8


def _folded(text: str) -> str:
    return " ".join(text.lower().replace("\u2019", "'").split())


def holds(text: str, answers: tuple[str, ...]) -> bool:
    """Whether `text` contains one of the gold answer texts (case and spacing aside)."""
    t = _folded(text or "")
    return bool(t) and any(_folded(a) in t for a in answers)


def judge(q: Question, ans: TutorAnswer) -> dict[str, Any]:
    """How one answer scores against its label."""
    answered = not ans.was_refusal
    gold = Path(q.gold_file).name if q.gold_file else None
    golds = {gold, *(Path(g).name for g in q.gold_alternatives)} - {None}
    cited = ans.cited_sources
    real = [s for s in ans.sentences if not restates_question(s.text, q.question)]
    real_cites = {n for s in real for n in s.citations}
    cites_gold = answered and any(s.file in golds and s.n in real_cites for s in cited)
    page_ok = None
    if answered and q.gold_pages:
        gold_src = {s.n: s for s in cited if s.file == gold}
        pages: set[int] = set()
        for s in real:
            hits = [gold_src[n] for n in s.citations if n in gold_src]
            if hits:  # the quoted sentence's own page, else the pages of the gold source it cites
                pages |= {s.page} if s.page else {p for src in hits for p in range(src.page, src.page_end + 1)}
        page_ok = bool(pages & set(q.gold_pages)) and cites_gold
    answer_ok = direct_ok = first_ok = None
    if answered and q.answers:
        answer_ok = any(a.lower() in s.text.lower() for a in q.answers for s in real)
    if q.answers and q.expect == "answer":  # refused, the direct answer and the first sentence are wrong too
        direct_ok = answered and holds(ans.direct_answer, q.answers)
        first_ok = answered and bool(ans.sentences) and holds(ans.sentences[0].text, q.answers)
    # an LLM draft that reached the answer checks, and whether any of its sentences lacks support in what it cites
    drafted = bool(ans.llm_called and ans.draft_sentences and ans.decided_by != "answerer")
    unsupported = drafted and any(s.supported is False for s in ans.draft_sentences)
    judged = next((c for c in ans.checks if c.name == "answerability_judge"), None)
    return {"id": q.id, "origin": q.origin, "expect": q.expect, "answered": answered, "reason": ans.reason,
            "covered": q.expect == "answer" and cites_gold, "page_ok": page_ok, "answer_ok": answer_ok,
            "direct_ok": direct_ok, "first_ok": first_ok, "direct_answer": ans.direct_answer if answered else "",
            "direct_p": ans.measures.get("direct_p") if answered else None,
            "thing_span_p": ans.measures.get("thing_span_p"),  # the span check's (answered or not): bars replayed
            "ms": sum(v for k, v in ans.timings_ms.items() if k != "audit"), "confidence": ans.confidence,
            "reader_ms": ans.timings_ms.get("reader"), "reader_p": ans.measures.get("reader_p"),
            "cross_lingual_ms": ans.timings_ms.get("cross_lingual"),
            "cross_lingual_score": ans.measures.get("cross_lingual_score"),
            "llm_answer_ms": ans.timings_ms.get("answer") if ans.llm_called and "answer" in ans.timings_ms else None,
            "drafted": drafted, "unsupported": unsupported, "shown_unsupported": answered and unsupported,
            "judge_said_yes": None if judged is None else bool(judged.passed),
            "judge_p": None if judged is None else judged.value}


BARS = tuple(round(0.05 * i, 2) for i in range(20))


def direct_by_bar(rows: list[dict[str, Any]]) -> dict[str, dict[str, float | None]]:
    """Direct-answer accuracy and precision when shown, were the bold line shown only at P >= each bar (the rows'
    direct answers as chosen at bar 0; a row without a probability was not shown at any bar)."""
    out = {}
    for bar in BARS:
        shown = [r for r in rows if r.get("direct_answer") and (r.get("direct_p") or 0.0) >= bar]
        out[f"{bar:.2f}"] = {"accuracy": rate(sum(r["direct_ok"] for r in shown), len(rows)),
                             "precision": rate(sum(r["direct_ok"] for r in shown), len(shown)),
                             "shown": rate(len(shown), len(rows))}
    return out


def _pct(values: list[float], p: float) -> float:
    v = percentile(values, p)
    return 0.0 if v is None else round(v, 2)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ans = [r for r in rows if r["expect"] == "answer"]
    ref = [r for r in rows if r["expect"] == "refuse"]
    pages = [r for r in rows if r["page_ok"] is not None]
    recall = [r for r in rows if r["answer_ok"] is not None]
    directs = [r for r in rows if r.get("direct_ok") is not None]
    shown = [r for r in directs if r.get("direct_answer")]
    ms = [r["ms"] for r in rows]
    return {
        "questions": len(rows),
        "answerable": len(ans),
        "unanswerable": len(ref),
        "false_acceptance_rate": rate(sum(r["answered"] for r in ref), len(ref)),
        "false_refusal_rate": rate(sum(not r["answered"] for r in ans), len(ans)),
        "coverage": rate(sum(r["covered"] for r in ans), len(ans)),
        # answered or refused correctly: refuse-items refused, answer-items answered citing the gold chapter
        "accuracy": rate(sum(not r["answered"] for r in ref) + sum(r["covered"] for r in ans), len(rows)),
        "page_accuracy": rate(sum(r["page_ok"] for r in pages), len(pages)),
        "answer_recall": rate(sum(r["answer_ok"] for r in recall), len(recall)),
        # over the answerable questions with gold answer texts (a refusal or no bold line counts as wrong): the bold
        # direct answer holds the gold answer; the answer's first sentence does; a bold line shown, and right when shown
        "direct_answer_accuracy": rate(sum(r["direct_ok"] for r in directs), len(directs)),
        "first_sentence_accuracy": rate(sum(r["first_ok"] for r in directs), len(directs)),
        "direct_answer_shown": rate(len(shown), len(directs)),
        "direct_answer_precision": rate(sum(r["direct_ok"] for r in shown), len(shown)),
        # what each bar on the span's probability would give, from a run at min_direct_answer_probability 0
        "direct_answer_by_bar": direct_by_bar(directs),
        "latency_ms": {"p50": _pct(ms, 50), "p95": _pct(ms, 95)},
        # the time the answerability reader added, over the questions it read
        "reader_latency_ms": {"questions": len(rd := [r["reader_ms"] for r in rows if r.get("reader_ms") is not None]),
                              "p50": _pct(rd, 50), "p95": _pct(rd, 95)},
        "refusal_reasons": dict(Counter(r["reason"] for r in rows if not r["answered"]).most_common()),
    }


def evaluate(questions: list[Question], ask: Callable[[Question], TutorAnswer], answerer: str = "extractive",
             progress: Callable[[int, int], None] | None = None,
             on_answer: Callable[[Question, TutorAnswer], None] | None = None) -> dict[str, Any]:
    rows = []
    for i, q in enumerate(questions):
        ans = ask(q)
        rows.append(judge(q, ans))
        if on_answer:
            on_answer(q, ans)
        if progress:
            progress(i + 1, len(questions))
    out = summarise(rows)
    by: dict[str, list] = defaultdict(list)
    for r in rows:
        by[r["origin"]].append(r)
    out["by_origin"] = {k: {kk: vv for kk, vv in summarise(v).items() if kk != "refusal_reasons"}
                        for k, v in sorted(by.items())}
    out["answerer"] = answerer
    out.update(llm_measures(rows))
    out["items"] = rows
    return out


def llm_measures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Hallucination by the grounding check's per-sentence verdicts, the answerability judge, LLM latency.

    unchecked: share of LLM drafts (questions the gate let through and the model answered) with at least one
    sentence not supported by the text it cites; checked: share of the same drafts that passed every answer check
    and still hold such a sentence (what a student would have seen); among_shown: the same, out of answers shown."""
    drafted = [r for r in rows if r.get("drafted")]
    shown = [r for r in drafted if r["answered"]]
    judged = [r for r in rows if r.get("judge_said_yes") is not None]
    judged_neg = [r for r in judged if r["expect"] == "refuse"]
    llm_ms = [r["llm_answer_ms"] for r in rows if r.get("llm_answer_ms") is not None]
    return {
        "llm_drafts": len(drafted),
        "hallucination_rate_unchecked": rate(sum(r["unsupported"] for r in drafted), len(drafted)),
        "hallucination_rate_checked": rate(sum(r["shown_unsupported"] for r in drafted), len(drafted)),
        "hallucination_rate_among_shown": rate(sum(r["shown_unsupported"] for r in shown), len(shown)),
        "judge": {"asked": len(judged),
                  "accuracy": rate(sum(r["judge_said_yes"] == (r["expect"] == "answer") for r in judged), len(judged)),
                  "unanswerable_asked": len(judged_neg),
                  "accuracy_on_unanswerable": rate(sum(not r["judge_said_yes"] for r in judged_neg), len(judged_neg))},
        "llm_answer_latency_ms": {"answers": len(llm_ms), "p50": _pct(llm_ms, 50), "p95": _pct(llm_ms, 95)},
    }


def answer_record(q: Question, ans: TutorAnswer) -> dict[str, Any]:
    """One line of the answers JSONL: the LLM's draft with each sentence's grounding verdict and the text it cites,
    so that a person can check the verdicts by hand (`hand_supported` is left for them to fill in)."""
    by_n = {s.n: s for s in ans.sources}
    return {
        "id": q.id, "question": q.question, "expect": q.expect, "answered": not ans.was_refusal, "reason": ans.reason,
        "decided_by": ans.decided_by, "answerer": ans.answerer, "draft": ans.draft,
        "sentences": [{"text": s.text, "citations": list(s.citations), "supported": s.supported,
                       "cited_text": [by_n[n].text for n in s.citations if n in by_n], "hand_supported": None}
                      for s in ans.draft_sentences],
        "checks_failed": [c.name for c in ans.failed_checks if c.stage == "answer"], "notes": list(ans.notes),
        "answer_ms": ans.timings_ms.get("answer"),
    }


def hand_check_report(records: list[dict[str, Any]], n: int = 30) -> dict[str, Any]:
    """The grounding check against a person's verdicts on the first `n` LLM drafts of an answers JSONL whose
    sentences all carry `hand_supported` (true/false, filled in by hand). Rates as in llm_measures, by hand:
    unchecked = drafts with a sentence the person found unsupported; checked = those that passed the checks anyway."""
    drafts = [r for r in records if r.get("sentences") and r.get("decided_by") != "answerer"]
    done = [r for r in drafts if all(s.get("hand_supported") is not None for s in r["sentences"])][:n]
    sents = [s for r in done for s in r["sentences"]]
    agree = sum(bool(s["supported"]) == bool(s["hand_supported"]) for s in sents)
    missed = sum(bool(s["supported"]) and not s["hand_supported"] for s in sents)  # the check said yes, a person no
    bad = [r for r in done if any(not s["hand_supported"] for s in r["sentences"])]
    return {"drafts_checked_by_hand": len(done), "sentences": len(sents),
            "grounding_check_agreement": rate(agree, len(sents)),
            "unsupported_sentences_the_check_passed": missed,
            "hallucination_rate_unchecked_by_hand": rate(len(bad), len(done)),
            "hallucination_rate_checked_by_hand": rate(sum(r["answered"] for r in bad), len(done))}


def run_eval(questions: list[Question], tutors: Mapping[str, Tutor], *, split: str = "all",
             training_json: str | Path | None = None, sample: int | None = None, seed: int = 0,
             answers: Path | None = None, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """`python -m tutor eval`: every question asked of the tutor of its library, after one warm-up question per tutor
    (models and shelves load before timing). `answers`: each LLM answer written there as JSONL (`answer_record`).
    With `split` all, the report also holds the held-out part and the rest (`by_split`), from the same run."""
    answerer = next(iter(tutors.values())).answerer.name
    for t in tutors.values():  # warm-up: load models and shelves before timing
        k = t.library.keys()[0]
        t.ask("warm up", k.klass, k.subject)
    answers_file = None
    if answers:
        answers.parent.mkdir(parents=True, exist_ok=True)
        answers_file = answers.open("w", encoding="utf-8")

    def on_answer(q: Question, ans: TutorAnswer) -> None:
        if answers_file is not None and ans.llm_called:
            answers_file.write(json.dumps(answer_record(q, ans), ensure_ascii=False) + "\n")
            answers_file.flush()

    try:
        report = evaluate(questions, lambda q: tutors[q.library].ask(q.question, q.klass, q.subject), answerer,
                          progress, on_answer)
    finally:
        if answers_file is not None:
            answers_file.close()
    report["sample"] = {"n": sample, "seed": seed} if sample else None
    report["split"] = split
    if split == "all":  # the part held out of all tuning and the rest, from the same run
        by_id = {r["id"]: r for r in report["items"]}
        report["by_split"] = {part: summarise([by_id[q.id] for q in split_questions(questions, part, training_json)
                                               if q.id in by_id]) for part in ("tuning", "heldout")}
    return report
