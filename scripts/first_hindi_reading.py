"""The first Hindi and Hinglish readings of a fresh process, cold or after the warm-up's `warm_readings`: what a
student's first such question pays for the dictionaries (docs/performance.md).

Run from the repository root, with the NCERT evaluation shelves built: `python scripts/first_hindi_reading.py [warm]
[--index data/eval-index/ncert]`.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tutor.policy import load_policy  # noqa: E402
from tutor.retrieval.search import Library  # noqa: E402
from tutor.text.readings import shelf_reading  # noqa: E402
from tutor.warmup import warm_readings  # noqa: E402

QUESTIONS = (("प्रकाश का परावर्तन क्या है?", False), ("aasman neela kyon dikhta hai", True),
             ("lohe ko jang se kaise bachaye", True))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("warm", nargs="?", choices=("warm",))
    ap.add_argument("--index", type=Path, default=Path("data/eval-index/ncert"))
    a = ap.parse_args()
    lib, policy = Library(a.index), load_policy()
    stats = lib.term_stats(lib.shelf("10", "science"))
    if a.warm:
        t0 = time.perf_counter()
        loaded = warm_readings(policy)
        print(f"warm_readings: {', '.join(loaded)} in {time.perf_counter() - t0:.2f} s")
    for q, hinglish in QUESTIONS:
        t0 = time.perf_counter()
        reading = shelf_reading(q, stats, hinglish, policy)
        print(f"{(time.perf_counter() - t0) * 1000:6.0f} ms  {q} -> {reading[0]!r}")


if __name__ == "__main__":
    main()
