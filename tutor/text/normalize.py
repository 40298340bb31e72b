"""Text normalisation for matching: one function for the lexical side, one for the embedding side.

Owns the rules that make a typed question and an extracted chunk compare equal when they spell the same words
differently (Unicode forms, Persian/Arabic letter variants, invisible joiners, non-ASCII digits, Devanagari nukta,
case, punctuation). Both functions are pure and return a new string: nothing here changes what a page displays or
what a citation quotes; callers keep the original text next to the normalised one.

Which rule applies where (chunks and questions always go through the same function):

====================================================  ===========================  ============================
rule                                                  normalize_for_matching       normalize_for_embedding
====================================================  ===========================  ============================
remove invisible format characters (Unicode Cf:       yes                          yes
ZWNJ U+200C, ZWJ U+200D, soft hyphen U+00AD, LRM/RLM,
BOM, word joiner, bidi controls)
Unicode normalisation form                            NFKC, then casefold, NFKC    NFC
Devanagari nukta: क़ (U+0958) and क + ़ (U+093C) equal   yes, as base + U+093C        yes, as base + U+093C
Arabic-script letter variants ي ى→ی, ك→ک, ة ۀ→ه,      yes                          no
أ إ ٱ→ا; tatweel and harakat removed
decimal digits of any script (۱۴۰۲, ٢٠٢٣, २०२६) → ASCII  yes                          no (kept as written)
candrabindu ँ → anusvara ं (आँख = आंख)                  yes                          no
casefold                                              yes                          no
punctuation and symbols (Unicode P*, S*) → space,     yes                          no
except "." and "," between two digits (2.5, 1,000)
collapse whitespace, strip                            yes                          yes
====================================================  ===========================  ============================

Why these choices:

- NFKC folds what PDF extraction produces and typing does not (ligatures "ﬁ", Arabic presentation forms, fullwidth
  forms, superscripts); it is lossy, so it is used only for matching. NFKC equals NFC on every Devanagari code point
  (U+0900–U+097F, U+A8E0–U+A8FF; checked in tests/text/test_normalize.py), so conjuncts, vowel signs and virama
  sequences are untouched by it. Casefold can produce text that NFKC would change again, hence NFKC once more after it.
- Nukta: Unicode lists क़ ख़ ग़ ज़ ड़ ढ़ फ़ य़ (U+0958–U+095F) as composition exclusions, so NFC and NFKC already turn
  them into base + U+093C, the form the NCERT Hindi PDFs extract to. ऩ ऱ ऴ (U+0929, U+0931, U+0934) do compose
  under NFC; the matching side decomposes them too, so every nukta letter ends up as base + U+093C.
- Arabic-script folds touch only Arabic-block code points, so they act exactly where the text is Persian or Arabic
  script and cannot change Latin or Devanagari text. Typed Persian mixes Arabic keyboard letters (ي ك) with Persian
  ones (ی ک); they are one letter to a reader. آ is kept: it is a letter of its own in Persian.
- ZWNJ (Persian می‌خواهم, Devanagari half forms) and ZWJ only shape the glyphs; the same word is often typed without
  them. Removing them makes "می‌خواهم" and "میخواهم" one token; "می خواهم" with a space stays two.
- Digits: all Unicode decimal digits (category Nd) map to ASCII, so Persian, Arabic-Indic and Devanagari years and
  quantities match the ASCII digits that the NCERT PDFs print.
- Candrabindu and anusvara are used interchangeably in written Hindi (पाँच / पांच); only the matching side folds them.
- The embedding side keeps case, punctuation, digits and letters as written: a multilingual embedding model was
  trained on text that has them, and folding would move its vectors for no gain.

Two rules for the text itself, displayed as they return it: `collapse_repeats` undoes faux bold (NCERT prints bold
headings as the same run, or the same glyph, several times over: "Activity 1.1Activity 1.1Activity 1.1", "JJJJJute",
"R R R R R IVER"), on every extracted line, and its single-glyph part `collapse_glyphs` on a question (pasted from a
chapter, it carries the same copies), so the two compare equal; `title_case` writes a heading printed in capitals
as a title.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Letters that NFC composes but that carry a nukta; decomposed so every nukta letter is base + U+093C.
_NUKTA_COMPOSED = {"\u0929": "\u0928\u093c", "\u0931": "\u0930\u093c", "\u0934": "\u0933\u093c"}

_ARABIC_TO_PERSIAN = {
    "\u064a": "\u06cc",  # ي ARABIC YEH -> ی FARSI YEH
    "\u0649": "\u06cc",  # ى ALEF MAKSURA -> ی
    "\u0643": "\u06a9",  # ك ARABIC KAF -> ک KEHEH
    "\u0629": "\u0647",  # ة TEH MARBUTA -> ه
    "\u06c0": "\u0647",  # ۀ HEH WITH YEH ABOVE -> ه
    "\u06c1": "\u0647",  # ہ HEH GOAL (Urdu keyboards) -> ه
    "\u0623": "\u0627",  # أ -> ا
    "\u0625": "\u0627",  # إ -> ا
    "\u0671": "\u0627",  # ٱ ALEF WASLA -> ا
    "\u066b": ".",  # ٫ ARABIC DECIMAL SEPARATOR
    "\u066c": ",",  # ٬ ARABIC THOUSANDS SEPARATOR
}
# Tatweel (kashida) and the harakat stretch or vocalise letters; typed text rarely has them.
_ARABIC_DROP = re.compile("[\u0640\u064b-\u065f\u0670]")

_WS = re.compile(r"\s+")
_CANDRABINDU = "\u0901"
_ANUSVARA = "\u0902"


def drop_format_chars(text: str) -> str:
    """Remove invisible format characters (Unicode category Cf): ZWNJ, ZWJ, soft hyphen, LRM/RLM, BOM, ..."""
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


def _collapse_ws(text: str) -> str:
    return _WS.sub(" ", text).strip()


@lru_cache(maxsize=4096)
def _fold_char(ch: str) -> str:
    """The matching-side replacement for one character after NFKC and casefold ("" for none)."""
    if ch in _NUKTA_COMPOSED:
        return _NUKTA_COMPOSED[ch]
    if ch in _ARABIC_TO_PERSIAN:
        return _ARABIC_TO_PERSIAN[ch]
    if ch == _CANDRABINDU:
        return _ANUSVARA
    cat = unicodedata.category(ch)
    if cat == "Nd":
        return str(unicodedata.decimal(ch))
    if cat[0] in "PS":
        return " "
    return ch


def _fold_punctuation_and_letters(text: str) -> str:
    out: list[str] = []
    n = len(text)
    for i, ch in enumerate(text):
        # a decimal or thousands separator between two digits belongs to the number ("2.5 kg", "1,000")
        if ch in ".,\u066b\u066c" and 0 < i < n - 1 and text[i - 1].isdecimal() and text[i + 1].isdecimal():
            out.append(_ARABIC_TO_PERSIAN.get(ch, ch))
            continue
        out.append(_fold_char(ch))
    return "".join(out)


def normalize_for_matching(text: str) -> str:
    """The lexical form of a text: every rule in the module docstring's table. Idempotent; never for display."""
    if not text:
        return ""
    s = drop_format_chars(text)
    s = unicodedata.normalize("NFKC", s)
    s = unicodedata.normalize("NFKC", s.casefold())
    s = _ARABIC_DROP.sub("", s)
    s = _fold_punctuation_and_letters(s)
    return _collapse_ws(s)


def normalize_for_embedding(text: str) -> str:
    """The safe subset for an embedding model: format characters removed, NFC, whitespace collapsed. Idempotent."""
    if not text:
        return ""
    s = unicodedata.normalize("NFC", drop_format_chars(text))
    return _collapse_ws(s)


_TITLE_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
# the short words a title writes in lower case unless they begin it
_TITLE_SMALL = frozenset("a an and as at but by for in nor of on or the to with".split())


def title_case(text: str) -> str:
    """A heading printed in capitals as a title: each word's first letter upper case and the rest lower, short words
    ("and", "of", "the") lower unless they begin it, and a letter after an apostrophe lower ("OHM’S LAW" -> "Ohm’s
    Law", where str.title gives "Ohm’S Law"; "SECTORS OF THE INDIAN ECONOMY" -> "Sectors of the Indian Economy")."""
    def word(m: re.Match) -> str:
        w = m.group(0).lower()
        return w if m.start() > 0 and w in _TITLE_SMALL else w[:1].upper() + w[1:]

    return _TITLE_WORD.sub(word, text)


# faux-bold: the same run printed several times over ("Activity 1.1Activity 1.1Activity 1.1")
_REPEAT = re.compile(r"(\S.{2,40}?)(?:\s?\1){2,}")
# faux-bold of single glyphs: a word's last letter printed four or more times, standing apart after its collapsed
# word ("LA WWWWW" -> "LAW"); a letter or letter pair printed four or more times inside a word ("JJJJJute",
# "HAHAHAHAHAVE", "REPORTTTTT"; "AAA" and "III" are words); a letter printed three or more times with spaces between
# its copies, before the rest of its word ("R R R R R IVER", "E E E CONOMIC"). Letters only: a number may repeat a
# digit ("100000"), and blanks to fill ("_____") are meant
_TAIL_REPEAT = re.compile(r"(\b[^\W\d_]{2,}) ([^\W\d_])\2{3,}\b")
_GLYPH_REPEAT = re.compile(r"([^\W\d_]{1,2})\1{3,}")
_SPACED_REPEAT = re.compile(r"\b([^\W\d_])(?: \1){2,}\b( (?=[^\W\d_]))?")


def _spaced(m: re.Match) -> str:
    if not m.group(2):
        return m.group(1)
    rest = m.string[m.end():m.end() + 1]
    return "" if rest == m.group(1) else m.group(1)  # "W W W W WATER": the last copy begins the word


def collapse_repeats(line: str) -> str:
    """Collapse faux bold to one copy: a run printed three or more times in a row, and `collapse_glyphs`."""
    prev = None
    while prev != line:
        prev = line
        line = _REPEAT.sub(r"\1", line)
    return collapse_glyphs(line)


def collapse_glyphs(line: str) -> str:
    """Collapse single glyphs printed several times over to one ("JJJJJute" -> "Jute", "E E E CONOMIC" -> "ECONOMIC"):
    the rule a question gets (a question may repeat a phrase on purpose, "1 : 1 : 1", but no word repeats a letter
    four times running)."""
    line = _TAIL_REPEAT.sub(r"\1\2", line)
    line = _GLYPH_REPEAT.sub(r"\1", line)
    return _SPACED_REPEAT.sub(_spaced, line)
