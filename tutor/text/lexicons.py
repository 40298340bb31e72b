"""The Hindi lexicons the tutor ships beside FreeDict (data/lexicons/, each with its source and licence in its README):
Shabdanjali's English-Hindi dictionary, read as Hindi phrase -> English, and the dictionary a reading uses.

`reading_dictionary` merges, in this order: FreeDict's English-Hindi with the countries' names (where Debian installs
it: tutor/text/hindi_dictionary.py), Shabdanjali (IIIT Hyderabad, GPL, shipped as its own data file), and, for
measurement only, a subject glossary passed in (its licence is unstated: never shipped, never read by the tutor;
scripts/xling_lookup_coverage.py measures it). A phrase's English comes one tier per source (`Dictionary.senses`): the
reading takes the first source whose senses the shelf uses (tutor/text/hindi_english.py: `choose_tiers`), so FreeDict's
readings stay where they read, and Shabdanjali reads what FreeDict lacks (हृदय, साल, लोकतंत्र, विद्युत, मात्रक) or
reads off the shelf (पौधा: "kelp").
"""
from __future__ import annotations

import gzip
import logging
import threading
from collections.abc import Container, Iterator
from functools import lru_cache
from pathlib import Path

from tutor.text.hindi_dictionary import Dictionary, Entry, invert, load_dictionary, normalize_hindi

log = logging.getLogger(__name__)

SHIPPED = Path(__file__).resolve().parents[2] / "data" / "lexicons"
SHABDANJALI = SHIPPED / "shabdanjali-en-hi.tsv.gz"  # made by scripts/build_hindi_lexicons.py
DAKSHINA = SHIPPED / "dakshina-hi-latin.tsv.gz"
# learnt from Dakshina's train split by scripts/train_transliteration.py (tutor/text/transliterate.py)
TRANSLITERATION = SHIPPED / "latin-devanagari.tsv.gz"

# the source's Hindi was typed in WX and converted: त (WX "w") slipped to ट (WX "t") in nasal and sibilant clusters
# (लोकतण्ट्र, संयन्ट्र, वस्ट्र). Such a phrase is also listed as it should read; real ट्र (राष्ट्र) has no such cluster
_SLIPS = (("\u0902\u091f\u094d\u0930", "\u0902\u0924\u094d\u0930"), ("\u0928\u094d\u091f\u094d\u0930",
          "\u0902\u0924\u094d\u0930"), ("\u0938\u094d\u091f\u094d\u0930", "\u0938\u094d\u0924\u094d\u0930"))


@lru_cache(maxsize=2)
def _english_words(path: str, mtime: float) -> frozenset[str] | None:
    try:
        return frozenset(w for r in read_tsv(Path(path)) if (w := r.get("english", "").strip().lower()).isalpha()
                         and w.isascii())
    except (OSError, EOFError, UnicodeDecodeError) as e:
        log.warning("could not read the English words of %s (%s)", path, e)
        return None


def english_words(path: Path = SHABDANJALI) -> frozenset[str] | None:
    """Shabdanjali's one-word English headwords, lower case (about 72,000): what ingest takes for an English word when
    it mends words a PDF split (tutor/ingest/pdftext.py). The shipped file is read, never FreeDict, so every machine
    cleans a PDF the same way; None where it is absent (ingest then goes by the document's own words)."""
    return _english_words(str(path), path.stat().st_mtime) if path.is_file() else None


_INFLECTIONS = ("s", "es", "ed", "d", "ing", "ly", "er", "est")


def is_english(word: str, english: Container[str]) -> bool:
    """`word` (lower case) is in the word list as written or as an inflection of a listed word ("mirrors")."""
    return word in english or any(word.endswith(x) and word[:-len(x)] in english for x in _INFLECTIONS
                                  if len(word) > len(x) + 2)


def read_tsv(path: Path) -> Iterator[dict[str, str]]:
    """The rows of a tab-separated file with a header line (gzip'd where its name ends in .gz), as dicts."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        header = fh.readline().rstrip("\n").split("\t")
        for line in fh:
            cells = line.rstrip("\n").split("\t")
            yield dict(zip(header, cells + [""] * (len(header) - len(cells))))


def slip_variants(phrase: str) -> list[str]:
    """`phrase` (`normalize_hindi` form) and, where it has one of the source's WX slips, the spelling it means."""
    fixed = phrase
    for wrong, right in _SLIPS:
        fixed = fixed.replace(wrong, right)
    return [phrase] if fixed == phrase else [phrase, fixed]


def parse_bilingual(rows: Iterator[dict[str, str]]) -> list[Entry]:
    """Rows of `english`, `pos`, `hindi` (alternatives split by `/`) as dictionary entries, each alternative a sense
    of its own in the source's order (the common one is not always first: heart is दिल/हृदय/दया/...). A verb is listed
    by its stem (शुरू कर, बचा): it is read as its infinitive (शुरू करना, बचाना), the form `lemmas` finds."""
    entries = []
    for row in rows:
        english = row.get("english", "").strip()
        senses = []
        for alt in row.get("hindi", "").split("/"):
            phrase = normalize_hindi(alt.replace("-", " ").replace("~", " "))
            if not phrase:
                continue
            if row.get("pos") == "verb":
                phrase += "\u0928\u093e"  # ना
            senses.append(tuple(slip_variants(phrase)))
        if english and senses:
            entries.append(Entry(english, row.get("pos", ""), tuple(senses)))
    return entries


def merge(*dictionaries: Dictionary) -> Dictionary:
    """One dictionary of several, the first listed first: a phrase's headwords are each source's in turn (a headword
    once, where it first comes), with the end of each source's part in `tiers` (`Dictionary.senses` splits them)."""
    english: dict[str, tuple[str, ...]] = {}
    tiers: dict[str, tuple[int, ...]] = {}
    for n, d in enumerate(dictionaries):
        for phrase, heads in d.english.items():
            old = english.get(phrase, ())
            new = old + tuple(h for h in heads if h not in old)
            english[phrase] = new
            tiers[phrase] = tiers.get(phrase, (0,) * n) + (len(new),)
        for phrase in english.keys() - d.english.keys():
            tiers[phrase] += (len(english[phrase]),)
    return Dictionary(english, max((d.longest for d in dictionaries), default=1),
                      sum(d.headwords for d in dictionaries), tiers, len(dictionaries))


@lru_cache(maxsize=4)
def _load_bilingual(path: str, mtime: float) -> Dictionary | None:
    try:
        return invert(parse_bilingual(read_tsv(Path(path))))
    except (OSError, EOFError, UnicodeDecodeError) as e:
        log.warning("could not read the lexicon %s (%s): Hindi is read without it", path, e)
        return None


def load_bilingual(path: Path) -> Dictionary | None:
    """A lexicon of `parse_bilingual` rows, inverted (once per file version), or None where it is absent."""
    return _load_bilingual(str(path), path.stat().st_mtime) if path.is_file() else None


def reading_dictionary(shabdanjali: bool = True, glossary: Path | None = None) -> Dictionary | None:
    """The dictionary a Hindi reading uses: FreeDict (where installed), then Shabdanjali (with `shabdanjali`), then
    a `glossary` in the same format (measurement only: ../shared/data/lexicons/glossaries-en-hi.tsv); None where
    there is none of them. Each source is read once per file version (its own loader's cache); their merge once per
    set of sources."""
    sources = [load_dictionary()]
    if shabdanjali:
        sources.append(load_bilingual(SHABDANJALI))
    if glossary:
        sources.append(load_bilingual(glossary))
    found = tuple(d for d in sources if d is not None)
    if len(found) < 2:
        return found[0] if found else None
    key = tuple(id(d) for d in found)
    with _LOCK:
        got = _MERGED.get(key)
        if got is None or any(a is not b for a, b in zip(got[0], found)):
            got = (found, merge(*found))
            _MERGED.clear()  # one merge kept: the sources of a process change only when a file does
            _MERGED[key] = got
    return got[1]


_MERGED: dict[tuple[int, ...], tuple[tuple[Dictionary, ...], Dictionary]] = {}
_LOCK = threading.Lock()
