"""Chapter metadata, section kinds and sentence-aware chunks that never lose a sentence's page.

Owns the step from cleaned pages to `Chunk`s: detecting the chapter title and NCERT code, marking exercises and
in-text question boxes (they restate questions without answering them), and packing whole sentences into chunks.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace

from tutor.ingest.pdftext import PageText
from tutor.text.normalize import title_case
from tutor.text.sentences import sentence_spans
from tutor.types import BODY, EXERCISE, QUESTION_BOX, Chunk

_NCERT_CODE = re.compile(r"^[a-z]{4}\d{3}$")
_QBOX_HEAD = re.compile(
    r"^(?:Q\s?U\s?E\s?S\s?T\s?I\s?O\s?N\s?S|Questions|Discuss|Let['’]s discuss|Write in brief|Project|Check your "
    r"progress)\s*\??$"
)
# a sentence that asks rather than tells: a numbered item, a question, or a task for the student
_ASKING = re.compile(
    r"^(?:\(?[0-9ivx]{1,4}[.)]\s*)?(?:\(?[a-h][.)]\s*)?(?:Why|What|How|When|Where|Which|Who|Whom|Whose|Explain|Describe|"
    r"Discuss|Write|List|Name|Give|State|Define|Identify|Compare|Distinguish|Differentiate|Draw|Find|Calculate|"
    r"Suggest|Mention|Analyse|Analyze|Examine|Evaluate|Justify|Illustrate|Show|Prove|Classify|Choose|Fill|Match|"
    r"Complete|Do you|Can you|Is it|Are|Does|Do|Should|Imagine|Collect|Prepare|Find out)\b",
)
_EXERCISE_HEAD = re.compile(r"^(?:E\s?X\s?E\s?R\s?C\s?I\s?S\s?E\s?S?|Exercises?)(?:\s+\d+(?:\.\d+)?)?\s*$")
_SECTION_HEAD = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){1,3})\.?\s+([A-Z][^.?!]{2,90})$")
_SUMMARY_HEAD = re.compile(r"^(?:What you have learnt|Summary|Key Points?)\b", re.I)
_ACTIVITY_HEAD = re.compile(r"^(?:Activity|Figure|Fig\.|Table)\s+\d+\.\d+")


@dataclass(frozen=True)
class ChapterInfo:
    """What the pages say about the chapter: its title, NCERT code and number where found."""

    title: str
    code: str
    number: str


def _title_from_headers(pages: list[PageText], headers: list[str]) -> str:
    """The running header that names the chapter: the one whose words the first page shares most."""
    opening = set(re.findall(r"[a-z]+", " ".join(pages[0].text.splitlines()[:15]).lower())) if pages else set()
    best, best_score = "", 0.0
    for h in headers:
        h = re.sub(r"\s*#\s*", " ", h).strip(" ,:-")
        words = re.findall(r"[a-z]+", h.lower())
        if len(words) < 2:
            continue
        score = sum(w in opening for w in words) / len(words)
        if score > best_score or (score == best_score and len(h) > len(best)):
            best, best_score = h, score
    return best if best_score >= 0.5 else ""


def detect_chapter(pages: list[PageText], file_stem: str, headers: list[str] | None = None) -> ChapterInfo:
    """Title from the running header that matches the first page, else the first page's opening lines (up to the
    CHAPTER marker); code from an NCERT-style file name; number from a CHAPTER marker or the code."""
    stem = file_stem.lower()
    code = stem if _NCERT_CODE.match(stem) else re.sub(r"[^a-z0-9]+", "-", stem).strip("-")
    number = ""
    title_lines: list[str] = []
    first = pages[0].text.splitlines() if pages else []
    for ln in first[:12]:
        m = re.match(r"^(?:(\d{1,2})\s*CHAPTER|CHAPTER\s*(\d{1,2})|Chapter\s+(\d{1,2})"
                     r"|#?\s*Chapter\s+(\d{1,2})\s*[:.-]\s*(.+))\s*$", ln)
        if m:
            number = next(g for g in m.groups()[:4] if g)
            if m.group(5):
                title_lines = [m.group(5)]
                break
            if title_lines:
                break
            continue
        if _SECTION_HEAD.match(ln) or len(ln) > 60 or ln.endswith((".", "?", ":")) or len(title_lines) >= 4:
            break
        if len(ln) > 1:
            title_lines.append(ln)
    title = _title_from_headers(pages, headers or []) or " ".join(title_lines).strip(" ,")
    if not title or len(title) > 70 or not re.search(r"[A-Za-z]{3}", title):
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

        for line in page.text.splitlines():
            new_state, heading = _line_kind(line, state)
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
    return s.endswith("?") or bool(_ASKING.match(s)) and not s.endswith(":")


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
