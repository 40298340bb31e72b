"""What a refusal offers to ask instead: the nearest sections of the shelf that share a word with the question, their
headings cleaned of the PDF's letter-spacing, each with the question its button asks.

Pure functions over hits, words and reason codes; the pipeline makes them, ui/render.py draws them as buttons.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable

from tutor.question import Question, as_question
from tutor.reasons import BOOK_REFUSALS, Reason
from tutor.text.terms import TermStats, stem, stopwords, term_set
from tutor.types import Hit, Suggestion  # Suggestion: the pipeline names it from here

# the refusals after which another part of the book may help: the book was found but did not answer. An off-topic
# question is about nothing on the shelf, so any section offered would be beside the point.
SUGGEST_AFTER = BOOK_REFUSALS - {Reason.OFF_TOPIC}

# words a cut-off heading can end on ("11.5 Factors on Which the Resistance of a"): the heading is shown with "…"
_DANGLING = frozenset("a an the of in on to for by with from and or at as into through towards between due -".split())
_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)*)\s+")


def join_letter_spacing(text: str, stats: TermStats) -> str:
    """Mend words a PDF's letter-spacing split ("Fa Ctors", "Resist Ance", "Impor tance"): two neighbouring pieces
    are joined where together they make a word of the shelf and one of them alone is not a word in its own right,
    which is a stopword or a stem the shelf uses at least as often as the joined word (the split heading itself puts
    "ance" and "yday" on the shelf, once or twice)."""
    def word(w: str, joined: str) -> bool:  # a stopword joined ("have") counts as commoner than any stem
        common = math.inf if joined in stopwords() else stats.df.get(stem(joined), 1)
        return w.lower() in stopwords() or stats.df.get(stem(w.lower()), 0) >= common

    out: list[str] = []
    for part in text.split(" "):
        if out and part:
            a, b = out[-1], part
            joined = (a + b).lower()
            if a.isalpha() and b.isalpha() and joined in stats.words and not (word(a, joined) and word(b, joined)):
                out[-1] = a + b.lower()
                continue
        out.append(part)
    return " ".join(out)


def clean_heading(section: str, stats: TermStats) -> str:
    """A section heading as a student should read it: letter-spacing mended, a cut-off end marked with "…"."""
    text = join_letter_spacing(" ".join(section.split()), stats)
    pieces = text.split(" ")
    if len(pieces) > 2 and pieces[-1].lower() in _DANGLING:
        while len(pieces) > 2 and pieces[-1].lower() in _DANGLING:
            pieces.pop()
        return " ".join(pieces) + " …"
    return text


def topic(s: Suggestion) -> str:
    """What a suggestion is about, in words: the section's heading without its number (the chapter when none)."""
    name = s.section if s.section and s.section != s.chapter else s.chapter
    return _NUMBER.sub("", name).rstrip(" …").strip()


def question_for(s: Suggestion) -> str:
    """The question a suggestion's button asks about its section."""
    return f"What does the book say about {topic(s)}?"


def suggest_instead(question: Question | str, hits: Iterable[Hit], reason: str, stats: TermStats,
                    n: int = 3) -> tuple[Suggestion, ...]:
    """Up to `n` places on the shelf to ask about instead, best first: none after a refusal that is not about the
    book lacking the answer (`SUGGEST_AFTER`); else the first different (chapter, section) places among the
    evidence hits whose text or heading shares a content word with the question (its terms, read once: the pipeline's
    Question; a string is read as Question.of reads it), headings cleaned."""
    if reason not in SUGGEST_AFTER:
        return ()
    asked = set(as_question(question).terms)
    out: list[Suggestion] = []
    seen: set[tuple[str, str]] = set()
    for h in hits:
        c = h.chunk
        if (c.chapter, c.section) in seen or not c.is_evidence:
            continue
        if not asked & term_set(f"{c.section} {c.text}"):
            continue  # nearest by vectors only: beside the point (a repo-rate question pointed to Political Parties)
        seen.add((c.chapter, c.section))
        out.append(Suggestion(c.chapter, clean_heading(c.section, stats), c.page_start, round(h.score, 4)))
        if len(out) >= n:
            break
    return tuple(out)
