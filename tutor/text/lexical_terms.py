"""The words, index terms and character trigrams of lexical retrieval, one definition for both sides: the index reads
its chunks with them (tutor/retrieval/lexical.py) and the question is read with them once (tutor/question.py).

They live under text/ rather than in lexical.py because the Question is made above the stages and the lexical index
takes a Question: each importing the other would be a circle.
"""
from __future__ import annotations

from functools import lru_cache

from tutor.text.normalize import normalize_for_matching
from tutor.text.terms import stem, stopwords


def words(text: str) -> list[str]:
    """The matching-side words of a text: normalised, split on whitespace (works for any script)."""
    return normalize_for_matching(text).split()


@lru_cache(maxsize=200_000)
def index_term(word: str) -> str | None:
    """A word's index term: its light English stem; None for stopwords and lone Latin letters."""
    if word in stopwords() or (len(word) == 1 and word.isascii() and word.isalpha()):
        return None
    return stem(word)


def terms(text: str) -> list[str]:
    """The BM25 terms of a text, in order, with repeats."""
    return [t for t in map(index_term, words(text)) if t]


@lru_cache(maxsize=200_000)
def trigrams(word: str) -> tuple[str, ...]:
    """Character trigrams of a word padded with '#' at both ends ("acid" -> #ac, aci, cid, id#), without repeats."""
    w = f"#{word}#"
    return tuple(dict.fromkeys(w[i : i + 3] for i in range(len(w) - 2)))
