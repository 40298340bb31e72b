"""The English reading of a question in Hindi, asked of a shelf with no Hindi chapter: Devanagari through the
English-Hindi dictionary (tutor/text/hindi_english.py), Hinglish with its Hindi words read through the same dictionary
(tutor/text/hinglish_dictionary.py, where the policy turns it on)."""
from __future__ import annotations

from tutor.text.hindi_english import ShelfVocabulary, reading_and_unread
from tutor.text.hinglish_dictionary import hinglish_reading
from tutor.text.language import HINDI, detect_language
from tutor.text.terms import TermStats


def shelf_reading(question: str, stats: TermStats, hinglish: bool = False) -> tuple[str, tuple[str, ...]]:
    """The English reading of a Devanagari question asked of a shelf (`stats`) with no Hindi chapter, and the Hindi
    words it could not read (`reading_and_unread`); with `hinglish`, a Hinglish question's reading with its Hindi words
    read through the dictionary. ("", ()) for any other question or shelf (a Hindi chapter answers a Hindi question,
    as always) or without the dictionary."""
    if HINDI in stats.languages or (not hinglish and detect_language(question) != HINDI):
        return "", ()
    vocabulary = ShelfVocabulary(stats)
    if hinglish:
        return hinglish_reading(question, vocabulary), ()
    return reading_and_unread(question, vocabulary)
