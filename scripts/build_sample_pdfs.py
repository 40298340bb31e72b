#!/usr/bin/env python3
"""Render the bundled sample chapters (Markdown) to textbook-style PDFs.

Usage:
    python scripts/build_sample_pdfs.py [--out DIR] [--source DIR]

Every ``<source>/<class>/<subject>/<chapter-code>.md`` becomes
``<out>/<class>/<subject>/<chapter-code>.pdf``.  The default source is
``data/sample/source`` and the default output is ``data/sample/library``
(both relative to the repository root, whatever the working directory).

The Markdown is a deliberately small subset:

    # Chapter N: Title          -> large chapter title
    ## N.M Section title        -> bold section heading
    ## Questions / ## Exercises -> the uppercase word on its own line
    1. Question text            -> numbered item, one paragraph each
    Any other non-blank lines   -> a justified paragraph (blank line ends it)

Output is deterministic (reportlab ``invariant=1``), so re-running the script
over unchanged sources reproduces the committed PDFs byte for byte.  Only the
standard Times fonts are used; they carry no ligatures, so pypdf extracts the
text with ordinary spacing.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab.lib.enums import TA_JUSTIFY, TA_LEFT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import cm
from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate, Paragraph

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = ROOT / "data" / "sample" / "source"
DEFAULT_OUT = ROOT / "data" / "sample" / "library"

BODY_FONT = "Times-Roman"
BOLD_FONT = "Times-Bold"

STYLES = {
    "title": ParagraphStyle(
        "title", fontName=BOLD_FONT, fontSize=22, leading=27,
        alignment=TA_LEFT, spaceAfter=16,
    ),
    "heading": ParagraphStyle(
        "heading", fontName=BOLD_FONT, fontSize=13, leading=17,
        alignment=TA_LEFT, spaceBefore=10, spaceAfter=5, keepWithNext=1,
    ),
    "boxhead": ParagraphStyle(
        "boxhead", fontName=BOLD_FONT, fontSize=13, leading=17,
        alignment=TA_LEFT, spaceBefore=12, spaceAfter=6, keepWithNext=1,
    ),
    "body": ParagraphStyle(
        "body", fontName=BODY_FONT, fontSize=11, leading=15,
        alignment=TA_JUSTIFY, spaceAfter=7,
    ),
    "item": ParagraphStyle(
        "item", fontName=BODY_FONT, fontSize=11, leading=15,
        alignment=TA_LEFT, spaceAfter=4,
    ),
}
# Every line starts at the left margin on purpose: pypdf prefixes indented or
# centred lines with a stray space, and flush-left lines extract cleanly.

# "## Questions" / "## Exercises" are rendered as the bare uppercase word.
BOX_HEADINGS = {"questions": "QUESTIONS", "exercises": "EXERCISES"}
ITEM_RE = re.compile(r"^(\d+)\.\s+(.*)$")


def parse_markdown(text: str) -> tuple[str, list]:
    """Return (title, flowables) for one chapter file."""
    title = ""
    flowables: list = []
    para: list[str] = []

    def flush() -> None:
        if para:
            flowables.append(Paragraph(escape(" ".join(para)), STYLES["body"]))
            para.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            flush()
            continue
        if line.startswith("# "):
            flush()
            title = line[2:].strip()
            flowables.append(Paragraph(escape(title), STYLES["title"]))
        elif line.startswith("## "):
            flush()
            heading = line[3:].strip()
            box = BOX_HEADINGS.get(heading.lower())
            if box:
                flowables.append(Paragraph(box, STYLES["boxhead"]))
            else:
                flowables.append(Paragraph(escape(heading), STYLES["heading"]))
        elif (m := ITEM_RE.match(line)) and not para:
            flowables.append(
                Paragraph(f"{m.group(1)}. {escape(m.group(2))}", STYLES["item"])
            )
        else:
            para.append(line)
    flush()
    if not title:
        raise ValueError("chapter has no '# Chapter N: Title' line")
    return title, flowables


def _footer(canvas, doc) -> None:
    canvas.saveState()
    canvas.setFont(BODY_FONT, 10)
    canvas.drawCentredString(A4[0] / 2, 1.2 * cm, str(doc.page))
    canvas.restoreState()


def render(md_path: Path, pdf_path: Path) -> int:
    """Render one chapter; return the number of pages written."""
    title, flowables = parse_markdown(md_path.read_text(encoding="utf-8"))
    pdf_path.parent.mkdir(parents=True, exist_ok=True)
    doc = BaseDocTemplate(
        str(pdf_path),
        pagesize=A4,
        leftMargin=2.3 * cm,
        rightMargin=2.3 * cm,
        topMargin=2.2 * cm,
        bottomMargin=2.2 * cm,
        title=title,
        author="Sample library written for this project",
        subject=f"{md_path.parent.parent.name} {md_path.parent.name} {md_path.stem}",
        creator="scripts/build_sample_pdfs.py",
        invariant=1,
    )
    frame = Frame(doc.leftMargin, doc.bottomMargin, doc.width, doc.height, id="body")
    # Draw the page number when the page is finished, so that text extraction
    # yields the page's prose first and the footer number last.
    doc.addPageTemplates([PageTemplate(id="page", frames=[frame], onPageEnd=_footer)])
    doc.build(flowables)
    return doc.page


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"output directory (default: {DEFAULT_OUT.relative_to(ROOT)})")
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE,
                        help=f"source directory (default: {DEFAULT_SOURCE.relative_to(ROOT)})")
    args = parser.parse_args(argv)

    sources = sorted(args.source.glob("*/*/*.md"))
    if not sources:
        print(f"no chapter sources found under {args.source}", file=sys.stderr)
        return 1
    for md_path in sources:
        rel = md_path.relative_to(args.source).with_suffix(".pdf")
        pdf_path = args.out / rel
        pages = render(md_path, pdf_path)
        print(f"{rel}: {pages} pages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
