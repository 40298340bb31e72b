"""Sentences: the one place that decides where a sentence ends, in English and in Hindi (at the danda).

Book text (chunking, the reader's windows, the support check) is split by punkt with the danda and abbreviations
handled; a model's reply or a source scanned line by line (`split_sentences`) uses the same spans on each line.
"""
from __future__ import annotations

import re
from functools import lru_cache

_ABBREV_END = re.compile(r"(?:\b(?:Fig|Figs|Eq|Eqs|Eqn|Eqns|No|Nos|Vol|Dr|Mr|Mrs|Ms|St|viz|i\.e|e\.g|Prof|approx|Sec|"
                         r"Ch)\."
                         r"|\b[A-Z]\.)$")
# abbreviations that may also end a sentence ("... by Bajaj Auto Ltd. The ...", "... carbon, sulphur, iodine, etc. The
# non-metals are ..."): glued only to what goes on as the same sentence would (a lower-case word, a number, a bracket:
# "Rs. 500", "Ltd. (OIL) is", "Govt. of India", "etc. are") or to another of them ("Co." "Ltd.")
_NAME_ABBREV = r"(?:Rs|Ltd|Pvt|Co|Inc|Corp|Govt|Mt|Smt|Shri|Jr|Sr|Dept|Bros|Lt|Col|Gen|Capt|pp|cf|vs|etc)\."
_MAYBE_END = re.compile(r"\b" + _NAME_ABBREV + "$")
_GOES_ON = re.compile(r"[a-z0-9(]|" + _NAME_ABBREV + r"(?:\s|$)")


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
    and glued back after abbreviations such as "Fig." and "No." that punkt takes for sentence ends, and after "Rs.",
    "Ltd." and the like where the sentence goes on."""
    try:
        tok = _punkt()
        spans = list(tok.span_tokenize(text))
    except Exception:  # noqa: BLE001 - a tokenizer failure must not stop ingestion
        spans = [(m.start(), m.end()) for m in re.finditer(r"[^.!?]+(?:[.!?]+|$)", text)]
    # punkt (English) does not know the Devanagari danda: a Hindi sentence ends at "।" or "॥" (and at "?" or "!",
    # which punkt already splits on)
    spans = [part for s, e in spans for part in _split_danda(text, s, e)]
    # punkt splits after "Fig.", "No.", "Rs."; glue those back
    merged: list[list[int]] = []
    for s, e in spans:
        before = text[merged[-1][0]:merged[-1][1]] if merged else ""
        if merged and (_ABBREV_END.search(before) or (_MAYBE_END.search(before) and _GOES_ON.match(text, s))):
            merged[-1][1] = e
        else:
            merged.append([s, e])
    return [part for s, e in merged for part in _split_after_letter(text, s, e)]


# A sentence that ends on a symbol of one letter ("... represented by the letter m.", "... is 1 Ω.", "... vitamin D.",
# "... 10 17 Ω m.") is one sentence with the next to punkt, which reads the letter as an initial (and the rule above
# glues a capital's back for "Franklin D. Roosevelt"). It ends there when the next word is one that opens sentences
# and names no one ("If", "According", "That", "Now", "When"); not inside "U.S." (a dot before the letter), nor
# after a list's label that opens the sentence ("C. The Tamils ...").
_OPENERS = frozenset("""
a about according after again all also although an and another any as at because before both but by consider each
even every for from further hence here how however if in it its let many more most next no not note now observe of
on once one only or other our since similarly small so solution some such than that the their then there therefore
these they this those though thus to two under unlike we what when where whereas which while who why with you
""".split())
_LETTER_END = re.compile(r"(?<![\w.])°?[^\W\d_]\.\s+([A-Z][a-z]+)\b")


def _split_after_letter(text: str, start: int, end: int) -> list[tuple[int, int]]:
    out = []
    s = start
    for m in _LETTER_END.finditer(text, start, end):
        if m.group(1).lower() in _OPENERS and text[s:m.start()].strip():  # not a list's label ("C. The Tamils ...")
            out.append((s, m.start(1)))
            s = m.start(1)
    out.append((s, end))
    return [(a, a + len(text[a:b].rstrip())) for a, b in out]  # a piece ends at its full stop, not the space after


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


# a list item's bullet at a sentence's start: a bullet character, or the letter a dingbat font's bullet is extracted as
# (NCERT's ■ comes out of the text layer as "n", its ● as "l", its ➢ as "Ø": "n Take about 2 g lead nitrate ...")
# before a capital; no English sentence opens with a lone lower-case letter
_BULLET = re.compile(r"^(?:[•▪■●◆❖➢►Ø]|[nlqu](?=\s+[A-Z]))\s+")


def without_bullet(sentence: str) -> str:
    """The sentence without a list item's bullet at its start ("n Take about 2 g ..." -> "Take about 2 g ...")."""
    return _BULLET.sub("", sentence.lstrip(), count=1)


# "Do you know that chips manufacturers usually flush bags of chips with gas such as nitrogen ... ?": NCERT's boxes
# state a fact in a question's form; what follows "that" is told, not asked ("Do you know why?" asks)
_TELLS_AS_QUESTION = re.compile(r"^\W*(?:Do|Did)\s+you\s+know\s+that\s+\w", re.I)


def tells_as_question(sentence: str) -> bool:
    """A "Do you know that ...?" sentence: a statement in a question's form, quoted and ranked as the book's prose."""
    return bool(_TELLS_AS_QUESTION.match(without_bullet(sentence)))
