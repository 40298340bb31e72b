"""How an extractive answer is laid out for a student: the sentence that answers first, then at most two sentences
that support it in the book's reading order, quoted whole and only where they are prose, citations numbered in the
order they appear. (The direct answer, the bold first line, is chosen in tutor/safety/answerability.py.)

Pure functions over sentences, sources and the reader's finding; the pipeline calls them after the answerer.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from tutor.text.sentences import tells_as_question, without_bullet
from tutor.types import AnswerSentence, Draft, Source

# an equation and its number run into the next sentence by the PDF's text layer: "I Q t= (11.1) The SI unit of ..."
# (and the labels printed under it: "... + energy (1.18) (Glucose) (iii) The decomposition of ...")
_EQUATION_LEAD = re.compile(r"^(?P<eq>.{0,80}?\(\d{1,2}\.\d{1,2}\)(?:\s*\([^()]{1,25}\))*)\s+(?=[A-Z])")
# an equation with no number printed beside it, run into the sentence after it: "2Cu + O2 → 2CuO (Copper) (Copper(II)
# oxide) Similarly, aluminium forms aluminium oxide.", "Metal + Water → Metal oxide + Hydrogen Metals like potassium
# ..."; its arrow is "→", or "fi" where a font's arrow is extracted as that ligature
_ARROW = re.compile(r"→|(?<=\s)fi(?=\s)")
_PROSE_RUN = re.compile(r"(?<!\S)[a-z]+[,;]?\s+[a-z]+[,;]?\s+[a-z]+\b")  # three words in a row, lower case: prose
_PROSE_START = re.compile(r"(?<!\S)(?:[A-Z][a-z]+|A|I)[,;]?\s+[a-z]+[,;]?\s+[a-z]+[,;]?\s+[a-z]+\b")


def _after_equation(text: str) -> str:
    """The prose after an unnumbered equation that opens the sentence, or the sentence as it is: cut only where
    nothing before the prose reads as prose (so "The reaction is written as – NaOH + HCl → ..." stays whole)."""
    arrows = list(_ARROW.finditer(text))
    if not arrows:
        return text
    start = _PROSE_START.search(text, arrows[-1].end())
    if start is None or _PROSE_RUN.search(text, 0, start.start()) or len(text[start.start():].split()) < 4:
        return text
    return text[start.start():]


# a table's rows that the text layer reads as one line: "... Haryana 28 82 73 Kerala 6 94 94 Bihar 27 62 69 ..."; prose
# with figures in it ("... 56.2% were Catholics, 35.7% Jews, 5% Greek orthodox ...") holds fewer than eight
_FIGURE = re.compile(r"^[\d.,%–\-:/()]*\d[\d.,%–\-:/()]*$")
_TABLE_MIN_FIGURES, _TABLE_FIGURE_SHARE = 8, 0.2
# lines that are not statements of the book's: figure and table captions, activity headings, instructions to do
_CAPTION = re.compile(r"^(?:Fig(?:ure)?s?\.?|Table|Activity|Chart|Map|Box|Graph)\s*\d", re.I)
_INSTRUCTION = re.compile(
    r"^(?:Let\s+us|Let's|Take|Observe|Note\s+(?:down|that\s+the\s+reading)|Think|Recall|Try|Find\s+out|Draw|"
    r"Collect|Discuss|Look\s+at|Repeat|Pour|Heat|Dip|Switch\s+on|Connect|Arrange|Set\s+up|Record|Now\s+take|"
    r"Write\s+down|Make\s+a|Do\s+you|Can\s+you|Have\s+you|Did\s+you)\b", re.I)


def quotable(sentence: str) -> str:
    """The sentence as prose a student can be quoted, or "" when it is not prose: a caption, an instruction to do an
    activity, a question, an equation, a table's rows. A list item's bullet ("n Take ...":
    tutor.text.sentences.without_bullet) and a leading equation fragment that the text layer ran into the sentence
    are cut off ("I Q t= (11.1) The SI unit ..." -> "The SI unit ...")."""
    text = without_bullet(" ".join(sentence.split()))
    m = _EQUATION_LEAD.match(text)
    if m and ("=" in m.group("eq") or "→" in m.group("eq")
              or sum(ch.isalpha() for ch in m.group("eq")) < 0.6 * len(m.group("eq"))):
        text = text[m.end():]
    text = _after_equation(text)
    if not text or _CAPTION.match(text) or (text.rstrip().endswith("?") or _INSTRUCTION.match(text)) \
            and not tells_as_question(text):  # "Do you know that ...?" states what follows "that"
        return ""
    words = re.findall(r"[A-Za-z\u0900-\u097f]{3,}", text)
    visible = [ch for ch in text if not ch.isspace()]
    letters = sum(ch.isalpha() for ch in visible)
    if len(words) < 3 or letters < 0.6 * len(visible):  # an equation or a row of symbols, not a sentence
        return ""
    tokens = text.split()
    figures = sum(bool(_FIGURE.match(t)) for t in tokens)
    if figures >= _TABLE_MIN_FIGURES and figures >= _TABLE_FIGURE_SHARE * len(tokens):  # a table's rows
        return ""
    return text


def reading_key(sentence: AnswerSentence, by_n: dict[int, Source]) -> tuple:
    """Where a quoted sentence stands in the book: its chapter file, its chunk (numbered in reading order), its place
    in the chunk's text."""
    src = by_n.get(sentence.citations[0]) if sentence.citations else None
    if src is None:
        return ("~", "~", 0)
    return (src.file, src.chunk_id, max(0, src.text.find(sentence.text)))


def in_reading_order(lead: AnswerSentence, rest: Sequence[AnswerSentence], sources: Sequence[Source],
                     most: int) -> list[AnswerSentence]:
    """`lead` first, then at most `most - 1` of `rest` (the answerer's order of preference) in the book's reading
    order; a sentence equal to the lead is not repeated."""
    by_n = {s.n: s for s in sources}
    same = " ".join(lead.text.split())
    others = [s for s in rest if " ".join(s.text.split()) != same][: max(0, most - 1)]
    return [lead] + sorted(others, key=lambda s: reading_key(s, by_n))


def renumbered(draft: Draft, sources: Sequence[Source]) -> tuple[Draft, list[Source]]:
    """The draft and its sources with the citations numbered in the order they first appear ([1] first, then [2]...);
    sources no sentence cites follow in their old order."""
    order: list[int] = []
    for s in draft.sentences:
        for c in s.citations:
            if c not in order:
                order.append(c)
    order += [s.n for s in sources if s.n not in order]
    new = {old: i + 1 for i, old in enumerate(order)}
    by_n = {s.n: s for s in sources}
    out_sources = [replace(by_n[old], n=new[old]) for old in order if old in by_n]
    sents = tuple(replace(s, citations=tuple(new.get(c, c) for c in s.citations)) for s in draft.sentences)
    return replace(draft, text=draft_text(sents), sentences=sents), out_sources


def draft_text(sentences: Sequence[AnswerSentence]) -> str:
    """Sentences written out, each followed by its citation markers."""
    return " ".join(f"{s.text} " + "".join(f"[{c}]" for c in s.citations) for s in sentences)
