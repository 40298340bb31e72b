"""Sentences: the one place that decides where a sentence ends, in English and in Hindi (at the danda).

Book text (chunking, the reader's windows, the support check) is split by punkt with the danda and abbreviations
handled; a model's reply or a source scanned line by line (`split_sentences`) uses the same spans on each line.
"""
from __future__ import annotations

import re
from functools import lru_cache

_ABBREV_END = re.compile(r"(?:\b(?:Fig|Figs|Eq|No|Nos|Vol|Dr|Mr|Mrs|Ms|St|viz|i\.e|e\.g|etc|Prof|approx|Sec|Ch)\."
                         r"|\b[A-Z]\.)$")


@lru_cache(maxsize=1)
def _punkt():
    from nltk.data import load
    from nltk.tokenize import PunktSentenceTokenizer

    try:
        return load("tokenizers/punkt_tab/english/")  # type: ignore[no-any-return]
    except (LookupError, OSError, ValueError):
        return PunktSentenceTokenizer()


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) character spans of the sentences of a text: punkt for English, split again after each danda,
    and glued back after abbreviations such as "Fig." and "No." that punkt takes for sentence ends."""
    try:
        tok = _punkt()
        spans = list(tok.span_tokenize(text))
    except Exception:  # noqa: BLE001 - a tokenizer failure must not stop ingestion
        spans = [(m.start(), m.end()) for m in re.finditer(r"[^.!?]+(?:[.!?]+|$)", text)]
    # punkt (English) does not know the Devanagari danda: a Hindi sentence ends at "।" or "॥" (and at "?" or "!",
    # which punkt already splits on)
    spans = [part for s, e in spans for part in _split_danda(text, s, e)]
    # punkt splits after "Fig." and "No."; glue those back
    merged: list[list[int]] = []
    for s, e in spans:
        if merged and _ABBREV_END.search(text[merged[-1][0]:merged[-1][1]]):
            merged[-1][1] = e
        else:
            merged.append([s, e])
    return [(s, e) for s, e in merged]


_DANDA_END = re.compile("[\u0964\u0965]+[\"'”’)]*(?=\\s)")


def _split_danda(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Split the span text[start:end] after each danda (।) or double danda (॥) that a space follows."""
    out = []
    s = start
    for m in _DANDA_END.finditer(text, start, end):
        out.append((s, m.end()))
        s = m.end()
        while s < end and text[s].isspace():
            s += 1
    if s < end:
        out.append((s, end))
    return out


def split_sentences(text: str) -> list[str]:
    """Sentences and lines of a text (a model's reply, a source), for scanning one at a time."""
    out = []
    for line in text.split("\n"):
        if line.strip():
            out.extend(s for s in (line[a:b] for a, b in sentence_spans(line)) if s.strip())
    return out
