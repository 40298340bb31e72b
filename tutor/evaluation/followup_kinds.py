"""Follow-ups that ask a kind ("Why?", "Give an example.", "Tell me more."): conversations of tests/data/
followups-kinds.jsonl asked turn by turn, each follow-up scored against the book's gold sentences, for each kind and
for the development and held-out halves apart.

An answer is right when one of its sentences is a gold sentence (for "more": one the earlier answer had not given);
a refusal is right when the book has none. Two settings: "before" (kind follow-ups off, each follow-up read against
the turn just before it, refused or not, as the chat did) and "after" (the shipped policy, read against the last
answered turn).
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tutor.evaluation.questions import json_rows

if TYPE_CHECKING:
    from tutor.pipeline import Tutor
    from tutor.types import TutorAnswer

KINDS = ("why", "example", "more", "other")
SPLITS = ("dev", "heldout")
# the policy values each setting changes, and whether a follow-up reads against the last answered turn
KIND_MODES: dict[str, tuple[dict[str, Any], bool]] = {
    "before": ({"followup_kinds": False}, False),
    "after": ({}, True),
}


@dataclass(frozen=True)
class Turn:
    """One follow-up: as typed, its kind, whether the book answers it, and the gold sentences that do."""

    question: str
    kind: str
    expect: str  # "answer" | "refuse"
    gold: tuple[str, ...] = ()
    gold_file: str | None = None


@dataclass(frozen=True)
class KindConversation:
    """A first question and its follow-ups, on one shelf; `split` is "dev" or "heldout"."""

    id: str
    klass: str
    subject: str
    library: str
    split: str
    first: str
    turns: tuple[Turn, ...]
    first_gold_file: str | None = None


def is_kinds_file(path: str | Path) -> bool:
    """A conversations file in this schema (its rows have `turns`), not the two-turn one of followups.jsonl."""
    with open(path, encoding="utf-8") as f:
        first = next((line for line in f if line.strip()), "")
    return bool(first) and "turns" in json.loads(first)


def load_kind_conversations(path: str | Path) -> list[KindConversation]:
    """tests/data/followups-kinds.jsonl (schema in tests/data/README.md)."""
    out = []
    for d in json_rows(path):
        turns = tuple(Turn(t["question"], t["kind"], t["expect"], tuple(t.get("gold") or ()), t.get("gold_file"))
                      for t in d["turns"])
        out.append(KindConversation(d["id"], str(d["class"]), d["subject"], d["library"], d["split"], d["first"],
                                    turns, d.get("first_gold_file")))
    return out


def _norm(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.lower())


def same_sentence(a: str, b: str) -> bool:
    """The same sentence of the book, whitespace and split words aside (a quote may drop a heading before it)."""
    x, y = _norm(a), _norm(b)
    return bool(x) and (x == y or (min(len(x), len(y)) >= 30 and (x in y or y in x)))


def score_turn(turn: Turn, ans: TutorAnswer, earlier: TutorAnswer | None) -> str:
    """"right" (a gold sentence cited, or refused as expected), "other" (answered without a gold sentence),
    "refused" (the book answers it) or "accepted" (answered where the book does not)."""
    if turn.expect == "refuse":
        return "right" if ans.was_refusal else "accepted"
    if ans.was_refusal:
        return "refused"
    said = [s.text for s in earlier.sentences] if earlier is not None and turn.kind == "more" else []
    gold = [g for g in turn.gold if not any(same_sentence(g, s) for s in said)]
    return "right" if any(same_sentence(g, s.text) for g in gold for s in ans.sentences) else "other"


def run_conversation(c: KindConversation, tutor: Tutor, answered_only: bool) -> list[dict[str, Any]]:
    """Each follow-up of `c` asked in turn; the earlier turn it reads against is the last answered one
    (`answered_only`) or simply the last one."""
    first = tutor.ask(c.first, c.klass, c.subject)
    last, answered = first, (None if first.was_refusal else first)
    rows = []
    for t in c.turns:
        earlier = answered if answered_only else last
        ans = tutor.ask(t.question, c.klass, c.subject, previous=earlier)
        rows.append({"id": c.id, "split": c.split, "kind": t.kind, "expect": t.expect, "typed": t.question,
                     "first": c.first, "first_answered": not first.was_refusal, "outcome": score_turn(t, ans, earlier),
                     "reason": str(ans.reason), "resolved": ans.resolved_question,
                     "answer": ans.answer if not ans.was_refusal else ans.message})
        last = ans
        if not ans.was_refusal:
            answered = ans
    return rows


def summarise_kinds(rows: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, int]]]:
    """split -> kind -> counts: answerable, right (of those), other, refused; unanswerable, refused_right, accepted."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    for r in rows:
        for split in (r["split"], "all"):
            c = out.setdefault(split, {}).setdefault(r["kind"], {
                "answerable": 0, "right": 0, "other": 0, "refused": 0, "unanswerable": 0, "refused_right": 0,
                "accepted": 0})
            if r["expect"] == "answer":
                c["answerable"] += 1
                c[r["outcome"]] += 1
            else:
                c["unanswerable"] += 1
                c["refused_right" if r["outcome"] == "right" else "accepted"] += 1
    return out


def evaluate_kinds(convs: list[KindConversation], tutor_for: Callable[[str, str], Tutor],
                   progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Every conversation in every setting of KIND_MODES; `tutor_for(library, mode)` gives the Tutor."""
    out: dict[str, Any] = {"conversations": len(convs), "modes": {}, "rows": {}}
    total, done = len(convs) * len(KIND_MODES), 0
    for mode, (_, answered_only) in KIND_MODES.items():
        rows = []
        for c in convs:
            rows += run_conversation(c, tutor_for(c.library, mode), answered_only)
            done += 1
            if progress:
                progress(done, total)
        out["modes"][mode] = summarise_kinds(rows)
        out["rows"][mode] = rows
    return out


def report_lines(r: dict[str, Any], verbose: bool = False) -> list[str]:
    """evaluate_kinds' result as the table `python -m tutor followups` prints (and each follow-up with `verbose`)."""
    out = [f"{r['conversations']} conversations; follow-ups the book answers: right = a gold sentence cited; "
           "the ones it does not: right = refused",
           f"{'setting':7} {'half':8} {'kind':8} {'answers: right':>15} {'other':>6} {'refused':>8} "
           f"{'no answer: refused':>19} {'accepted':>9}"]
    for mode, by_split in r["modes"].items():
        for split in (*SPLITS, "all"):
            for kind in KINDS:
                c = by_split.get(split, {}).get(kind)
                if c:
                    out.append(f"{mode:7} {split:8} {kind:8} {c['right']:>9}/{c['answerable']:<5} {c['other']:>6} "
                               f"{c['refused']:>8} {c['refused_right']:>13}/{c['unanswerable']:<5} {c['accepted']:>9}")
    if verbose:
        for mode, rows in r["rows"].items():
            out += [f"  [{mode}] {e['id']} {e['split']} {e['kind']}/{e['expect']} {e['first']!r} -> {e['typed']!r}: "
                    f"{e['outcome']} ({e['reason']}) {e['answer'][:160]!r}" for e in rows]
    return out
