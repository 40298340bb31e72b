"""Word-level text tools shared by the gate, the answerer and the checks: terms, stems, numbers, names.

Pure functions over strings; the stopword list is NLTK's English list (shipped with llama-index) plus
question words, so "What is the function of X?" reduces to its content terms.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]|\d+(?:[.,]\d+)*(?:st|nd|rd|th|s)?")

_QUESTION_WORDS = {
    "what", "why", "how", "when", "where", "which", "who", "whom", "whose", "explain", "describe", "define", "list",
    "name", "give", "state", "write", "discuss", "mention", "identify", "example", "examples", "called", "mean",
    "meant", "means", "term", "does", "do", "did", "can", "could", "would", "should", "shall", "may", "might", "also",
    "many", "much", "one", "two", "kind", "kinds", "type", "types", "used", "use", "uses", "following", "briefly",
    "difference", "differences", "between", "main", "important", "known", "way", "ways", "take", "took", "get",
    "make", "made", "happen", "happens", "happened", "like", "us", "tell", "find", "show", "say", "said",
}


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    try:
        from nltk.corpus import stopwords as sw

        words = set(sw.words("english"))
    except (LookupError, OSError):  # pragma: no cover - the data ships with llama-index
        words = {"the", "a", "an", "of", "to", "in", "is", "are", "and", "or", "for", "on", "with", "by", "as", "at"}
    return frozenset(words)


def tokens(text: str) -> list[str]:
    """Lower-cased word and number tokens."""
    return [t.lower().replace("’", "'") for t in _TOKEN.findall(text)]


@lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    """A light English stemmer (plural and common suffixes), enough to match "reactions" with "reaction"."""
    w = word.lower().strip("'-")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) <= 3 or w[0].isdigit():
        return w
    for suf, rep in (("ies", "y"), ("sses", "ss"), ("ness", ""), ("ments", ""), ("ment", ""), ("ational", "ate"),
                     ("ation", "ate"), ("ising", "ise"), ("izing", "ize"), ("ings", ""), ("ing", ""), ("edly", ""),
                     ("ied", "y"), ("ed", ""), ("es", ""), ("s", ""), ("ly", "")):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)] + rep
            break
    if len(w) > 4 and w.endswith("e"):
        w = w[:-1]
    return w


def content_terms(text: str) -> list[str]:
    """Stems of the words that carry meaning (no stopwords, no question words), in order, without repeats."""
    sw = stopwords()
    seen: dict[str, None] = {}
    for t in tokens(text):
        if t in sw or t in _QUESTION_WORDS or len(t) < 2 and not t.isdigit():
            continue
        seen.setdefault(stem(t), None)
    return list(seen)


def term_set(text: str) -> set[str]:
    """All stems in a text (stopwords dropped), for presence tests."""
    sw = stopwords()
    return {stem(t) for t in tokens(text) if t not in sw}


_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)*(?:st|nd|rd|th|s)?\b")


def numbers(text: str) -> set[str]:
    """Numbers as written, normalised ("1,000" and "1000" match; "10th" stays distinct from "10")."""
    return {n.replace(",", "") for n in _NUMBER.findall(text)}


_REFERENCE = re.compile(
    r"\b(?:Activity|Activities|Figure|Fig|Table|Section|Chapter|Example|Exercise|Eq|Equation|Class|Question|Q|Unit|"
    r"Box|Page|Map|Step)\.?\s*\(?\d+(?:\.\d+)*\)?|\b\d+\s*(?:words|marks|lines)\b|\([ivx\d]+\)",
    re.I,
)
_SIGNIFICANT = re.compile(r"(?<![\w.])(?:\d{1,4}(?:st|nd|rd|th|s)\b|\d{2,}(?:[.,]\d+)*)(?![\w.])")


def key_numbers(text: str) -> set[str]:
    """Numbers a question turns on (years, ordinals, quantities of two or more digits), leaving out references
    to the book itself ("Activity 1.7", "in 120 words") and single digits (list items, formula subscripts)."""
    text = _REFERENCE.sub(" ", text)
    return {n.replace(",", "") for n in _SIGNIFICANT.findall(text)}


_NEGATION = re.compile(r"\b(?:not|no|never|none|nor|neither|without|cannot|unable|fail(?:s|ed)? to)\b|n['’]t\b", re.I)


def negated(text: str) -> bool:
    """Whether a text says something is not so ("not", "never", "n't", "without", ...)."""
    return bool(_NEGATION.search(text))


_CAP_RUN = re.compile(r"(?:[A-Z][\w'’-]*|[A-Z]{2,}\w*)(?:\s+(?:of\s+|de\s+|the\s+)?[A-Z][\w'’-]*)*")


def name_phrases(question: str) -> list[str]:
    """Proper names a question turns on: runs of capitalised words that do not open a sentence or a list item
    ("New France", "Circuit Switching"), lower-cased; chemical formulas and one-letter tokens are not names."""
    out = []
    for sent in re.split(r"[.?!:;]\s+|\s\(?[a-zA-Z0-9]{1,3}[.)]\s", question.strip()):
        words = re.sub(r"^\(?[a-zA-Z0-9]{1,3}[.)]\s+", "", sent).split(maxsplit=1)
        rest = words[1] if len(words) > 1 else ""
        for m in _CAP_RUN.finditer(rest):
            kept = [w for w in m.group(0).split()
                    if w.lower() not in {"i", "what", "which", "who", "why", "how"} and not re.search(r"\d", w)]
            phrase = re.sub(r"'s\b", "", " ".join(kept).lower().replace("’", "'"))
            if sum(c.isalpha() for c in phrase) >= 3:
                out.append(phrase)
    return out


def has_phrase(text_words: str, phrase: str) -> bool:
    """Whether a lower-cased phrase occurs in text (given as " word word ... "), allowing a plural or possessive."""
    words = re.findall(r"[a-z0-9]+", phrase)
    if not words:
        return True
    pattern = r" " + r"(?:s|es)?\d* ".join(re.escape(w) for w in words) + r"(?:s|es|s')?\d* "
    return re.search(pattern, text_words) is not None


def names(text: str) -> set[str]:
    """Capitalised words not at a sentence start and not stopwords: a cheap stand-in for named entities."""
    out = set()
    for sent in re.split(r"(?<=[.?!])\s+", text):
        words = re.findall(r"[A-Za-z][A-Za-z'’-]*", sent)
        for i, w in enumerate(words):
            if i > 0 and w[0].isupper() and w.lower() not in stopwords() and w.lower() not in _QUESTION_WORDS:
                out.add(stem(w))
    return out


class TermStats:
    """Document frequencies of stems over a shelf's chunks, for IDF weights (rare terms weigh more)."""

    def __init__(self, texts: list[str]):
        self.n_docs = max(1, len(texts))
        df: Counter[str] = Counter()
        for t in texts:
            df.update(term_set(t))
        self.df = df

    def idf(self, term: str) -> float:
        """Smoothed IDF; a term absent from the whole shelf gets the largest weight."""
        return math.log((self.n_docs + 1) / (self.df.get(term, 0) + 0.5))

    def known(self, term: str) -> bool:
        return self.df.get(term, 0) > 0
