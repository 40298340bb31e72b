"""Only what the printed page shows is text: a page's text layer less the text a reader of the page cannot see.

A hostile (or careless) chapter PDF can carry text that is never seen on paper or screen: drawn in the page's
background colour (white), at a size no one can read (1 pt), outside the page's box, or in an invisible rendering mode
(`3 Tr`, used for OCR layers). Quoted to a student, such text would be "the book" saying what the book never showed.
pypdf reports every text piece to a visitor with its matrices and font size, and every operator before it runs, so
the fill colour and rendering mode can be followed as the page draws; a piece that is not visible is left out and
counted. A page with nothing hidden keeps pypdf's text exactly as before (the pieces joined are that text).

Not seen here (said plainly): text covered by an image or a filled shape drawn over it, and text in a colour close
to a non-white background; both need the rendered page.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

# below this size on the page (points, after every scaling) text is not readable; NCERT's smallest printed text
# (sub- and superscripts, figure labels) is 5-6 pt
MIN_VISIBLE_PT = 3.0
WHITE = 0.95  # a fill this close to white (gray, RGB, or CMYK with no ink) is taken for the white page
INVISIBLE_MODES = {3, 7}  # text rendering modes that paint nothing (7 adds to the clip path only)


@dataclass(frozen=True)
class VisibleText:
    """A page's visible text, and how many characters (not counting spaces) were left out and why."""

    text: str
    hidden: dict[str, int]

    @property
    def hidden_chars(self) -> int:
        return sum(self.hidden.values())


def _mult(m: list[float], n: list[float]) -> list[float]:
    """The 2-D affine matrix product m x n (PDF order: a b c d e f)."""
    return [m[0] * n[0] + m[1] * n[2], m[0] * n[1] + m[1] * n[3], m[2] * n[0] + m[3] * n[2],
            m[2] * n[1] + m[3] * n[3], m[4] * n[0] + m[5] * n[2] + n[4], m[4] * n[1] + m[5] * n[3] + n[5]]


Box = tuple[float, float, float, float]  # x0, y0, x1, y1 on the page


def _box(points: list[tuple[float, float]], cm: list[Any]) -> Box:
    """The page box of user-space points under the matrix `cm`."""
    m = list(map(float, cm))
    xs = [x * m[0] + y * m[2] + m[4] for x, y in points]
    ys = [x * m[1] + y * m[3] + m[5] for x, y in points]
    return min(xs), min(ys), max(xs), max(ys)


def _union(a: Box, b: Box) -> Box:
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])


def _numbers(args: list[Any]) -> tuple[float, ...]:
    out = []
    for a in args:
        try:
            out.append(float(a))
        except (TypeError, ValueError):
            return ()  # a pattern or a named colour: not a plain fill, taken as visible
    return tuple(out)


def _is_white(fill: tuple[float, ...]) -> bool:
    if len(fill) in (1, 3):  # gray, RGB
        return all(v >= WHITE for v in fill)
    if len(fill) == 4:  # CMYK: no ink
        return all(v <= 1 - WHITE for v in fill)
    return False


def visible_text(page: Any) -> VisibleText:
    """pypdf's text of `page` with the pieces that are not visible left out (white, tiny, off the page, invisible
    rendering mode)."""
    box = page.cropbox
    x0, y0, x1, y1 = (float(v) for v in (box.left, box.bottom, box.right, box.top))
    state: dict[str, Any] = {"fill": (0.0,), "mode": 0}
    saved: list[dict[str, Any]] = []
    parts: list[str] = []
    hidden: dict[str, int] = {}
    path: list[Box] = []  # the boxes of the path being built: one per rectangle or subpath
    grounds: list[Box] = []  # coloured shapes and images painted so far

    def operator(op: bytes, args: list[Any], cm: list[float], tm: list[float]) -> None:
        if op == b"q":
            saved.append(dict(state))
        elif op == b"Q":
            if saved:
                state.update(saved.pop())
        elif op in (b"g", b"rg", b"k", b"sc", b"scn"):
            state["fill"] = _numbers(args)
        elif op == b"Tr" and args:
            try:
                state["mode"] = int(args[0])
            except (TypeError, ValueError):
                pass
        elif op in (b"re", b"m", b"l", b"c", b"v", b"y"):
            xy = _numbers(args)
            if op == b"re" and len(xy) == 4:
                x, y, w, h = xy
                path.append(_box([(x, y), (x + w, y), (x, y + h), (x + w, y + h)], cm))
            elif len(xy) >= 2:  # a subpath begins at m; l, c, v and y extend it by their points
                b = _box([(xy[i], xy[i + 1]) for i in range(0, len(xy) - 1, 2)], cm)
                path.append(b if op == b"m" or not path else _union(path.pop(), b))
        elif op in (b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*", b"n", b"S", b"s"):
            if op not in (b"n", b"S", b"s") and not _is_white(state["fill"]):
                grounds.extend(path)  # white text on a coloured box is seen
            path.clear()
        elif op in (b"Do", b"BI"):  # an image (or a form) drawn in the unit square of the current matrix
            grounds.append(_box([(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)], cm))

    def text(piece: str, cm: list[float], tm: list[float], font: Any, size: float) -> None:
        if not piece.strip():
            parts.append(piece)
            return
        m = _mult(list(map(float, tm)), list(map(float, cm)))
        x, y = m[4], m[5]
        shown = abs(float(size or 0)) * math.sqrt(abs(m[0] * m[3] - m[1] * m[2]))
        on_ground = any(a <= x <= c and b <= y <= d for a, b, c, d in grounds)
        why = ("invisible rendering mode" if state["mode"] in INVISIBLE_MODES
               else "white on the white page" if _is_white(state["fill"]) and not on_ground
               else f"smaller than {MIN_VISIBLE_PT:g} pt" if shown < MIN_VISIBLE_PT
               else "outside the page" if not (x0 - 1 <= x <= x1 and y0 - 1 <= y <= y1) else None)
        if why is None:
            parts.append(piece)
        else:
            hidden[why] = hidden.get(why, 0) + sum(not c.isspace() for c in piece)

    full = page.extract_text(visitor_operand_before=operator, visitor_text=text) or ""
    return VisibleText(full if not hidden else "".join(parts), hidden)
