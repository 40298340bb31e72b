"""The book as printed: a PDF page rendered to an image, with the cited sentence highlighted where the PDF has it.

Owns page rendering (pypdfium2, cached on disk by the PDF's sha256, page and scale) and locating a sentence on the
page from the PDF's own text positions. No Streamlit here: a page shows what `PageRenderer.show` returns.
"""
from __future__ import annotations

import difflib
import io
import os
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tutor.errors import TutorError
from tutor.files import sha256_file

# 1.5 x the PDF's 72 dpi: an NCERT page (576 x 785 pt) becomes 864 x 1178 px, legible in a chat column and
# about 0.1 s to render on these cores; the cache key carries the scale, so changing it never serves stale images
DEFAULT_SCALE = 1.5
HIGHLIGHT_RGBA = (255, 214, 0, 110)  # translucent yellow, like a highlighter pen: the print stays readable
OUTLINE_RGBA = (214, 150, 0, 255)
# fuzzy location: a sentence counts as found when this share of its letters and digits lines up with the page in
# order, inside a stretch of the page at most SPAN_SLACK times the sentence's length
MIN_MATCHED_SHARE = 0.8
SPAN_SLACK = 1.6
MIN_BLOCK = 3  # matching runs shorter than this are chance coincidences of letters, not the sentence


# pdfium keeps global state and is not thread-safe: one page operation at a time in this process, across renderers
_PDFIUM_LOCK = threading.Lock()


class PageUnavailable(TutorError):
    """The PDF of a chapter, or the page asked for, cannot be shown (file gone or changed, page out of range)."""


@dataclass(frozen=True)
class PageImage:
    """One rendered page and what was highlighted on it.

    png: the image (PNG bytes), its size in pixels and the 1-based page number.
    highlighted: True when every sentence asked for was found and marked; `found` / `missing` name them.
    boxes: the marked rectangles in pixels (left, top, right, bottom); `cached`: the plain render came from disk.
    """

    png: bytes
    width: int
    height: int
    page: int
    highlighted: bool
    found: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    boxes: tuple[tuple[float, float, float, float], ...] = ()
    cached: bool = False


# ---------------------------------------------------------------------------------------------- text location
def _keep(ch: str) -> bool:
    # letters (with Devanagari vowel signs, category M) and digits; spaces, hyphens and punctuation differ between
    # pypdf's cleaned text and the PDF's raw characters, so they are left out of the comparison on both sides
    cat = unicodedata.category(ch)
    return cat[0] in "LNM"


def normalise(text: str) -> tuple[str, list[int]]:
    """Lowercased letters and digits of `text` (NFKC, so ligatures such as 'ﬁ' become 'fi') and, for each kept
    character, the index in `text` it came from."""
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        for c in unicodedata.normalize("NFKC", ch).lower():
            if _keep(c):
                out.append(c)
                where.append(i)
    return "".join(out), where


def locate(page_text: str, sentence: str) -> tuple[int, int] | None:
    """Where `sentence` lies in `page_text`, as (start, end) character indices of page_text, or None.

    Exact on the normalised text first (spaces, hyphenation and line breaks ignored); otherwise the matching runs
    of difflib clustered around the longest one, accepted when they cover MIN_MATCHED_SHARE of the sentence within
    a stretch at most SPAN_SLACK times its length (faux-bold repeats and mended spellings differ a little).
    """
    page_n, where = normalise(page_text)
    sent_n, _ = normalise(sentence)
    if len(sent_n) < 4 or not page_n:
        return None
    i = page_n.find(sent_n)
    if i >= 0:
        return where[i], where[i + len(sent_n) - 1] + 1
    sm = difflib.SequenceMatcher(None, page_n, sent_n, autojunk=False)
    blocks = [b for b in sm.get_matching_blocks() if b.size >= MIN_BLOCK]
    if not blocks:
        return None
    # a run belongs to the sentence when it sits on (nearly) the same diagonal as the longest run: the page text
    # may hold extra characters inside the sentence (repeats, a figure label), up to the slack, but not far away
    anchor = max(blocks, key=lambda b: b.size)
    reach = SPAN_SLACK * len(sent_n)
    slack = reach - len(sent_n)
    near = [b for b in blocks if abs((b.a - b.b) - (anchor.a - anchor.b)) <= slack]
    matched = sum(b.size for b in near)
    if matched < MIN_MATCHED_SHARE * len(sent_n):
        return None
    start, end = min(b.a for b in near), max(b.a + b.size for b in near)
    if end - start > reach:
        return None
    return where[start], where[end - 1] + 1


# ---------------------------------------------------------------------------------------------- files
@lru_cache(maxsize=512)
def _digest(path: str, size: int, mtime_ns: int) -> str:
    return sha256_file(path)


def file_digest(path: Path) -> str:
    """The sha256 of a file, computed once per (path, size, modification time) in this process."""
    st = path.stat()
    return _digest(str(path), st.st_size, st.st_mtime_ns)


def find_pdf(candidates: list[str | Path], sha256: str = "") -> Path | None:
    """The first candidate that exists and, when `sha256` is given, holds exactly that file (the chapter that was
    ingested, not a later edit of it)."""
    for c in candidates:
        if not c:
            continue
        p = Path(c)
        if p.is_file() and (not sha256 or file_digest(p) == sha256):
            return p
    return None


# ---------------------------------------------------------------------------------------------- rendering
class PageRenderer:
    """Renders PDF pages lazily into `cache_dir/<sha256[:2]>/<sha256>-p<page>-s<scale>.png` and highlights sentences.

    Shared by every user of the app (it keeps no per-question state); the disk cache is written atomically, so two
    users opening the same page at once at worst both render it.
    """

    def __init__(self, cache_dir: str | Path, scale: float = DEFAULT_SCALE):
        if not 0.25 <= scale <= 6:
            raise ValueError(f"page image scale {scale} is outside [0.25, 6]")
        self.cache_dir, self.scale = Path(cache_dir), float(scale)
        self._lock = _PDFIUM_LOCK

    def cache_path(self, sha256: str, page: int) -> Path:
        return self.cache_dir / sha256[:2] / f"{sha256}-p{page}-s{self.scale:g}.png"

    def render(self, pdf: Path, page: int, sha256: str | None = None) -> tuple[bytes, bool]:
        """The plain page as PNG bytes (from the cache when there), and whether it came from the cache."""
        sha256 = sha256 or file_digest(pdf)
        path = self.cache_path(sha256, page)
        if path.is_file():
            return path.read_bytes(), True
        with self._lock:
            image = self._open_page(pdf, page, lambda p: p.render(scale=self.scale).to_pil())
        buf = io.BytesIO()
        image.convert("RGB").save(buf, format="PNG", optimize=False)
        data = buf.getvalue()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        return data, False

    def sentence_boxes(self, pdf: Path, page: int,
                       sentences: list[str]) -> dict[str, list[tuple[float, float, float, float]]]:
        """For each sentence found on the page, its rectangles in pixels of this renderer's images."""
        def boxes(p):
            if p.get_rotation() % 360:  # rotated pages would need the boxes turned too: not marked rather than wrong
                return {}
            # text positions are PDF points from the media box's bottom-left; the image shows the crop box
            x0, _, _, y1 = p.get_cropbox()
            tp = p.get_textpage()
            try:
                n = tp.count_chars()
                text = tp.get_text_range(0, n) if n else ""
                out: dict[str, list[tuple[float, float, float, float]]] = {}
                if len(text) != n:  # pdfium's text and its character indices disagree: do not guess positions
                    return out
                for s in sentences:
                    span = locate(text, s)
                    if span is None:
                        continue
                    start, end = span
                    rects = []
                    for k in range(tp.count_rects(start, end - start)):
                        left, bottom, right, top = tp.get_rect(k)
                        # PDF points, origin bottom-left -> pixels, origin top-left
                        rects.append(((left - x0) * self.scale, (y1 - top) * self.scale,
                                      (right - x0) * self.scale, (y1 - bottom) * self.scale))
                    if rects:
                        out[s] = rects
                return out
            finally:
                tp.close()

        with self._lock:
            return self._open_page(pdf, page, boxes)

    def show(self, pdf: Path, page: int, sentences: list[str] | tuple[str, ...] = (),
             sha256: str | None = None) -> PageImage:
        """The page with every sentence it holds highlighted; `highlighted` says whether all of them were found."""
        from PIL import Image, ImageDraw

        png, cached = self.render(pdf, page, sha256)
        sentences = [s for s in dict.fromkeys(" ".join(s.split()) for s in sentences) if s]
        found = self.sentence_boxes(pdf, page, sentences) if sentences else {}
        image = Image.open(io.BytesIO(png)).convert("RGB")
        all_boxes = [b for s in sentences for b in found.get(s, [])]
        if all_boxes:
            overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
            draw = ImageDraw.Draw(overlay)
            for left, top, right, bottom in all_boxes:
                draw.rectangle((left - 1, top - 1, right + 1, bottom + 1), fill=HIGHLIGHT_RGBA)
                draw.line((left - 1, bottom + 1, right + 1, bottom + 1), fill=OUTLINE_RGBA, width=2)
            image = Image.alpha_composite(image.convert("RGBA"), overlay).convert("RGB")
            buf = io.BytesIO()
            image.save(buf, format="PNG", compress_level=1)  # drawn per request: fast beats small here
            png = buf.getvalue()
        return PageImage(png=png, width=image.width, height=image.height, page=page,
                         highlighted=bool(sentences) and len(found) == len(sentences),
                         found=tuple(s for s in sentences if s in found),
                         missing=tuple(s for s in sentences if s not in found),
                         boxes=tuple(tuple(round(v, 1) for v in b) for b in all_boxes), cached=cached)

    def _open_page(self, pdf: Path, page: int, use):
        import pypdfium2 as pdfium

        try:
            doc = pdfium.PdfDocument(str(pdf))
        except (pdfium.PdfiumError, OSError) as e:
            raise PageUnavailable(f"{Path(pdf).name} cannot be opened to show its page: {e}") from e
        try:
            if not 1 <= page <= len(doc):
                raise PageUnavailable(f"{Path(pdf).name} has {len(doc)} pages, not a page {page}")
            p = doc[page - 1]
            try:
                return use(p)
            finally:
                p.close()
        finally:
            doc.close()

    def cache_size(self) -> tuple[int, int]:
        """(files, bytes) held in the cache folder."""
        files = [p for p in self.cache_dir.rglob("*.png")] if self.cache_dir.exists() else []
        return len(files), sum(p.stat().st_size for p in files)
