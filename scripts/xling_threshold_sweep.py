"""The cross-lingual judge's threshold (policy min_cross_lingual_score) from one evaluation run at threshold 0: a
question the English path answered (its item has no cross_lingual_score) stands; any other is answered when its score
reaches t. Prints answered-or-refused-correctly / false acceptance / coverage on the tuning and held-out halves for
every t, and the t chosen on the tuning half alone (the most correct at false acceptance <= 5%, the lowest such t).

    TUTOR_MIN_CROSS_LINGUAL_SCORE=0 python -m tutor eval tests/data/xling-devanagari.jsonl \\
        --libraries ../shared/data/libraries --json /tmp/at0.json
    python scripts/xling_threshold_sweep.py /tmp/at0.json tests/data/xling-devanagari.jsonl --low 0.80 --high 0.88

`--also RUN.json` adds every question of another run at threshold 0 to the tuning side (a development file whose
failures have been read: the recalibration of 2026-11-26, sixth session, pooled tests/data/xling-fresh-devanagari.jsonl
in); `--test RUN.json` is reported beside them and never chosen on (tests/data/xling-fresh2-devanagari.jsonl).
"""
from __future__ import annotations

import argparse
import json

from tutor.evaluation.questions import load_questions, split_questions


def answered(item: dict, t: float) -> bool:
    score = item.get("cross_lingual_score")
    return bool(item["answered"]) and (score is None or score >= t)


def figures(items: list[dict], t: float) -> tuple[float, float, float]:
    """(answered or refused correctly, false acceptance, coverage), in %."""
    ans = [r for r in items if r["expect"] == "answer"]
    ref = [r for r in items if r["expect"] != "answer"]
    fa = sum(answered(r, t) for r in ref)
    cov = sum(answered(r, t) for r in ans)
    return (100 * (cov + len(ref) - fa) / len(items), 100 * fa / max(1, len(ref)), 100 * cov / max(1, len(ans)))


def _items(path: str) -> list[dict]:
    return json.load(open(path, encoding="utf-8"))["items"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("eval_json")
    ap.add_argument("questions")
    ap.add_argument("--low", type=float, default=0.78)
    ap.add_argument("--high", type=float, default=0.88)
    ap.add_argument("--step", type=float, default=0.0025)
    ap.add_argument("--max-fa", type=float, default=5.0)
    ap.add_argument("--also", action="append", default=[], help="another run at 0 whose questions all join tuning")
    ap.add_argument("--test", action="append", default=[], help="a run at 0 reported, never chosen on")
    args = ap.parse_args()
    items = _items(args.eval_json)
    held = {q.id for q in split_questions(load_questions(args.questions), "heldout")}
    tuning = [r for r in items if r["id"] not in held] + [r for f in args.also for r in _items(f)]
    heldout = [r for r in items if r["id"] in held]
    test = [r for f in args.test for r in _items(f)]
    best: tuple[float, float] | None = None
    for i in range(int(round((args.high - args.low) / args.step)) + 1):
        t = round(args.low + i * args.step, 6)
        a, b, c = figures(tuning, t), figures(heldout, t), figures(items, t)
        print(f"t={t:.4f}  tuning " + " / ".join(f"{x:5.1f}" for x in a) + "  |  held-out "
              + " / ".join(f"{x:5.1f}" for x in b) + "  |  all " + " / ".join(f"{x:5.1f}" for x in c)
              + ("  |  test " + " / ".join(f"{x:5.1f}" for x in figures(test, t)) if test else ""))
        if a[1] <= args.max_fa and (best is None or a[0] > best[1]):
            best = (t, a[0])
    print("chosen on the tuning side:", "none" if best is None else f"t = {best[0]:.4f} ({best[1]:.1f}% correct)")


if __name__ == "__main__":
    main()
