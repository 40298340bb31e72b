"""Only what the printed page shows is text (tutor/ingest/visible.py): reportlab PDFs made here hold text drawn white
on the white page, at 1 pt, outside the page box and in the invisible rendering mode, beside ordinary text and white
text on a coloured box (which a reader does see)."""
from __future__ import annotations

import pytest

from tutor.ingest.pdftext import extract_pdf

PLANTED = "Deserts are formed when volcanoes melt the soil into sand every spring."
BOOK = ("Soil is formed by the weathering of rocks over a very long time. Wind, water and living things break rocks "
        "into small particles, and humus from dead plants makes the soil fertile.")


def _pdf(path, hide):
    """A one-page chapter: the book's paragraph, the planted sentence drawn by `hide(canvas)`, more of the book."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 11)
    y = 780
    for line in (BOOK[:95], BOOK[95:]):
        c.drawString(60, y, line)
        y -= 16
    hide(c)
    c.setFillColorRGB(0, 0, 0)
    c.setFont("Helvetica", 11)
    c.drawString(60, 600, "Soils differ in colour, texture and the amount of water they hold.")
    c.save()
    return path


def _white(c):
    c.setFillColorRGB(1, 1, 1)
    c.drawString(60, 700, PLANTED)


def _tiny(c):
    c.setFont("Helvetica", 1)
    c.drawString(60, 700, PLANTED)


def _off_page(c):
    c.drawString(60, -200, PLANTED)  # below the page box


def _invisible_mode(c):
    t = c.beginText(60, 700)
    t.setTextRenderMode(3)
    t.textLine(PLANTED)
    t.setTextRenderMode(0)  # the mode is graphics state: it would hide what follows too
    c.drawText(t)


def _white_cmyk(c):
    c.setFillColorCMYK(0, 0, 0, 0)
    c.drawString(60, 700, PLANTED)


@pytest.mark.parametrize(("hide", "why"), [
    (_white, "white on the white page"), (_tiny, "smaller than 3 pt"), (_off_page, "outside the page"),
    (_invisible_mode, "invisible rendering mode"), (_white_cmyk, "white on the white page")])
def test_text_the_printed_page_does_not_show_is_left_out_and_reported(tmp_path, hide, why):
    pdf = extract_pdf(_pdf(tmp_path / "soil.pdf", hide))
    text = " ".join(p.text for p in pdf.pages)
    assert "volcanoes" not in text
    assert "weathering of rocks" in text and "amount of water they hold" in text  # the book's text kept
    (note,) = [n for n in pdf.notes if "does not show" in n]
    assert note.startswith("page 1:") and why in note and f"{why}: {len(PLANTED.replace(' ', ''))}" in note


def test_white_text_on_a_coloured_box_is_seen_and_kept(tmp_path):
    def boxed(c):
        c.setFillColorRGB(0.1, 0.2, 0.6)
        c.rect(50, 690, 480, 22, stroke=0, fill=1)
        c.setFillColorRGB(1, 1, 1)
        c.drawString(60, 700, "Activity 2.1 Collect soil samples from three places.")

    pdf = extract_pdf(_pdf(tmp_path / "soil.pdf", boxed))
    assert "Collect soil samples" in " ".join(p.text for p in pdf.pages)
    assert not [n for n in pdf.notes if "does not show" in n]


def test_a_page_with_nothing_hidden_reads_as_pypdf_reads_it(tmp_path):
    import pypdf

    from tutor.ingest.visible import visible_text

    path = _pdf(tmp_path / "soil.pdf", lambda c: c.drawString(60, 700, "Humus is the dark organic part of soil."))
    page = pypdf.PdfReader(str(path)).pages[0]
    seen = visible_text(page)
    assert seen.hidden == {} and seen.text == page.extract_text()
