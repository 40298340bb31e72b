"""Words the text layer split: broken at a line end with a hyphen ("some-\\nthing") or by a stray space ("chemic al",
"horizonta lly"), joined again by what the document and an English word list say (tutor/ingest/pdftext.py cleans a
document's pages with them; tutor/ingest/chunking.py mends a chunk's text)."""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Container

from tutor.text.lexicons import is_english

_HYPHEN_BREAK = re.compile(r"([A-Za-z]{2,})-\n([a-z]{2,})")
_WORD = re.compile(r"[A-Za-z]+")


def word_counts(text: str) -> Counter[str]:
    """How often the text uses each word (Latin letters, lower case): the document's vocabulary."""
    return Counter(w.lower() for w in _WORD.findall(text))


def unbroken_word_counts(text: str) -> Counter[str]:
    """`word_counts` without the pieces of words broken at a line end ("some-\\nthing"): they are not words of the
    document (dehyphenate reads them against it)."""
    return word_counts(_HYPHEN_BREAK.sub(" ", text))


_COMMON_SHORT = {"a", "i", "o"}


def rejoin_split_words(line: str, vocab: Counter[str], english: Container[str] | None = None) -> str:
    """Join words split by a stray space ("chemic al", "fr om", "r eaction") when the document uses the whole word.

    Two neighbours are joined only when the joined word occurs in the document at least twice on its own and at
    least one neighbour is not a word, so real word pairs ("in to") are left alone. A neighbour is a word when the
    document uses it at least twice (one letter: only "a", "i", "o") and, given an `english` word list, that list
    has it too: a PDF that splits "mirr ors" the same way every time makes "mirr" and "ors" words of the document,
    never of English. Given the list, a word the document never writes whole is joined too when the list has it
    (three letters or more), neither neighbour is a word and one is no English word at all ("horizonta lly", "e
    nsure", "r ed"); two English words that make one ("per cent", "flower pots") stay apart.
    """
    def known(piece: str) -> bool:
        p = piece.lower()
        return (vocab[p] >= 2 and (len(p) > 1 or p in _COMMON_SHORT)
                and (english is None or len(p) == 1 or is_english(p, english)))

    def joins(left: str, right: str) -> bool:
        whole = (left + right).lower()
        if vocab[whole] >= 2:
            return not (known(left) and known(right))
        return (english is not None and len(whole) >= 3 and is_english(whole, english) and not known(left)
                and not known(right) and not (is_english(left.lower(), english) and is_english(right, english)))

    tokens, out, i = line.split(" "), [], 0
    while i < len(tokens):
        tok = tokens[i]
        if i + 1 < len(tokens):
            nxt = tokens[i + 1]
            a = re.fullmatch(r"([A-Za-z]+)", tok)
            b = re.fullmatch(r"([a-z]+)(\W.*)?", nxt)  # "ors,", "ear-view": the letters before the first mark
            if a and b and joins(tok, b.group(1)):
                out.append(tok + nxt)
                i += 2
                continue
        out.append(tok)
        i += 1
    return " ".join(out)


def dehyphenate(text: str, vocab: Counter[str]) -> str:
    """Undo hyphenation at line ends: "some-\\nthing" becomes "something", unless the document writes the
    compound with a hyphen inside a line ("well-known"), or writes both halves as words and never the whole."""
    compounds = {m.group(0).lower() for m in re.finditer(r"(?<![-\w])[A-Za-z]{2,}-[a-z]{2,}(?![-\w])", text)}

    def fix(m: re.Match[str]) -> str:
        a, b = m.group(1), m.group(2)
        if f"{a}-{b}".lower() in compounds:
            return f"{a}-{b}"
        if vocab[f"{a}{b}".lower()] >= 1 or not (vocab[a.lower()] >= 1 and vocab[b.lower()] >= 1):
            return f"{a}{b}"
        return f"{a}-{b}"

    return _HYPHEN_BREAK.sub(fix, text)
