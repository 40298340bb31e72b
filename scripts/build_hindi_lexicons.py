"""Makes the Hindi lexicons the tutor ships (data/lexicons/) from ../shared/data/lexicons/ (see its README).

- `shabdanjali-en-hi.tsv.gz` (GPL, IIIT Hyderabad's Shabdanjali): rows `english`, `pos`, `hindi` (alternatives split
  by `/`), trimmed to what the lookup reads: the source's markers after "_" dropped from the English ("years_UNDEFINED"
  -> "years"), affixes and quoted forms ("-ial", "'scaped") left out, and only Hindi alternatives of one to four
  Devanagari words kept (the source also gives whole definitions, which nobody types).
- `dakshina-hi-latin.tsv.gz` (CC BY-SA 4.0, Google's Dakshina): rows `devanagari`, `latin`, `annotators`, all splits.

- `hindi-senses.tsv.gz` (GPL, as the dictionaries it scores), with `--senses`: for every Hindi phrase of the
  dictionary a Devanagari reading uses (FreeDict where Debian installs it, then the Shabdanjali file above) that has
  more than one English headword, multilingual e5's cosine of the phrase and each headword, in thousandths (rows
  `hindi`, then `english=cosine` cells; tutor/text/senses.py). About 97,000 short texts through e5: some 10 minutes
  on 2 cores.

Run once from the repository root: `python scripts/build_hindi_lexicons.py [../shared/data/lexicons]`, and
`python scripts/build_hindi_lexicons.py --senses` after either dictionary changes. The output is gzip'd with a fixed
timestamp, so the same input gives the same bytes (the cosines: on the same e5 engine).
"""
from __future__ import annotations

import csv
import gzip
import io
import re
import sys
from pathlib import Path

OUT = Path("data/lexicons")
_HINDI = re.compile(r"[\u0900-\u097f]+(?:[ \-][\u0900-\u097f]+)*")


def _write(path: Path, rows: list[list[str]]) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_NONE, escapechar="\\")
    w.writerows(rows)
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=9) as gz:
        gz.write(buf.getvalue().encode("utf-8"))


def shabdanjali(src: Path) -> list[list[str]]:
    rows, seen = [["english", "pos", "hindi"]], set()
    with open(src, encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            english, pos, hindi = (line.rstrip("\n").split("\t") + ["", ""])[:3]
            english = english.split("_")[0].strip()
            if not english or not english[0].isalnum():
                continue
            kept = [h.strip() for h in hindi.split("/")]
            kept = [h for h in kept if _HINDI.fullmatch(h) and len(h.replace("-", " ").split()) <= 4]
            key = (english, pos, "/".join(kept))
            if kept and key not in seen:
                seen.add(key)
                rows.append(list(key))
    return rows


def dakshina(src: Path) -> list[list[str]]:
    rows = [["devanagari", "latin", "annotators"]]
    with open(src, encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            dev, latin, n = line.rstrip("\n").split("\t")[:3]
            rows.append([dev, latin, n])
    return rows


def senses(batch: int = 512) -> list[list[str]]:
    """The cosines of tutor/text/senses.py: each phrase with more than one headword, against each of them."""
    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tutor.retrieval.embedding import e5_embedder
    from tutor.text.lexicons import reading_dictionary
    from tutor.text.senses import SCALE

    d = reading_dictionary(True)
    if d is None:
        raise SystemExit("no dictionary to score: install FreeDict (make dict-deps) and build Shabdanjali first")
    phrases = sorted(k for k, heads in d.english.items() if len(set(heads)) > 1)
    english = sorted({h for k in phrases for h in d.english[k]})
    e5 = e5_embedder()

    def vectors(texts: list[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for s in range(0, len(texts), batch):
            part = texts[s:s + batch]
            out.update(zip(part, e5.embed(part)))
            print(f"  {min(s + batch, len(texts)):,} of {len(texts):,}", end="\r", file=sys.stderr)
        return out
    hv, ev = vectors(phrases), vectors(english)
    rows = [["hindi", "english=cosine..."]]
    for k in phrases:
        heads = list(dict.fromkeys(d.english[k]))
        rows.append([k] + [f"{h}={round(float(ev[h] @ hv[k]) * SCALE)}" for h in heads])
    return rows


def main(src: Path) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, rows in (("shabdanjali-en-hi.tsv.gz", shabdanjali(src / "shabdanjali-en-hi.tsv")),
                       ("dakshina-hi-latin.tsv.gz", dakshina(src / "hinglish-devanagari.tsv"))):
        _write(OUT / name, rows)
        print(f"{OUT / name}: {len(rows) - 1} rows, {(OUT / name).stat().st_size:,} bytes")


if __name__ == "__main__":
    if sys.argv[1:] == ["--senses"]:
        rows, out = senses(), OUT / "hindi-senses.tsv.gz"
        _write(out, rows)
        print(f"{out}: {len(rows) - 1} rows, {out.stat().st_size:,} bytes")
    else:
        main(Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/lexicons"))
