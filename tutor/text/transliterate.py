"""A Hindi word typed in Latin letters, spelt back in Devanagari by a character-level model learnt from Dakshina's
pairs (issue 34): the fallback for a typed word that neither Dakshina's own list nor the romanised dictionary reads
("ghanatva" -> घनत्व, density; "sakshrata" -> साक्षरता, literacy; "ardhchalak" -> अर्धचालक, semiconductor).

The model is a table of P(Devanagari piece | Latin piece), pieces of one to three characters on each side, learnt by
expectation-maximisation over every way of cutting each pair into pieces (the many-to-many alignment of
letter-to-sound work). `kh` -> ख, `aa` -> ा, `ksh` -> क्ष, `p` -> प् before र: whatever the pairs say, including the
inherent vowel that Hindi writes nowhere ("kamal" -> कमल: `ka` -> क).

Reading a typed word, the model spells only words a dictionary lists: pieces are walked through the beginnings of
the dictionary's one-word Hindi phrases, so the answer is a word the dictionary can read, and the best spelling's log
probability per Latin letter says how sure it is (`Transliterator.spell`; the caller keeps it only above a bar
measured on held-out pairs: scripts/train_transliteration.py).
"""
from __future__ import annotations

import gzip
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

MAX_LATIN = 3  # longest Latin piece
MAX_DEV = 3  # longest Devanagari piece (क्ष is three code points)
FLOOR = 1e-4  # a piece pair less likely than this after training is dropped


def _spans(n: int, longest: int) -> Iterable[tuple[int, int]]:
    for i in range(n):
        for k in range(1, min(longest, n - i) + 1):
            yield i, i + k


def expected_counts(latin: str, dev: str, table: dict[tuple[str, str], float], weight: float,
                    counts: dict[tuple[str, str], float]) -> float:
    """One pair's share of the E step: the probability of each piece pair over all cuttings of (latin, dev) into the
    same number of pieces, times `weight`, added to `counts`. Returns the pair's log likelihood (-inf where no
    cutting has every piece pair in the table)."""
    n, m = len(latin), len(dev)
    fwd = [[0.0] * (m + 1) for _ in range(n + 1)]
    fwd[0][0] = 1.0
    for i in range(n + 1):
        for j in range(m + 1):
            f = fwd[i][j]
            if not f:
                continue
            for a in range(1, min(MAX_LATIN, n - i) + 1):
                for b in range(1, min(MAX_DEV, m - j) + 1):
                    p = table.get((latin[i:i + a], dev[j:j + b]))
                    if p:
                        fwd[i + a][j + b] += f * p
    total = fwd[n][m]
    if total <= 0.0:
        return -math.inf
    bwd = [[0.0] * (m + 1) for _ in range(n + 1)]
    bwd[n][m] = 1.0
    for i in range(n, -1, -1):
        for j in range(m, -1, -1):
            if i == n and j == m:
                continue
            s = 0.0
            for a in range(1, min(MAX_LATIN, n - i) + 1):
                for b in range(1, min(MAX_DEV, m - j) + 1):
                    p = table.get((latin[i:i + a], dev[j:j + b]))
                    if p and bwd[i + a][j + b]:
                        s += p * bwd[i + a][j + b]
                        if fwd[i][j]:
                            counts[(latin[i:i + a], dev[j:j + b])] += weight * fwd[i][j] * p * bwd[i + a][j + b] / total
            bwd[i][j] = s
    return math.log(total)


def learn(pairs: Iterable[tuple[str, str, float]], iterations: int = 5) -> dict[str, dict[str, float]]:
    """P(Devanagari piece | Latin piece) from (Latin, Devanagari, weight) pairs by `iterations` rounds of EM, started
    from every co-occurring piece pair alike. Pieces of two or three letters compete with their parts, as in
    m2m-aligner; a pair whose lengths no cutting fits is skipped."""
    data = [(lat, dev, w) for lat, dev, w in pairs if lat and dev and len(lat) <= MAX_LATIN * len(dev)
            and len(dev) <= MAX_DEV * len(lat)]
    table: dict[tuple[str, str], float] = {}
    for lat, dev, _ in data:
        for i, k in _spans(len(lat), MAX_LATIN):
            for j, e in _spans(len(dev), MAX_DEV):
                table[(lat[i:k], dev[j:e])] = 1.0
    for _ in range(iterations):
        counts: dict[tuple[str, str], float] = defaultdict(float)
        for lat, dev, w in data:
            expected_counts(lat, dev, table, w, counts)
        by_latin: dict[str, float] = defaultdict(float)
        for (lat, _), c in counts.items():
            by_latin[lat] += c
        table = {k: c / by_latin[k[0]] for k, c in counts.items() if c / by_latin[k[0]] >= FLOOR}
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for (lat, dev), p in table.items():
        out[lat][dev] = p
    return {lat: dict(sorted(row.items(), key=lambda kv: -kv[1])) for lat, row in out.items()}


def save(model: dict[str, dict[str, float]], path: Path) -> None:
    """The table as gzip'd TSV (`latin`, `devanagari`, `probability`), the same bytes for the same table."""
    lines = ["latin\tdevanagari\tprobability"]
    for lat in sorted(model):
        lines += [f"{lat}\t{dev}\t{p:.6g}" for dev, p in model[lat].items()]
    with open(path, "wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0, compresslevel=9) as gz:
        gz.write(("\n".join(lines) + "\n").encode("utf-8"))


def load(path: Path) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = defaultdict(dict)
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            lat, dev, p = line.rstrip("\n").split("\t")
            out[lat][dev] = float(p)
    return dict(out)


@dataclass(frozen=True)
class Listed:
    """The words a model may spell, and every beginning of one (a prefix set: a tenth of a trie's memory)."""

    words: frozenset[str]
    prefixes: frozenset[str]


def listed(words: Iterable[str]) -> Listed:
    ws = frozenset(w for w in words if w)
    return Listed(ws, frozenset(w[:i] for w in ws for i in range(len(w) + 1)))


@dataclass
class Transliterator:
    """The learnt table, and the words it may spell (a dictionary's one-word Hindi phrases)."""

    model: dict[str, dict[str, float]]
    words: Listed
    beam: int = 64
    per_piece: int = 12  # the likeliest Devanagari pieces tried for each Latin piece

    def __post_init__(self):
        self._log = {lat: [(dev, math.log(p)) for dev, p in list(row.items())[:self.per_piece]]
                     for lat, row in self.model.items()}

    def spell(self, typed: str, n: int = 1) -> list[tuple[str, float]]:
        """The `n` likeliest listed words `typed` (Latin letters) spells, each with its log probability per Latin
        letter (0 is certain); [] where no listed word can be spelt from it."""
        w = typed.lower()
        if not w.isalpha() or not w.isascii():
            return []
        prefixes = self.words.prefixes
        # after i letters: the Devanagari spelt so far -> its best log probability
        states: list[dict[str, float]] = [{} for _ in range(len(w) + 1)]
        states[0][""] = 0.0
        for i in range(len(w)):
            for spelt, score in sorted(states[i].items(), key=lambda s: -s[1])[:self.beam]:
                for a in range(1, min(MAX_LATIN, len(w) - i) + 1):
                    for dev, lp in self._log.get(w[i:i + a], ()):
                        nxt = spelt + dev
                        if nxt in prefixes and score + lp > states[i + a].get(nxt, -math.inf):
                            states[i + a][nxt] = score + lp
        done = sorted(((s / len(w), spelt) for spelt, s in states[len(w)].items() if spelt in self.words.words),
                      reverse=True)
        return [(spelt, s) for s, spelt in done[:n]]
