"""A chapter's text rebuilt from its chunks, page by page, for the reader; and which shelves students see.

Pure functions over a shelf's manifest and chunks (no Streamlit).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tutor.errors import ShelfDamaged
from tutor.store.shelf import ChapterEntry, Manifest, ShelfKey
from tutor.text.normalize import title_case

if TYPE_CHECKING:  # the library is built from shelves; only its type is named here
    from tutor.retrieval.search import Library


def class_sort_key(klass: str) -> tuple:
    return (int(klass) if klass.isdigit() else 99, klass)


def student_shelves(lib: Library) -> list[ShelfKey]:
    """Shelves a student can ask: those that exist and hold at least one chapter."""
    out = []
    for key in lib.keys():
        try:
            m = lib.store.manifest(key.klass, key.subject)
        except ShelfDamaged:  # still listed: a question there gets the named refusal, not a missing shelf
            out.append(key)
            continue
        if m is not None and m.chapters and m.n_chunks > 0:
            out.append(key)
    return out


def chapters_in_order(manifest: Manifest) -> list[ChapterEntry]:
    def key(e: ChapterEntry):
        n = e.chapter_number
        return (int(n) if str(n).isdigit() else 999, e.chapter.lower(), e.file)

    return sorted(manifest.chapters.values(), key=key)


def shelf_chapters(lib: Library, klass: str, subject: str) -> list[ChapterEntry]:
    """A shelf's chapters in book order ([] when it has none); raises ShelfDamaged when its manifest cannot be read."""
    manifest = lib.store.manifest(klass, subject)
    return chapters_in_order(manifest) if manifest else []


@dataclass
class Block:
    """One piece of a reader page: a chapter title, a section heading, a paragraph, or an item of a question list."""

    kind: str  # "chapter", "heading", "para", "qhead", "qitem"
    text: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "text": self.text}


_PAGE_NUMBER = re.compile(r"^\d{1,3}$")


_ITEM_MARK = re.compile(r"^(?:\(?[0-9]{1,2}|[ivx]{1,4}|[a-h])[.)]$")


_CHAPTER_LINE = re.compile(r"^(?:Chapter|CHAPTER|Unit|UNIT)\s+\d+\b")


_QHEAD = re.compile(r"^(?:Q\s?U\s?E\s?S\s?T\s?I\s?O\s?N\s?S|E\s?X\s?E\s?R\s?C\s?I\s?S\s?E\s?S?|Questions|Exercises?)\b")


def chapter_pages(chunks, file: str) -> dict[int, list[Block]]:
    """The text of one chapter grouped by PDF page, rebuilt from its chunks' sentences (overlaps dropped).

    Chunks overlap by a sentence or so, so a sentence seen among the last few is skipped; stray page numbers are
    dropped, and a lone list marker ("1.") is joined to the sentence after it.
    """
    pages: dict[int, list[Block]] = {}
    recent: deque[tuple[str, int]] = deque(maxlen=12)
    for c in chunks:
        if c.file != file:
            continue
        evidence = c.is_evidence
        pending_mark = ""
        new_chunk = True
        for raw, page in c.sentence_texts():
            t = " ".join(raw.split())
            if not t or _PAGE_NUMBER.match(t):
                continue
            if _ITEM_MARK.match(t):  # list markers repeat ("1." in every list): never treat them as overlap
                pending_mark = t
                continue
            if (t, page) in recent:
                new_chunk, pending_mark = False, ""
                continue
            recent.append((t, page))
            blocks = pages.setdefault(page, [])
            if pending_mark:
                t, pending_mark = f"{pending_mark} {t}", ""
            if _CHAPTER_LINE.match(t) and len(t) < 140:
                blocks.append(Block("chapter", t))
            elif c.section and t == c.section:
                blocks.append(Block("heading", t))
            elif not evidence and _QHEAD.match(t) and len(t) < 40:
                blocks.append(Block("qhead", title_case(t) if t.isupper() else t))
            elif not evidence:
                blocks.append(Block("qitem", t))
            elif blocks and blocks[-1].kind == "para" and not (new_chunk and len(blocks[-1].text.split()) > 110):
                blocks[-1].text += " " + t
            else:
                blocks.append(Block("para", t))
            new_chunk = False
    return dict(sorted(pages.items()))


def mark_blocks(blocks: list[Block], selection: str, min_overlap: int = 12) -> list[dict[str, Any]]:
    """Blocks as dicts with `marks` [[start, end]]: where the selected passage lies in each block's text.

    A selection inside one block is found whole; one running over several blocks marks the end of the first,
    every block in between, and the start of the last.
    """
    sel = " ".join((selection or "").split())
    out = []
    for b in blocks:
        d = b.to_dict()
        d["marks"] = []
        t = b.text
        if sel and len(sel) >= 2:
            i = t.find(sel)
            if i >= 0:
                d["marks"] = [[i, i + len(sel)]]
            elif len(t) >= min_overlap and t in sel:
                d["marks"] = [[0, len(t)]]
            else:
                top = min(len(t), len(sel))
                tail = next((k for k in range(top, min_overlap - 1, -1) if t.endswith(sel[:k])), 0)
                head = next((k for k in range(top, min_overlap - 1, -1) if t.startswith(sel[-k:])), 0)
                if tail:
                    d["marks"] = [[len(t) - tail, len(t)]]
                elif head:
                    d["marks"] = [[0, head]]
        out.append(d)
    return out
