"""English training questions made part Hindi, for the cross-lingual reader (tutor/reader/model.py, base "e5").

The reader's examples are English. A student on an English shelf may ask in Hindi, so the cross-lingual reader also
learns from the same questions with words written in Hindi: each English word FreeDict's English-Hindi dictionary
translates (its first sense's first phrase) is replaced with that Hindi with probability `rate`, question words by
their Hindi ("what" -> क्या, "why" -> क्यों), and English glue words ("the", "is", "does") dropped, as a Hindi
question has none of them. Terms the dictionary lacks stay English, as they do in students' Hindi ("ओम का नियम").
The labels and passages are unchanged: whether the passage answers a question does not depend on its language.

This is code-switching augmentation (CoSDA-ML style); nothing is taken from the Hindi question sets.
"""
from __future__ import annotations

import gzip
import random
import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from tutor.reader.examples import Example

QUESTION_WORDS = {"what": "क्या", "why": "क्यों", "how": "कैसे", "when": "कब", "where": "कहाँ", "who": "कौन",
                  "whom": "किसको", "whose": "किसका", "which": "कौन सा"}
GLUE = {"the": "", "a": "", "an": "", "is": "है", "are": "हैं", "was": "था", "were": "थे", "do": "", "does": "",
        "did": "", "of": "का", "in": "में", "to": "को", "on": "पर", "from": "से", "and": "और", "or": "या",
        "by": "द्वारा", "for": "के लिए", "with": "के साथ"}
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+(?:[.,]\d+)*|\S")


@lru_cache(maxsize=2)
def english_hindi(path: str) -> dict[str, str]:
    """English one-word headword (lower case) -> the Hindi phrase its first sense lists first."""
    from tutor.text.hindi_dictionary import parse_dictd

    with gzip.open(path, "rt", encoding="utf-8") as fh:
        entries = parse_dictd(fh.read())
    out: dict[str, str] = {}
    for e in entries:
        if " " not in e.headword and e.senses and e.senses[0]:
            out.setdefault(e.headword.lower(), e.senses[0][0])
    return out


def _hindi(word: str, table: dict[str, str]) -> str | None:
    w = word.lower()
    for form in (w, w[:-1] if w.endswith("s") else None, w[:-2] if w.endswith("es") else None,
                 w[:-2] if w.endswith("ed") else None, w[:-3] if w.endswith("ing") else None):
        if form and form in table:
            return table[form]
    return None


def code_mix(question: str, table: dict[str, str], rng: random.Random, rate: float = 0.7) -> str:
    """The question with its words written in Hindi where the dictionary has them (each with probability `rate`)."""
    out = []
    for tok in _WORD.findall(question):
        low = tok.lower()
        if low in QUESTION_WORDS:
            out.append(QUESTION_WORDS[low])
        elif low in GLUE:
            if GLUE[low] and rng.random() < 0.5:
                out.append(GLUE[low])
        elif tok[0].isalpha() and rng.random() < rate and (hindi := _hindi(tok, table)):
            out.append(hindi)
        else:
            out.append(tok)
    return re.sub(r" (?=[?.,!])", "", " ".join(out))


def code_mixed(examples: Sequence[Example], dictionary: Path, share: float, seed: int,
               rate: float = 0.7) -> list[Example]:
    """`examples` with the question of about `share` of the qa examples code-mixed (seeded); claims unchanged."""
    rng = random.Random(seed)
    table = english_hindi(str(dictionary))
    out = []
    for e in examples:
        if e.task == "qa" and rng.random() < share:
            e = replace(e, first=code_mix(e.first, table, rng, rate), source=e.source + "-hi")
        out.append(e)
    return out
