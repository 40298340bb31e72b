"""Text per page from a chapter PDF, cleaned of what real NCERT PDFs contain.

Owns extraction with pypdf (1-based page numbers kept; only the text the printed page shows: visible.py), the refusal
of files that hold no usable text, and the cleaning rules: faux-bold repeats, running headers and footers, glyph names
and private-use symbols, letter-spaced and space-split words and hyphenation across lines (tutor/ingest/split_words.py),
legacy-font (mojibake) lines.
"""
from __future__ import annotations

import logging
import re
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tutor.errors import PdfRefused
from tutor.ingest.split_words import dehyphenate, rejoin_split_words, unbroken_word_counts, word_counts
from tutor.ingest.visible import visible_text
from tutor.text.lexicons import english_words
from tutor.text.normalize import collapse_repeats

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PageText:
    """One cleaned page: its 1-based number in the PDF and its text (lines kept)."""

    page: int
    text: str


@dataclass(frozen=True)
class SkippedPage:
    """A page left out, with the reason in words."""

    page: int
    reason: str


@dataclass
class ExtractedPdf:
    """What a PDF gave: cleaned pages, pages skipped with reasons, and notes on lines dropped."""

    file: str
    n_pages: int
    pages: list[PageText] = field(default_factory=list)
    skipped: list[SkippedPage] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    headers: list[str] = field(default_factory=list)
    hindi_pages: list = field(default_factory=list)  # tutor.ingest.hindi_pdf.PageRepair per Hindi page, when measured
    seconds: float = 0.0  # how long reading it took (counted against max_ingest_s with its embedding)


# ---------------------------------------------------------------- line-level cleaning rules

_PRIVATE_USE = re.compile("[\ue000-\uf8ff\U000f0000-\U000ffffd]")
# pypdf writes unmapped glyphs by name ("/square6" is NCERT's bullet); they carry no meaning
_GLYPH_NAME = re.compile(r"/(?:square|checkbox|H\d|C\d|bullet|circle|triangle|uni[0-9A-F]{4})\w*")
_FOOTER = re.compile(r"^\s*(?:Reprint|Rationalised)\s+\d{4}\s*[-–]\s*\d{2,4}\s*$", re.I)


def join_letter_spaced(line: str) -> str:
    """Join words printed letter by letter ("G e n d e r ,  R e l i g i o n") back together.

    Letter-spaced text puts one space between letters and two or more between words.
    """
    if not re.search(r"(?:\b\w ){3,}\w\b", line):
        return line
    segments = re.split(r"(\s{2,})", line)
    out = []
    for seg in segments:
        tokens = seg.split(" ")
        singles = sum(len(t) == 1 for t in tokens)
        if len(tokens) >= 3 and all(len(t) <= 2 for t in tokens) and singles >= len(tokens) * 0.6:
            out.append("".join(tokens))
        elif seg.isspace():
            out.append(" ")
        else:
            out.append(seg)
    return "".join(out)


def strip_symbols(line: str) -> str:
    """Drop glyph names and private-use symbols that extraction leaves behind."""
    line = _GLYPH_NAME.sub(" ", line)
    line = _PRIVATE_USE.sub(" ", line)
    return line


# symbols that legacy Devanagari fonts map their glyphs to; real prose almost never puts them inside a word
_MOJIBAKE_SYMBOLS = set("${}~_¥Ÿ§‹›¡¢£¤¦¨©ª¬®¯°±²³´µ¶·¸¹º¼½¾¿×÷`^|")
_LATIN1_LETTERS = set("ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝÞßàáâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿ")


def _odd_token(t: str) -> bool:
    """A token no real word looks like: a glyph symbol inside it, or an accented letter beside an inner capital
    ("àíZ-nÌ"); plain accented words ("café") are not odd."""
    if any(c in _MOJIBAKE_SYMBOLS for c in t):
        return True
    return any(c in _LATIN1_LETTERS for c in t) and bool(re.search(r"(?<=.)[A-Z]", t))


def is_mojibake_line(line: str, loose: bool = False) -> bool:
    """A line from a legacy (non-Unicode) Devanagari font: Latin letters mixed with symbols inside words.

    Real English prose has almost no tokens where letters and such symbols mix; legacy-font Hindi is full of them.
    `loose` (used on pages already known to hold such lines) also catches short lines with one such token.
    """
    tokens = [t for t in line.split() if any(c.isalpha() for c in t)]
    odd = sum(_odd_token(t) for t in tokens)
    if loose:
        return odd >= 1 and odd / len(tokens) >= 0.3
    return len(tokens) >= 3 and odd / len(tokens) >= 0.4


# ---------------------------------------------------------------- document-level cleaning


def _running_lines(pages: list[list[str]]) -> set[str]:
    """Lines that recur (digits aside) at the top or bottom of many pages: running headers and footers."""
    if len(pages) < 4:
        return set()
    counts: Counter[str] = Counter()
    for lines in pages:
        edge = {re.sub(r"\d+", "#", ln.strip()) for ln in lines[:2] + lines[-2:] if ln.strip()}
        counts.update(edge)
    return {k for k, n in counts.items() if n >= max(3, 0.3 * len(pages)) and len(k) < 80}


def clean_pages(raw_pages: list[str]) -> tuple[list[str], list[int], list[str]]:
    """Clean a document's pages together (headers and vocabulary are document-wide).

    Returns the cleaned page texts, per page how many legacy-font (mojibake) lines were dropped, and the running
    header and footer lines removed (digits as '#'), which often name the chapter.
    """
    split = []
    dropped = []
    for raw in raw_pages:
        raw = unicodedata.normalize("NFC", raw.replace("\u00ad", "").replace("\ufb01", "fi").replace("\ufb02", "fl"))
        raw_lines = [collapse_repeats(ln) for ln in raw.splitlines()]
        loose = sum(is_mojibake_line(ln) for ln in raw_lines) >= 3
        lines = []
        n_moji = 0
        for ln in raw_lines:
            if is_mojibake_line(ln, loose):
                n_moji += 1
                continue
            ln = strip_symbols(ln)
            ln = join_letter_spaced(ln)
            ln = collapse_repeats(ln)
            ln = re.sub(r"[ \t\u00a0]+", " ", ln).strip()
            if ln and not _FOOTER.match(ln):
                lines.append(ln)
        if n_moji and n_moji >= 0.6 * (n_moji + len(lines)):
            lines = []  # a page mostly in a legacy font: what is left is fragments
        split.append(lines)
        dropped.append(n_moji)
    running = _running_lines(split)
    pages = []
    for lines in split:
        # a bare page number opening or closing a page is furniture, however few pages there are
        while lines and re.fullmatch(r"\d{1,4}", lines[-1]):
            lines = lines[:-1]
        while lines and re.fullmatch(r"\d{1,4}", lines[0]):
            lines = lines[1:]
        kept = [ln for i, ln in enumerate(lines)
                if not ((i < 2 or i >= len(lines) - 2) and re.sub(r"\d+", "#", ln) in running)]
        pages.append("\n".join(kept))
    plain = unbroken_word_counts("\n".join(pages))
    pages = [dehyphenate(text, plain) for text in pages]
    vocab = word_counts("\n".join(pages))
    english = english_words()
    cleaned = ["\n".join(rejoin_split_words(ln, vocab, english) for ln in text.splitlines()) for text in pages]
    return cleaned, dropped, sorted(running)


# ---------------------------------------------------------------- extraction


def _alpha_chars(text: str) -> int:
    return sum(c.isalpha() for c in text)


def extract_pdf(path: str | Path, display_name: str | None = None, *, max_pages: int | None = None,
                max_mb: float | None = None, max_s: float | None = None) -> ExtractedPdf:
    """Extract and clean every page of a PDF, or refuse the whole file with the cause.

    A page on which pypdf raises is skipped and named; the rest of the file is kept. Refused: not a PDF,
    encrypted, no text layer (scanned), blank, a legacy-font (mojibake) text layer, larger than `max_mb`
    (too_large, before it is parsed) or longer than `max_pages` (too_many_pages, before any page is read), or
    still being read after `max_s` seconds (too_slow, checked between pages).
    """
    import pypdf
    from pypdf.errors import PdfReadError

    path = Path(path)
    name = display_name or path.name
    try:
        size_mb = path.stat().st_size / 1e6
    except OSError as e:
        raise PdfRefused(name, f"cannot be read ({e.strerror or e})", "unreadable") from e
    if max_mb is not None and size_mb > max_mb:
        raise PdfRefused(name, f"is {size_mb:,.1f} MB, over the limit of {max_mb:g} MB for one chapter (max_pdf_mb)",
                         "too_large")
    try:
        with open(path, "rb") as fh:
            head = fh.read(1024)
    except OSError as e:
        raise PdfRefused(name, f"cannot be read ({e.strerror or e})", "unreadable") from e
    if b"%PDF-" not in head:
        raise PdfRefused(name, "is not a PDF file (no %PDF header)", "not_pdf")
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = pypdf.PdfReader(str(path))
        encrypted = reader.is_encrypted
    except (PdfReadError, ValueError, OSError) as e:
        raise PdfRefused(name, f"is a damaged PDF that cannot be opened ({e})", "corrupt") from e
    if encrypted:
        raise PdfRefused(name, "is encrypted (password-protected); upload an unprotected copy", "encrypted")
    try:
        n_pages = len(reader.pages)
    except Exception as e:  # noqa: BLE001 - pypdf raises many types on broken page trees
        raise PdfRefused(name, f"is a damaged PDF whose pages cannot be listed ({e})", "corrupt") from e
    if n_pages == 0:
        raise PdfRefused(name, "has no pages", "blank")
    if max_pages is not None and n_pages > max_pages:
        raise PdfRefused(name, f"has {n_pages:,} pages, over the limit of {max_pages:,} for one chapter "
                               "(max_pdf_pages): split the book into chapters", "too_many_pages")

    deadline = _clock() + max_s if max_s is not None else None
    raw_pages: list[str] = []
    page_numbers: list[int] = []
    skipped: list[SkippedPage] = []
    hidden_notes: list[str] = []
    for i in range(n_pages):
        if deadline is not None and _clock() > deadline:
            raise PdfRefused(name, too_slow(max_s, f"{i} of its {n_pages} pages were read"), "too_slow")
        try:
            seen = visible_text(reader.pages[i])  # only what the printed page shows (tutor/ingest/visible.py)
        except Exception as e:  # noqa: BLE001 - any failure on one page must not lose the chapter
            why = _BOMB_PAGE.format(page=i + 1) if type(e).__name__ == "LimitReachedError" else \
                f"pypdf could not read page {i + 1}: {type(e).__name__}: {e}"
            skipped.append(SkippedPage(i + 1, why))
            continue
        if seen.hidden_chars:
            hidden_notes.append(f"page {i + 1}: {seen.hidden_chars} character(s) the printed page does not show left "
                                "out (" + ", ".join(f"{why}: {n}" for why, n in sorted(seen.hidden.items())) + ")")
        raw_pages.append(seen.text)
        page_numbers.append(i + 1)

    total_alpha = sum(_alpha_chars(t) for t in raw_pages)
    if total_alpha == 0:
        bomb = next((p for p in range(1, n_pages + 1) if _decompression_bomb(reader, p - 1)), None)
        if bomb is not None:
            raise PdfRefused(name, f"has a page ({bomb}) whose content decompresses past pypdf's safety limit "
                                   "(a compression bomb, not a chapter)", "too_large")
        if any(_has_images(reader, p - 1) for p in page_numbers):
            raise PdfRefused(name, "has no text layer (it looks scanned): run OCR on it first", "no_text_layer")
        raise PdfRefused(name, "is blank: no page has any text", "blank")

    cleaned, dropped, headers = clean_pages(raw_pages)
    result = ExtractedPdf(file=name, n_pages=n_pages, skipped=skipped, headers=headers, notes=hidden_notes)
    total_moji = sum(dropped)
    total_lines = total_moji + sum(len(t.splitlines()) for t in cleaned)
    kept_alpha = sum(_alpha_chars(t) for t in cleaned)
    if total_moji and (total_moji >= 0.5 * total_lines or kept_alpha < 0.25 * total_alpha):
        raise PdfRefused(
            name,
            f"uses a legacy (non-Unicode) font: {total_moji} of {total_lines} lines extract as unreadable "
            "mojibake; a Unicode version of the file is needed",
            "mojibake",
        )
    for page, text, n_moji in zip(page_numbers, cleaned, dropped):
        if n_moji:
            result.notes.append(f"page {page}: {n_moji} line(s) in a legacy (non-Unicode) font dropped as unreadable")
        if _alpha_chars(text) < 20:
            why = f"page {page} has no usable text" + (" (legacy-font lines only)" if n_moji else "")
            if _decompression_bomb(reader, page - 1):
                why = _BOMB_PAGE.format(page=page)
            skipped.append(SkippedPage(page, why))
            continue
        result.pages.append(PageText(page, text))
    skipped.sort(key=lambda s: s.page)
    if not result.pages:
        raise PdfRefused(name, "has no usable text on any page", "blank")
    return result


_clock = time.monotonic  # the time budget's clock (a test moves it on instead of waiting)


def too_slow(max_s: float, how_far: str) -> str:
    """Why a chapter that ran out of its time budget was refused (said of the file)."""
    return (f"took longer than the {max_s:g} s one chapter may take to be read and embedded (max_ingest_s): "
            f"{how_far}; the shelf is unchanged. Split it into smaller files")


_BOMB_PAGE = "page {page} decompresses past pypdf's safety limit (a compression bomb), so it was left out"


def _has_images(reader, index: int) -> bool:
    try:
        return bool(reader.pages[index].images)
    except Exception:  # noqa: BLE001
        return False


def _decompression_bomb(reader, index: int) -> bool:
    """Whether a page's content streams, or the forms and images it draws (to a depth of 4), stop decompressing at
    pypdf's output limit (which extract_text swallows, so such a page looks blank)."""
    from pypdf.errors import LimitReachedError

    try:
        page = reader.pages[index]
        contents = page.get_contents()
        if contents is not None:
            contents.get_data()
        for xobject in _xobjects(page.get("/Resources"), depth=4, seen=set()):
            xobject.get_data()
    except LimitReachedError:
        return True
    except Exception:  # noqa: BLE001 - any other damage is judged elsewhere
        return False
    return False


def _xobjects(resources, depth: int, seen: set[int]):
    """The XObject streams a resource dictionary names, and those their forms name in turn, each once."""
    resources = resources.get_object() if resources is not None else None
    xobjects = resources.get("/XObject") if hasattr(resources, "get") else None
    xobjects = xobjects.get_object() if xobjects is not None else None
    if depth <= 0 or not hasattr(xobjects, "values"):
        return
    for ref in xobjects.values():
        obj = ref.get_object()
        if id(obj) in seen or not hasattr(obj, "get_data"):
            continue
        seen.add(id(obj))
        yield obj
        if obj.get("/Subtype") == "/Form":
            yield from _xobjects(obj.get("/Resources"), depth - 1, seen)
