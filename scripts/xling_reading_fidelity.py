"""How much of a Hindi or Hinglish question's meaning its English reading keeps: the share of the English twin's
content words (each xling question's `english` field; stems, stopwords dropped: tutor.text.terms.term_set) that the
reading holds, per file, under the policy (any `TUTOR_<FIELD>` in the environment applies). A measure of the reading
alone, before any gate: it chose `sense_shelf_weight` (tutor/policy.toml; issue 34). Run from the repository root,
after an eval has built the shelves:

    python scripts/xling_reading_fidelity.py tests/data/xling-devanagari.jsonl tests/data/xling-hinglish.jsonl \
        [--index data/eval-index/ncert] [--show]
    TUTOR_HINDI_SENSE_BY_MEANING=false python scripts/xling_reading_fidelity.py ...   # the rule before
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tutor.evaluation.questions import json_rows  # noqa: E402
from tutor.policy import load_policy  # noqa: E402
from tutor.retrieval.search import Library  # noqa: E402
from tutor.text.hinglish import is_hinglish  # noqa: E402
from tutor.text.readings import shelf_reading  # noqa: E402
from tutor.text.terms import term_set  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--index", type=Path, default=Path("data/eval-index/ncert"))
    ap.add_argument("--show", action="store_true", help="print each question's reading")
    a = ap.parse_args()
    policy, lib = load_policy(), Library(a.index)
    held = kept = 0
    for f in a.files:
        fh = fk = 0
        for q in json_rows(f):
            if not q.get("english"):
                continue
            stats = lib.term_stats(lib.shelf(str(q["class"]), q["subject"]))
            reading, _ = shelf_reading(q["question"], stats, is_hinglish(q["question"]), policy)
            twin, got = term_set(q["english"]), term_set(reading)
            fh, fk = fh + len(twin & got), fk + len(twin)
            if a.show:
                print(f"  {q['id']}: {reading!r} | {q['english']}")
        print(f"{f.name}: {100 * fh / max(1, fk):.1f}% of {fk} twin words")
        held, kept = held + fh, kept + fk
    print(f"all: {100 * held / max(1, kept):.1f}% of {kept}")


if __name__ == "__main__":
    main()
