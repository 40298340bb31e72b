"""Follow-ups: two-turn conversations (tests/data/followups.jsonl), each follow-up asked alone and resolved against
the first turn, with coverage and false acceptance counted as for single questions."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tutor.evaluation.evaluate import judge, summarise
from tutor.evaluation.questions import Question, json_rows, question_from_dict

if TYPE_CHECKING:
    from tutor.pipeline import Tutor


@dataclass(frozen=True)
class Conversation:
    """Two turns: a first question the book answers, and a follow-up labelled like any question (`expect`, gold)."""

    id: str
    first: str
    followup: Question
    first_gold_file: str | None = None


def load_conversations(path: str | Path) -> list[Conversation]:
    """tests/data/followups.jsonl: the question schema of ../shared/data plus `first` (and `first_gold_file`)."""
    return [Conversation(d["id"], d["first"], question_from_dict(d), d.get("first_gold_file")) for d in json_rows(path)]


# how the follow-up is asked in each measured setting: the policy values that differ from the shipped policy
FOLLOWUP_MODES: dict[str, dict[str, Any]] = {
    "alone": {"resolve_followups": False},  # as before follow-ups: each question judged by itself
    "resolved": {"min_followup_own_words": 0.0},  # read against the first turn, without the own-words check
    "resolved+own-words": {},  # the shipped policy
}


def evaluate_followups(convs: list[Conversation], tutor_for: Callable[[str, str], Tutor],
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
