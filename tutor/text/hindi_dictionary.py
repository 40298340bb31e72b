"""The English-Hindi dictionary that reads Devanagari questions about English chapters (tutor/text/hindi_english.py).

FreeDict's English-Hindi (Debian package `dict-freedict-eng-hin`, ~25,600 English headwords with their Hindi senses;
GPL, so it is read where Debian installs it and never copied into this repository), inverted into Hindi phrase ->
English headwords, with the names of the world's countries in Hindi added where it has none (Debian's `iso-codes`,
the translations every desktop uses: "भारत" -> "India", "श्रीलंका" -> "Sri Lanka"; FreeDict lists no proper names).
"""
from __future__ import annotations

import gettext
import gzip
import logging
import os
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from tutor.text.normalize import normalize_for_matching

log = logging.getLogger(__name__)

# where Debian installs dict-freedict-eng-hin; $TUTOR_HINDI_DICTIONARY names another file in the same format
DEBIAN_DICTIONARY = Path("/usr/share/dictd/freedict-eng-hin.dict.dz")
INSTALL_HINT = "apt-get install dict-freedict-eng-hin (make dict-deps)"
NUKTA = "\u093c"  # the dot below a letter (ज़, फ़, ड़): in the matching form it follows its base letter
# where Debian's iso-codes keeps the countries' names in Hindi (a gettext catalogue: English name -> Hindi name)
PLACE_NAMES = Path("/usr/share/locale/hi/LC_MESSAGES/iso_3166-1.mo")


def normalize_hindi(text: str) -> str:
    """A Hindi word or phrase as the dictionary and the question are compared: the project's matching form (nukta as
    base + U+093C, candrabindu as anusvara, punctuation and `~` as spaces), with a nasal consonant before a consonant
    written as anusvara (लेन्स = लेंस, सम्बन्ध = संबंध: both spellings are standard Hindi)."""
    return _NASAL.sub("\u0902", normalize_for_matching(text))


# a nasal consonant + virama before a consonant of its own class (or न् before a sibilant or ह), where Hindi writes
# the anusvara just as often; म्ल, न्य and the like are not nasal clusters of that kind and stay as written
_NASAL = re.compile("\u0919\u094d(?=[\u0915-\u0918])|\u091e\u094d(?=[\u091a-\u091d])|\u0923\u094d(?=[\u091f-\u0922])"
                    "|\u0928\u094d(?=[\u0924-\u0927\u0936-\u0939])|\u092e\u094d(?=[\u092a-\u092d])")


@dataclass(frozen=True)
class Entry:
    """One dictd article: the English headword, its part of speech, and each numbered sense's Hindi phrases."""

    headword: str
    pos: str
    senses: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Dictionary:
    """The inverted dictionary: a Hindi phrase (`normalize_hindi` form, words joined by one space) -> its English
    headwords, the one that lists the phrase earliest first; `longest`: the most words any Hindi phrase has;
    `headwords`: how many English headwords the file has; `tiers`: where several dictionaries were merged
    (tutor/text/lexicons.py: `merge`), for a phrase more than one gives, the end of each one's headwords in its tuple
    (a phrase not listed here has one tier: all its headwords)."""

    english: dict[str, tuple[str, ...]]
    longest: int
    headwords: int
    tiers: dict[str, tuple[int, ...]] = field(default_factory=dict)
    sources: int = 1

    def key(self, phrase: str) -> str | None:
        """The dictionary's own spelling of a Hindi phrase (`normalize_hindi` form), or None. Where the phrase as
        written has no entry, it is looked up without nuktas (जरूरी finds ज़रूरी, हज़ार finds हजार): Hindi is written
        with and without them alike."""
        if phrase in self.english:
            return phrase
        return self._unnukta.get(phrase.replace(NUKTA, ""))

    def get(self, phrase: str) -> tuple[str, ...]:
        """The English headwords of a Hindi phrase (`normalize_hindi` form; see `key`), () if none."""
        k = self.key(phrase)
        return self.english[k] if k is not None else ()

    def senses(self, phrase: str) -> tuple[tuple[str, ...], ...]:
        """A phrase's English headwords, one tuple per merged dictionary in the order merged (empty where that one
        lacks the phrase); () where none has it."""
        k = self.key(phrase)
        if k is None:
            return ()
        heads = self.english[k]
        ends = self.tiers.get(k, (len(heads),) * self.sources)
        return tuple(heads[start:end] for start, end in zip((0,) + ends[:-1], ends))

    @cached_property
    def _unnukta(self) -> dict[str, str]:
        """Every phrase without its nuktas -> the phrase as listed (one written without them first)."""
        out: dict[str, str] = {}
        for phrase in sorted(self.english, key=lambda k: NUKTA in k):
            out.setdefault(phrase.replace(NUKTA, ""), phrase)
        return out


_HEAD = re.compile(r"^(\S.*?) /[^/]*/\s*(?:<([^>]*)>)?\s*$")
_SENSE = re.compile(r"^(\d+)\.\s*(.*)$")
_NOTE = re.compile(r"\{[^{}]*[})]|\([^()]*\)|\[[^\[\]]*\]")  # {usage notes}, (glosses) and [alternative endings]
_DEVANAGARI_ONLY = re.compile("[\u0900-\u097f ]+")


def parse_dictd(text: str) -> list[Entry]:
    """The articles of a dictd text: a headword line ("refraction /ɹɪfɹˈakʃən/ <N>"), numbered senses ("1. अपवर्तन",
    several phrases split by commas, words of one phrase joined by `~`) and indented example sentences in quotes,
    which are skipped; so are the database's own 00-database articles and anything before the first headword."""
    entries: list[Entry] = []
    head: tuple[str, str] | None = None
    senses: list[tuple[str, ...]] = []

    def close() -> None:
        if head is not None and not head[0].startswith("00-database"):
            entries.append(Entry(head[0], head[1], tuple(senses)))

    for line in text.splitlines():
        if not line.strip() or line[0].isspace() or line.lstrip().startswith('"'):
            continue  # example sentences (indented, quoted) and their stray closing quotes
        m = _HEAD.match(line)
        if m:
            close()
            head, senses = (m.group(1).strip(), (m.group(2) or "").strip()), []
            continue
        s = _SENSE.match(line)
        if s and head is not None:
            senses.append(_phrases(s.group(2)))
    close()
    return entries


def _phrases(sense: str) -> tuple[str, ...]:
    """The Hindi phrases of one sense, each in `normalize_hindi` form: notes and alternatives removed, split at
    commas, semicolons and slashes; a phrase with anything but Devanagari in it (a Latin gloss, a '?') is left out."""
    out = []
    for part in re.split(r"[,;/]", _NOTE.sub(" ", sense)):
        part = re.sub(r"[~_\-]", " ", part).strip(" .!?:'‘’")
        if part and _DEVANAGARI_ONLY.fullmatch(part) and "?" not in part:
            phrase = normalize_hindi(part)
            if phrase:
                out.append(phrase)
    return tuple(out)


def invert(entries: list[Entry]) -> Dictionary:
    """Hindi phrase -> English headwords, each list ordered by (sense number, place of the phrase in its sense,
    order of the article in the file): the headword that offers the phrase first comes first."""
    ranked: dict[str, list[tuple[int, int, int, str]]] = {}
    for order, e in enumerate(entries):
        for n, phrases in enumerate(e.senses):
            for place, phrase in enumerate(phrases):
                ranked.setdefault(phrase, []).append((n, place, order, e.headword))
    english = {}
    for phrase, cands in ranked.items():
        seen: dict[str, None] = {}
        for *_, word in sorted(cands):
            seen.setdefault(word, None)
        english[phrase] = tuple(seen)
    longest = max((p.count(" ") + 1 for p in english), default=1)
    return Dictionary(english, longest, len({e.headword for e in entries}))


def dictionary_path() -> Path:
    return Path(os.environ.get("TUTOR_HINDI_DICTIONARY") or DEBIAN_DICTIONARY)


def dictionary_missing(path: Path | None = None) -> str | None:
    """Why Devanagari questions cannot be read as English here (with the package to install), or None."""
    p = path or dictionary_path()
    return None if p.is_file() else f"the English-Hindi dictionary {p} is not installed ({INSTALL_HINT})"


@lru_cache(maxsize=4)
def _load(path: str, mtime: float) -> Dictionary | None:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, EOFError, UnicodeDecodeError) as e:
        log.warning("could not read the English-Hindi dictionary %s (%s): Devanagari questions about English "
                    "chapters are asked as typed", path, e)
        return None
    return with_place_names(invert(parse_dictd(text)))


def load_dictionary(path: Path | None = None) -> Dictionary | None:
    """The inverted dictionary (parsed once per file version: about a second), or None where it is not installed
    (said once in the log; the tutor then asks Devanagari questions as typed, as before the dictionary)."""
    p = path or dictionary_path()
    why = dictionary_missing(p)
    if why is not None:
        _warn_missing(why)
        return None
    return _load(str(p), p.stat().st_mtime)


@lru_cache(maxsize=4)
def _warn_missing(why: str) -> None:
    log.warning("%s: Devanagari questions about English chapters are asked as typed", why)


def place_names(path: Path = PLACE_NAMES) -> dict[str, str]:
    """The countries' names in Hindi (`normalize_hindi` form) -> in English, from a gettext catalogue; {} where it is
    not installed or not readable (Devanagari country names then stay unread, as before)."""
    try:
        with open(path, "rb") as fh:
            catalogue = gettext.GNUTranslations(fh)._catalog
    except Exception as e:  # noqa: BLE001 - a damaged catalogue means no names, never a failed question
        log.info("no Hindi place names (%s): country names in Devanagari stay unread", e)
        return {}
    return {hindi: english for english, name in catalogue.items()
            if isinstance(english, str) and english and isinstance(name, str) and (hindi := normalize_hindi(name))}


def with_place_names(d: Dictionary, names: dict[str, str] | None = None) -> Dictionary:
    """`d` with the Hindi names of countries (`place_names`) it has no entry for, each read as its English name."""
    extra = {hindi: (english,) for hindi, english in (place_names() if names is None else names).items()
             if hindi not in d.english}
    longest = max([d.longest] + [k.count(" ") + 1 for k in extra])
    tiers = {k: (1,) * d.sources for k in extra} if d.sources > 1 else {}
    return Dictionary({**d.english, **extra}, longest, d.headwords, {**d.tiers, **tiers}, d.sources)
