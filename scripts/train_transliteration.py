"""Learns the Latin -> Devanagari spelling model the Hinglish reading falls back on (tutor/text/transliterate.py) from
Dakshina's published train split, writes it to data/lexicons/latin-devanagari.tsv.gz (CC BY-SA 4.0, as Dakshina),
and measures it on Dakshina's dev and test splits (Devanagari words the model never saw), against the romanised
dictionary lookup it joins (tutor/text/hinglish_dictionary.py: `latin_index`).

A held-out pair counts where the tutor would look its Latin word up: the Devanagari word is a one-word phrase of the
reading dictionary (FreeDict + Shabdanjali, as Hinglish reads) and the Latin word is not an English headword. A
lookup is right when the English it reads shares a headword with the Devanagari word's own.

Run from the repository root: `python scripts/train_transliteration.py [../shared/data/lexicons] [--measure-only]`.
"""
from __future__ import annotations

import csv
import json
import random
import re
import sys
import time
from pathlib import Path

from tutor.text.hindi_dictionary import normalize_hindi
from tutor.text.hinglish_dictionary import dakshina, latin_index, romanised_heads
from tutor.text.lexicons import TRANSLITERATION, reading_dictionary
from tutor.text.transliterate import Transliterator, learn, listed, load, save

BARS = (-0.1, -0.2, -0.3, -0.5, -0.75, -1.0, -1.5, -2.0, -99.0)


def pairs(src: Path, splits: set[str]) -> list[tuple[str, str, float]]:
    with open(src / "hinglish-devanagari.tsv", encoding="utf-8") as fh:
        return [(r["latin"].lower(), normalize_hindi(r["devanagari"]), float(r["annotators"] or 1))
                for r in csv.DictReader(fh, delimiter="\t") if r["split"] in splits]


def main(src: Path, measure_only: bool) -> None:
    if not measure_only:
        t0 = time.perf_counter()
        model = learn(pairs(src, {"train"}), iterations=5)
        save(model, TRANSLITERATION)
        print(f"learnt from the train split in {time.perf_counter() - t0:.0f} s: {sum(map(len, model.values())):,} "
              f"piece pairs, {TRANSLITERATION} {TRANSLITERATION.stat().st_size:,} bytes")
    d = reading_dictionary(shabdanjali=True)
    index = latin_index(d)
    t0 = time.perf_counter()
    tl = Transliterator(load(TRANSLITERATION), listed(k for k in d.english if " " not in k))
    print(f"loaded in {time.perf_counter() - t0:.1f} s")
    for split in ("dev", "test"):
        measure(split, src, d, index, tl)
    english(src.parent / "training" / "squad11-train.json", index, tl)


def measure(split: str, src: Path, d, index, tl: Transliterator) -> None:
    held = {(lat, dev) for lat, dev, _ in pairs(src, {split})
            if d.get(dev) and lat.isalpha() and len(lat) >= 3 and lat not in index.english}
    rows, t0 = [], time.perf_counter()
    for lat, dev in sorted(held):
        gold = set(d.get(dev))
        got = tl.spell(lat)
        learnt_ok = bool(got) and (got[0][0] == dev or bool(gold & set(d.get(got[0][0]))))
        rows.append((got[0][1] if got else None, learnt_ok, romanised_heads(lat, index), gold))
    per_word = (time.perf_counter() - t0) / max(1, len(rows)) * 1000
    n = len(rows)
    print(f"\nDakshina's {split} split, pairs the tutor would look up: {n}; {per_word:.1f} ms a word")
    ruled = [(bool(r), bool(set(r) & g)) for _, _, r, g in rows]
    read, right = sum(a for a, _ in ruled), sum(b for _, b in ruled)
    print(f"romanised dictionary (before): read {read / n:.1%}, right {right / n:.1%} ({right / max(1, read):.1%} of "
          "those read)")
    print("bar | learnt alone: read, right (of read) | romanised first, then learnt: read, right")
    for bar in BARS:
        read = [(s is not None and s >= bar, ok) for s, ok, _, _ in rows]
        both = [(True, b) if a else (s is not None and s >= bar, ok) for (a, b), (s, ok, _, _) in zip(ruled, rows)]
        print(f"{bar:6.2f} | {sum(a for a, _ in read) / n:.1%}, {sum(a and b for a, b in read) / n:.1%} "
              f"({sum(a and b for a, b in read) / max(1, sum(a for a, _ in read)):.1%}) | "
              f"{sum(a for a, _ in both) / n:.1%}, {sum(a and b for a, b in both) / n:.1%}")


def english(squad: Path, index, tl: Transliterator, n: int = 2000) -> None:
    """English words that would reach the fallback (2,000 drawn from SQuAD 1.1's train questions: not English
    headwords, not typed in Dakshina, three letters or more, not in capitals; mostly names): the share read as a
    Hindi word, a false reading."""
    if not squad.is_file():
        print(f"\n{squad} not found: English false readings not measured")
        return
    dk = dakshina()
    data = json.loads(squad.read_text(encoding="utf-8"))["data"]
    questions = [q["question"] for a in data for p in a["paragraphs"] for q in p["qas"]]
    words = {w for q in questions for w in re.findall(r"[A-Za-z]+", q)}
    pool = sorted({w.lower() for w in words if len(w) >= 3 and not w.isupper() and w.lower() not in index.english
                   and not (dk and dk.devanagari(w.lower()))})
    sample = random.Random(0).sample(pool, min(n, len(pool)))
    scores = [(tl.spell(w) or [(None, None)])[0][1] for w in sample]
    ruled = [bool(romanised_heads(w, index)) for w in sample]
    print(f"\nEnglish words that reach the fallback: {len(sample)} of {len(pool)}; romanised dictionary reads "
          f"{sum(ruled) / len(sample):.1%} of them as Hindi")
    for bar in BARS:
        alone = sum(s is not None and s >= bar for s in scores)
        both = sum(a or (s is not None and s >= bar) for a, s in zip(ruled, scores))
        print(f"{bar:6.2f} | learnt alone reads {alone / len(sample):.1%}, romanised first then learnt "
              f"{both / len(sample):.1%}")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(Path(args[0] if args else "../shared/data/lexicons"), "--measure-only" in sys.argv)
