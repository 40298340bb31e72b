"""Calibration: the gate's measured values recorded once per question under a permissive policy, then the thresholds
searched for the highest coverage under a false-acceptance target, and what each cue of the gate buys."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tutor.evaluation.evaluate import judge
from tutor.evaluation.questions import Question
from tutor.policy import Policy
from tutor.types import TutorAnswer

if TYPE_CHECKING:
    from tutor.pipeline import Tutor


CALIBRATED = ("min_confidence", "unknown_term_penalty", "min_term_coverage", "min_sentence_coverage",
              "min_reader_probability", "reader_windows")
# the most evidence windows the reader reads while the gate is recorded: the grid's `reader_windows` choose among the
# first 1..READ_WINDOWS of them (their best P each: reader_p1, reader_p2, ... in the gate's values)
READ_WINDOWS = 3


# each value the gate's record holds: (the measure it is read from, what it is where the gate did not measure it; 1.0
# for a check that did not run: no constraint). reader_p is the reader's P(answers), not read where there is no reader
# or the question is not English.
_GATE_VALUES = {"best": ("best", -1.0), "unknown": ("unknown", 0.0), "term_coverage": ("coverage", 0.0),
                "answerability": ("sentence_coverage", 0.0), "numbers_ok": ("numbers_ok", 1.0), "mean": ("mean", -1.0),
                "polarity_ok": ("polarity_ok", 1.0), "definition": ("definition", 0.0), "type_ok": ("type_ok", 1.0),
                "names_ok": ("names_ok", 1.0), "reader_p": ("reader_p", 1.0), "thing_span_p": ("thing_span_p", 1.0)}
_WINDOW_P = tuple(f"reader_p{k}" for k in range(1, READ_WINDOWS + 1))


def complete(g: dict[str, float]) -> dict[str, float]:
    """Every value of a gate's record: one not measured takes its default; the best P among the first k windows is
    that of all the windows read where it is missing (fewer windows found, or a record from before they were kept)."""
    out = {k: g.get(k, default) for k, (_, default) in _GATE_VALUES.items()}
    return out | {k: g.get(k, out["reader_p"]) for k in _WINDOW_P}


def gate_values(ans: TutorAnswer) -> dict[str, float]:
    """The values the gate measured (ask under a permissive policy so every question is measured)."""
    m = ans.measures
    return complete({k: m[name] for k, (name, _) in _GATE_VALUES.items() if name in m}
                    | {k: m[k] for k in _WINDOW_P if k in m})


def permissive(policy: Policy) -> Policy:
    """The policy with every calibrated threshold opened, so each question reaches the answer checks."""
    opened = dict(min_confidence=-1.0, min_term_coverage=0.0, min_sentence_coverage=0.0,
                  min_mean_confidence=-1.0, offtopic_max_score=-1.0, require_question_numbers=False,
                  require_negation_match=False, require_answer_type=False, require_names=False,
                  min_reader_probability=0.0, min_thing_span_probability=0.0,
                  reader_windows=max(policy.reader_windows, READ_WINDOWS), reader_stop_early=False)
    # a model's own settings (policy.for_model) must not close again what is opened here
    models = {m: {**over, **opened} for m, over in policy.models.items()}
    return policy.with_values(**opened, models=models)


def columns(gates: list[dict[str, float]]) -> dict[str, np.ndarray]:
    """The recorded gate values as one array per value (the policy search reads every record at once)."""
    full = [complete(g) for g in gates]
    return {k: np.array([g[k] for g in full], dtype=float) for k in complete({})}


def accepted(c: dict[str, np.ndarray], policy: Policy) -> np.ndarray:
    """Which of the recorded questions (`columns`) the gate with `policy`'s thresholds lets through."""
    definition = c["definition"] >= 1
    confident = (c["best"] - policy.unknown_term_penalty * c["unknown"] >= policy.min_confidence) | (
        policy.accept_definitions & definition)
    ok = (confident & ((c["best"] >= policy.offtopic_max_score) | definition)
          & ((c["mean"] >= policy.min_mean_confidence) | definition)
          & (c["term_coverage"] >= policy.min_term_coverage) & (c["answerability"] >= policy.min_sentence_coverage))
    for flag, value in ((policy.require_question_numbers, "numbers_ok"), (policy.require_negation_match, "polarity_ok"),
                        (policy.require_answer_type, "type_ok"), (policy.require_names, "names_ok")):
        if flag:
            ok &= c[value] >= 1
    if policy.reader:
        ok &= c.get(f"reader_p{policy.reader_windows}", c["reader_p"]) >= policy.min_reader_probability
    if policy.min_thing_span_probability:  # the span check (answerability.span_decision): 1.0 where it was not made
        ok &= c["thing_span_p"] >= policy.min_thing_span_probability
    return ok


def accepts(g: dict[str, float], policy: Policy) -> bool:
    """Whether the gate with `policy`'s thresholds lets one recorded question through."""
    return bool(accepted(columns([g]), policy)[0])


@dataclass(frozen=True)
class _Outcomes:
    """The records of one file as arrays: gate values, and which are refusals the answer checks let through and
    answerable questions that would be covered."""

    cols: dict[str, np.ndarray]
    false_if_accepted: np.ndarray
    covered_if_accepted: np.ndarray
    refusals: int
    answerable: int

    @classmethod
    def of(cls, records: list[dict[str, Any]]) -> _Outcomes:
        ref = np.array([r["expect"] == "refuse" for r in records], dtype=bool)
        ans = np.array([r["expect"] == "answer" for r in records], dtype=bool)
        passes = np.array([bool(r["passes_checks"]) for r in records], dtype=bool)
        covered = np.array([bool(r["covered_if_answered"]) for r in records], dtype=bool)
        return cls(columns([r["gate"] for r in records]), ref & passes, ans & covered, int(ref.sum()), int(ans.sum()))

    def rates(self, policy: Policy) -> tuple[float, float]:
        """False acceptance and coverage under `policy`."""
        acc = accepted(self.cols, policy)
        return (int((acc & self.false_if_accepted).sum()) / max(1, self.refusals),
                int((acc & self.covered_if_accepted).sum()) / max(1, self.answerable))


def rates(records: list[dict[str, Any]], policy: Policy) -> tuple[float, float]:
    """False acceptance and coverage of `records` under `policy`."""
    return _Outcomes.of(records).rates(policy)


def trade_off(records: list[dict[str, Any]], base: Policy, grid: dict[str, list[float]]) -> list[dict[str, Any]]:
    """False acceptance and coverage of every policy in the grid, from recorded gate values."""
    outcomes = _Outcomes.of(records)
    out = []
    names = list(grid)
    for combo in product(*(grid[n] for n in names)):
        fa, cov = outcomes.rates(base.with_values(**dict(zip(names, combo))))
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


def record_gate(questions: list[Question], tutors: dict[str, Tutor]) -> list[dict[str, Any]]:
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
    rows = []
    for name, off in [("all on", {})] + CUES:
        pol = policy.with_values(**off)
        fa, cov = rates(records, pol)
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


def ideas_report(records: list[dict[str, Any]], policy: Policy, grid: dict[str, list[float]],
                 target_fa: float = 0.02) -> list[dict[str, Any]]:
    """What each idea buys: rates at the chosen policy with the ideas switched on one by one, and the best
    coverage any threshold of the switched-on ideas gives at the false-acceptance target and at 50%."""
    rows = []
    for name, off in IDEAS:
        pol = policy.with_values(**off)
        fa, cov = rates(records, pol)
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


# the thresholds searched, and the values tried for each
GRID: dict[str, list[float]] = {
    "min_confidence": [round(0.30 + 0.01 * i, 2) for i in range(31)],
    "unknown_term_penalty": [0.0, 0.2, 0.3, 0.5],
    "min_term_coverage": [0.0, 0.1, 0.2, 0.3],
    "min_sentence_coverage": [0.0, 0.15, 0.25, 0.35],
    "min_reader_probability": [0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
    "reader_windows": list(range(1, READ_WINDOWS + 1)),
}


@dataclass(frozen=True)
class Calibration:
    """What `calibrate` found on the first file, bounded by the others."""

    primary: str  # the file the false-acceptance target is for
    front: list[dict[str, Any]]  # its Pareto front: false acceptance -> best coverage, with the policy
    recommended: dict[str, Any] | None  # the best point within every bound; None: no policy is
    chosen: Policy | None  # the base policy with the recommended thresholds
    # per file: what each cue still buys (`ablation`) and what each idea buys (`files`), at the chosen policy
    ablation: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    ideas: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def report(self, target_fa: float, split: str) -> dict[str, Any]:
        """The JSON `calibrate --json` writes."""
        return {"front": self.front, "recommended": self.recommended, "target_fa": target_fa, "files": self.ideas,
                "ablation": self.ablation, "split": split}


def calibrate(records: dict[str, list[dict[str, Any]]], base: Policy, target_fa: float, others_max_fa: float,
              others_min_coverage: float, grid: dict[str, list[float]] | None = None) -> Calibration:
    """The trade-off curve of the first file of `records` (file -> `record_gate` rows) over `grid`; a policy must
    also keep the other files' false acceptance and coverage within bounds to be recommended."""
    grid = GRID if grid is None else grid
    primary = next(iter(records))
    curve = trade_off(records[primary], base, grid)
    for f in list(records)[1:]:
        other = trade_off(records[f], base, grid)
        for c, o in zip(curve, other):
            c.setdefault("others", {})[Path(f).name] = {"false_acceptance_rate": o["false_acceptance_rate"],
                                                         "coverage": o["coverage"]}
    front = pareto(curve)
    allowed = [c for c in curve if all(o["false_acceptance_rate"] <= others_max_fa
                                       and o["coverage"] >= others_min_coverage for o in c.get("others", {}).values())]
    rec = recommend(allowed, target_fa)
    chosen = base.with_values(**{k: rec[k] for k in CALIBRATED if k in rec}) if rec is not None else None
    # what each cue buys is reported either way: at the recommended policy, or at the base one when none qualifies
    # (the cues still have to earn their place when the bounds cannot be met)
    at = chosen or base
    ideas = {f: ideas_report(recs, at, grid) for f, recs in records.items()}
    ablation = {f: ablation_report(recs, at, grid, target_fa) for f, recs in records.items()}
    return Calibration(primary, front, rec, chosen, ablation, ideas)
