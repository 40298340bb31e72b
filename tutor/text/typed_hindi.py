"""Hindi typed in Latin letters that looks like something else: a participle that is also a noun's form ("aate" is
आते, they come, and आटे, flour) and a Hindi word spelt as an English one ("dank", डंक, a sting). Both read through
Dakshina's spellings (tutor/text/hinglish_dictionary.py `Romanisations`) and the English-Hindi dictionary, for
tutor/text/hinglish_dictionary.py's readings (policy `hinglish_participles`, `hinglish_offshelf_english`)."""
from __future__ import annotations

from collections.abc import Container
from typing import Protocol

from tutor.text.hindi_dictionary import Dictionary, normalize_hindi
from tutor.text.hindi_english import choose_tiers, verb_senses


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
