"""How an extractive answer is laid out for a student: the sentence that answers first, then at most two sentences
that support it in the book's reading order, quoted whole and only where they are prose, citations numbered in the
order they appear. (The direct answer, the bold first line, is chosen in tutor/safety/answerability.py.)

Pure functions over sentences, sources and the reader's finding; the pipeline calls them after the answerer.
"""
from __future__ import annotations

import re
import unicodedata
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
# (and in the Hindi editions: चित्र figure, सारणी and तालिका table, क्रियाकलाप activity, मानचित्र map)
_CAPTION = re.compile(r"^(?:Fig(?:ure)?s?\.?|Table|Activity|Chart|Map|Box|Graph|चित्र|सारणी|तालिका|क्रियाकलाप|मानचित्र)"
                      r"\s*\d", re.I)
_INSTRUCTION = re.compile(
    r"^(?:Let\s+us|Let's|Take|Observe|Note\s+(?:down|that\s+the\s+reading)|Think|Recall|Try|Find\s+out|Draw|"
    r"Collect|Discuss|Look\s+at|Repeat|Pour|Heat|Dip|Switch\s+on|Connect|Arrange|Set\s+up|Record|Now\s+take|"
    r"Write\s+down|Make\s+a|Do\s+you|Can\s+you|Have\s+you|Did\s+you)\b"
    # a noun before its verb is a statement's subject: "Heat is given out ...", "Record rainfall was ..."
    r"(?!\s+(?:is|are|was|were|has|have|had|can|could|may|might|will|would|must|should)\b)", re.I)


# an activity's step, told to the student: a verb of doing at the head of the sentence (or of its main clause, after
# "Once ...," / "For this,") before what it is done to: "Clean a magnesium ribbon ...", "Burn it using ...", "Test the
# gas evolved ...", "Once the test tubes are filled ..., remove them carefully.", "Do not touch the ..."; a noun that is
# also such a verb does not open a statement before an article ("Heat is ...", "Light travels ...")
_DOING = (r"(?:add|adjust|allow|apply|arrange|attach|blow|boil|bring|burn|carry|check|clamp|clean|close|collect|"
          r"compare|connect|consider|cool|count|cover|crush|cut|dip|discuss|dissolve|divide|draw|drop|fill|filter|"
          r"find|fit|fix|focus|fold|grind|grow|hang|heat|hold|identify|imagine|insert|keep|label|leave|light|list|"
          r"look|make|mark|measure|mix|move|note|observe|open|paint|paste|perform|place|plot|pour|prepare|press|pull|"
          r"punch|push|put|record|remove|repeat|rotate|rub|scratch|seal|see|set|shake|sketch|soak|sow|spread|sprinkle|"
          r"squeeze|stir|strike|study|suppose|suspend|switch|take|taste|test|tie|touch|trace|try|turn|use|view|visit|"
          r"wait|warm|wash|water|weigh|wrap|write)")
_IMPERATIVE = re.compile(
    r"^(?:(?:Once|When|After|Before|While|If|As|Now|Then|Next|Finally|Also|Similarly|Further|Again|For|In|On|At|To|"
    r"With|From|Instead|Using|Here|Thus|Likewise)\b[^,.;:?!]{0,100},\s*)?"  # an opening clause
    r"(?:(?:do\s+not|don[’']t|never)\s+)?(?:gently\s+|carefully\s+|slowly\s+|now\s+|then\s+)?"
    + _DOING + r"\s+(?:a|an|the|it|them|this|these|those|some|each|both|your|one|two|three|four|five|few|about|"
    r"equal|small|dilute|\d)\b", re.I)
# a heading the text layer ran into the sentence: words in capitals ("NOTES FOR THE TEACHER This chapter ...",
# "10.2 DEFECTS OF VISION AND THEIR CORRECTION10.2 ... Sometimes, ...", split as the PDF splits them: "DEVELOPMENT OF
# R ESOURCES Resources are ...") or one long word in capitals before a sentence's first word ("ALSALS The earth's
# crust ..."); an abbreviation that opens a sentence ("DNA copying ...", "WTO has ...") is one short word, and stays
_CAPS_WORD = r"[-–]*[A-Z][A-Z’'&\-]+(?:\d+(?:\.\d+)*)?"
_CAPS_LEAD = re.compile(r"^(?:(?:\d+(?:\.\d+)*|[:–\-])\s+)*(?P<run>" + _CAPS_WORD + r"(?:\s+(?:" + _CAPS_WORD
                        + r"|[A-Z]|\d+(?:\.\d+)*:?|[:–\-]))+|[A-Z]{4,})\s+(?=\S)")
# a sentence that only points at a figure or a table: "This is illustrated in Fig.9.4 (a) and (b)."
_POINTER = re.compile(
    r"^(?:This|These|It|They|That|The\s+same)\s+(?:is|are|was|were|can\s+be|has\s+been|have\s+been)\s+(?:also\s+)?"
    r"(?:illustrated|shown|depicted|drawn|represented|given)\s+(?:in|by)\s+(?:the\s+)?(?:Figs?\.?|Figures?|Tables?)"
    r"[\s\d.()a-z,]*?(?:(?:and|or)\s+(?:Figs?\.?|Figures?)?[\s\d.()a-z]*)?\.?$")


# a short heading in title case before the sentence it names: "Chapter 4 Overview In this tour of democracy, ...",
# "(c) Presbyopia The power of accommodation ...", "(a) Myopia Myopia is also known as ..."
# (not a word that opens a clause: "As A gets larger ...", "When A is very close to 0° ..." name a variable A)
_CLAUSE_WORD = (r"(?!(?:As|When|If|Since|Because|While|Although|Though|Where|So|Thus|Then|Now|For|But|And|Or|Once|"
                r"After|Before|Let|Hence|Here|There|Suppose|Unless|Until|Whether|Also|Again)\b)")
_TITLE_LEAD = re.compile(r"^(?:\((?:[a-z]|[ivx]{1,4}|\d{1,2})\)\s+)?(?:Chapter\s+\d+\s+)?(?:" + _CLAUSE_WORD
                         + r"[A-Z][a-z]+(?:-[a-z]+)?\s+){1,3}(?=(?:The|A|An|In|It|This|These|There)\s+[a-z])"
                         r"|^\((?:[a-z]|[ivx]{1,4})\)\s+(?P<term>[A-Z][a-z]+)\s+(?=(?P=term)\s+[a-z])")

# a sentence that says what the chapter or section will do, not what the book says: "In this chapter, we will look at
# the development of print ...", "We shall also discuss the heating effect of electric current ...", "This chapter
# provides case histories ...", "The next section will provide examples ...", "You will be learning more about these
# metal oxides in the next section."
_SIGNPOST = re.compile(
    r"^(?:(?:In\s+)?this\s+(?:chapter|section|unit|lesson)\b[^.]*?\b(?:we\s+will|we\s+shall|proposes|provides|"
    r"discusses|deals\s+with|looks\s+at|focuses|introduces|tries|attempts|explores|begins|ends|will)\b"
    r"|We\s+(?:will|shall)\s+(?:now\s+|also\s+|first\s+|then\s+)?(?:learn|study|look|discuss|understand|read|see|"
    r"explore|examine|consider|find\s+out|begin|start|turn|come\s+back|return|focus)\b"
    r"|(?:In\s+)?the\s+(?:next|following)\s+(?:chapter|section)s?\b"
    r"|You\s+will\s+(?:be\s+)?(?:learn|study|read)(?:ing)?\b[^.]*\b(?:next|following|later|coming)\s+"
    r"(?:chapter|section|class))", re.I)


def _letters(text: str | Sequence[str]) -> int:
    """How many characters of `text` are letters, a letter's marks counted as letters: a Devanagari vowel sign or
    virama is a mark, not `isalpha`, and a Hindi sentence is about 40% marks."""
    return sum(ch.isalpha() or unicodedata.category(ch).startswith("M") for ch in text)


def _without_caps_heading(text: str) -> str:
    """The sentence without a heading in capitals the text layer ran into it; "" when the whole line is in capitals
    (a heading, a map's labels, a cartoon's speech) or what is left is the tail of a sentence the heading cut
    ("PRODUCTION ACROSS COUNTRIES multinational corporations (MNCs) emerged ...")."""
    if not any(ch.islower() for ch in text):  # in capitals, unless caseless letters (Hindi's) outnumber the cased
        cased = sum(ch.isupper() for ch in text)
        if cased and cased >= _letters(text) - cased:
            return ""
    m = _CAPS_LEAD.match(text)
    if m is None:
        return text
    run, rest = m.group("run"), text[m.end():]
    if " " not in run and not re.match(r"[A-Z][a-z]", rest):
        return text
    if rest[:1].islower():
        if run.endswith((" A", " I")):  # "MODES OF REPRODUCTION A hydra can ...": the article opens the sentence
            return run[-1] + " " + rest
        # "HIV AIDS is ...": two abbreviations open a sentence; a heading is longer
        return "" if sum(ch.isalpha() for ch in run) >= 8 else text
    return rest


# an English sentence opens with a capital, a figure or a symbol; one that opens with a word in lower case is the end of
# a sentence whose start the text layer left elsewhere: "have very low resistivity in the range of 10-8 Ω m ..." (its
# "Metals and alloys" sat beside a table), "grapes get fermented." (a list after "... when:"); "pH" and "mRNA" are
# words with a capital inside, a letter alone may be a variable ("n is the number of sides ..."), and Devanagari has no
# case
_FRAGMENT = re.compile(r"^[a-z]{2,}\b(?![-'’]?[A-Z])")


def quotable(sentence: str) -> str:
    """The sentence as prose a student can be quoted, or "" when it is not prose: a caption, an instruction to do an
    activity, a question, an equation, a table's rows, a pointer to a figure, what a chapter will do, the end of a
    sentence cut from its start (it opens with a word in lower case). A list item's
    bullet ("n Take ...": tutor.text.sentences.without_bullet), a heading run into the sentence (in capitals, or short
    in title case) and a leading equation fragment that the text layer ran into the sentence are cut off ("I Q t=
    (11.1) The SI unit ..." -> "The SI unit ...")."""
    text = _without_caps_heading(without_bullet(" ".join(sentence.split())))
    title = _TITLE_LEAD.match(text)
    text = text[title.end():] if title else text
    m = _EQUATION_LEAD.match(text)
    if m and ("=" in m.group("eq") or "→" in m.group("eq")
              or sum(ch.isalpha() for ch in m.group("eq")) < 0.6 * len(m.group("eq"))):
        text = text[m.end():]
    text = _after_equation(text)
    if not text or _CAPTION.match(text) or _POINTER.match(text) or _IMPERATIVE.match(text) or _SIGNPOST.match(text) \
            or (text.rstrip().endswith("?") or _INSTRUCTION.match(text)) \
            and not tells_as_question(text):  # "Do you know that ...?" states what follows "that"
        return ""
    if _FRAGMENT.match(text):  # the end of a sentence the text layer cut from its start (a column, a figure between)
        return ""
    words = re.findall(r"[A-Za-z\u0900-\u097f]{3,}", text)
    visible = [ch for ch in text if not ch.isspace()]
    letters = _letters(visible)
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
