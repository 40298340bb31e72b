"""Which language a question or a chapter is written in, told by its script: Devanagari is Hindi, Latin is English.

Script is enough here: the tutor's shelves hold English and Hindi NCERT chapters, and the two never share a script.
A text counts as Hindi when at least `HINDI_SHARE` of its letters are Devanagari ("pH क्या है?" is Hindi).
A question mostly in any other script (Tamil, Bengali, Urdu...) is one the tutor cannot read: `unread_script` names it.
A question in Latin letters whose function words are those of another language (French, Spanish, German...) is one
too: `latin_language` names it, and `devanagari_language` names a Marathi or Nepali question.
"""
from __future__ import annotations

import re
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


def passage_language(text: str) -> str:
    """The language of a passage of the book (a chunk, a window, a cited sentence), as detect_language reads it. The
    stages below the pipeline call this one only: a question's language is read once, in tutor/question.py."""
    return detect_language(text)


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


# languages written in Latin letters that the tutor does not read, as NLTK's stopword lists (shipped with llama-index)
# name them: a student may ask in French, Spanish or German, the third languages Indian schools teach
LATIN_LANGUAGES = ("french", "spanish", "portuguese", "italian", "german", "dutch", "danish", "norwegian", "swedish",
                   "finnish", "hungarian", "romanian", "catalan", "basque", "slovene", "albanian", "turkish",
                   "azerbaijani", "indonesian")
_LATIN_WORD = re.compile(r"[^\W\d_]+")


@lru_cache(maxsize=1)
def _function_words() -> tuple[frozenset[str], dict[str, frozenset[str]]]:
    """English's function words (with Hinglish's, which English questions and names share), and each other Latin
    language's own: its stopwords that are neither; nothing where NLTK's lists are missing (no language is then
    named)."""
    try:
        from nltk.corpus import stopwords as sw

        shared = frozenset(sw.words("english")) | frozenset(sw.words("hinglish"))
        return shared, {lang: frozenset(sw.words(lang)) - shared for lang in LATIN_LANGUAGES}
    except (LookupError, OSError):  # pragma: no cover - the data ships with llama-index
        return frozenset(), {}


@lru_cache(maxsize=4096)
def latin_language(text: str) -> str | None:
    """The language ("French", "Spanish"...) of a question in Latin letters whose words are mostly that language's own
    function words: at least two of them, at least 40% of its words and more than its English function words
    ("¿Qué es la ley de Ohm?": qué, es, la, de); one capitalised inside the question is a name's and does not count.
    None for English and Hinglish ("El Nino and La Nina", "Vasco da Gama" stay English) and for any text with
    Devanagari or another script."""
    if devanagari_share(text) > 0:
        return None
    typed = _LATIN_WORD.findall(text)
    words = [w.lower() for w in typed]
    english, own = _function_words()
    if len(words) < 2 or not own:
        return None
    # a function word capitalised inside the question is part of a name ("La Nina", "Da Vinci"), not the language's
    cue = [w for i, (w, t) in enumerate(zip(words, typed)) if i == 0 or not t[0].isupper()]
    best, hits = max(((lang, {w for w in cue if w in stop}) for lang, stop in own.items()), key=lambda x: len(x[1]))
    mine = sum(w in hits for w in cue)
    if len(hits) >= 2 and mine * 5 >= 2 * len(words) and mine > sum(w in english for w in words):
        return best.capitalize()
    return None


# Marathi and Nepali share Devanagari with Hindi: told by their own function words, question words and request
# forms, none of which Hindi uses (a closed table of their grammar; words Hindi also has, such as के, हो, किन, कसा,
# लाई, or hunspell-hi lists, such as सांगा, a name, are left out)
_DEVANAGARI_OWN = {
    "Marathi": frozenset("""आहे आहेत काय म्हणजे आणि कोणता कोणती कोणते कोणत्या केव्हा कुठे किती नाही नाहीत मध्ये साठी
        आपण त्याचे त्याची त्याचा याचे याची याचा करतात असते असतात दिसते म्हणतात लिहा द्या""".split()),
    "Nepali": frozenset("""छ छन् पनि लागि भएको गरेको गर्न गर्ने थियो हुन्छ छैन कसरी कति कुन कस्तो गर्छ गर्छन् हुन्
        भनेको भन्छन् गर्नुहोस् लेख्नुहोस् बताउनुहोस्""".split()),
}
_DEVANAGARI_WORD = re.compile(r"[\u0900-\u0963\u0971-\u097f]+")


def devanagari_language(text: str) -> str | None:
    """"Marathi" or "Nepali" for a Devanagari question with at least two of that language's own function words
    ("प्रकाशसंश्लेषण म्हणजे काय?": म्हणजे, काय); None for Hindi, for a question with one such word (a Nepali "के हो"
    question reads as Hindi) and for a text without Devanagari."""
    words = set(_DEVANAGARI_WORD.findall(unicodedata.normalize("NFC", text)))
    for language, own in _DEVANAGARI_OWN.items():
        if len(words & own) >= 2:
            return language
    return None
