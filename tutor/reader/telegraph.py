"""Training questions written the way the tutor's readings are, for the answerability reader (`--telegraphic`).

A Hinglish or Devanagari question reaches the English reader as its reading (tutor/text/hinglish.py,
tutor/text/hindi_english.py): the question word first, then the content words in their order, no function words, no
punctuation ("what is photosynthesis", "explain acid rain", "why stars twinkle planets not"). The reader was trained
on questions as people write them, and read such readings differently from the same questions written out: "what is
photosynthesis" passed it at P 0.24 where "What is photosynthesis?" got 0.09 (docs/evaluation.md, issue 13). Here a
share of the qa training examples gets a copy with the question in that form and the same passage, label and span:
whether a passage answers a question does not depend on how tersely it is asked.
"""
from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import replace

from tutor.reader.examples import Example
from tutor.text.terms import stopwords

_LEADS = {"what": "what is", "why": "why", "how": "how", "when": "when", "where": "where", "which": "which",
          "who": "who", "whom": "who", "whose": "whose"}
_REQUESTS = {"explain", "describe", "name", "define", "list", "state", "give", "write", "mention", "tell", "discuss",
             "identify", "compare", "distinguish", "differentiate"}
_NEGATION = {"not", "no", "never", "nor", "without", "neither"}  # a negation changes what is asked: kept
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’.-]*[A-Za-z0-9]|[A-Za-z0-9]")


def telegraphic(question: str) -> str:
    """The question as a reading writes it: "What is the SI unit of electric current?" -> "what is si unit electric
    current", "How many chambers does the heart have?" -> "how many chambers heart", "Explain the rusting of iron." ->
    "explain rusting iron"; negations kept ("Why do planets not twinkle?" -> "why planets not twinkle")."""
    words = [w.lower() for w in _WORD.findall(question)]
    sw = stopwords()
    lead, kept = "", []
    for i, w in enumerate(words):
        if not lead and w == "how" and i + 1 < len(words) and words[i + 1] in ("many", "much"):
            lead = f"how {words[i + 1]}"
            continue
        if not lead and (w in _LEADS or (i == 0 and w in _REQUESTS)):
            lead = _LEADS.get(w, "explain")
            continue
        if lead.startswith("how ") and w == lead.split()[1] and not kept:
            continue
        if w in _NEGATION or w not in sw:
            kept.append(w)
    return " ".join(([lead] if lead else []) + kept)


def telegraphed(examples: Sequence[Example], share: float, seed: int) -> list[Example]:
    """`examples` and, after them, a telegraphic copy of about `share` of the qa examples (seeded; source
    "<source>-tele"); claims and questions a reading would leave unchanged get none."""
    rng = random.Random(seed)
    extra = []
    for e in examples:
        if e.task == "qa" and rng.random() < share:
            short = telegraphic(e.first)
            if short and short != e.first:
                extra.append(replace(e, first=short, source=e.source + "-tele"))
    return list(examples) + extra
