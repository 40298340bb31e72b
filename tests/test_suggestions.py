"""What a refusal offers to ask instead (tutor/suggestions.py): only places that share a word with the question, none
after an off-topic question, headings mended of the PDF's letter-spacing, each with the question its button asks."""
from __future__ import annotations

from tutor.reasons import Reason
from tutor.suggestions import clean_heading, join_letter_spacing, question_for, suggest_instead
from tutor.text.terms import TermStats
from tutor.types import Chunk, Hit, Suggestion

# a shelf's chunks: the mended words are its own, used often; the split heading is on it too, once, as PDFs print it
STATS = TermStats([
    "11.5 FA CTORS ON WHICH THE RESIST ANCE OF A CONDUCTOR DEPENDS",
    "2.3.1 IMPOR TANCE OF pH IN EVER YDAY LIFE",
    "3.2 CHEMIC AL PROPERTIES OF MET ALS",
    *["The resistance of a conductor depends on factors such as its length. Metals resist the current less.",
      "A chemical equation shows the metals and salts in a glass prism; plants and everyday life.",
      "The importance of pH in everyday life: plants grow best at the top of the soil, and metals corrode.",
      "Light goes into a glass prism and comes out of it; the scattering of light. Acids have a sour taste."] * 3,
])


def test_letter_spaced_words_are_joined_where_the_shelf_knows_the_word():
    assert join_letter_spacing("11.5 Fa Ctors on Which the Resist Ance of a", STATS) == \
        "11.5 Factors on Which the Resistance of a"
    assert join_letter_spacing("1.1 Chemic Al Equations", STATS) == "1.1 Chemical Equations"
    assert join_letter_spacing("2.3.1 Impor tance of pH in Ever yday Life", STATS) == \
        "2.3.1 Importance of pH in Everyday Life"
    assert join_letter_spacing("3.2 Chemic Al Properties of Met Als", STATS) == "3.2 Chemical Properties of Metals"
    assert join_letter_spacing("6.2 Coordination in Pl Ants", STATS) == "6.2 Coordination in Plants"
    assert join_letter_spacing("2.2 What Do All Acids and All Bases Ha Ve", STATS) == \
        "2.2 What Do All Acids and All Bases Have"  # "have" is a stopword: on no shelf's list of terms
    assert join_letter_spacing("3.4.5 Extracting Metals towards the T op", STATS) == \
        "3.4.5 Extracting Metals towards the Top"
    # two words that are each words stay apart even where together they make one ("in to" is not "into")
    assert join_letter_spacing("Light goes in to the prism", STATS) == "Light goes in to the prism"


def test_a_cut_off_heading_ends_with_an_ellipsis():
    assert clean_heading("11.5 Fa Ctors on Which the Resist Ance of a", STATS) == \
        "11.5 Factors on Which the Resistance …"
    assert clean_heading("10.6 Sc Attering of Light", STATS) == "10.6 Scattering of Light"


def test_the_button_asks_about_the_section_by_its_name():
    assert question_for(Suggestion("Electricity", "11.5 Factors on Which the Resistance …", 9, 0.5)) == \
        "What does the book say about Factors on Which the Resistance?"
    assert question_for(Suggestion("Light and Refraction", "", 1, 0.5)) == \
        "What does the book say about Light and Refraction?"


def _hit(chapter: str, section: str, text: str, score: float) -> Hit:
    chunk = Chunk(chunk_id=f"{chapter}-{section}", klass="10", subject="social-science", chapter=chapter,
                  chapter_code="", file="f.pdf", page_start=3, page_end=3, section_kind="section", section=section,
                  text=text)
    return Hit(chunk, score, 0)


HITS = [
    _hit("Political Parties", "6.1 Why Do We Need Parties", "Parties contest elections and form governments.", 0.41),
    _hit("Money and Credit", "2.3 Loan Activities", "Banks give loans at an interest rate to borrowers.", 0.39),
    _hit("Money and Credit", "2.3 Loan Activities", "Borrowers pay the interest rate on each loan.", 0.37),
    _hit("Money and Credit", "2.1 Money", "Money acts as a medium of exchange between people.", 0.30),
]


def test_a_suggestion_shares_a_word_with_the_question():
    got = suggest_instead("What is the repo rate of the bank?", HITS, Reason.LOW_CONFIDENCE, STATS)
    # Political Parties is nearest by vectors but shares no word with the question: beside the point, left out
    assert [(s.chapter, s.section) for s in got] == [("Money and Credit", "2.3 Loan Activities")]
    assert got[0].score == 0.39


def test_no_suggestion_after_a_question_about_nothing_on_the_shelf():
    assert suggest_instead("What is the interest rate of the bank?", HITS, Reason.OFF_TOPIC, STATS) == ()
    assert suggest_instead("What is the interest rate of the bank?", HITS, Reason.WRONG_SUBJECT, STATS) == ()
    assert suggest_instead("What is the interest rate of the bank?", HITS, Reason.NOT_ANSWERABLE, STATS)
