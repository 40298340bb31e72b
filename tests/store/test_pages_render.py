"""Page images: rendering and its disk cache, locating a cited sentence on the printed page, the highlight drawn."""
from __future__ import annotations

import io
from pathlib import Path

import pytest
from helpers_paths import SHARED_DATA
from PIL import Image

from tutor.store.pages import PageRenderer, PageUnavailable, file_digest, find_pdf, locate, normalise

from helpers_library import LIGHT_PAGES, make_pdf

pytest.importorskip("pypdfium2")

REFRACTION = "This bending of light is called refraction of light."


@pytest.fixture
def pdf(tmp_path) -> Path:
    return make_pdf(tmp_path / "light.pdf", LIGHT_PAGES)


def test_normalise_keeps_letters_digits_and_devanagari_signs_with_their_positions():
    text, where = normalise("Re-fraction, 2 ﬁsh!")
    assert text == "refraction2fish"
    assert where[0] == 0 and where[2] == 3  # the hyphen is skipped, 'f' maps back to index 3
    assert normalise("प्रकाश")[0] == "प्रकाश"  # vowel signs and the virama are kept


def test_locate_ignores_spacing_hyphenation_and_line_breaks():
    page = "Light travels.\r\nThis bend-\r\ning of light is called refraction\r\nof light. Next sentence."
    start, end = locate(page, REFRACTION)
    assert page[start:end].startswith("This bend") and page[start:end].endswith("of light")


def test_locate_tolerates_small_differences_but_not_another_sentence():
    page = "Intro text here. This bending of of light is calld refraction of light. The power of a lens is in dioptres."
    span = locate(page, REFRACTION)
    assert span is not None and page[span[0]:span[1]].startswith("This bending")
    assert locate(page, "Photosynthesis makes food from carbon dioxide and water in leaves.") is None
    assert locate(page, "") is None


def test_render_is_cached_on_disk_by_digest_page_and_scale(pdf, tmp_path):
    r = PageRenderer(tmp_path / "cache", scale=1.0)
    png, cached = r.render(pdf, 1)
    assert not cached and png[:8] == b"\x89PNG\r\n\x1a\n"
    path = r.cache_path(file_digest(pdf), 1)
    assert path.is_file() and path.read_bytes() == png
    again, cached = r.render(pdf, 1)
    assert cached and again == png
    assert PageRenderer(tmp_path / "cache", scale=2.0).cache_path(file_digest(pdf), 1) != path
    assert r.cache_size() == (1, len(png))
    with Image.open(io.BytesIO(png)) as im:
        assert im.size == (596, 842)  # A4 (595.3 x 841.9 pt) at scale 1, rounded up to whole pixels


def test_show_highlights_the_sentence_where_it_is_printed(pdf, tmp_path):
    r = PageRenderer(tmp_path / "cache", scale=1.0)
    img = r.show(pdf, 1, [REFRACTION])
    assert img.highlighted and img.found == (REFRACTION,) and not img.missing
    (left, top, right, bottom), = img.boxes  # one printed line
    # make_pdf draws page lines 60 pt below the top, 15 pt apart: the sentence is the 4th line (baseline 105 pt)
    assert 90 <= top < 105 <= bottom <= 110 and 45 <= left <= 55 and right > 250
    with Image.open(io.BytesIO(img.png)) as im:
        inside = im.getpixel((int(left) + 2, int(top) + 2))
        outside = im.getpixel((int(left) + 2, int(bottom) + 30))
    assert outside == (255, 255, 255)
    assert inside[2] < 200 and inside[0] > 200  # yellow: blue taken out, red kept


def test_sentence_not_on_the_page_shows_the_page_without_highlight(pdf, tmp_path):
    r = PageRenderer(tmp_path / "cache", scale=1.0)
    missing = "The power of a lens is measured in dioptres."  # on page 2, not page 1
    img = r.show(pdf, 1, [REFRACTION, missing])
    assert not img.highlighted and img.found == (REFRACTION,) and img.missing == (missing,)
    plain = r.show(pdf, 1, [missing])
    assert not plain.highlighted and not plain.boxes
    assert plain.png == r.render(pdf, 1)[0]  # nothing drawn on it


def test_crop_box_offset_is_taken_into_account(pdf, tmp_path):
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import RectangleObject

    w = PdfWriter()
    for page in PdfReader(str(pdf)).pages:
        page.cropbox = RectangleObject((20, 20, 575, 822))
        w.add_page(page)
    cropped = tmp_path / "cropped.pdf"
    with open(cropped, "wb") as fh:
        w.write(fh)
    r = PageRenderer(tmp_path / "cache", scale=1.0)
    (left, top, _, bottom), = r.show(cropped, 1, [REFRACTION]).boxes
    (left0, top0, _, bottom0), = r.show(pdf, 1, [REFRACTION]).boxes
    assert abs((left0 - left) - 20) < 1 and abs((top0 - top) - 20) < 1


def test_page_out_of_range_and_changed_files_are_named(pdf, tmp_path):
    r = PageRenderer(tmp_path / "cache")
    with pytest.raises(PageUnavailable, match="has 2 pages, not a page 5"):
        r.render(pdf, 5)
    assert find_pdf([tmp_path / "gone.pdf", pdf]) == pdf
    assert find_pdf([pdf], sha256=file_digest(pdf)) == pdf
    assert find_pdf([pdf], sha256="0" * 64) is None  # the file on disk is not the one that was ingested
    with pytest.raises(ValueError):
        PageRenderer(tmp_path, scale=0)


SHARED_PDF = SHARED_DATA / "libraries" / "ncert" / "class-10" / "science" / "jesc101.pdf"


@pytest.mark.slow
@pytest.mark.skipif(not SHARED_PDF.exists(), reason="../shared/data is absent: this reads a real NCERT chapter")
def test_a_real_ncert_page_highlights_the_sentence_pypdf_extracted(tmp_path):
    from tutor.ingest.pdftext import extract_pdf

    page = next(p for p in extract_pdf(SHARED_PDF).pages if p.page == 3)
    sentence = "Chemical equations can be made more concise and useful if we use chemical formulae instead of words."
    assert sentence in " ".join(page.text.split())  # the sentence as the tutor read it (pypdf, cleaned)
    img = PageRenderer(tmp_path / "cache").show(SHARED_PDF, 3, [sentence])
    assert img.highlighted and len(img.boxes) == 2  # two printed lines
    # the page has an 18 pt crop margin: the boxes sit inside the text column, not shifted off it
    assert all(80 < left < 200 and right < img.width - 100 for left, _, right, _ in img.boxes)
