"""Every Hinglish question of tests/data read with one policy switch on and off (default `hinglish_transliteration`):
the questions whose English reading differs. Where none does, no decision can: the reading is all the switch changes.

Run from the repository root, with the NCERT evaluation shelves built (`python -m tutor eval ...` builds them):
`python scripts/hinglish_readings_diff.py [SWITCH] [--index data/eval-index/ncert]`.
"""
from __future__ import annotations

import argparse
import glob
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tutor.evaluation.questions import load_questions  # noqa: E402
from tutor.policy import load_policy  # noqa: E402
from tutor.retrieval.search import Library  # noqa: E402
from tutor.text.readings import shelf_reading  # noqa: E402
from tutor.text.terms import has_devanagari  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("switch", nargs="?", default="hinglish_transliteration")
    ap.add_argument("--index", type=Path, default=Path("data/eval-index/ncert"))
    a = ap.parse_args()
    lib, base = Library(a.index), load_policy()
    on, off = base.with_values(**{a.switch: True}), base.with_values(**{a.switch: False})
    stats, n, differ = {}, 0, 0
    for f in sorted(glob.glob("tests/data/*hinglish*.jsonl")) + ["tests/data/xling-offbook-dev.jsonl"]:
        for q in load_questions(f):
            if has_devanagari(q.question):
                continue
            if q.subject not in stats:
                stats[q.subject] = lib.term_stats(lib.shelf(q.klass, q.subject))
            got = [shelf_reading(q.question, stats[q.subject], hinglish=True, policy=p) for p in (on, off)]
            n += 1
            if got[0] != got[1]:
                differ += 1
                print(f"{Path(f).name} {q.id}: on {got[0][0]!r}, off {got[1][0]!r}")
    print(f"{n} Hinglish questions, {differ} readings differ with {a.switch} on and off")


if __name__ == "__main__":
    main()
