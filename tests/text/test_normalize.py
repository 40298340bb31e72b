"""Normalisation for matching and for embedding: every rule on real strings, idempotence, and display left alone.

Literals marked "lehh103 p.N" are pypdf 7.1 output of NCERT Class 12 Home Science chapter 3 in Hindi
(../shared/data/libraries/ncert-bilingual/class-12/home-science/lehh103-hi.pdf, page N, 1-based), copied with
their invisible characters written as escapes; "lehe103 p.N" is the English twin. The integration test at the end
re-extracts that PDF and checks that the literals are still there (it skips where the shared data is absent).
Persian and Arabic strings are written here: typed-keyboard forms against what a Persian reader would type.
"""
from __future__ import annotations

import unicodedata

import pytest
from helpers_paths import SHARED_DATA

from tutor.text.normalize import normalize_for_embedding, normalize_for_matching

HINDI_PDF = (SHARED_DATA / "libraries" / "ncert-bilingual"
             / "class-12" / "home-science" / "lehh103-hi.pdf")

# ---------------------------------------------------------------- real strings from the NCERT PDFs
P1_OBJECTIVES = "अधिगम उद्देश्\u200dय"  # lehh103 p.1, first line: a ZWJ between virama and य
P2_HEADER = "47 इकाई  II  पोषण,  खा्\u1255  सवज्ान  औि  प्रौ्\u1255ोसगकी"  # lehh103 p.2 running header
P2_WEIGHT = ("उनकया भयार 2500 g \u200dयया 2.5 kg सदे कम हो\u200dतया है। \u200dयदे धििु इस अक्म\u200dतया कदे  "
             "सयार् जी्\u1259न प्यारंभ कर\u200dतदे हैं ")  # lehh103 p.2
P2_ADULT = "प्रौढ़"  # lehh103 p.2: ढ + combining nukta U+093C
P2_GROW = "बढ़"  # lehh103 p.2
P2_ZINC = "धजं़क,"  # lehh103 p.2: "ज़िंक" with the nukta extracted after the anusvara (glyph-order damage)
P10_CAPTION = "और नारंगी रंग के  फल तथा सच\u200dज\u200dि़याँ "  # lehh103 p.10, a figure caption
EN_PEM = "a) Protein- Energy Malnutrition(PEM) : Can be found in every society, even "  # lehe103 p.4
EN_LIGATURE = "speciﬁc nutrient and "  # lehe103 p.11: pypdf gives the "ﬁ" ligature U+FB01
FOOTER = "Reprint 2026-27"  # every page of both PDFs

REAL_DEVANAGARI = [P1_OBJECTIVES, P2_HEADER, P2_WEIGHT, P2_ADULT, P2_GROW, P2_ZINC, P10_CAPTION]

# ---------------------------------------------------------------- Persian and Arabic strings
ARABIC_KEYBOARD = "كتاب علي"  # Arabic kaf U+0643 and yeh U+064A
PERSIAN_KEYBOARD = "کتاب علی"  # Persian keheh U+06A9 and farsi yeh U+06CC
WANT_ZWNJ = "می\u200cخواهم"  # "I want", written correctly with a zero-width non-joiner
WANT_NO_ZWNJ = "میخواهم"  # the same word typed without it

ALL_SAMPLES = REAL_DEVANAGARI + [EN_PEM, EN_LIGATURE, FOOTER, ARABIC_KEYBOARD, PERSIAN_KEYBOARD, WANT_ZWNJ,
                                 "۱۴۰۲", "٢٠٢٣", "२०२६", "ﻛﺘﺎﺏ", "مدرسة", "كِتَابٌ", "کتـــاب", "۲٫۵ کیلو",
                                 "न\u093c", "\u0929", "पाँच", "", "   "]


# ---------------------------------------------------------------- Unicode forms

def test_nfkc_equals_nfc_on_every_devanagari_code_point_so_matching_cannot_break_conjuncts():
    blocks = [range(0x0900, 0x0980), range(0xA8E0, 0xA900)]
    changed = [hex(c) for b in blocks for c in b
               if unicodedata.normalize("NFKC", chr(c)) != unicodedata.normalize("NFC", chr(c))]
    assert changed == []
    # and on the real extracted text the conjuncts and vowel signs come through (only ZWJ and punctuation go)
    assert normalize_for_matching("प्रौ्\u1255ोसगकी") == "प्रौ्\u1255ोसगकी"


def test_nfkc_unfolds_the_fi_ligature_of_the_english_pdf_for_matching_only():
    assert normalize_for_matching(EN_LIGATURE) == "specific nutrient and"
    assert "ﬁ" in normalize_for_embedding(EN_LIGATURE)  # NFC keeps it: the embedding side is the safe subset


def test_arabic_presentation_forms_from_pdfs_become_ordinary_letters():
    assert normalize_for_matching("ﻛﺘﺎﺏ") == normalize_for_matching("کتاب") == "کتاب"


def test_latin_with_combining_accent_equals_precomposed():
    assert normalize_for_matching("Cafe\u0301") == normalize_for_matching("café") == "café"
    assert normalize_for_embedding("Cafe\u0301") == "Café"


# ---------------------------------------------------------------- Devanagari nukta

@pytest.mark.parametrize("precomposed, pdf_form", [
    ("प्रौ\u095d", P2_ADULT),  # ढ़ U+095D typed, ढ + U+093C in the PDF
    ("ब\u095d", P2_GROW),
    ("\u095bिंक", "ज\u093cिंक"),  # ज़िंक (zinc) typed both ways
])
def test_precomposed_and_combining_nukta_match(precomposed, pdf_form):
    assert precomposed != pdf_form  # they differ as code points
    assert normalize_for_matching(precomposed) == normalize_for_matching(pdf_form)
    assert normalize_for_embedding(precomposed) == normalize_for_embedding(pdf_form)


def test_every_nukta_letter_ends_as_base_plus_nukta():
    precomposed = "\u0958\u0959\u095a\u095b\u095c\u095d\u095e\u095f\u0929\u0931\u0934"  # क़ ख़ ग़ ज़ ड़ ढ़ फ़ य़ ऩ ऱ ऴ
    out = normalize_for_matching(precomposed)
    assert out.count("\u093c") == len(precomposed)
    assert not set(out) & set(precomposed)
    assert normalize_for_matching("न\u093c") == normalize_for_matching("\u0929") == "न\u093c"


def test_glyph_order_damage_is_not_repaired_by_normalisation():
    # lehh103 p.2 extracts ज़िंक as "धजं़क": the i-sign comes out as ध before the consonant and the nukta after the
    # anusvara. Normalisation only unifies spellings of the same letters; it must not guess at damaged ones.
    assert normalize_for_matching(P2_ZINC) == "धजं\u093cक"
    assert normalize_for_matching(P2_ZINC) != normalize_for_matching("ज़िंक")


def test_candrabindu_and_anusvara_fold_together_for_matching_only():
    assert normalize_for_matching("पाँच") == normalize_for_matching("पांच") == "पांच"
    assert normalize_for_matching(P10_CAPTION).endswith("सचजि\u093cयां")
    assert normalize_for_embedding("पाँच") == "पाँच"


# ---------------------------------------------------------------- zero-width characters

def test_zwj_of_the_hindi_pdf_is_removed_so_typed_hindi_matches():
    assert "\u200d" in P1_OBJECTIVES
    typed = "अधिगम उद्देश्य"
    assert normalize_for_matching(P1_OBJECTIVES) == normalize_for_matching(typed) == typed
    assert normalize_for_embedding(P1_OBJECTIVES) == typed


def test_persian_zwnj_is_removed_for_matching_and_embedding():
    assert normalize_for_matching(WANT_ZWNJ) == normalize_for_matching(WANT_NO_ZWNJ) == "میخواهم"
    assert normalize_for_embedding(WANT_ZWNJ) == "میخواهم"
    # a space is a word boundary, not a joiner: "می خواهم" stays two tokens
    assert normalize_for_matching("می خواهم") == "می خواهم"


def test_soft_hyphen_and_direction_marks_are_removed():
    assert normalize_for_matching("mal\u00adnutrition") == "malnutrition"
    assert normalize_for_matching("\u200fکتاب\u200e") == "کتاب"
    assert normalize_for_embedding("mal\u00adnutrition \u200fکتاب") == "malnutrition کتاب"


# ---------------------------------------------------------------- Arabic-script letter variants

def test_arabic_keyboard_letters_match_persian_ones():
    assert ARABIC_KEYBOARD != PERSIAN_KEYBOARD
    assert normalize_for_matching(ARABIC_KEYBOARD) == normalize_for_matching(PERSIAN_KEYBOARD) == PERSIAN_KEYBOARD


@pytest.mark.parametrize("variant, persian", [
    ("مدرسة", "مدرسه"),  # teh marbuta
    ("موسیقى", "موسیقی"),  # alef maksura
    ("خانۀ من", "خانه من"),  # heh with yeh above
    ("أحمد", "احمد"),  # alef with hamza
    ("كِتَابٌ", "کتاب"),  # harakat
    ("کتـــاب", "کتاب"),  # tatweel
])
def test_persian_letter_variants_fold(variant, persian):
    assert normalize_for_matching(variant) == normalize_for_matching(persian)


def test_alef_madda_is_kept_as_its_own_persian_letter():
    assert normalize_for_matching("آب") == "آب" != normalize_for_matching("اب")


def test_letter_variants_are_left_alone_on_the_embedding_side():
    assert normalize_for_embedding(ARABIC_KEYBOARD) == ARABIC_KEYBOARD


def test_arabic_script_folds_never_touch_devanagari_or_latin():
    for s in REAL_DEVANAGARI + [EN_PEM]:
        folded = normalize_for_matching(s)
        assert not any("\u0600" <= ch <= "\u06ff" for ch in folded)


# ---------------------------------------------------------------- digits

@pytest.mark.parametrize("written, ascii_", [("۱۴۰۲", "1402"), ("٢٠٢٣", "2023"), ("२०२६", "2026")])
def test_persian_arabic_indic_and_devanagari_digits_become_ascii(written, ascii_):
    assert normalize_for_matching(written) == ascii_
    assert normalize_for_embedding(written) == written  # kept as written on the embedding side


def test_a_devanagari_year_matches_the_pdf_footer():
    assert normalize_for_matching(FOOTER) == "reprint 2026 27"
    assert normalize_for_matching("२०२६-२७") in normalize_for_matching(FOOTER)


def test_decimal_separators_inside_numbers_are_kept():
    assert "2.5 kg" in normalize_for_matching(P2_WEIGHT)
    assert normalize_for_matching("۲٫۵ کیلو") == "2.5 کیلو"
    assert normalize_for_matching("1,000 children.") == "1,000 children"


# ---------------------------------------------------------------- case and punctuation (lexical side only)

def test_case_and_punctuation_fold_on_the_english_pdf_line():
    assert normalize_for_matching(EN_PEM) == "a protein energy malnutrition pem can be found in every society even"
    assert normalize_for_matching("What is PEM?") == "what is pem"
    assert normalize_for_embedding(EN_PEM) == EN_PEM.strip()


def test_danda_comma_and_case_fold_on_the_hindi_pdf_lines():
    assert normalize_for_matching(P2_HEADER) == "47 इकाई ii पोषण खा्\u1255 सवज्ान औि प्रौ्\u1255ोसगकी"
    out = normalize_for_matching(P2_WEIGHT)
    assert "।" not in out and "\u200d" not in out
    assert out.startswith("उनकया भयार 2500 g यया 2.5 kg सदे कम होतया है यदे")


def test_arabic_and_devanagari_punctuation_fold():
    assert normalize_for_matching("کتاب، دفتر؛ قلم؟") == "کتاب دفتر قلم"
    assert normalize_for_matching("पोषण क्या है॥") == "पोषण क्या है"


def test_embedding_side_collapses_whitespace_only():
    assert normalize_for_embedding(P2_HEADER) == "47 इकाई II पोषण, खा्\u1255 सवज्ान औि प्रौ्\u1255ोसगकी"


# ---------------------------------------------------------------- idempotence and display

@pytest.mark.parametrize("s", ALL_SAMPLES)
def test_normalising_twice_equals_once(s):
    once = normalize_for_matching(s)
    assert normalize_for_matching(once) == once
    e_once = normalize_for_embedding(s)
    assert normalize_for_embedding(e_once) == e_once


def test_empty_and_blank_text():
    assert normalize_for_matching("") == normalize_for_matching("  \u200c ") == ""
    assert normalize_for_embedding("") == normalize_for_embedding(" \n\t") == ""


def test_source_text_for_display_and_citation_is_unchanged():
    from tutor.ingest.pdftext import PageText

    page = PageText(page=2, text=P2_WEIGHT)
    before = "".join(page.text)  # an independent copy of the characters
    matched = normalize_for_matching(page.text)
    embedded = normalize_for_embedding(page.text)
    assert page.text == before == P2_WEIGHT
    assert "\u200d" in page.text and "।" in page.text  # the original characters are all still there
    assert matched != page.text and embedded != page.text  # new strings: callers keep both


# ---------------------------------------------------------------- integration: the real Hindi PDF

@pytest.mark.slow
@pytest.mark.skipif(not HINDI_PDF.is_file(), reason=f"Hindi NCERT PDF not found at {HINDI_PDF} (../shared/data)")
def test_rules_hold_on_every_page_of_the_hindi_pdf():
    from pypdf import PdfReader

    pages = [p.extract_text() or "" for p in PdfReader(HINDI_PDF).pages]
    text = "\n".join(pages)
    for literal in (P1_OBJECTIVES, P2_HEADER.split(" ", 1)[1], P2_ADULT, P2_GROW, P2_ZINC, FOOTER):
        assert literal in text, f"literal no longer in pypdf output: {literal!r}"
    assert P2_WEIGHT in pages[1] and P10_CAPTION in pages[9]
    composed_nukta = set("\u0958\u0959\u095a\u095b\u095c\u095d\u095e\u095f\u0929\u0931\u0934")
    for n, page in enumerate(pages, 1):
        m = normalize_for_matching(page)
        e = normalize_for_embedding(page)
        assert normalize_for_matching(m) == m, f"page {n}"
        assert normalize_for_embedding(e) == e, f"page {n}"
        assert not any(unicodedata.category(ch) == "Cf" for ch in m + e), f"page {n}"
        assert not composed_nukta & set(m + e), f"page {n}"
        assert not any(unicodedata.category(ch) == "Nd" and not ch.isascii() for ch in m), f"page {n}"


def test_a_heading_in_capitals_is_title_cased_without_capitalising_after_an_apostrophe():
    from tutor.text.normalize import title_case

    assert title_case("OHM’S LAW") == "Ohm’s Law"  # str.title gives "Ohm’S Law"
    assert title_case("INDIA'S RIVER PROJECTS (PART 2)") == "India's River Projects (Part 2)"
    assert title_case("SECTORS OF THE INDIAN ECONOMY") == "Sectors of the Indian Economy"
    assert title_case("THE RISE OF NATIONALISM IN EUROPE") == "The Rise of Nationalism in Europe"
