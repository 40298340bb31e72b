"""Hinglish read through the English-Hindi dictionary: the Hindi content words of a question typed in Latin letters
("aasman neela kyon dikhta hai") looked up among the dictionary's Hindi phrases romanised (tutor/text/hindi_english.py:
`romanize`), so "aasman" finds आसमान and reads "sky", "lohe" finds लोहा and reads "iron".

Policy `hinglish_dictionary`, on since 2026-11-26 together with a reader threshold of its own for Hinglish readings
(`min_hinglish_reader_probability`): alone it lifted coverage and doubled false acceptance (docs/evaluation.md;
the choice and its figures are in tutor/policy.toml). A typed word is looked up only when it is not
English (neither a word the shelf uses nor any English headword of the dictionary) and has three letters or more; a
name that is also a Hindi word is still read as the word ("mudra" -> "currency"), which no spelling can tell apart.

Policy `hinglish_dakshina` (issue 34): before that, a typed word is read through Dakshina's romanisations (how people
typed 53,064 Hindi words in Latin letters; data/lexicons/, CC BY-SA 4.0): the Devanagari most people typed it for,
then the dictionary (FreeDict, and Shabdanjali with `hinglish_shabdanjali`), as written and by its uninflected forms.

Policy `hinglish_transliteration` (issue 34): a word neither Dakshina nor the romanised dictionary reads is spelt in
Devanagari by a model learnt from Dakshina's train split (tutor/text/transliterate.py), among the dictionary's words,
and read where the spelling is sure enough (`min_transliteration_score`).
"""
from __future__ import annotations

import logging
import re
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tutor.text.commonness import commonest_first
from tutor.text.hindi_dictionary import NUKTA, Dictionary, load_dictionary, normalize_hindi
from tutor.text.hindi_english import choose, choose_tiers, conjunct_verb, lemmas, romanize
from tutor.text.hinglish import GRAMMAR
from tutor.text.hinglish import english_reading as hinglish_english
from tutor.text.lexicons import DAKSHINA, TRANSLITERATION, read_tsv
from tutor.text.superlatives import superlative
from tutor.text.transliterate import Transliterator, listed
from tutor.text.transliterate import load as load_transliteration
from tutor.text.typed_hindi import hindi_of_english, participle_verb
from tutor.text.typed_hindi import name_words as typed_names  # the parameter is name_words

log = logging.getLogger(__name__)

# how Hindi typed in Latin letters is compared with a romanised dictionary phrase: the spellings Hinglish writers
# use for one sound made one ("aasman" = "asman", "pehla" = "pahla", "zyada" = "jyada", "walon" = "valon"), and a
# doubled consonant written once
_LATIN_SAME = (("w", "v"), ("ph", "f"), ("z", "j"), ("q", "k"), ("ck", "k"), ("aa", "a"), ("ee", "i"), ("oo", "u"),
               ("ii", "i"), ("uu", "u"), ("eh", "ah"), ("ai", "e"), ("au", "o"), ("ey", "e"))
_DOUBLED = re.compile(r"([b-df-hj-np-tv-z])\1")
# Hindi inflections typed in Latin letters, back to the form a dictionary lists (hindi_english._LEMMA in Latin
# letters: plural and oblique nouns, participles, the conjunctive -kar)
_LATIN_LEMMA = (("iyon", "i"), ("iyo", "i"), ("on", ""), ("on", "a"), ("o", ""), ("o", "a"), ("en", ""), ("ein", ""),
                ("e", "a"), ("e", ""), ("ta", "na"), ("ti", "na"), ("te", "na"), ("kar", "na"), ("ne", "na"),
                ("yi", "na"), ("ya", "na"), ("i", "na"), ("a", "na"), ("i", ""), ("a", ""))


def latin_key(word: str) -> str:
    """A Hindi word in Latin letters (typed, or `romanize`d) as the two are compared."""
    s = word.lower()
    for a, b in _LATIN_SAME:
        s = s.replace(a, b)
    return _DOUBLED.sub(r"\1", s)


@dataclass(frozen=True)
class LatinIndex:
    """The dictionary's one-word Hindi phrases by `latin_key` of their romanisation, each to its English headwords;
    `english`: every English headword, lower case (a typed word that is one is English, and not looked up)."""

    by_key: dict[str, tuple[str, ...]]
    english: frozenset[str]


_LATIN_INDEXES: dict[int, tuple[Dictionary, LatinIndex]] = {}


def romanised_words(d: Dictionary) -> Iterator[tuple[str, str]]:
    """(`latin_key` of its romanisation, the phrase) for each one-word Hindi phrase of `d` whose key has three letters
    or more: how a word typed in Latin letters finds the dictionary's Hindi."""
    for phrase in d.english:
        if " " in phrase:
            continue
        # ड़ and ढ़ are typed "d" and "dh" as often as "r" and "rh" ("jodna", "padhna")
        key = latin_key(romanize(phrase.replace("\u0921" + NUKTA, "\u0921").replace("\u0922" + NUKTA, "\u0922")))
        if len(key) >= 3:
            yield key, phrase


def latin_index(d: Dictionary) -> LatinIndex:
    """`d`'s LatinIndex, made once per dictionary (about a second)."""
    got = _LATIN_INDEXES.get(id(d))
    if got is not None and got[0] is d:
        return got[1]
    by_key: dict[str, dict[str, None]] = {}
    english = {h.lower() for heads in d.english.values() for h in heads}
    for key, phrase in romanised_words(d):
        for h in d.english[phrase]:
            by_key.setdefault(key, {})[h] = None
    index = LatinIndex({k: tuple(v) for k, v in by_key.items()}, frozenset(english))
    _LATIN_INDEXES.clear()  # one dictionary at a time
    _LATIN_INDEXES[id(d)] = (d, index)
    return index


def latin_lemmas(word: str) -> list[str]:
    """The forms a typed Hindi word may be listed under, most likely first ("lohe" -> "loha", "jodta" -> "jodna"):
    hindi_english's `lemmas` with the endings in Latin letters."""
    return lemmas(word, _LATIN_LEMMA)


@dataclass(frozen=True)
class Romanisations:
    """How people type Hindi words in Latin letters (Dakshina): a typed word (lower case) -> the Devanagari words
    typed so, the best attested (most annotators) first; `folded`: the same by `latin_key`, for a spelling typed
    otherwise ("aasmaan", "asmaan")."""

    exact: dict[str, tuple[str, ...]]
    folded: dict[str, tuple[str, ...]]

    def devanagari(self, typed: str) -> tuple[str, ...]:
        """The Devanagari words a Latin-letter word is typed for, best attested first; () if none."""
        w = typed.lower()
        return self.exact.get(w) or self.folded.get(latin_key(w), ())


class CommonFirst:
    """`Romanisations` whose Devanagari words for a typed word come commonest first (tutor/text/commonness.py), not
    best attested first: Dakshina's counts say how consistently annotators typed a word, not how often it is used
    ("taar": ताड़ palm and तार wire, once each; "sahi": साही porcupine and सही right, three times each)."""

    def __init__(self, romanised: Romanisations):
        self.romanised = romanised

    def devanagari(self, typed: str) -> tuple[str, ...]:
        return commonest_first(self.romanised.devanagari(typed))


def romanisations(pairs: Iterable[tuple[str, str, int]]) -> Romanisations:
    """(Devanagari, Latin, annotators) pairs as Romanisations: counts summed per pair, each Latin word's Devanagari
    words ordered by count (then by first appearance)."""
    counts: dict[str, dict[str, int]] = {}
    folded: dict[str, dict[str, int]] = {}
    for dev, latin, n in pairs:
        for table, key in ((counts, latin.lower()), (folded, latin_key(latin))):
            row = table.setdefault(key, {})
            row[dev] = row.get(dev, 0) + n

    def ranked(table: dict[str, dict[str, int]]) -> dict[str, tuple[str, ...]]:
        return {k: tuple(sorted(v, key=lambda d: -v[d])) for k, v in table.items()}
    return Romanisations(ranked(counts), ranked(folded))


@lru_cache(maxsize=2)
def _dakshina(path: str, mtime: float) -> Romanisations | None:
    try:
        return romanisations((r["devanagari"], r["latin"], int(r["annotators"] or 1)) for r in read_tsv(Path(path))
                             if r.get("devanagari") and r.get("latin"))
    except (OSError, EOFError, UnicodeDecodeError, KeyError, ValueError) as e:
        log.warning("could not read Dakshina's romanisations %s (%s): Hinglish is read without them", path, e)
        return None


def dakshina(path: Path = DAKSHINA) -> Romanisations | None:
    """Dakshina's Hindi romanisations (data/lexicons/, CC BY-SA 4.0), read once; None where the file is absent."""
    return _dakshina(str(path), path.stat().st_mtime) if path.is_file() else None


MIN_TYPED_ENGLISH_LETTERS = 4  # a shorter spelling is too often a Hindi word that happens to spell an English one
MIN_TYPED_ENGLISH_ANNOTATORS = 2  # of Dakshina's (usually three): most of them typed it so


@lru_cache(maxsize=2)
def _typed_latin(path: str, mtime: float) -> tuple[dict[str, tuple[str, int]], dict[str, tuple[str, int]]]:
    """Each Devanagari word's best attested Latin spelling and its annotators: by the word as written, and by the
    word without its nukta (students write ज for ज़ as often as not)."""
    exact: dict[str, tuple[str, int]] = {}
    bare: dict[str, tuple[str, int]] = {}
    try:
        for r in read_tsv(Path(path)):
            dev, latin = normalize_hindi(r.get("devanagari") or ""), (r.get("latin") or "").lower()
            n = int(r.get("annotators") or 1)
            for table, key in ((exact, dev), (bare, dev.replace(NUKTA, ""))):
                if key and latin and (key not in table or n > table[key][1]):
                    table[key] = (latin, n)
    except (OSError, EOFError, UnicodeDecodeError, ValueError) as e:
        log.warning("could not read Dakshina's romanisations %s (%s): no word is read as typed", path, e)
        return {}, {}
    return exact, bare


def typed_spellings(path: Path = DAKSHINA) -> bool:
    """Load the typed spellings `english_as_typed` reads (about 0.3 s once; `tutor/warmup.py` loads them at start).
    False where Dakshina's file is absent or unreadable."""
    return path.is_file() and bool(_typed_latin(str(path), path.stat().st_mtime)[0])


def english_as_typed(word: str, english: Container[str], path: Path = DAKSHINA,
                     vocabulary: Container[str] | None = None) -> str | None:
    """An English word written in Devanagari, read as most of Dakshina's annotators typed it, where that spelling is
    an English word (`english`: Shabdanjali's headwords; `is_english` takes its inflections too): "सर्किट" -> "circuit",
    "रिज़र्व" -> "reserve", "प्रोटोकॉल" -> "protocol". Students write the book's English terms in Devanagari, and the
    annotators who typed them in Latin letters wrote them as English is spelt. None where Dakshina does not list the
    word, fewer than two annotators agree, the spelling is shorter than four letters or is no English word; a Hindi
    word ("बचाओ": "bachao") stays unread. With `vocabulary` (the shelf's words), a spelling the shelf uses is read too:
    the names and Indian words an English book prints ("साइमन": "simon", "सत्याग्रह": "satyagraha")."""
    from tutor.text.lexicons import is_english

    if not path.is_file():
        return None
    exact, bare = _typed_latin(str(path), path.stat().st_mtime)
    key = normalize_hindi(word)
    typed = exact.get(key) or bare.get(key.replace(NUKTA, ""))
    if typed is None:
        return None
    latin, n = typed
    if n < MIN_TYPED_ENGLISH_ANNOTATORS or len(latin) < MIN_TYPED_ENGLISH_LETTERS or not latin.isalpha():
        return None
    return latin if is_english(latin, english) or (vocabulary is not None and latin in vocabulary) else None


def through_devanagari(word: str, romanised: Romanisations, d: Dictionary,
                       vocabulary: Container[str] | None = None) -> str | None:
    """The English of a typed Hindi word by way of its Devanagari spelling: each Devanagari word it is typed for, best
    attested first, looked up in `d` as written and by its uninflected forms; then the same for the typed word's own
    uninflected forms ("lohe" -> लोहे -> लोहा -> "iron"). None where no spelling is read."""
    for key in _spellings(word, romanised):
        for f in [key] + lemmas(key):
            if senses := d.senses(f):
                return choose_tiers(senses, vocabulary, phrase=d.key(f))
    return None


def with_light_verb(word: str, light: str, romanised: Romanisations, d: Dictionary,
                    vocabulary: Container[str] | None = None) -> str | None:
    """The English of a typed Hindi word with the light verb after it (`light`: its infinitive, करना, होना or जाना), as
    the dictionary lists the pair: "theek" + "karte" -> ठीक करना -> "correct"; "shuru" + "hua" -> शुरू होना ->
    "start". By the word's Devanagari spellings (Dakshina), as written and as the masculine of a feminine adjective
    ("poori karni" -> पूरा करना). None where no pair is listed (the word is then read alone)."""
    for key in _spellings(word, romanised):
        senses, phrase = conjunct_verb(key, light, d)
        if senses:
            return choose_tiers(senses, vocabulary, phrase=phrase)
    return None


def _spellings(word: str, romanised: Romanisations) -> Iterator[str]:
    """The Devanagari words (normalised) a typed word is typed for, in `romanised`'s order, then those of its
    uninflected forms."""
    for form in [word] + latin_lemmas(word):
        for dev in romanised.devanagari(form):
            yield normalize_hindi(dev)


def romanised_heads(word: str, index: LatinIndex) -> tuple[str, ...]:
    """The English headwords of the dictionary phrase whose romanisation a typed word matches (`latin_key`), as typed
    or by its uninflected forms; () where none does."""
    for f in [word] + latin_lemmas(word):
        if heads := index.by_key.get(latin_key(f)):
            return heads
    return ()


Spelling = Callable[[str], "str | None"]
_SPELLERS: dict[tuple[int, str], tuple[Dictionary, Transliterator]] = {}


def learnt_spelling(d: Dictionary, min_score: float, path: Path = TRANSLITERATION) -> Spelling | None:
    """A typed word -> the one-word phrase of `d` the model learnt from Dakshina's pairs spells from it, where its
    log probability per letter is at least `min_score` (tutor/text/transliterate.py; the bar measured by
    scripts/train_transliteration.py); None where the model file is absent. Built once per dictionary."""
    if not path.is_file():
        return None
    key = (id(d), str(path))
    got = _SPELLERS.get(key)
    if got is None or got[0] is not d:
        _SPELLERS.clear()  # one dictionary and model at a time
        _SPELLERS[key] = got = (d, Transliterator(load_transliteration(path),
                                                  listed(k for k in d.english if " " not in k)))
    speller = got[1]

    def spelling(word: str) -> str | None:
        best = speller.spell(word)
        return best[0][0] if best and best[0][1] >= min_score else None
    return spelling


def latin_gloss(word: str, vocabulary: Container[str] | None = None, *, dictionary: Dictionary | None = None,
                romanised: Romanisations | None = None, spelling: Spelling | None = None,
                offshelf_english: bool = False, names: Container[str] = ()) -> str | None:
    """The English of a Hindi content word typed in Latin letters ("neela" -> "blue", "lohe" -> "iron", "pehla" ->
    "first"), or None: for an English word (one the shelf uses, or any headword of the dictionary), a word of fewer
    than three letters, an unknown one, or where the dictionary is not installed. Looked up by `latin_key`, as typed
    and then by its uninflected forms. Among several headwords `choose` takes the first the shelf uses. Last,
    `spelling` (`learnt_spelling`): the dictionary word the learnt model spells from it or an uninflected form. With
    `offshelf_english`, an English headword the shelf does not use may be Hindi (tutor/text/typed_hindi.py
    `hindi_of_english`: "dank" -> डंक -> "sting"). A word in `names` is read as Hindi though the shelf uses it (it
    writes it only inside names: typed_hindi.py `name_words`)."""
    w = word.lower()
    if len(w) < 3 or not w.isalpha() or (vocabulary is not None and w in vocabulary and w not in names):
        return None
    d = dictionary or load_dictionary()
    if d is None:
        return None
    index = latin_index(d)
    if w in index.english:
        return hindi_of_english(w, d, romanised, vocabulary) if offshelf_english and vocabulary is not None else None
    if romanised is not None and (got := through_devanagari(w, romanised, d, vocabulary)):
        return got
    if heads := romanised_heads(w, index):
        return choose(heads, vocabulary)
    if spelling is not None:
        for f in [w] + latin_lemmas(w):
            if (got := spelling(f)) and (senses := d.senses(got)):
                return choose_tiers(senses, vocabulary, phrase=d.key(got))
    return None


def hinglish_reading(question: str, vocabulary: Container[str] | None = None, *,
                     dictionary: Dictionary | None = None, romanisations: Romanisations | None = None,
                     spelling: Spelling | None = None, pairs: bool = False, superlatives: bool = False,
                     which_noun: bool = False, participles: bool = False, offshelf_english: bool = False,
                     name_words: bool = False) -> str:
    """A Hinglish question as an English shelf can read it (tutor/text/hinglish.py), its Hindi content words read
    through the dictionary by `latin_gloss` ("aasman neela kyon dikhta hai" -> "why sky blue ..."); "" where the
    dictionary is not installed. With `pairs` (and Dakshina), a word before a light verb is read with it first
    (`with_light_verb`). With `superlatives`, "sabse" and the word after it are read as the superlative of its English
    that the shelf writes ("sabse bada" -> "largest"; tutor/text/superlatives.py). With `which_noun`, "which" is
    followed by the word it asks about (tutor/text/hinglish.py english_reading). With `participles` (and Dakshina), a
    participle before hai, tha or thi is read as its verb (`participle_verb`). With `name_words`, a word the shelf
    writes only inside names is read as Hindi (tutor/text/typed_hindi.py `name_words`: "desh" -> "country")."""
    d = dictionary or load_dictionary()
    if d is None:
        return ""

    def plain_hindi(w: str) -> bool:  # the spelling most people type is a word the dictionary reads (गांधी is not)
        spellings = romanisations.devanagari(w) if romanisations is not None else ()
        return not spellings or bool(d.senses(normalize_hindi(spellings[0])))

    names = (typed_names(question, vocabulary, latin_index(d).english, plain_hindi)
             if name_words and hasattr(vocabulary, "only_in_names") else frozenset())
    pair = ((lambda w, light: with_light_verb(w, light, romanisations, d, vocabulary))
            if romanisations is not None and pairs else None)

    def gloss(w: str) -> str | None:
        return latin_gloss(w, vocabulary, dictionary=d, romanised=romanisations, spelling=spelling,
                           offshelf_english=offshelf_english, names=names)

    def most(w: str) -> str | None:  # the English word itself where the student typed one ("sabse important")
        top = superlative(gloss(w) or w)
        return top if top and (vocabulary is None or top in vocabulary) else None

    verb = ((lambda w: participle_verb(w, romanisations, d, vocabulary))
            if romanisations is not None and participles else None)
    return hinglish_english(question, gloss, pair, most if superlatives else None, which_noun, verb)


def unread_hinglish(reading: str, vocabulary: Container[str] | None = None, *,
                    dictionary: Dictionary | None = None, romanisations: Romanisations | None = None
                    ) -> tuple[str, ...]:
    """The Hindi words a Hinglish question's English `reading` kept as typed: words of three letters or more that are
    not English (not a word the shelf uses, not an English headword of the dictionary, not in capitals like "MRI")
    and that the dictionary knows as Hindi, as typed or by an uninflected form ("how myopia theek" -> ("theek",),
    "how lohe rust bachaye" -> ("lohe",): no form of "bachaye" is found). A name or a misspelt English word is
    neither, and is not named. () where the dictionary is not installed."""
    d = dictionary or load_dictionary()
    if d is None:
        return ()
    index = latin_index(d)
    out: dict[str, None] = {}
    for typed in re.findall(r"[A-Za-z]+", reading):
        w = typed.lower()
        if len(w) < 3 or typed.isupper() or w in index.english or (vocabulary is not None and w in vocabulary):
            continue
        forms = [w] + latin_lemmas(w)
        if any(latin_key(f) in index.by_key or (romanisations is not None and romanisations.devanagari(f))
               for f in forms):
            out[typed] = None
    return tuple(out)


def devanagari_reading(question: str, romanised: Romanisations, vocabulary: Container[str] | None = None,
                       spelling: Spelling | None = None) -> str:
    """A Hinglish question as a shelf with Hindi chapters reads it: in Devanagari, each word spelt as most of
    Dakshina's annotators typed it ("jan swasthya ki sankalpana kya hai" -> "जन स्वास्थ्य की संकल्पना क्या है"), so the
    Hindi chapters answer it as they answer a question typed in Devanagari. Hinglish grammar ("kya", "hai", "mein") is
    always respelt; another word stays as typed where the shelf's English chapters use it ("public health") or Dakshina
    does not know it, and so do numbers and words in capitals ("WHO"). Not the dictionary's English headwords: "jan"
    (जन, people) is one. A word Dakshina does not list is spelt by `spelling` (`learnt_spelling`) where it gives a
    word. "" where no word is respelt."""
    out, respelt = [], False
    for typed in re.findall(r"[A-Za-z][A-Za-z'-]*|\S", question):
        w = typed.lower()
        english = not typed[0].isalpha() or (typed.isupper() and len(typed) > 1) or (
            w not in GRAMMAR and vocabulary is not None and w in vocabulary)
        spelt = () if english else romanised.devanagari(w) or (
            (got,) if spelling is not None and w.isalpha() and (got := spelling(w)) else ())
        out.append(spelt[0] if spelt else typed)
        respelt = respelt or bool(spelt)
    return re.sub(r"\s+([?.,!])", r"\1", " ".join(out)) if respelt else ""
