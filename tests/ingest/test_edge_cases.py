"""Every PDF in ../shared/data/edge-cases gets its precise outcome, and a bad file never harms a good shelf.

Integration tests on real files: they skip, saying why, where the shared data is absent.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers_paths import SHARED_DATA

from tutor.errors import PdfRefused
from tutor.ingest.builder import IngestItem, ingest
from tutor.ingest.chunking import detect_chapter
from tutor.ingest.pdftext import ExtractedPdf, extract_pdf, is_mojibake_line
from tutor.store.shelf import ShelfStore
from tutor.testing import HashEmbedder

from helpers_library import LIGHT_PAGES, make_pdf

EDGE = SHARED_DATA / "edge-cases"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not EDGE.is_dir(), reason=f"shared edge-case PDFs not found at {EDGE} "
                                                 f"(../shared/data/edge-cases)"),
]

LIMIT = "ncert_jesc106_original_pypdf_LimitReachedError_page8.pdf"
SCANNED = "cbse2022_maths_urdu_no_text_layer.pdf"
BLANK = "ncert_blank_one_page.pdf"
LEGACY = "cbse2024_hindiA_legacy_font_mojibake.pdf"
BILINGUAL = "cbse2022_science_31-1-1_bilingual_hindi_mojibake_english_ok.pdf"
LETTER_SPACED = "ncert_jess403_recompressed_letter_spaced_text.pdf"

REFUSED = {SCANNED: "no_text_layer", BLANK: "blank", LEGACY: "mojibake"}
ACCEPTED = {LIMIT, BILINGUAL, LETTER_SPACED}

_cache: dict[str, ExtractedPdf | PdfRefused] = {}


def outcome(name: str) -> ExtractedPdf | PdfRefused:
    """Extract once per session (the LimitReachedError file takes seconds)."""
    if name not in _cache:
        try:
            _cache[name] = extract_pdf(EDGE / name)
        except PdfRefused as e:
            _cache[name] = e
    return _cache[name]


def accepted(name: str) -> ExtractedPdf:
    out = outcome(name)
    assert isinstance(out, ExtractedPdf), f"{name} was refused: {out}"
    return out


def test_every_edge_case_file_has_an_expected_outcome():
    on_disk = {p.name for p in EDGE.glob("*.pdf")}
    assert on_disk == set(REFUSED) | ACCEPTED, "a new edge-case PDF needs its outcome written down here"


# ---------------------------------------------------------------- refused, with the cause and the file named


@pytest.mark.parametrize("name, code", sorted(REFUSED.items()))
def test_unusable_file_is_refused_with_its_code_and_name(name, code):
    out = outcome(name)
    assert isinstance(out, PdfRefused), f"{name} was accepted"
    assert out.code == code
    assert out.file == name
    assert str(out).startswith(f"{name}: ")


def test_scanned_file_message_says_to_run_ocr():
    assert "OCR" in str(outcome(SCANNED))


def test_legacy_font_message_counts_the_unreadable_lines():
    msg = str(outcome(LEGACY))
    assert "legacy (non-Unicode) font" in msg
    m = re.search(r"(\d+) of (\d+) lines", msg)
    assert m and int(m.group(1)) >= 0.9 * int(m.group(2))


# ---------------------------------------------------------------- accepted, with what was skipped named


def test_limit_reached_page_is_skipped_and_named_and_the_rest_kept():
    out = accepted(LIMIT)
    assert out.n_pages == 13
    assert [p.page for p in out.pages] == [1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13]
    assert [s.page for s in out.skipped] == [8]
    assert "page 8" in out.skipped[0].reason and "compression bomb" in out.skipped[0].reason  # named as what it is
    assert all(len(p.text) > 200 for p in out.pages)
    assert detect_chapter(out.pages, "jesc106", out.headers).title == "Control and Coordination"


def test_bilingual_file_keeps_english_pages_and_skips_hindi_pages():
    out = accepted(BILINGUAL)
    assert out.n_pages == 16
    assert [p.page for p in out.pages] == [1, 3, 5, 7, 9, 15]
    legacy_skipped = sorted(s.page for s in out.skipped if "legacy-font" in s.reason)
    assert legacy_skipped == [2, 4, 6, 8, 10]
    # the empty back pages are skipped too, each named
    assert sorted(s.page for s in out.skipped) == [2, 4, 6, 8, 10, 11, 12, 13, 14, 16]
    assert all(f"page {s.page}" in s.reason for s in out.skipped)
    page5 = next(p.text for p in out.pages if p.page == 5)
    assert "What is variation ?" in page5
    for p in out.pages:
        assert not [ln for ln in p.text.splitlines() if is_mojibake_line(ln)], p.page
        assert "H$" not in p.text and "¥" not in p.text


def test_bilingual_notes_name_the_pages_whose_lines_were_dropped():
    out = accepted(BILINGUAL)
    noted = sorted(int(m.group(1)) for n in out.notes for m in [re.match(r"page (\d+): \d+ line\(s\) in a "
                                                                         r"legacy", n)] if m)
    assert noted == [1, 2, 4, 6, 8, 10]
    assert len(noted) == len(out.notes)


def test_letter_spaced_header_is_joined_and_names_the_chapter():
    out = accepted(LETTER_SPACED)
    assert out.n_pages == 17 and len(out.pages) == 17
    assert "Gender, Religion and Caste" in out.headers
    assert "Democratic Politics" in out.headers
    assert detect_chapter(out.pages, "jess403", out.headers).title == "Gender, Religion and Caste"
    page3 = next(p.text for p in out.pages if p.page == 3)
    assert page3.splitlines()[0] == "These agitations demanded"  # was "T h e s e  a g i t a t i o n s  d e m a n d e d"
    assert "mobilisation" in page3  # was "mobili sation"
    for p in out.pages:
        assert not re.search(r"(?:\b[A-Za-z] ){4,}[A-Za-z]\b", p.text), p.page


# ---------------------------------------------------------------- a bad file never harms a good shelf

EMB = HashEmbedder()


@pytest.fixture
def good_shelf(tmp_path):
    store = ShelfStore(tmp_path / "index")
    pdf = make_pdf(tmp_path / "src" / "light.pdf", LIGHT_PAGES)
    report = ingest([IngestItem(pdf, "10", "science")], store, EMB, workers=1)
    assert [f.status for f in report.files] == ["added"]
    return store


@pytest.mark.parametrize("name, code", sorted(REFUSED.items()))
def test_ingesting_a_refused_file_leaves_the_good_shelf_unchanged(good_shelf, name, code):
    version = good_shelf.current_version("10", "science")
    texts = [c.text for c in good_shelf.load("10", "science").chunks]
    report = ingest([IngestItem(EDGE / name, "10", "science")], good_shelf, EMB, workers=1)
    (f,) = report.files
    assert (f.file, f.status, f.error_code) == (name, "refused", code)
    assert name in f.error
    assert good_shelf.current_version("10", "science") == version
    shelf = good_shelf.load("10", "science")
    assert [c.text for c in shelf.chunks] == texts
    assert shelf.manifest.n_chunks == len(texts)
    assert set(shelf.manifest.chapters) == {"light.pdf"}


def test_ingesting_all_edge_cases_at_once_adds_only_the_usable_ones(good_shelf):
    light = [c.text for c in good_shelf.load("10", "science").chunks]
    items = [IngestItem(p, "10", "science") for p in sorted(EDGE.glob("*.pdf"))]
    report = ingest(items, good_shelf, EMB, workers=1)
    status = {f.file: f.status for f in report.files}
    assert status == {**{n: "refused" for n in REFUSED}, **{n: "added" for n in ACCEPTED}}
    limit = next(f for f in report.files if f.file == LIMIT)
    assert (limit.pages, limit.pages_used) == (13, 12)
    assert [p for p, _ in limit.skipped] == [8]
    shelf = good_shelf.load("10", "science")
    assert set(shelf.manifest.chapters) == {"light.pdf"} | ACCEPTED
    assert [c.text for c in shelf.chunks if c.file == "light.pdf"] == light
    assert shelf.manifest.chapters[LIMIT].pages_skipped[0]["page"] == 8
    assert shelf.manifest.chapters[LETTER_SPACED].chapter == "Gender, Religion and Caste"
    assert all(p != 8 for c in shelf.chunks if c.file == LIMIT for _, p in c.sentence_texts())


# ---------------------------------------------------------------- faux bold, glyph by glyph, in the real chapters

NCERT10 = SHARED_DATA / "libraries" / "ncert" / "class-10"


@pytest.mark.skipif(not NCERT10.is_dir(), reason=f"shared NCERT chapters not found at {NCERT10}")
def test_headings_printed_glyph_by_glyph_read_as_words_in_the_real_chapters():
    from tutor.ingest.chunking import chunk_pages

    ohm = extract_pdf(NCERT10 / "science" / "jesc111.pdf")
    info = detect_chapter(ohm.pages, "jesc111", ohm.headers)
    sections = {c.section for c in chunk_pages(ohm.pages, klass="10", subject="science", file="jesc111.pdf",
                                               chapter=info)}
    assert "11.4 Ohm’s Law" in sections  # printed "11.4 OHM’S LA" five times, then "WWWWW"
    crops = " ".join(p.text for p in extract_pdf(NCERT10 / "social-science" / "jess104.pdf").pages)
    assert "Jute:" in crops and "JJJJJute" not in crops
    assert not re.search(r"([A-Za-z])\1{3,}", crops)  # no letter four times running is left


@pytest.mark.skipif(not NCERT10.is_dir(), reason=f"shared NCERT chapters not found at {NCERT10}")
@pytest.mark.parametrize(("path", "title"), [
    ("social-science/jess404.pdf", "Political Parties"),  # not the book's running header, "Democratic Politics"
    ("social-science/jess103.pdf", "Water Resources"),  # printed "WATER R ESOURCES"
    ("mathematics/jemh110.pdf", "Circles"),  # a one-word header
])
def test_the_real_chapters_are_named_by_their_own_titles(path, title):
    out = extract_pdf(NCERT10 / path)
    assert detect_chapter(out.pages, Path(path).stem, out.headers).title == title
