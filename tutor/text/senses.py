"""What a Hindi phrase means, as a number a reading chooses senses by (`choose_by_meaning`, called by
tutor/text/hindi_english.py): multilingual e5's cosine of the phrase (the dictionary's spelling, "ग्रह") and each
English headword the dictionaries give it ("planet", "world"), both as "query: " texts.

The cosines of every phrase of the merged dictionary that has more than one headword are computed once, by
`scripts/build_hindi_lexicons.py --senses`, and shipped (data/lexicons/hindi-senses.tsv.gz, GPL as the dictionaries
they score): a question then costs a lookup, not an e5 pass per word (about 40 ms a question on 2 cores). A phrase or
headword the file lacks is scored by e5 at the time it is asked: a FreeDict other than the one it was made with, or an
inflected word whose headwords come from several of its forms (बना: "become" under बनना, "make" under बनाना; about
one question in seventeen of tests/data). Where e5 cannot run, the reading falls back to the shelf's most used sense.
"""
from __future__ import annotations

import gzip
import logging
import math
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from tutor.text.lexicons import SHIPPED
from tutor.text.terms import MIN_PAIR_COUNT, stem

log = logging.getLogger(__name__)

SENSES = SHIPPED / "hindi-senses.tsv.gz"  # made by scripts/build_hindi_lexicons.py --senses
MIN_TOGETHER = MIN_PAIR_COUNT  # times the shelf writes two senses side by side before a reading takes them for it
# how strongly (`together`), chosen on the development files' readings (docs/evaluation.md, twenty-sixth session)
MIN_ASSOCIATION = 0.3
SCALE = 1000  # cosines are stored as integers in thousandths


def e5_similarity(word: str, candidates: Sequence[str]) -> list[float]:
    """Multilingual e5's cosine of a Devanagari word and English words ("query: " on both sides, as for symmetric
    similarity)."""
    from tutor.retrieval.embedding import e5_embedder

    vecs = e5_embedder().embed([word, *candidates])
    return [float(v @ vecs[0]) for v in vecs[1:]]


def read_senses(path: Path = SENSES) -> dict[str, str]:
    """The shipped cosines: Hindi phrase -> its row's cells, unparsed (`cosines` parses one when it is asked for; the
    whole file parsed takes seconds, this a fraction of one). Rows `hindi`, then `english=cosine` cells (the cosine in
    thousandths). {} where the file is absent or unreadable (logged)."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            fh.readline()
            return dict(line.rstrip("\n").split("\t", 1) for line in fh if "\t" in line)
    except (OSError, EOFError, UnicodeDecodeError, ValueError) as e:
        log.warning("could not read the senses' cosines %s (%s): they are computed per question", path, e)
        return {}


def cosines(cells: str) -> dict[str, float]:
    """One row's cells ("planet=905\tworld=860") as {English headword: cosine}."""
    out = {}
    for cell in cells.split("\t"):
        english, _, cos = cell.rpartition("=")
        out[english] = int(cos) / SCALE
    return out


# e5's cosine of a Hindi phrase (the dictionary's spelling) and each of its English headwords; None where unknown
Meaning = Callable[[str, Sequence[str]], "Sequence[float] | None"]


def choose_by_meaning(senses: tuple[tuple[str, ...], ...], vocabulary, phrase: str) -> str | None:
    """Of all the dictionaries' headwords for `phrase` that the shelf uses (all of them where it uses none; `vocabulary`
    is tutor/text/hindi_english.py's ShelfVocabulary with a `meaning`), the one whose meaning is nearest the Hindi's,
    the shelf's use as a tie-breaker: e5's cosine plus `shelf_weight` x
    log(1 + the chunks that use the headword's rarest word). Measured against "frequent" on the development files
    (docs/evaluation.md, issue 34): "frequent" reads ग्रह as "world", पहली as "initiative", शुरू हुआ as "continue",
    मतलब as "etymology", where this reads "planet", "first", "start", "meaning". None where fewer than two headwords
    compete or the cosines are unknown (then the rule of `choose_tiers` decides)."""
    pool = list(dict.fromkeys(c for tier in senses for c in tier))
    used = [c for c in pool if all(w in vocabulary for w in c.lower().split())]
    candidates = used or pool
    if len(candidates) < 2 or vocabulary.meaning is None:
        return None
    cosines = vocabulary.meaning(phrase, candidates)
    if cosines is None:
        return None

    def use(c: str) -> float:
        return math.log1p(min(vocabulary.chunks(w) for w in c.lower().split())) if c in used else 0.0
    return max(zip(candidates, cosines), key=lambda p: p[1] + vocabulary.shelf_weight * use(p[0]))[0]


def together(left: str, right: str, vocabulary) -> float:
    """How strongly the shelf writes the two readings side by side, in either order (stopwords between them dropped:
    "functions of money" counts for "money" and "function"): the times it does (`TermStats.pairs`) over the chunks
    that use the rarer of the two (`TermStats.df`). "food chain" 1.6, "magnetic field" 2.5, "central state" 0.17."""
    a, b = left.lower().split(), right.lower().split()
    stats = vocabulary.stats
    if not a or not b or not getattr(stats, "pairs", None):
        return 0.0
    x, y = stem(a[-1]), stem(b[0])
    count = stats.pairs.get(f"{x} {y}", 0) + stats.pairs.get(f"{stem(b[-1])} {stem(a[0])}", 0)
    return count / max(1, min(stats.df.get(x, 0), stats.df.get(y, 0))) if count >= MIN_TOGETHER else 0.0


def by_neighbours(kept: list[str], pools: dict[int, tuple[str, ...]], vocabulary, adjacent: set[int]) -> list[str]:
    """A reading's words (`kept`) with a word's sense changed where the shelf writes that sense beside its neighbour's
    and not the one chosen: for each pair of entries `i`, `i + 1` read from Hindi words written side by side
    (`adjacent` holds `i`), at least one of them read by a dictionary (`pools`: its senses), whose chosen senses are not
    written together (`together` under `MIN_ASSOCIATION`), the one sense of one of the two that is, most strongly.
    Only one word of a pair changes (where neither chosen sense fits, a pair of two other senses is more often chance:
    प्रमुख क्षेत्र "major region" is not "primary sector"), and a word changed is not changed again by the next pair.
    Translation by the target language's own collocations: "खाद्य श्रृंखला" is "food chain" in a biology book, though
    e5 reads श्रृंखला nearest "series"."""
    out, fixed = list(kept), set()
    for i in sorted(adjacent):
        if together(out[i], out[i + 1], vocabulary) >= MIN_ASSOCIATION:
            continue
        options = [(together(a, out[i + 1], vocabulary), i, a) for a in pools.get(i, ()) if i not in fixed]
        options += [(together(out[i], b, vocabulary), i + 1, b) for b in pools.get(i + 1, ())]
        strength, k, sense = max(options, default=(0.0, 0, ""), key=lambda t: t[0])
        if strength >= MIN_ASSOCIATION:
            out[k] = sense
            fixed.update((i, i + 1))
    return out


class Meanings:
    """`Meaning` from the shipped cosines, e5 computing what they lack (`fallback`)."""

    def __init__(self, table: dict[str, str], fallback=e5_similarity):
        self.table = table
        self.fallback = fallback

    def __call__(self, phrase: str, candidates: Sequence[str]) -> list[float] | None:
        cells = self.table.get(phrase)
        row = cosines(cells) if cells is not None else None
        if row is not None and all(c in row for c in candidates):
            return [row[c] for c in candidates]
        if self.fallback is None:
            return None
        try:
            return self.fallback(phrase, candidates)
        except Exception as e:  # noqa: BLE001 - a reading never fails for want of a cosine: the shelf's rule decides
            log.warning("could not score the senses of %r (%s: %s)", phrase, type(e).__name__, e)
            return None


_SHIPPED: list[Meanings] = []
_LOCK = threading.Lock()


def meanings(path: Path = SENSES) -> Meanings:
    """The shipped cosines, read once per process (0.04 s; tutor/warmup.py reads them at start)."""
    with _LOCK:
        if not _SHIPPED:
            _SHIPPED.append(Meanings(read_senses(path)))
        return _SHIPPED[0]
