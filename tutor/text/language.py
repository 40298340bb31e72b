"""Which language a question or a chapter is written in, told by its script: Devanagari is Hindi, Latin is English.

Script is enough here: the tutor's shelves hold English and Hindi NCERT chapters, and the two never share a script.
A text counts as Hindi when at least `HINDI_SHARE` of its letters are Devanagari ("pH क्या है?" is Hindi).
A question mostly in any other script (Tamil, Bengali, Urdu...) is one the tutor cannot read: `unread_script` names it.
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache

HINDI, ENGLISH = "hi", "en"
LANGUAGES = (ENGLISH, HINDI)
HINDI_SHARE = 0.3
READ_SCRIPTS = frozenset({"LATIN", "DEVANAGARI"})  # the scripts of English, Hindi and Hinglish
# letters that say nothing of the language: symbols of science and mathematics (λ, Ω, 𝑥 pasted from a PDF), accents
# kept apart from their letter, full-width Latin
NEUTRAL_SCRIPTS = frozenset({"GREEK", "MATHEMATICAL", "COMBINING", "FULLWIDTH"})
# Unicode's name of a script where students call it something else
_SCRIPT_NAMES = {"ORIYA": "Odia", "CJK": "Chinese", "HANGUL": "Korean", "HIRAGANA": "Japanese", "KATAKANA": "Japanese"}


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


def script_of(ch: str) -> str:
    """The Unicode script of a letter, as the first word of its name ("TAMIL", "LATIN"); "" for a character without
    a name."""
    return unicodedata.name(ch, "").split(" ", 1)[0]


def unread_script(text: str) -> str | None:
    """The script, named for a student ("Tamil", "Bengali", "Odia"), when more than half the letters of `text` are in
    a script other than Latin and Devanagari; None for English, Hindi, Hinglish and a text with no letters. Greek and
    mathematical letters are not counted ("What is λ?", "Find 𝑥 if 𝑥𝑦 = 3𝑥" stay English)."""
    counts: dict[str, int] = {}
    for ch in text:
        if ch.isalpha() or unicodedata.category(ch) == "Mn":
            script = script_of(ch)
            if script not in NEUTRAL_SCRIPTS:
                counts[script] = counts.get(script, 0) + 1
    total = sum(counts.values())
    other = {k: v for k, v in counts.items() if k not in READ_SCRIPTS}
    if not total or sum(other.values()) * 2 <= total:
        return None
    top = max(other, key=lambda k: other[k])
    return _SCRIPT_NAMES.get(top, top.capitalize())
