"""A passage the student selected as the only context: where it stands in the book, and the one chunk it becomes.

No retrieval happens in this mode; the passage is checked against its page (a pasted or edited passage is answered
as the student's own text, never cited as the book) and made into a chunk the gate and the answerer read.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import replace

from tutor.ingest.chunking import ChapterInfo, chunk_pages
from tutor.ingest.pdftext import PageText
from tutor.types import BODY, PASTED_TEXT, Chunk, Passage


def words(text: str) -> list[str]:
    return re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold())


def on_page(chunks: list[Chunk], passage: Passage) -> bool:
    """Whether the passage's words stand, in order, on its page of the book (its 4-word runs, 90% of them, found
    among the page's in `chunks`, the shelf's): a selection made with the mouse always is; a pasted or edited passage
    is not."""
    page_words: list[str] = []
    for c in chunks:
        if c.file != passage.file or not (c.page_start <= passage.page <= c.page_end):
            continue
        for sentence, page in c.sentence_texts():
            if page == passage.page:
                page_words += words(sentence)
    said = words(passage.text)
    if not said or not page_words:
        return False
    n = min(4, len(said))
    have = {tuple(page_words[i:i + n]) for i in range(len(page_words) - n + 1)}
    runs = [tuple(said[i:i + n]) for i in range(len(said) - n + 1)]
    return sum(r in have for r in runs) >= 0.9 * len(runs)


def passage_chunk(passage: Passage, klass: str, subject: str) -> Chunk:
    """The passage as one body chunk with its sentences; a pasted text (chapter PASTED_TEXT) points to no page."""
    text = " ".join(passage.text.split())
    chunks = chunk_pages([PageText(passage.page or 1, text)], klass=klass, subject=subject,
                         file=passage.file or "selection",
                         chapter=ChapterInfo(passage.chapter or "Selected passage", "selection", ""), max_words=10_000)
    chunk = chunks[0] if chunks else Chunk("selection:0000", klass, subject, passage.chapter, "selection",
                                           passage.file, passage.page, passage.page, BODY, "", text, ())
    chunk = replace(chunk, section_kind=BODY, section="Selected passage")
    if passage.chapter == PASTED_TEXT:  # no page of the book to point to
        chunk = replace(chunk, file="", page_start=0, page_end=0,
                        sentences=tuple((a, b, 0) for a, b, _ in chunk.sentences))
    return chunk
