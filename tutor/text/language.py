"""Which language a question or a chapter is written in, told by its script: Devanagari is Hindi, Latin is English.

Script is enough here: the tutor's shelves hold English and Hindi NCERT chapters, and the two never share a script.
A text counts as Hindi when at least `HINDI_SHARE` of its letters are Devanagari ("pH क्या है?" is Hindi).
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache

HINDI, ENGLISH = "hi", "en"
LANGUAGES = (ENGLISH, HINDI)
HINDI_SHARE = 0.3


def _is_devanagari(ch: str) -> bool:
    return "\u0900" <= ch <= "\u097f" or "\ua8e0" <= ch <= "\ua8ff"


def devanagari_share(text: str) -> float:
    """Share of the letters (and Devanagari signs) of a text that are Devanagari, in [0, 1]; 0 for no letters."""
    dev = other = 0
    for ch in text:
        if _is_devanagari(ch):
            dev += unicodedata.category(ch)[0] in "LM"  # letters and vowel signs; not the danda or digits
        elif ch.isalpha():
            other += 1
    return dev / (dev + other) if dev + other else 0.0


@lru_cache(maxsize=4096)
def detect_language(text: str) -> str:
    """"hi" when the text is mostly Devanagari, else "en" (also for a text with no letters)."""
    return HINDI if devanagari_share(text) >= HINDI_SHARE else ENGLISH
