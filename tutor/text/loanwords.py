"""English words written in Devanagari ("केरोसिन", "फ्लेमिंग का नियम", "प्रिंटिंग प्रेस"), read back as the English
words of the shelf they sound like, where the English-Hindi dictionary has no entry for them.

Students write the book's English terms in Devanagari; FreeDict has none of them, so the dictionary reading kept them
in Latin letters as typed ("kerosin", "phleming"), unknown to the English shelf. Here such a word is matched by sound
to a word the shelf uses, and the match is confirmed by meaning:

1. **Sound.** The word is romanised (tutor/text/hindi_english.py: "केरोसिन" -> "kerosin") and both it and the shelf's
   words are reduced to a consonant skeleton that spelling cannot tell apart: "ph" and "f" alike, "c" as "k" (or
   "s" before e, i, y), "q" as "k", "x" as "ks", "w" as "v", "z" as "s", "j" as "g", "h" and "y" dropped, doubled
   letters once, vowels out. "kerosin" and "kerosene" are both "krsn"; so is "corrosion".
2. **Meaning.** Among the shelf's words with the same skeleton, multilingual e5 compares each with the Devanagari
   word as typed (tutor/text/senses.py `e5_similarity`); the closest is taken when its cosine reaches
   `min_loanword_similarity` ("केरोसिन": kerosene 0.92, corrosion 0.88). A Hindi word that only sounds like an
   English one ("साल", year, and "shall") mostly falls below.
3. **Only where it can be told.** A romanised word of fewer than four letters, or a skeleton of fewer than three
   consonants, is not matched (too many English words share it: "कप" is "cap" by sound).
4. **A long name, by sound alone.** e5 knows names less well than words ("ज़ॉलवेराइन" and Zollverein 0.83,
   "गुटेनबर्ग" and Gutenberg 0.89): with a skeleton of at least `SOUND_ONLY_CONSONANTS` consonants, the one shelf word
   whose sound, vowels and all, is within `SOUND_ONLY_RATIO` of the romanisation (difflib's ratio: "solverain",
   "solverein" 0.89) is taken without e5. Two Devanagari words in a row that no dictionary reads may be one English
   term ("ऐक्वा रेजिया", aqua regia): the index holds the shelf's pairs of words too (`TermStats.pairs`).

A word read this way is no longer among the question's unread words; the reading goes through the English gate and
reader as every reading does, and nothing is matched on a shelf with Hindi chapters (a Hindi question is read
there as typed).
"""
from __future__ import annotations

import re
import threading
import weakref
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from difflib import SequenceMatcher

from tutor.text.hindi_english import romanize
from tutor.text.terms import TermStats

MIN_LETTERS = 4  # romanised letters a word needs before it is matched
MIN_CONSONANTS = 3  # consonants its skeleton needs
SOUND_ONLY_CONSONANTS = 4  # consonants a skeleton needs to be matched by sound alone (rule 4 above)
SOUND_ONLY_RATIO = 0.85  # how close in sound (difflib's ratio of `sound`) a word matched so must be

Similarity = Callable[[str, Sequence[str]], Sequence[float]]


def sound(word: str) -> str:
    """A Latin-letter word as it sounds, spelling variants folded: "Phleming" -> "fleming", "Zollverein" -> "solverein"
    (vowels kept; `skeleton` drops them)."""
    w = re.sub(r"[^a-z]", "", word.lower())
    w = w.replace("ph", "f").replace("ck", "k").replace("qu", "kv").replace("x", "ks").replace("w", "v")
    w = re.sub(r"c(?=[eiy])", "s", w)
    for a, b in (("c", "k"), ("q", "k"), ("z", "s"), ("j", "g"), ("h", ""), ("y", "i")):
        w = w.replace(a, b)
    return re.sub(r"(.)\1+", r"\1", w)


def skeleton(word: str) -> str:
    """`sound` without its vowels, doubled consonants once: "kerosin", "kerosene" and "corrosion" -> "krsn"."""
    return re.sub(r"(.)\1+", r"\1", re.sub(r"[aeiou]", "", sound(word)))


class SoundIndex:
    """A shelf's English words (three letters or more, lower case) by their skeleton, and its `pairs` of words written
    side by side (`TermStats.pairs`, stems: "aqua regia") by the skeleton of the two together."""

    def __init__(self, words: Iterable[str], pairs: Iterable[str] = ()):
        self.by_skeleton: dict[str, set[str]] = defaultdict(set)
        for w in words:
            self.by_skeleton[skeleton(w)].add(w.lower())
        for p in pairs:
            self.by_skeleton[skeleton(p)].add(p)

    def candidates(self, romanized: str) -> list[str]:
        return sorted(self.by_skeleton.get(skeleton(romanized), ()))


_INDEXES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def shelf_index(stats: TermStats) -> SoundIndex:
    """The SoundIndex of a shelf's words (`TermStats.words`), built once for each TermStats (the Library makes one per
    shelf version) and kept as long as it lives."""
    with _LOCK:
        got = _INDEXES.get(stats)
    if got is None:
        got = SoundIndex(stats.words, stats.read_pairs())
        with _LOCK:
            _INDEXES[stats] = got
    return got


def english_loanword(word: str, index: SoundIndex, similarity: Similarity, min_similarity: float) -> str | None:
    """The shelf word (or pair of words, for two Devanagari words) the Devanagari `word` is English for, or None: same
    skeleton (`sound`), and of those the one `similarity(word, candidates)` ranks first, when it reaches
    `min_similarity`; else, for a long skeleton, the one candidate that sounds nearly the same (rule 4 above)."""
    romanized = " ".join(romanize(w) for w in word.split())
    key = skeleton(romanized)
    if len(romanized) < MIN_LETTERS or len(key) < MIN_CONSONANTS:
        return None
    found = index.candidates(romanized)
    if not found:
        return None
    scores = list(similarity(word, found))
    best = max(range(len(found)), key=scores.__getitem__)
    if scores[best] >= min_similarity:
        return found[best]
    heard = sound(romanized)
    close = [c for c in found if SequenceMatcher(None, heard, sound(c)).ratio() >= SOUND_ONLY_RATIO]
    return close[0] if len(key) >= SOUND_ONLY_CONSONANTS and len(close) == 1 else None
