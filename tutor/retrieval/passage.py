"""A passage the student selected as the only context: where it stands in the book, and the one chunk it becomes.

No retrieval happens in this mode; the passage is checked against its page (a pasted or edited passage is answered
as the student's own text, never cited as the book) and made into a chunk the gate and the answerer read.
"""
from __future__ import annotations

from dataclasses import replace

from tutor.ingest.chunking import ChapterInfo, chunk_pages
from tutor.ingest.pdftext import PageText
from tutor.store.chapters import chapter_pages
from tutor.text.normalize import normalize_for_matching
from tutor.types import BODY, PASTED_TEXT, Chunk, Passage


def words(text: str) -> list[str]:
    """The words of `text` as compared with the page: lexical matching's form (normalize_for_matching: invisible
    format characters out, so a pasted copy may carry zero-width marks the page has not; NFKC; case folded;
    punctuation as space)."""
    return normalize_for_matching(text).split()


def on_page(chunks: list[Chunk], passage: Passage) -> bool:
    """Whether the passage is the book's own text: its words, in order and with none added, left out or changed, are
    one run of the words its page shows in the reader (tutor/store/chapters.py, rebuilt from `chunks`); only the
    first and last word may be cut short, as a mouse selection cuts them. A pasted, typed or edited passage (one false
    clause spliced into a real paragraph) is not, and is answered as the student's own text."""
    blocks = chapter_pages(chunks, passage.file).get(passage.page, []) if passage.file else []
    page_words = words(" ".join(b.text for b in blocks))
    said = words(passage.text)
    n = len(said)
    if not said or n > len(page_words):
        return False
    if n == 1:
        return any(said[0] in w for w in page_words)
    inner = said[1:-1]
    for i in range(len(page_words) - n + 1):
        if (page_words[i].endswith(said[0]) and page_words[i + n - 1].startswith(said[-1])
                and page_words[i + 1:i + n - 1] == inner):
            return True
    return False


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
