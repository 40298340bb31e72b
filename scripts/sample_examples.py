"""A seeded sample of a reader's training examples, sized to train on these 2 cores inside a session (issue 33:
"measure examples per minute first; sample the examples to fit").

    python scripts/sample_examples.py out/ex-tele out/ex-sub --share ncert=1 --share claim-ncert=1 \
        --share tele=0.12 --share other=0.04 --seed 0

Reads DIR/train.jsonl(.xz) of `train-reader --examples-only` and keeps each example with the share of the first rule
its source matches: `ncert`, `claim-ncert` (the source is that, or it with a suffix, "ncert-tele"); `tele` (the source
ends in "-tele", a question as a Hindi reading writes it); `other` (any other). It shuffles what it kept with the same
seed and writes DEST/train.jsonl, with the held-out examples and the examples' notes beside it unchanged:
`train-reader --from-examples DEST` trains on it.
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tutor.reader.examples import _open_text, examples_file  # noqa: E402


def rule_of(source: str, shares: dict[str, float]) -> str:
    """The rule an example's source falls under (see the module's docstring)."""
    for rule in shares:
        if rule not in ("tele", "other") and (source == rule or source.startswith(rule + "-")):
            return rule
    if source.endswith("-tele") and "tele" in shares:
        return "tele"
    return "other"


def sample(src: Path, dest: Path, shares: dict[str, float], seed: int) -> Counter:
    rng = random.Random(seed)
    kept: list[str] = []
    counts: Counter = Counter()
    with _open_text(examples_file(src, "train"), "r") as f:
        for line in f:
            source = json.loads(line)["source"]
            if rng.random() < shares.get(rule_of(source, shares), 0.0):
                kept.append(line)
                counts[source] += 1
    rng.shuffle(kept)
    dest.mkdir(parents=True, exist_ok=True)
    with open(dest / "train.jsonl", "w", encoding="utf-8") as f:
        f.writelines(kept)
    held = examples_file(src, "heldout")
    with _open_text(held, "r") as f, open(dest / "heldout.jsonl", "w", encoding="utf-8") as g:
        shutil.copyfileobj(f, g)
    if (src / "examples.json").exists():
        shutil.copy(src / "examples.json", dest / "examples.json")
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", type=Path)
    ap.add_argument("dest", type=Path)
    ap.add_argument("--share", action="append", default=[], help="RULE=SHARE (ncert, claim-ncert, tele, other, or "
                                                                  "a source's own name)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    shares = {k: float(v) for k, v in (s.split("=", 1) for s in a.share)}
    counts = sample(a.src, a.dest, shares, a.seed)
    print(f"{sum(counts.values())} examples kept in {a.dest}: {dict(sorted(counts.items()))}")


if __name__ == "__main__":
    main()
