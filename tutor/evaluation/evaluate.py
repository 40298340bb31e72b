"""Evaluation and calibration on labelled questions (schema: ../shared/data/README.md).

`evaluate` asks every question on its shelf and reports false acceptance, false refusal, coverage, page accuracy,
answer recall, latency and refusal reasons, overall and per origin. `calibrate` records the gate's measured values
once per question and searches the thresholds for the highest coverage under a false-acceptance target.
"""
from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Any, Callable, Iterable

from tutor.policy import Policy
from tutor.types import TutorAnswer
from tutor.store.shelf import Hit
from tutor.text.terms import content_terms
from tutor.evaluation.metrics import rate


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    expect: str
    klass: str
    subject: str
    library: str
    gold_file: str | None
    gold_pages: tuple[int, ...] | None
    answers: tuple[str, ...] | None
    origin: str
    # the same chapter in the other language (`gold_file_en` / `gold_file_hi`): citing it also counts as covered
    gold_alternatives: tuple[str, ...] = ()


def load_questions(path: str | Path, limit: int | None = None) -> list[Question]:
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            out.append(Question(
                d["id"], d["question"], d["expect"], str(d["class"]), d["subject"], d["library"], d.get("gold_file"),
                tuple(d["gold_pages"]) if d.get("gold_pages") else None,
                tuple(d["answers"]) if d.get("answers") else None, d.get("origin", ""),
                tuple(d[k] for k in ("gold_file_en", "gold_file_hi") if d.get(k)),
            ))
    return out[:limit] if limit else out


def split_questions(questions: list[Question], split: str, training_json: str | Path | None = None) -> list[Question]:
    """The part of a question set held out of all tuning ("heldout"), the rest ("tuning"), or all ("all").

    Held out by article and by chapter, as the reader's training was (tutor/reader/training.py): a SQuAD question
    of a held-out article (its gold file, or for an unanswerable one its article in the SQuAD training JSON), an
    NCERT question whose gold chapter is held out; a question with neither (off-topic, general knowledge) by the
    SHA-1 of its id, one in four."""
    import hashlib

    from tutor.reader.training import heldout_articles, heldout_chapter

    if split == "all":
        return list(questions)
    titles: dict[str, str] = {}
    held: set[str] = set()
    if training_json and Path(training_json).exists():
        data = json.loads(Path(training_json).read_text(encoding="utf-8"))["data"]
        held = {t.lower() for t in heldout_articles(a["title"] for a in data)}
        titles = {qa["id"]: a["title"].lower() for a in data for p in a["paragraphs"] for qa in p["qas"]}

    def is_held(q: Question) -> bool:
        if q.gold_file:
            stem = Path(q.gold_file).stem.lower()
            return stem in held if q.library == "squad2" else heldout_chapter(stem)
        title = titles.get(q.id.removeprefix("squad2-"))
        if title is not None:
            return title in held
        return int(hashlib.sha1(q.id.encode()).hexdigest(), 16) % 4 == 0

    if split not in ("heldout", "tuning"):
        raise ValueError(f"unknown split {split!r}: use all, tuning or heldout")
    return [q for q in questions if is_held(q) == (split == "heldout")]


def restates_question(sentence: str, question: str) -> bool:
    """A sentence that is the question printed again (an exercise line) does not answer it."""
    q, s = set(content_terms(question)), set(content_terms(sentence))
    return bool(q) and len(q & s) / len(q | s) >= 0.8


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
    answer_ok = None
    if answered and q.answers:
        answer_ok = any(a.lower() in s.text.lower() for a in q.answers for s in real)
    # an LLM draft that reached the answer checks, and whether any of its sentences lacks support in what it cites
    drafted = bool(ans.llm_called and ans.draft_sentences and ans.decided_by != "answerer")
    unsupported = drafted and any(s.supported is False for s in ans.draft_sentences)
    judged = next((c for c in ans.checks if c.name == "answerability_judge"), None)
    return {"id": q.id, "origin": q.origin, "expect": q.expect, "answered": answered, "reason": ans.reason,
            "covered": q.expect == "answer" and cites_gold, "page_ok": page_ok, "answer_ok": answer_ok,
            "ms": sum(v for k, v in ans.timings_ms.items() if k != "audit"), "confidence": ans.confidence,
            "reader_ms": ans.timings_ms.get("reader"), "reader_p": ans.measures.get("reader_p"),
            "llm_answer_ms": ans.timings_ms.get("answer") if ans.llm_called and "answer" in ans.timings_ms else None,
            "drafted": drafted, "unsupported": unsupported, "shown_unsupported": answered and unsupported,
            "judge_said_yes": None if judged is None else bool(judged.passed),
            "judge_p": None if judged is None else judged.value}


def percentile(values: Iterable[float], p: float) -> float | None:
    """The p-th percentile (0..100), interpolating linearly between closest ranks as numpy does; None when empty."""
    s = sorted(float(v) for v in values)
    if not s:
        return None
    if not 0 <= p <= 100:
        raise ValueError(f"percentile {p} is outside [0, 100]")
    pos = (len(s) - 1) * p / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def _pct(values: list[float], p: float) -> float:
    v = percentile(values, p)
    return 0.0 if v is None else round(v, 2)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ans = [r for r in rows if r["expect"] == "answer"]
    ref = [r for r in rows if r["expect"] == "refuse"]
    pages = [r for r in rows if r["page_ok"] is not None]
    recall = [r for r in rows if r["answer_ok"] is not None]
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
    out["by_origin"] = {k: {kk: vv for kk, vv in summarise(v).items() if kk != "refusal_reasons"} for k, v in sorted(by.items())}
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


def sample_questions(questions: list[Question], n: int | None, seed: int = 0) -> list[Question]:
    """A deterministic sample of `n` questions, stratified by `expect` (each label keeps its share, at least one),
    in the file's order. None or n >= len gives every question."""
    import random

    if not n or n >= len(questions):
        return list(questions)
    groups: dict[str, list[int]] = defaultdict(list)
    for i, q in enumerate(questions):
        groups[q.expect].append(i)
    rng = random.Random(seed)
    keep: set[int] = set()
    labels = sorted(groups)
    quotas = {k: max(1, round(n * len(groups[k]) / len(questions))) for k in labels}
    while sum(quotas.values()) > n:  # rounding up every label can overshoot
        quotas[max(labels, key=lambda k: quotas[k])] -= 1
    for k in labels:
        keep |= set(rng.sample(groups[k], min(quotas[k], len(groups[k]))))
    return [questions[i] for i in sorted(keep)]


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


# ---------------------------------------------------------------------------------------------- calibration

CALIBRATED = ("min_confidence", "unknown_term_penalty", "min_term_coverage", "min_sentence_coverage",
              "min_reader_probability")


def gate_values(ans: TutorAnswer) -> dict[str, float]:
    """The values the gate measured (ask under a permissive policy so every question is measured)."""
    m = ans.measures
    return {"best": m.get("best", -1.0), "unknown": m.get("unknown", 0.0), "term_coverage": m.get("coverage", 0.0),
            "answerability": m.get("sentence_coverage", 0.0), "numbers_ok": m.get("numbers_ok", 1.0),
            "mean": m.get("mean", -1.0), "polarity_ok": m.get("polarity_ok", 1.0), "definition": m.get("definition", 0.0),
            "type_ok": m.get("type_ok", 1.0), "names_ok": m.get("names_ok", 1.0),
            # the reader's P(answers); 1.0 where it did not read (no reader, or not English): no constraint
            "reader_p": m.get("reader_p", 1.0)}


def permissive(policy: Policy) -> Policy:
    """The policy with every calibrated threshold opened, so each question reaches the answer checks."""
    opened = dict(min_confidence=-1.0, min_term_coverage=0.0, min_sentence_coverage=0.0,
                  min_mean_confidence=-1.0, offtopic_max_score=-1.0, require_question_numbers=False,
                  require_negation_match=False, require_answer_type=False, require_names=False,
                  min_reader_probability=0.0)
    # a model's own settings (policy.for_model) must not close again what is opened here
    models = {m: {**over, **opened} for m, over in policy.models.items()}
    return policy.with_values(**opened, models=models)


def accepts(g: dict[str, float], policy: Policy) -> bool:
    confident = g["best"] - policy.unknown_term_penalty * g["unknown"] >= policy.min_confidence or (
        policy.accept_definitions and g.get("definition", 0.0) >= 1)
    return (confident and (g["best"] >= policy.offtopic_max_score or g.get("definition", 0.0) >= 1) and (g["mean"] >= policy.min_mean_confidence or g.get("definition", 0.0) >= 1)
            and g["term_coverage"] >= policy.min_term_coverage and g["answerability"] >= policy.min_sentence_coverage
            and (g["numbers_ok"] >= 1 or not policy.require_question_numbers)
            and (g["polarity_ok"] >= 1 or not policy.require_negation_match)
            and (g.get("type_ok", 1.0) >= 1 or not policy.require_answer_type)
            and (g.get("names_ok", 1.0) >= 1 or not policy.require_names)
            and (not policy.reader or g.get("reader_p", 1.0) >= policy.min_reader_probability))


def trade_off(records: list[dict[str, Any]], base: Policy, grid: dict[str, list[float]]) -> list[dict[str, Any]]:
    """False acceptance and coverage of every policy in the grid, from recorded gate values."""
    ans = [r for r in records if r["expect"] == "answer"]
    ref = [r for r in records if r["expect"] == "refuse"]
    out = []
    names = list(grid)
    for combo in product(*(grid[n] for n in names)):
        pol = base.with_values(**dict(zip(names, combo)))
        fa = sum(accepts(r["gate"], pol) and r["passes_checks"] for r in ref) / max(1, len(ref))
        cov = sum(accepts(r["gate"], pol) and r["covered_if_answered"] for r in ans) / max(1, len(ans))
        out.append({**dict(zip(names, combo)), "false_acceptance_rate": round(fa, 4), "coverage": round(cov, 4)})
    return out


def recommend(curve: list[dict[str, Any]], target_fa: float) -> dict[str, Any] | None:
    """The highest coverage at a false-acceptance rate no higher than the target (ties: the lower FA, then the
    stricter thresholds)."""
    ok = [c for c in curve if c["false_acceptance_rate"] <= target_fa]
    if not ok:
        return None
    return max(ok, key=lambda c: (c["coverage"], -c["false_acceptance_rate"], c.get("min_confidence", 0)))


def pareto(curve: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The points no other point beats on both false acceptance and coverage, by false acceptance."""
    best: dict[float, dict[str, Any]] = {}
    for c in curve:
        k = c["false_acceptance_rate"]
        if k not in best or c["coverage"] > best[k]["coverage"]:
            best[k] = c
    front, top = [], -1.0
    for k in sorted(best):
        if best[k]["coverage"] > top:
            front.append(best[k])
            top = best[k]["coverage"]
    return front


def record_gate(questions: list[Question], tutors: dict[str, Any]) -> list[dict[str, Any]]:
    """Ask each question under a permissive policy and keep what the gate measured and how the answer fared."""
    out = []
    saved = {name: t.policy for name, t in tutors.items()}
    try:
        for t in tutors.values():
            t.policy = permissive(t.policy)
        for q in questions:
            ans = tutors[q.library].ask(q.question, q.klass, q.subject)
            j = judge(q, ans)
            out.append({"expect": q.expect, "origin": q.origin, "gate": gate_values(ans),
                        "passes_checks": not ans.was_refusal, "covered_if_answered": j["covered"]})
    finally:
        for name, t in tutors.items():
            t.policy = saved[name]
    return out


# the ideas, in the order they were added; each row of the report switches on one more
_ALL_OFF: dict[str, Any] = {"unknown_term_penalty": 0.0, "min_term_coverage": 0.0, "min_sentence_coverage": 0.0,
                            "accept_definitions": False, "require_question_numbers": False,
                            "require_negation_match": False, "require_answer_type": False, "require_names": False,
                            "reader": False}
_ORDER = [("best evidence score only", ()), ("+ unknown-term penalty", ("unknown_term_penalty",)),
          ("+ term coverage of the evidence", ("min_term_coverage",)),
          ("+ sentence-level answerability", ("min_sentence_coverage",)),
          ("+ definitions found in so many words", ("accept_definitions",)),
          ("+ key numbers beside the answer", ("require_question_numbers",)),
          ("+ negation match (factual questions)", ("require_negation_match",)),
          ("+ answer type (number, date, name)", ("require_answer_type",)),
          ("+ names of the question in the evidence", ("require_names",)),
          ("+ answerability reader", ("reader",))]
IDEAS: list[tuple[str, dict[str, Any]]] = []
_on: set[str] = set()
for _name, _keys in _ORDER:
    _on |= set(_keys)
    IDEAS.append((_name, {k: v for k, v in _ALL_OFF.items() if k not in _on}))


CUES: list[tuple[str, dict[str, Any]]] = [
    ("unknown-term penalty", {"unknown_term_penalty": 0.0}), ("term coverage", {"min_term_coverage": 0.0}),
    ("sentence answerability", {"min_sentence_coverage": 0.0}), ("definitions", {"accept_definitions": False}),
    ("key numbers", {"require_question_numbers": False}), ("negation", {"require_negation_match": False}),
    ("answer type", {"require_answer_type": False}), ("names", {"require_names": False}),
    ("answerability reader", {"reader": False})]


def ablation_report(records: list[dict[str, Any]], policy: Policy, grid: dict[str, list[float]],
                    target_fa: float = 0.02) -> list[dict[str, Any]]:
    """What each cue still buys with all the others on: FA and coverage at the policy with that one cue off, and
    the best coverage any threshold gives at the FA target without it (beside the full policy's)."""
    ans = [r for r in records if r["expect"] == "answer"]
    ref = [r for r in records if r["expect"] == "refuse"]
    rows = []
    for name, off in [("all on", {})] + CUES:
        pol = policy.with_values(**off)
        fa = sum(accepts(r["gate"], pol) and r["passes_checks"] for r in ref) / max(1, len(ref))
        cov = sum(accepts(r["gate"], pol) and r["covered_if_answered"] for r in ans) / max(1, len(ans))
        sub = {k: (v if k not in off else [off[k]]) for k, v in grid.items()}
        at_t = recommend(trade_off(records, pol, sub), target_fa)
        rows.append({"without": name, "false_acceptance_rate": round(fa, 4), "coverage": round(cov, 4),
                     "best_coverage_at_target": at_t["coverage"] if at_t else 0.0})
    return rows


def _auc(records: list[dict[str, Any]], score: Callable[[dict[str, float]], float]) -> float:
    pos = [score(r["gate"]) for r in records if r["expect"] == "answer"]
    neg = [score(r["gate"]) for r in records if r["expect"] == "refuse"]
    if not pos or not neg:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def ideas_report(records: list[dict[str, Any]], policy: Policy, grid: dict[str, list[float]], target_fa: float = 0.02) -> list[dict[str, Any]]:
    """What each idea buys: rates at the chosen policy with the ideas switched on one by one, and the best
    coverage any threshold of the switched-on ideas gives at the false-acceptance target and at 50%."""
    rows = []
    for name, off in IDEAS:
        pol = policy.with_values(**off)
        ans = [r for r in records if r["expect"] == "answer"]
        ref = [r for r in records if r["expect"] == "refuse"]
        fa = sum(accepts(r["gate"], pol) and r["passes_checks"] for r in ref) / max(1, len(ref))
        cov = sum(accepts(r["gate"], pol) and r["covered_if_answered"] for r in ans) / max(1, len(ans))
        sub = {k: (v if k not in off else [off[k]]) for k, v in grid.items()}
        curve = trade_off(records, pol, sub)
        at_t = recommend(curve, target_fa)
        at_50 = recommend(curve, 0.5)

        def score(g: dict[str, float], pol: Policy = pol) -> float:
            ok = accepts(g, pol.with_values(min_confidence=-1.0, offtopic_max_score=-1.0, min_mean_confidence=-1.0))
            return (g["best"] - pol.unknown_term_penalty * g["unknown"]) if ok else -9.0

        rows.append({"idea": name, "false_acceptance_rate": round(fa, 4), "coverage": round(cov, 4),
                     "best_coverage_at_target": at_t["coverage"] if at_t else 0.0,
                     "best_coverage_at_50": at_50["coverage"] if at_50 else 0.0, "auc": round(_auc(records, score), 4)})
    return rows


def retrieval_recall(questions: list[Question], library_for: Callable[[str], Any], k: int = 5,
                     retriever: str = "dense", policy: Policy | None = None, ks: Iterable[int] = (1, 3, 5)) -> dict[str, Any]:
    """Recall@k of retrieval for the answerable questions: the gold chapter (and, where given, a gold page) among the
    top k chunks. Counted twice: over evidence chunks only (the honest count: the chunk that prints a question does
    not answer it) and over any chunk (as a plain pipeline would count). `retriever` is dense, hybrid, bm25, trigram
    (tutor/retrieval/search.py, with the policy's depths) or seed (the seed paraphrase score, tutor/retrieval/lexical.py); `at` holds
    the evidence-only recall at each of `ks` (chapter; page where gold pages are given; answer: a gold answer text
    inside a retrieved chunk of the gold file, where answers are given)."""
    from tutor.retrieval.lexical import ParaphraseScorer
    from tutor.policy import load_policy

    ks = sorted(set(ks) | {k})
    depth = max(50, 4 * max(ks))
    pol = (policy or load_policy()).with_values(top_k=depth)
    n = n_pages = n_answers = 0
    hit = {"evidence": 0, "any": 0}
    hit_page = {"evidence": 0, "any": 0}
    at = {kk: {"chapter": 0, "page": 0, "answer": 0} for kk in ks}
    seeds: dict[Any, ParaphraseScorer] = {}
    for q in questions:
        if q.expect != "answer" or not q.gold_file:
            continue
        lib = library_for(q.library)
        shelf = lib.shelf(q.klass, q.subject)
        if retriever == "seed":
            key = (shelf.key, shelf.version)
            if key not in seeds:
                seeds[key] = ParaphraseScorer([c.text for c in shelf.chunks], [c.is_evidence for c in shelf.chunks])
            hits = [Hit(shelf.chunks[i], s, r) for r, (i, s) in enumerate(seeds[key].search(q.question, depth))]
        else:
            hits = lib.retrieve(q.question, shelf, lib.embed_query(q.question, shelf), pol, retriever)
        gold = Path(q.gold_file).name
        n += 1
        n_pages += bool(q.gold_pages)
        n_answers += bool(q.answers)

        def on_page(h: Hit) -> bool:
            return h.chunk.file == gold and bool(set(range(h.chunk.page_start, h.chunk.page_end + 1)) & set(q.gold_pages or ()))

        evidence = [h for h in hits if h.chunk.is_evidence]
        for kind, top in (("evidence", evidence[:k]), ("any", hits[:k])):
            hit[kind] += any(h.chunk.file == gold for h in top)
            if q.gold_pages:
                hit_page[kind] += any(on_page(h) for h in top)
        for kk in ks:
            at[kk]["chapter"] += any(h.chunk.file == gold for h in evidence[:kk])
            at[kk]["page"] += bool(q.gold_pages) and any(on_page(h) for h in evidence[:kk])
            at[kk]["answer"] += bool(q.answers) and any(h.chunk.file == gold and a.lower() in h.chunk.text.lower()
                                                        for h in evidence[:kk] for a in q.answers or ())
    return {"k": k, "retriever": retriever, "questions": n, "with_gold_pages": n_pages, "with_answers": n_answers,
            "chapter_recall": {kk: round(v / n, 4) if n else None for kk, v in hit.items()},
            "page_recall": {kk: round(v / n_pages, 4) if n_pages else None for kk, v in hit_page.items()},
            "at": {kk: {"chapter": round(v["chapter"] / n, 4) if n else None,
                        "page": round(v["page"] / n_pages, 4) if n_pages else None,
                        "answer": round(v["answer"] / n_answers, 4) if n_answers else None} for kk, v in at.items()}}


# ---------------------------------------------------------------------------------------------- perturbed questions

PERTURBATIONS = ("none", "typos", "reorder")
_REWORD = [(r"^what is meant by\b", "define"), (r"^what do you mean by\b", "define"), (r"^why\b", "for what reason"),
           (r"^explain\b", "describe"), (r"^list\b", "name"), (r"^describe\b", "explain"), (r"^how\b", "in what way"),
           (r"\bdifference\b", "distinction"), (r"\bimportant\b", "significant"), (r"\bcalled\b", "termed"),
           (r"\bexample\b", "instance"), (r"\buses\b", "applications"), (r"\bproperties\b", "characteristics")]


def perturb(question: str, kind: str, seed: str = "") -> str:
    """A deterministic variant of a question (same `seed`, same variant): "typos" puts one slip (a dropped, doubled,
    swapped or replaced letter) in about half of the words of five letters or more; "reorder" rewords the opening
    and a few common words and moves the first clause behind the rest ("Why is X used in Y?" -> "Y for what reason
    is X used in?" reads badly but keeps every content word). "none" returns the question."""
    import random
    import re

    if kind == "none":
        return question
    rng = random.Random(f"{seed}|{kind}|{question}")
    if kind == "typos":
        out = []
        for w in question.split():
            core = re.match(r"^([A-Za-z]+)(.*)$", w)
            if core and len(core.group(1)) >= 5 and rng.random() < 0.5:
                letters, rest = list(core.group(1)), core.group(2)
                i = rng.randrange(1, len(letters) - 1)  # keep the first letter, as people's typos mostly do
                op = rng.choice(("drop", "double", "swap", "replace"))
                if op == "drop":
                    del letters[i]
                elif op == "double":
                    letters.insert(i, letters[i])
                elif op == "swap":
                    letters[i], letters[i + 1] = letters[i + 1], letters[i]
                else:
                    letters[i] = rng.choice([c for c in "aeiounrst" if c != letters[i].lower()])
                w = "".join(letters) + rest
            out.append(w)
        return " ".join(out)
    if kind == "reorder":
        q = question.strip().rstrip("?.").strip()
        for pat, rep in _REWORD:
            q = re.sub(pat, rep, q, count=1, flags=re.I)
        parts = re.split(r",\s*|\s+(?=(?:in|of|for|from|when|during|with)\s)", q, maxsplit=1)
        if len(parts) == 2 and parts[1]:
            q = f"{parts[1]} {parts[0]}"
        return q[:1].upper() + q[1:] + "?"
    raise ValueError(f"unknown perturbation {kind!r}: use one of {', '.join(PERTURBATIONS)}")


def perturbed(questions: list[Question], kind: str, seed: str = "") -> list[Question]:
    """The questions with their text perturbed (ids, labels and gold pages kept)."""
    from dataclasses import replace

    return [replace(q, question=perturb(q.question, kind, seed or q.id)) for q in questions]


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


# ---------------------------------------------------------------------------------------------- follow-ups
@dataclass(frozen=True)
class Conversation:
    """Two turns: a first question the book answers, and a follow-up labelled like any question (`expect`, gold)."""

    id: str
    first: str
    followup: Question
    first_gold_file: str | None = None


def load_conversations(path: str | Path) -> list[Conversation]:
    """tests/data/followups.jsonl: the question schema of ../shared/data plus `first` (and `first_gold_file`)."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                q = Question(d["id"], d["question"], d["expect"], str(d["class"]), d["subject"], d["library"],
                             d.get("gold_file"), tuple(d["gold_pages"]) if d.get("gold_pages") else None,
                             tuple(d["answers"]) if d.get("answers") else None, d.get("origin", ""))
                out.append(Conversation(d["id"], d["first"], q, d.get("first_gold_file")))
    return out


# how the follow-up is asked in each measured setting: the policy values that differ from the shipped policy
FOLLOWUP_MODES: dict[str, dict[str, Any]] = {
    "alone": {"resolve_followups": False},  # as before follow-ups: each question judged by itself
    "resolved": {"min_followup_own_words": 0.0},  # read against the first turn, without the own-words check
    "resolved+own-words": {},  # the shipped policy
}


def evaluate_followups(convs: list[Conversation], tutor_for: Callable[[str, str], Any],
                       progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Each conversation: the first question, then the follow-up in every mode of FOLLOWUP_MODES.

    `tutor_for(library, mode)` gives the Tutor for that mode. Coverage and false acceptance are counted on the
    follow-ups as `judge` counts single questions; `first_answered` says how many first turns the book answered
    (a follow-up to a refused turn is asked as typed in every mode)."""
    rows: dict[str, list[dict[str, Any]]] = {m: [] for m in FOLLOWUP_MODES}
    first_answered, detected, examples = 0, 0, []
    for i, c in enumerate(convs):
        q = c.followup
        first = tutor_for(q.library, "resolved+own-words").ask(c.first, q.klass, q.subject)
        first_ok = not first.was_refusal and (not c.first_gold_file or any(
            s.file == Path(c.first_gold_file).name for s in first.cited_sources))
        first_answered += first_ok
        for mode in FOLLOWUP_MODES:
            ans = tutor_for(q.library, mode).ask(q.question, q.klass, q.subject,
                                                 previous=None if mode == "alone" else first)
            row = judge(q, ans)
            row["followup"] = ans.followup
            row["resolved"] = ans.resolved_question
            rows[mode].append(row)
            if mode == "resolved+own-words":
                detected += ans.followup
                examples.append({"id": c.id, "first": c.first, "first_reason": first.reason, "typed": q.question,
                                 "resolved": ans.resolved_question, "expect": q.expect, "reason": ans.reason})
        if progress:
            progress(i + 1, len(convs))
    out: dict[str, Any] = {"conversations": len(convs), "first_answered": first_answered,
                           "followups_resolved": detected, "modes": {}, "examples": examples}
    for mode, rs in rows.items():
        s = summarise(rs)
        out["modes"][mode] = {"coverage": s["coverage"], "false_acceptance_rate": s["false_acceptance_rate"],
                              "answerable": s["answerable"], "unanswerable": s["unanswerable"],
                              "latency_ms": s["latency_ms"], "refusal_reasons": s["refusal_reasons"]}
    return out
