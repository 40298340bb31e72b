"""Hindi typed in Latin letters that looks like something else: a participle that is also a noun's form ("aate" is
आते, they come, and आटे, flour), a Hindi word spelt as an English one ("dank", डंक, a sting), and a Hindi word the
shelf writes only inside a name ("desh": the book's "O Mor Apunar Desh"). Read through Dakshina's spellings
(tutor/text/hinglish_dictionary.py `Romanisations`) and the English-Hindi dictionary, for
tutor/text/hinglish_dictionary.py's readings (policy `hinglish_participles`, `hinglish_offshelf_english`,
`hinglish_name_words`)."""
from __future__ import annotations

from collections.abc import Callable, Container
from typing import Protocol

from tutor.text.hindi_dictionary import Dictionary, normalize_hindi
from tutor.text.hindi_english import choose_tiers, verb_senses
from tutor.text.hinglish import WORD


class Romanisations(Protocol):
    """What is read of tutor/text/hinglish_dictionary.py's `Romanisations` (or `CommonFirst`)."""

    def devanagari(self, typed: str) -> tuple[str, ...]: ...


def participle_verb(word: str, romanised: Romanisations, d: Dictionary,
                    vocabulary: Container[str] | None = None) -> str | None:
    """The English of the verb a typed participle is a form of, by its Devanagari spellings (Dakshina's, in
    `romanised`'s order) that end as a participle does: "aate" -> आते -> आना -> "come", "badhti" -> बढ़ती -> बढ़ना
    -> "grow". A spelling with a short vowel (गति, शक्ति: nouns) is none. None where no spelling is a verb's form."""
    for dev in romanised.devanagari(word):
        senses, verb = verb_senses(normalize_hindi(dev), d)
        if senses:
            return choose_tiers(senses, vocabulary, phrase=verb)
    return None


def hindi_of_english(word: str, d: Dictionary, romanised: Romanisations | None,
                     vocabulary: Container[str]) -> str | None:
    """An English headword typed in a Hinglish question, read as the Hindi word most of Dakshina's annotators typed
    so, where the dictionary reads it as written (no uninflected forms: "bane" is not बनना) as a word the shelf uses;
    None where none does, or where the Hindi word is the English one written in Devanagari (a sense begins with it:
    लेज़र "laser", न्यूक्लियर "nuclearest")."""
    for dev in romanised.devanagari(word) if romanised is not None else ():
        key = normalize_hindi(dev)
        if senses := d.senses(key):
            if any(c.lower().startswith(word) for tier in senses for c in tier):
                return None
            english = choose_tiers(senses, vocabulary, phrase=d.key(key))
            return english if english in vocabulary else None
    return None


MIN_NAME_WORD = 4  # letters a word needs before a name's word is read as Hindi ("lok", "cpi" stay as typed)


class NameShelf(Protocol):
    """What `name_words` asks of a shelf's vocabulary (tutor/text/hindi_english.py `ShelfVocabulary`)."""

    def __contains__(self, word: object) -> bool: ...

    def only_in_names(self, word: str) -> bool: ...

    def pair(self, first: str, second: str) -> bool: ...


def name_words(question: str, shelf: NameShelf, english: Container[str],
               plain_hindi: Callable[[str], bool] = lambda w: True) -> frozenset[str]:
    """The words of a Hinglish question typed in lower case that the shelf writes only inside names, read as Hindi
    though the shelf "uses" them: "wto me kitne desh member hai" -> {"desh"} (country), since the book has "Desh" only
    in titles ("Ude Desh ka Aam Nagrik"). Not a word of fewer than MIN_NAME_WORD letters, an English headword of the
    dictionary (`english`), nor one beside a word the shelf also writes only in names or with which the shelf writes
    it ("lok sabha", "raja ravi varma", "beej bachao andolan", "koderma gaya hazaribagh"): the student typed a name;
    nor one `plain_hindi` says is not a Hindi word as people most often type it ("gandhi": गांधी is a name in Hindi too,
    though गंध is "smell"; "poona": पूना)."""
    typed = WORD.findall(question)  # as the reading splits the question
    low = [w.lower() for w in typed]

    def named(i: int) -> bool:
        return 0 <= i < len(low) and low[i].isalpha() and low[i] in shelf and shelf.only_in_names(low[i])

    out = set()
    for i, w in enumerate(low):
        if (len(w) < MIN_NAME_WORD or typed[i] != w or not named(i) or w in english or named(i - 1) or named(i + 1)
                or (i and shelf.pair(low[i - 1], w)) or (i + 1 < len(low) and shelf.pair(w, low[i + 1]))
                or not plain_hindi(w)):
            continue
        out.add(w)
    return frozenset(out)
