"""Chapter metadata, section kinds and sentence-aware chunks that never lose a sentence's page.

Owns the step from cleaned pages to `Chunk`s: detecting the chapter title and NCERT code, marking exercises and
in-text question boxes (they restate questions without answering them), and packing whole sentences into chunks.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace

from tutor.ingest.pdftext import PageText
from tutor.ingest.split_words import rejoin_split_words, word_counts
from tutor.text.lexicons import english_words
from tutor.text.normalize import title_case
from tutor.text.sentences import sentence_spans, tells_as_question
from tutor.types import BODY, EXERCISE, QUESTION_BOX, Chunk

_NCERT_CODE = re.compile(r"^[a-z]{4}\d{3}$")
_QBOX_HEAD = re.compile(
    r"^(?:Q\s?U\s?E\s?S\s?T\s?I\s?O\s?N\s?S|Questions|Discuss|Let['’]s discuss|Write in brief|Project|Check your "
    r"progress)\s*\??$"
)
# a sentence that asks rather than tells: a numbered item, a question, or a task for the student. A question word
# opens statements too ("When fats and oils are oxidised, they become rancid.", "Where the laws of member states
# provide ..."), so it asks only with its question mark; a task's verb asks without one, and the verbs that are also
# nouns ("State government has powers ...", "Name of the ...") only before what a task names ("State two reasons")
_NUMBERED = r"^(?:\(?[0-9ivx]{1,4}[.)]\s*)?(?:\(?[a-h][.)]\s*)?"
_TASK = re.compile(
    _NUMBERED + r"(?:Explain|Describe|Discuss|Write|Give|Define|Identify|Compare|Distinguish|Differentiate|Draw|Find|"
    r"Calculate|Suggest|Mention|Analyse|Analyze|Examine|Evaluate|Justify|Illustrate|Prove|Classify|Choose|Fill|"
    r"Imagine|Collect|Prepare|Do you|Can you|(?:State|Name|List|Show|Match|Complete)(?=\s+(?:the|a|an|any|some|"
    r"one|two|three|four|five|each|all|your|its|their|that|whether|how|why|what|which|who|where|when|briefly|in|"
    r"following|examples?|reasons?|differences?)\b))\b")
_EXERCISE_HEAD = re.compile(r"^(?:E\s?X\s?E\s?R\s?C\s?I\s?S\s?E\s?S?|Exercises?)(?:\s+\d+(?:\.\d+)?)?\s*$")
_SECTION_HEAD = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){1,3})\.?\s+([A-Z][^.?!]{2,90})$")
_SUMMARY_HEAD = re.compile(r"^(?:What you have learnt|Summary|Key Points?)\b", re.I)
_ACTIVITY_HEAD = re.compile(r"^(?:Activity|Figure|Fig\.|Table)\s+\d+\.\d+")
# an unnumbered heading ("Uses of convex mirrors", "Red and Yellow Soils") is a short line of its own between a sentence
# that ended and one that begins (see _is_subheading); its last word is no article, preposition or linking verb, which
# would mean the line is the start of a sentence that wraps
_RUNS_ON = re.compile(r"\b(?:the|a|an|of|and|or|to|in|for|with|by|on|at|from|as|that|which|is|are|was|were|its|their)$",
                      re.I)
_LINE_ENDS = re.compile(r"[.?!:;,\-\u2013\u2014)\]\"'\u201d\u2019]\s*$")  # a line that ends so goes on or has ended
_SENTENCE_ENDED = re.compile(r"[.?!][\"'\u201d\u2019)]?\s*$")
# a heading is at most this many words and this share of the page's usual line (a wrapped line of prose is fuller)
_HEAD_MAX_WORDS, _HEAD_MAX_SHARE = 8, 0.75


@dataclass(frozen=True)
class ChapterInfo:
    """What the pages say about the chapter: its title, NCERT code and number where found."""

    title: str
    code: str
    number: str


_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8, "IX": 9, "X": 10, "XI": 11,
          "XII": 12, "XIII": 13, "XIV": 14, "XV": 15}
# the headings that open many chapters and name none of them, standing alone ("Introduction to Trigonometry" is a title)
_GENERIC_HEAD = re.compile(r"^(?:learning objectives|objectives|introduction|overview|notes? for (?:the )?teachers?"
                           r"|contents|preface|foreword)\s*:?\s*$", re.I)
_TITLE_GLUE = frozenset("a an and the of in on to for with its their our".split())
# a running header of one word that names the book's subject, not the chapter ("MATHEMATICS", "Science#")
_SUBJECT_WORDS = frozenset("science mathematics maths geography history economics politics civics english hindi "
                           "sanskrit biology chemistry physics sociology psychology accountancy".split())


def _title_from_headers(pages: list[PageText], headers: list[str], body: Counter[str]) -> str:
    """The running header that names the chapter: the one whose words the chapter's opening shares most (the first
    page's first lines, and the second page's too where the first is a cover of a few words); among equals, the one
    whose rarest word the chapter uses most ("Political Parties" over the book's "Democratic Politics"). A header of
    one word counts ("POLYNOMIALS", "Federalism") unless it names a school subject; "and", "the", "of" do not count,
    and a word matches its inflections ("circles" ~ "circle", "economy" ~ "economic"). `body`: the chapter's words
    (lower case) and how often it uses each."""
    lines = pages[0].text.splitlines()[:15] if pages else []
    if len(" ".join(lines).split()) < 40 and len(pages) > 1:
        lines += pages[1].text.splitlines()[:15]
    opening = set(re.findall(r"[a-z]+", " ".join(lines).lower()))
    best, best_key = "", (0.0, 0)
    for h in headers:
        h = _join_split_words(re.sub(r"\s*#\s*", " ", h).strip(" ,:-"), body)
        words = [w for w in re.findall(r"[a-z]+", h.lower()) if w not in _TITLE_GLUE]
        if not words or (len(words) == 1 and (words[0] in _SUBJECT_WORDS or len(words[0]) < 4)):
            continue
        share = round(sum(any(_same_word(w, o) for o in opening) for w in words) / len(words), 2)
        used = min(sum(n for o, n in body.items() if _same_word(w, o)) for w in words)
        if (share, used) > best_key:
            best, best_key = h, (share, used)
    return best if best_key[0] >= 0.5 else ""


def _same_word(a: str, b: str) -> bool:
    """One word in two inflections: the same first letters, all but the last two of the shorter (at least four)."""
    k = max(4, min(len(a), len(b)) - 2)
    return a == b or (len(a) >= 4 and len(b) >= 4 and a[:k] == b[:k])


def _join_split_words(title: str, vocabulary: Counter[str]) -> str:
    """A title's words split by the PDF: a drop capital printed apart from the rest of its word ("WATER R ESOURCES"),
    joined where the chapter uses the whole word and the capital is not a word of it ("A NEW WORLD" stays, though
    "anew" is a word); then the stray spaces `rejoin_split_words` mends in the text ("Colour ful")."""
    out: list[str] = []
    for w in title.split(" "):
        if out and len(out[-1]) == 1 and out[-1].isupper() and re.fullmatch(r"[^\W\d_]+", w) \
                and (out[-1] + w).lower() in vocabulary and not (out[-1].lower() in vocabulary
                                                                 and w.lower() in vocabulary):
            out[-1] += w
        else:
            out.append(w)
    return rejoin_split_words(" ".join(out), vocabulary, english_words())


def detect_chapter(pages: list[PageText], file_stem: str, headers: list[str] | None = None) -> ChapterInfo:
    """Title from a CHAPTER marker that names it, else the running header that matches the chapter's opening, else
    the first page's opening lines (up to the CHAPTER marker); code from an NCERT-style file name; number from a
    CHAPTER marker (Arabic or Roman) or the code."""
    stem = file_stem.lower()
    code = stem if _NCERT_CODE.match(stem) else re.sub(r"[^a-z0-9]+", "-", stem).strip("-")
    number = ""
    title_lines: list[str] = []
    marked = False  # a marker that names the chapter outright ("Chapter 2: Life Processes", "CHAPTER I : DEVELOPMENT")
    first = pages[0].text.splitlines() if pages else []
    for ln in first[:12]:
        m = re.match(r"^(?:(\d{1,2})\s*CHAPTER|CHAPTER\s*(\d{1,2})|Chapter\s+(\d{1,2})"
                     r"|#?\s*Chapter\s+(\d{1,2}|[IVX]{1,4})\s*[:.-]\s*(.+))\s*$", ln, re.I)
        if m:
            number = next(g for g in m.groups()[:4] if g)
            number = str(_ROMAN.get(number.upper(), number))  # "CHAPTER I : DEVELOPMENT"
            if m.group(5):
                title_lines, marked = [m.group(5)], True
                break
            if title_lines:
                break
            continue
        if _SECTION_HEAD.match(ln) or len(ln) > 60 or ln.endswith((".", "?", ":")) or len(title_lines) >= 4 \
                or (title_lines and _GENERIC_HEAD.match(ln)):  # "Federalism" then "Overview": the text begins
            break
        if len(ln) > 1:
            title_lines.append(ln)
    opening = " ".join(title_lines).strip(" ,")
    body = word_counts(" ".join(p.text for p in pages))
    title = _join_split_words(opening if marked else _title_from_headers(pages, headers or [], body) or opening, body)
    if not title or len(title) > 70 or not re.search(r"[A-Za-z]{3}", title) or _GENERIC_HEAD.match(title):
        title = f"Chapter {number}" if number else file_stem
    elif title.isupper():
        title = title_case(title)
    if not number:
        m = re.match(r"[a-z]{4}\d(\d\d)$", file_stem.lower())
        number = str(int(m.group(1))) if m else ""
    return ChapterInfo(title=title, code=code, number=number)


def _line_kind(line: str, state: str) -> tuple[str, bool]:
    """Next section kind after this line, and whether the line is a heading (its own sentence)."""
    if _QBOX_HEAD.match(line):
        return QUESTION_BOX, True
    if _EXERCISE_HEAD.match(line):
        return EXERCISE, True
    if _SUMMARY_HEAD.match(line):
        return BODY, True
    if _SECTION_HEAD.match(line):
        return BODY, True
    if _ACTIVITY_HEAD.match(line):
        return (BODY if state == QUESTION_BOX else state), True
    return state, False


def _is_subheading(prev: str | None, line: str, nxt: str | None, usual: float) -> bool:
    """Whether `line` is a heading without a number: short (at most _HEAD_MAX_WORDS words and _HEAD_MAX_SHARE of
    `usual`, the page's median line length), capitalised, ending without punctuation, after a line whose sentence
    ended and before a line of prose that begins with a capital. Without this the heading is read into the next sentence
    ("Uses of convex mirrors Convex mirrors are commonly used as rear-view mirrors."), which then opens an answer."""
    words = line.split()
    if not 1 <= len(words) <= _HEAD_MAX_WORDS or len(line) > _HEAD_MAX_SHARE * usual:
        return False
    if not line[0].isupper() or not re.search(r"[A-Za-z]{3}", line) or _LINE_ENDS.search(line):
        return False
    if "=" in line or "," in line or _RUNS_ON.search(line):  # formulae and wrapped clauses
        return False
    if prev is None or not _SENTENCE_ENDED.search(prev) or nxt is None or not nxt[:1].isupper():
        return False
    # the next line is prose (a full line, or a sentence that ends there), not the rest of a heading or of a term
    # that wraps ("Bahujan Samaj" / "Party (BSP):")
    return len(nxt) > _HEAD_MAX_SHARE * usual or bool(_SENTENCE_ENDED.search(nxt))


def _usual_length(lines: list[str]) -> float:
    """The median length of a page's lines of prose (longer than 20 characters); 80 where there are none."""
    lens = sorted(len(ln) for ln in lines if len(ln) > 20)
    return float(lens[len(lens) // 2]) if lens else 80.0


@dataclass
class _Block:
    kind: str
    section: str
    parts: list[tuple[int, str, bool]] = field(default_factory=list)  # (page, text, is_heading); prose runs on


def _blocks(pages: list[PageText]) -> list[_Block]:
    blocks: list[_Block] = []
    state, section = BODY, ""
    cur = _Block(BODY, "")
    for page in pages:
        if state == QUESTION_BOX:  # a question box does not run over a page break
            state = BODY
            if cur.parts:
                blocks.append(cur)
            cur = _Block(BODY, section)
        para: list[str] = []

        def flush() -> None:
            if para:
                cur.parts.append((page.page, " ".join(para), False))
                para.clear()

        lines = page.text.splitlines()
        usual = _usual_length(lines)
        for i, line in enumerate(lines):
            new_state, heading = _line_kind(line, state)  # an unnumbered heading keeps the state and section
            heading = heading or _is_subheading(lines[i - 1] if i else None, line,
                                                lines[i + 1] if i + 1 < len(lines) else None, usual)
            if heading:
                flush()
                m = _SECTION_HEAD.match(line)
                if m and new_state == BODY:
                    title = m.group(2).strip()
                    section = f"{m.group(1)} {title_case(title) if m.group(2).isupper() else title}"
                if new_state != state or (m and new_state == BODY):
                    if cur.parts:
                        blocks.append(cur)
                    cur = _Block(new_state, section)
                    state = new_state
                cur.parts.append((page.page, line, True))
                continue
            para.append(line)
        flush()
    if cur.parts:
        blocks.append(cur)
    return blocks


def _runs(parts: list[tuple[int, str, bool]]) -> list[tuple[str, list[tuple[int, int]]]]:
    """Join prose pieces that follow each other (also over a page break) so a sentence running onto the next page
    stays whole; each run keeps (offset, page) marks so a sentence gets the page it starts on. Headings stand alone."""
    runs: list[tuple[str, list[tuple[int, int]]]] = []
    text, starts = "", []
    for page, piece, heading in parts:
        if heading:
            if text:
                runs.append((text, starts))
            runs.append((piece, [(0, page)]))
            text, starts = "", []
            continue
        if text:
            text += " "
        starts.append((len(text), page))
        text += piece
    if text:
        runs.append((text, starts))
    return runs


def chunk_pages(
    pages: list[PageText],
    *,
    klass: str,
    subject: str,
    file: str,
    chapter: ChapterInfo,
    max_words: int = 140,
    overlap_sentences: int = 1,
) -> list[Chunk]:
    """Pack whole sentences into chunks of at most `max_words`, never across a change of section kind.

    Each sentence keeps the page it started on; consecutive chunks share `overlap_sentences` sentences.
    """
    chunks: list[Chunk] = []
    carry: list[tuple[str, int]] = []
    blocks = _blocks(pages)
    for bi, block in enumerate(blocks):
        sents: list[tuple[str, int]] = carry
        carry = []
        for piece, starts in _runs(block.parts):
            for s, e in sentence_spans(piece):
                t = piece[s:e].strip()
                if t:
                    sents.append((t, next(p for off, p in reversed(starts) if off <= s)))
        nxt = blocks[bi + 1] if bi + 1 < len(blocks) else None
        if nxt is not None and nxt.kind == block.kind and sum(len(t.split()) for t, _ in sents) < 12:
            carry = sents  # a heading alone is no chunk: it opens the next one
            continue
        start = 0
        while start < len(sents):
            words = 0
            end = start
            while end < len(sents) and (end == start or words + len(sents[end][0].split()) <= max_words):
                words += len(sents[end][0].split())
                end += 1
            group = sents[start:end]
            text_parts, spans, pos = [], [], 0
            for t, p in group:
                spans.append((pos, pos + len(t), p))
                text_parts.append(t)
                pos += len(t) + 1
            chunks.append(
                Chunk(
                    chunk_id=f"{chapter.code}:{len(chunks):04d}",
                    klass=str(klass),
                    subject=subject,
                    chapter=chapter.title,
                    chapter_code=chapter.code,
                    file=file,
                    page_start=min(p for _, p in group),
                    page_end=max(p for _, p in group),
                    section_kind=block.kind,
                    section=block.section,
                    text=" ".join(text_parts),
                    sentences=tuple(spans),
                )
            )
            if end >= len(sents):
                break
            start = max(end - overlap_sentences, start + 1)
    return chunks


def is_asking(sentence: str) -> bool:
    """True for a sentence that asks (a question, a numbered task) rather than states something."""
    s = sentence.strip()
    if tells_as_question(s):  # "Do you know that ... ?" tells
        return False
    return s.endswith("?") or bool(_TASK.match(s)) and not s.endswith(":")


def mark_question_lists(chunks: list[Chunk], min_share: float = 0.5) -> list[Chunk]:
    """Re-mark body chunks made mostly of questions and tasks as exercises: headings alone miss some boxes."""
    out = []
    for c in chunks:
        sents = [t for t, _ in c.sentence_texts() if len(t.split()) >= 3]
        if c.section_kind == BODY and len(sents) >= 2 and sum(map(is_asking, sents)) >= min_share * len(sents):
            c = replace(c, section_kind=EXERCISE)
        out.append(c)
    return out


def kind_counts(chunks: list[Chunk]) -> dict[str, int]:
    return dict(Counter(c.section_kind for c in chunks))
