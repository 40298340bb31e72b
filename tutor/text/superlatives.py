"""Hindi superlatives read as English ones: "सबसे बड़ा बंदरगाह" is "the largest port", not "big port".

Hindi makes a superlative with सबसे ("than all") before the adjective; the reading (tutor/text/hindi_english.py)
drops सबसे as a function word (a pronoun with a postposition fused on), so "भारत का सबसे बड़ा बंदरगाह कौन सा है?"
was read "which India big port", and the question the student asked — which port is the largest — was gone. The
short factual questions students ask are full of them (the largest, the longest, the first, the most).

`superlative_senses` turns the adjective's English senses into their superlatives ("big" -> "biggest", "large" ->
"largest", "good" -> "best", "more" -> "most"), and the reading keeps only those the shelf writes (a word formed by
rule that the book never uses is no reading: "bulkiest"). Where the dictionary lists the pair itself (Shabdanjali's
"सबसे बड़ा": greatest, eldest, largest) that is read first; where the shelf writes no superlative of any sense, the
adjective is read as before.
"""
from __future__ import annotations

import re

from tutor.text.hindi_dictionary import normalize_hindi

MOST = normalize_hindi("सबसे")
# Hindi words of quantity whose superlative is "most" or "least", whatever the dictionary lists for them (FreeDict
# reads ज़्यादा as "heavily" and "still")
QUANTITY = {normalize_hindi(k): v for k, v in {
    "ज़्यादा": "most", "ज्यादा": "most", "अधिक": "most", "कम": "least"}.items()}
# the same words typed in Latin letters, after "sabse" (tutor/text/hinglish.py)
QUANTITY_LATIN = {"zyada": "most", "jyada": "most", "zyaada": "most", "jyaada": "most", "adhik": "most",
                  "kam": "least"}
_IRREGULAR = {"good": "best", "well": "best", "bad": "worst", "ill": "worst", "much": "most", "many": "most",
              "more": "most", "little": "least", "less": "least", "far": "farthest"}
_VOWEL_GROUP = re.compile(r"[aeiou]+|y(?![aeiou])")


def superlative(word: str) -> str | None:
    """The English superlative of an adjective as one word ("big" -> "biggest", "large" -> "largest", "early" ->
    "earliest", "good" -> "best"), or None where English forms it with "most" (three syllables or more: "important")
    or the word is not one plain word. Formed by rule: whether the word is an adjective at all is for the shelf to say
    (a superlative the book never writes is not read)."""
    w = word.lower()
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if not w.isalpha() or len(w) < 2 or w.endswith("est"):
        return None
    syllables = len(_VOWEL_GROUP.findall(w[:-1] if w.endswith("e") else w))
    if syllables > 2 or (syllables == 2 and not w.endswith(("y", "le", "ow", "er"))):
        return None
    if w.endswith("y") and w[-2] not in "aeiou":
        return w[:-1] + "iest"
    if w.endswith("e"):
        return w + "st"
    if syllables == 1 and re.search(r"[^aeiou][aeiou][^aeiouwxy]$", w):
        return w + w[-1] + "est"
    return w + "est"


def superlative_senses(senses: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
    """Each dictionary's senses (`Dictionary.senses`: one tuple per dictionary) as their superlatives, those English
    forms with "most" left out."""
    return tuple(tuple(dict.fromkeys(s for c in tier if (s := superlative(c)))) for tier in senses)
