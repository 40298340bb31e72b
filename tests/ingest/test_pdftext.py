"""Extraction and cleaning: each rule on strings copied from real pypdf output, and the refusal of unusable files.

Literals marked "jesc101 p.N" are pypdf 6 output of NCERT Class 10 Science chapter 1 (page N, 1-based); "jess403"
is the letter-spaced Political Science chapter in ../shared/data/edge-cases; the Hindi line is from a CBSE paper
set in a legacy (non-Unicode) Devanagari font.
"""
from __future__ import annotations

import re

import pytest

from tutor.errors import PdfRefused, TutorError
from tutor.ingest.pdftext import (
    PageText,
    clean_pages,
    collapse_repeats,
    dehyphenate,
    extract_pdf,
    is_mojibake_line,
    join_letter_spaced,
    rejoin_split_words,
    strip_symbols,
    word_counts,
)

from helpers_library import LIGHT_PAGES, encrypt_pdf, make_image_only_pdf, make_pdf

# ---------------------------------------------------------------- faux bold


def test_faux_bold_heading_collapses_to_one_copy():
    # jesc101 p.1
    assert collapse_repeats("Activity 1.1Activity 1.1Activity 1.1Activity 1.1Activity 1.1") == "Activity 1.1"


def test_faux_bold_figure_caption_collapses():
    # the shared README's example of the same quirk on figure captions
    assert collapse_repeats("Figure 7.1(a)Figure 7.1(a)Figure 7.1(a)") == "Figure 7.1(a)"


@pytest.mark.parametrize(("printed", "meant"), [
    ("11.4 OHM’S LA11.4 OHM’S LA11.4 OHM’S LA11.4 OHM’S LA11.4 OHM’S LA WWWWW", "11.4 OHM’S LAW"),  # jesc111 p.5
    ("JJJJJute: It is known as the golden fibre.", "Jute: It is known as the golden fibre."),  # jess104 p.8
    ("HA HAHAHAHAVE YOU OBSERVED", "HA HAVE YOU OBSERVED"),  # jesc101 p.13: a letter pair
    ("HUMAN DEVELOPMENT REPORTTTTT Once", "HUMAN DEVELOPMENT REPORT Once"),  # jess201 p.11: a last letter
    ("MMMMMULTI-PURPOSE R R R R R IVER P P P P P ROJECTS AND W W W W WATER", "MULTI-PURPOSE RIVER PROJECTS AND WATER"),
    ("161616 UUUUUNDERSTANDING E E E CONOMIC D D D EVELOPMENT", "161616 UNDERSTANDING ECONOMIC DEVELOPMENT"),  # jess201
])
def test_faux_bold_of_single_letters_collapses_to_one_copy(printed, meant):
    # NCERT prints some headings glyph by glyph, each glyph several times over, sometimes with spaces between
    assert collapse_repeats(printed) == meant


@pytest.mark.parametrize("text", [
    "100000 people in 1999", "Fill in the blank: ______ is a base.", "Mississippi", "a b c d", "WWW", "See fig. 11.2",
    "AAA battery", "Class III", "a a"])
def test_text_that_merely_repeats_is_left_alone(text):
    assert collapse_repeats(text) == text


def test_faux_bold_inside_a_page_is_collapsed_by_clean_pages():
    cleaned, _, _ = clean_pages(["Activity 1.1Activity 1.1Activity 1.1Activity 1.1Activity 1.1\nClean a magnesium "
                                 "ribbon"])
    assert cleaned[0].splitlines()[0] == "Activity 1.1"


def test_a_word_said_twice_is_not_faux_bold():
    # only three or more copies in a row are faux bold; "that that" and a doubled run are real text
    assert collapse_repeats("He said that that was wrong.") == "He said that that was wrong."
    assert collapse_repeats("Activity 1.1Activity 1.1") == "Activity 1.1Activity 1.1"


# ---------------------------------------------------------------- footers, glyph names, private-use symbols


def test_reprint_footer_is_dropped():
    # jesc101 p.1 ends with this footer; it is on every page of every NCERT chapter
    cleaned, _, _ = clean_pages(["Hold it with a pair of tongs.\nReprint 2025-26"])
    assert cleaned == ["Hold it with a pair of tongs."]


@pytest.mark.parametrize("footer", ["Reprint 2026-27", "Rationalised 2023-24", "Reprint 2025–2026"])
def test_other_footer_years_are_dropped(footer):
    cleaned, _, _ = clean_pages([f"Magnesium burns with a dazzling white flame.\n{footer}"])
    assert footer not in cleaned[0]
    assert cleaned[0] == "Magnesium burns with a dazzling white flame."


def test_a_sentence_mentioning_a_reprint_is_kept():
    line = "The book had a reprint 2025-26 edition with corrections."
    cleaned, _, _ = clean_pages([line])
    assert cleaned == [line]


def test_glyph_name_bullet_is_dropped():
    # jesc101 p.1: NCERT's bullet comes out as the glyph name "/square6"
    assert strip_symbols("/square6 milk is left at room temperature during summers.").strip() == (
        "milk is left at room temperature during summers."
    )
    cleaned, _, _ = clean_pages(["/square6 milk is left at room temperature during summers.\n/square6 grapes get "
                                 "fermented."])
    assert cleaned == ["milk is left at room temperature during summers.\ngrapes get fermented."]


def test_private_use_arrow_parts_are_dropped_and_the_equation_kept():
    # jesc101 p.8: the long reaction arrow is drawn with private-use U+F8E7 pieces around a real "→"
    raw = "CaCO3(s) Heat\uf8e7 →\uf8e7\uf8e7\uf8e7  CaO(s)    +   CO2(g) (1.20)"
    cleaned, _, _ = clean_pages([raw])
    assert not any("\ue000" <= ch <= "\uf8ff" for ch in cleaned[0])
    assert cleaned[0] == "CaCO3(s) Heat → CaO(s) + CO2(g) (1.20)"


def test_a_slash_in_ordinary_text_is_not_a_glyph_name():
    line = "an iron tawa/pan/nail is left exposed to humid atmosphere."
    assert strip_symbols(line) == line


# ---------------------------------------------------------------- words split by a stray space

SPLIT_PAGE = (
    # jesc101 p.2 and p.11, real lines with stray spaces ("bur ns", "fr om", "r eaction")
    "You must have observed that magnesium ribbon bur ns with a\n"
    "dazzling white flame. Magnesium burns in air and burns brightly.\n"
    "copper, fr om copper sulphate solution. This r eaction is known as\n"
    "displacement. Iron displaces copper from the solution, and copper from the ore.\n"
    "This reaction is fast; a reaction like this is common.\n"
    "A chemic al change is a chemical reaction. Write a chemical equation.\n"
    # "in to" is two real words of the document: it must stay as it is, although "into" is a word too
    "Put the ribbon in to the flask. Pour it into water, then into the beaker.\n"
    "Go in to the lab and put it in the tube to heat it."
)


@pytest.fixture(scope="module")
def split_cleaned() -> str:
    cleaned, _, _ = clean_pages([SPLIT_PAGE])
    return cleaned[0]


@pytest.mark.parametrize(
    "split, whole",
    [("bur ns", "burns"), ("fr om", "from"), ("r eaction", "reaction"), ("chemic al", "chemical")],
)
def test_split_word_is_rejoined_when_the_document_uses_the_whole_word(split_cleaned, split, whole):
    assert split not in split_cleaned
    assert whole in re.findall(r"[a-z]+", split_cleaned)


def test_split_word_rejoined_in_place(split_cleaned):
    lines = split_cleaned.splitlines()
    assert lines[0] == "You must have observed that magnesium ribbon burns with a"
    assert lines[2] == "copper, from copper sulphate solution. This reaction is known as"
    assert lines[5] == "A chemical change is a chemical reaction. Write a chemical equation."


def test_two_real_words_are_not_joined(split_cleaned):
    assert "ribbon in to the flask" in split_cleaned
    assert "Go in to the lab" in split_cleaned


def test_split_word_left_alone_when_the_document_never_uses_the_whole_word():
    # "chemic al" with no "chemical" anywhere: no evidence, so no guess
    vocab = word_counts("A chemic al change happens here.")
    assert rejoin_split_words("A chemic al change happens here.", vocab) == "A chemic al change happens here."


def test_a_word_split_the_same_way_every_time_is_mended_by_an_english_word_list():
    # NCERT Class 10 Science, the light chapter (pypdf 7): "mirr ors" three times and "mirrors" elsewhere, so "mirr"
    # and "ors" are words of the document by its own counts; only a list of English words tells them from "in to"
    line = "Convex mirr ors are commonly used as r ear-view (wing) mirr ors in vehicles. Put it in to the flask."
    vocab = word_counts(line + " spherical mirr ors. The mirrors and mirrors. rear rear. into into. in to")
    english = {"convex", "mirror", "are", "commonly", "used", "as", "ear", "rear", "view", "wing", "in", "into", "to",
               "put", "it", "the", "flask", "vehicle"}
    # by the document's counts alone: "r" is no word, so "rear-view" is mended, "mirr ors" is not
    assert rejoin_split_words(line, vocab) == line.replace("r ear-view", "rear-view")
    assert rejoin_split_words(line, vocab, english) == ("Convex mirrors are commonly used as rear-view (wing) mirrors "
                                                        "in vehicles. Put it in to the flask.")


def test_a_word_split_once_is_mended_when_english_has_it_and_neither_half_is_a_word():
    # NCERT Class 10 Mathematics: "horizonta lly" once and "horizontally" nowhere whole; "r ed" beside "blue"
    line = "Search horizonta lly and test it with both r ed and blue litmus, 75 per cent of it."
    vocab = word_counts(line + " per cent. the cent.")
    english = {"search", "horizontally", "and", "test", "it", "with", "both", "red", "blue", "litmus", "of", "per",
               "cent", "percent", "ed"}
    assert rejoin_split_words(line, vocab, english) == (
        "Search horizontally and test it with both red and blue litmus, 75 per cent of it.")
    # without the list, or where the list lacks the whole word, nothing is guessed
    assert rejoin_split_words(line, vocab) == line
    assert rejoin_split_words("a chemic al change", word_counts("a chemic al change"), {"a", "change"}) == (
        "a chemic al change")


def test_split_word_keeps_trailing_punctuation():
    vocab = word_counts("it burns. it burns. bur ns,")
    assert rejoin_split_words("the ribbon bur ns, and", vocab) == "the ribbon burns, and"


# ---------------------------------------------------------------- letter-spaced text


def test_letter_spaced_running_header_is_joined():
    # jess403 p.1: the running header comes out one letter at a time, two spaces between words
    assert join_letter_spaced("G e n d e r ,  R e l i g i o n  a n d  C a s t e ") == "Gender, Religion and Caste"


def test_letter_spaced_body_line_is_joined():
    # jess403 p.2 and p.3
    assert join_letter_spaced("D e m o c ra t i c  Po l i t i c s ") == "Democratic Politics"
    assert join_letter_spaced("T h e s e  a g i t a t i o n s  d e m a n d e d ") == "These agitations demanded"


@pytest.mark.parametrize(
    "line",
    [
        "The gender division tends to be understood as natural and",  # jess403 p.2, ordinary text
        "Vitamin A is in a b c order",  # a few single letters inside a normal line
        "(i) a b c d",
    ],
)
def test_ordinary_line_is_not_letter_joined(line):
    assert join_letter_spaced(line) == line


def test_letter_spaced_line_is_joined_by_clean_pages():
    cleaned, _, _ = clean_pages(["G e n d e r ,  R e l i g i o n  a n d  C a s t e \nChapter 3\nOverview of the "
                                 "chapter."])
    assert cleaned[0].splitlines()[0] == "Gender, Religion and Caste"


# ---------------------------------------------------------------- hyphenation across lines


def test_hyphenated_word_at_line_end_is_joined_when_the_document_uses_it_whole():
    # jess203 p.12: "higher in-" / "comes and many people could then"; the chapter says "incomes" elsewhere
    text = "This would lead to higher in-\ncomes and many people could then\nspend more. Their incomes rise."
    out = dehyphenate(text, word_counts(text))
    assert "in-" not in out
    assert " ".join(out.split()) == (
        "This would lead to higher incomes and many people could then spend more. Their incomes rise."
    )


def test_real_compound_broken_at_line_end_keeps_its_hyphen():
    # jesc102 p.6: "non-" / "metallic"; the document writes "non" and "metallic" as words of their own
    text = (
        "the reaction between a base and an acid, we can conclude that non-\n"
        "metallic oxides are acidic. Some non metals and metallic oxides are basic.\n"
        "A non-metal such as sulphur forms metallic-looking crystals? No: non metallic ones."
    )
    out = dehyphenate(text, word_counts(text))
    assert "non-metallic" in out
    assert "nonmetallic" not in out


def test_hyphenated_word_joined_by_clean_pages_across_the_line_break():
    cleaned, _, _ = clean_pages(["Metals react with acids to give hydro-\ngen gas. The hydrogen gas burns with a pop."])
    assert "hydrogen gas. The hydrogen" in " ".join(cleaned[0].split())
    assert "hydro-" not in cleaned[0]


def test_word_broken_twice_at_line_ends_is_still_joined():
    # jess203 p.12, three consecutive real lines; "industries" is never printed whole on this page
    page = (
        "do business, set up small-scale indus-\n"
        "tries etc. They could set up new indus-\n"
        "tries or trade in goods. Cheap and"
    )
    cleaned, _, _ = clean_pages([page])
    assert "indus-tries" not in cleaned[0]
    assert " ".join(cleaned[0].split()).count("industries") == 2


# ---------------------------------------------------------------- running headers (document-wide)


def _chapter_pages(n: int = 5) -> list[str]:
    bodies = [
        "Chemical reactions change substances into new substances.",
        "A balanced equation has equal numbers of atoms on both sides.",
        "In a combination reaction two substances form a single product.",
        "Decomposition reactions are opposite to combination reactions.",
        "Oxidation is the gain of oxygen by a substance during a reaction.",
        "Rancidity is slowed by keeping food in airtight containers.",
    ]
    return [
        f"{2 + i}\nScience\n{bodies[i]}\nSee Table 1.{i + 1} for 25 mL of water.\n{bodies[(i + 1) % 6]} (continued)\n"
        "Chemical Reactions and Equations\nReprint 2025-26"
        for i in range(n)
    ]


def test_running_header_and_page_number_lines_are_removed():
    cleaned, _, headers = clean_pages(_chapter_pages())
    for i, page in enumerate(cleaned):
        lines = page.splitlines()
        assert "Science" not in lines
        assert "Chemical Reactions and Equations" not in lines
        assert not any(ln.strip().isdigit() for ln in lines)
        assert lines[0] == _chapter_pages()[i].splitlines()[2]  # the body line now opens the page
        assert f"See Table 1.{i + 1} for 25 mL of water." in lines  # digits inside body text are kept


def test_removed_running_headers_are_returned_with_digits_as_hash():
    _, _, headers = clean_pages(_chapter_pages())
    assert "Chemical Reactions and Equations" in headers
    assert "Science" in headers
    assert "#" in headers


def test_headers_are_not_guessed_from_too_few_pages():
    # three pages are too few to tell a running header from a repeated line
    cleaned, _, headers = clean_pages(_chapter_pages(3))
    assert headers == []
    assert all("Chemical Reactions and Equations" in p for p in cleaned)


def test_a_line_repeated_in_the_middle_of_pages_is_not_a_header():
    pages = [f"Top line {i} is unique\nsecond {i}\nAcids turn blue litmus red.\nmiddle {i}\nend {i}\nlast {i} "
             f"x" for i in range(6)]
    cleaned, _, headers = clean_pages(pages)
    assert "Acids turn blue litmus red." not in headers
    assert all("Acids turn blue litmus red." in p for p in cleaned)


# ---------------------------------------------------------------- legacy-font (mojibake) lines

HINDI_LEGACY = "H¥$n`m Om±M H$a b| {H$ Bg àíZ-nÌ _| _w{ÐV n¥ð> 15  h¢Ÿ&"


def test_legacy_font_hindi_line_is_mojibake():
    assert is_mojibake_line(HINDI_LEGACY)


@pytest.mark.parametrize(
    "line",
    [
        "Read the following instructions very carefully and strictly follow them :",
        "NaOH(aq) + HCl(aq) → NaCl(aq) + H2O(l)",
        "Ca(OH)2(aq) + CO2(g) → CaCO3(s) + H2O(l)",
        "2Pb(NO3)2(s) Heat → 2PbO(s) + 4NO2(g) + O2(g) (1.21)",  # jesc101 p.9 after cleaning
        "It costs $5 and the set {a, b} has ~2 members.",
    ],
)
def test_english_and_chemistry_lines_are_not_mojibake(line):
    assert not is_mojibake_line(line)
    assert not is_mojibake_line(line, loose=True)


def test_a_page_of_legacy_font_lines_is_emptied_and_counted():
    page = "\n".join([HINDI_LEGACY, "_wI-n¥ð >na Adí` {bIo§ &", "narjmWu àíZ-nÌ H$moS> >H$mo CÎma-nwpñVH$m Ho$",
                      "Roll No."])
    cleaned, dropped, _ = clean_pages([page, "SCIENCE\nAll questions are compulsory."])
    assert dropped == [3, 0]
    assert cleaned[0] == ""  # "Roll No." alone is a fragment of a page that is mostly mojibake
    assert cleaned[1] == "SCIENCE\nAll questions are compulsory."


# ---------------------------------------------------------------- whole files: accepted or refused, and why


def test_tiny_text_pdf_is_accepted_with_one_based_pages(tmp_path):
    pdf = make_pdf(tmp_path / "light.pdf", LIGHT_PAGES)
    out = extract_pdf(pdf)
    assert out.file == "light.pdf"
    assert out.n_pages == 2
    assert [p.page for p in out.pages] == [1, 2]
    assert all(isinstance(p, PageText) for p in out.pages)
    assert "This bending of light is called refraction of light." in out.pages[0].text
    assert "The power of a lens is measured in dioptres." in out.pages[1].text
    assert out.skipped == []


def test_display_name_is_used_in_the_result(tmp_path):
    pdf = make_pdf(tmp_path / "upload-1234.pdf", LIGHT_PAGES)
    assert extract_pdf(pdf, display_name="Light.pdf").file == "Light.pdf"


def test_empty_page_in_the_middle_is_skipped_and_named(tmp_path):
    pdf = make_pdf(tmp_path / "gap.pdf", [LIGHT_PAGES[0], "", LIGHT_PAGES[1]])
    out = extract_pdf(pdf)
    assert [p.page for p in out.pages] == [1, 3]
    assert [s.page for s in out.skipped] == [2]
    assert "page 2" in out.skipped[0].reason


def _refusal(path, display_name=None) -> PdfRefused:
    with pytest.raises(PdfRefused) as exc:
        extract_pdf(path, display_name=display_name)
    assert isinstance(exc.value, TutorError)
    return exc.value


def test_encrypted_pdf_is_refused(tmp_path):
    plain = make_pdf(tmp_path / "plain.pdf", LIGHT_PAGES)
    locked = encrypt_pdf(plain, tmp_path / "locked-chapter.pdf")
    err = _refusal(locked)
    assert err.code == "encrypted"
    assert err.file == "locked-chapter.pdf"
    assert str(err).startswith("locked-chapter.pdf: ")
    assert "password" in str(err)


def test_non_pdf_named_pdf_is_refused(tmp_path):
    fake = tmp_path / "notes.pdf"
    fake.write_text("These are my notes about refraction, saved as text.\n")
    err = _refusal(fake)
    assert err.code == "not_pdf"
    assert "notes.pdf" in str(err)


def test_zero_byte_file_is_refused(tmp_path):
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    err = _refusal(empty)
    assert err.code == "not_pdf"
    assert "empty.pdf" in str(err)


def test_truncated_pdf_is_refused_as_damaged(tmp_path):
    pdf = make_pdf(tmp_path / "whole.pdf", LIGHT_PAGES)
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(pdf.read_bytes()[:200])
    err = _refusal(cut)
    assert err.code == "corrupt"
    assert "cut.pdf" in str(err) and "damaged" in str(err)


def test_missing_file_is_refused_as_unreadable(tmp_path):
    err = _refusal(tmp_path / "gone.pdf")
    assert err.code == "unreadable"
    assert "gone.pdf" in str(err)


def test_blank_pdf_is_refused(tmp_path):
    err = _refusal(make_pdf(tmp_path / "blank.pdf", ["", ""]))
    assert err.code == "blank"
    assert "blank.pdf" in str(err)


def test_image_only_pdf_is_refused_as_having_no_text_layer(tmp_path):
    err = _refusal(make_image_only_pdf(tmp_path / "scan.pdf"))
    assert err.code == "no_text_layer"
    assert "scan.pdf" in str(err) and "OCR" in str(err)


def test_refusal_names_the_display_name_not_the_temp_file(tmp_path):
    fake = tmp_path / "tmp8f3a.pdf"
    fake.write_bytes(b"GIF89a not a pdf")
    err = _refusal(fake, display_name="Chapter 3.pdf")
    assert err.file == "Chapter 3.pdf"
    assert "tmp8f3a" not in str(err)


def test_bare_page_numbers_at_page_edges_are_dropped_even_in_a_short_document():
    pages = ["2.3 Credit\nConsider a potter who borrows money.\n1", "2\nHe repays the loan after the festival.\n2"]
    cleaned, _, _ = clean_pages(pages)
    assert cleaned[0].splitlines()[-1] == "Consider a potter who borrows money."
    assert cleaned[1].splitlines() == ["He repays the loan after the festival."]


def test_pdf_refused_survives_a_process_boundary():
    import pickle

    e = pickle.loads(pickle.dumps(PdfRefused("a.pdf", "is blank: no page has any text", "blank")))
    assert (e.file, e.code, str(e)) == ("a.pdf", "blank", "a.pdf: is blank: no page has any text")


def _bomb_stream():
    import zlib

    from pypdf.generic import NameObject, StreamObject

    stream = StreamObject()
    stream._data = zlib.compress(b"BT ET " * 14_000_000, 9)  # 84 MB of operators in a 120 KB file
    stream[NameObject("/Filter")] = NameObject("/FlateDecode")
    return stream


def test_a_compression_bomb_drawn_as_a_form_is_named_not_called_blank(tmp_path):
    """Issue 35: a flate bomb inside a form XObject the page draws was refused as "is blank"."""
    from pypdf import PdfWriter
    from pypdf.generic import ArrayObject, DictionaryObject, NameObject, NumberObject, StreamObject

    writer = PdfWriter()
    page = writer.add_blank_page(200, 200)
    form = _bomb_stream()
    form.update({NameObject("/Type"): NameObject("/XObject"), NameObject("/Subtype"): NameObject("/Form"),
                 NameObject("/BBox"): ArrayObject([NumberObject(v) for v in (0, 0, 200, 200)])})
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/XObject"): DictionaryObject({NameObject("/Fm0"): writer._add_object(form)})})
    draw = StreamObject()
    draw._data = b"q /Fm0 Do Q"
    page[NameObject("/Contents")] = writer._add_object(draw)
    path = tmp_path / "form-bomb.pdf"
    with open(path, "wb") as fh:
        writer.write(fh)
    with pytest.raises(PdfRefused) as e:
        extract_pdf(path)
    assert e.value.code == "too_large" and "compression bomb" in e.value.cause


def test_a_bomb_page_inside_a_real_chapter_is_left_out_by_name(tmp_path):
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import NameObject

    text = make_pdf(tmp_path / "text.pdf", ["Light travels in straight lines and bends when it enters water."] * 2)
    writer = PdfWriter()
    for p in PdfReader(text).pages:
        writer.add_page(p)
    bomb = writer.add_blank_page(200, 200)
    bomb[NameObject("/Contents")] = writer._add_object(_bomb_stream())
    path = tmp_path / "chapter.pdf"
    with open(path, "wb") as fh:
        writer.write(fh)
    got = extract_pdf(path)
    assert [p.page for p in got.pages] == [1, 2]
    assert [(s.page, "compression bomb" in s.reason) for s in got.skipped] == [(3, True)]


def test_a_compression_bomb_is_refused_as_too_large_not_blank(tmp_path):
    from pypdf import PdfWriter
    from pypdf.generic import NameObject

    writer = PdfWriter()
    page = writer.add_blank_page(200, 200)
    page[NameObject("/Contents")] = writer._add_object(_bomb_stream())
    path = tmp_path / "bomb.pdf"
    with open(path, "wb") as fh:
        writer.write(fh)
    with pytest.raises(PdfRefused) as e:
        extract_pdf(path)
    assert e.value.code == "too_large" and "compression bomb" in e.value.cause
