"""Chunking: chapter metadata, section kinds, and sentence-aware chunks that keep every sentence's page.

All pages are PageText lists made here; the wording follows NCERT Class 10 Science chapter 1 (jesc101).
"""
from __future__ import annotations

import json

import pytest

from tutor.ingest.chunking import (
    BODY,
    EXERCISE,
    QUESTION_BOX,
    ChapterInfo,
    chunk_pages,
    detect_chapter,
    is_asking,
    kind_counts,
    mark_question_lists,
)
from tutor.ingest.pdftext import PageText
from tutor.types import Chunk

INFO = ChapterInfo(title="Chemical Reactions and Equations", code="jesc101", number="1")


def _chunks(pages, max_words=140, **kw):
    return chunk_pages(pages, klass="10", subject="science", file="jesc101.pdf", chapter=INFO, max_words=max_words,
                       **kw)


def _page_of_sentence(chunks, needle: str) -> set[int]:
    return {p for c in chunks for t, p in c.sentence_texts() if needle in t}


# ---------------------------------------------------------------- page bookkeeping

BODY_PAGES = [
    PageText(1, "Milk left at room temperature turns sour. Iron articles rust in humid air.\nGrapes get fermented in "
                "summer."),
    PageText(2, "Magnesium ribbon burns with a dazzling white flame. It changes into a white powder.\nThis powder is "
                "magnesium oxide."),
    PageText(3, "Zinc granules react with dilute acid. Hydrogen gas is evolved.\nThe flask becomes warm."),
]


def test_every_sentence_carries_the_page_it_came_from():
    chunks = _chunks(BODY_PAGES, max_words=12)
    assert _page_of_sentence(chunks, "Milk left at room temperature") == {1}
    assert _page_of_sentence(chunks, "Grapes get fermented") == {1}
    assert _page_of_sentence(chunks, "Magnesium ribbon burns") == {2}
    assert _page_of_sentence(chunks, "magnesium oxide") == {2}
    assert _page_of_sentence(chunks, "Hydrogen gas is evolved") == {3}
    assert _page_of_sentence(chunks, "The flask becomes warm") == {3}


def test_sentence_offsets_point_into_the_chunk_text():
    for c in _chunks(BODY_PAGES, max_words=12):
        assert c.sentences, c
        for (s, e, page), (text, page2) in zip(c.sentences, c.sentence_texts()):
            assert c.text[s:e] == text and page == page2
            assert c.page_start <= page <= c.page_end
        # the sentences tile the text, one space apart, in order
        assert " ".join(t for t, _ in c.sentence_texts()) == c.text


def test_chunk_spanning_a_page_break_has_both_pages():
    chunks = _chunks(BODY_PAGES, max_words=140)
    assert len(chunks) == 1
    c = chunks[0]
    assert (c.page_start, c.page_end) == (1, 3)
    assert sorted({p for _, p in c.sentence_texts()}) == [1, 2, 3]


def test_small_chunks_span_exactly_the_pages_of_their_sentences_and_ids_are_sequential():
    chunks = _chunks(BODY_PAGES, max_words=12)
    assert [c.chunk_id for c in chunks] == [f"jesc101:{i:04d}" for i in range(len(chunks))]
    for c in chunks:
        pages = [p for _, p in c.sentence_texts()]
        assert (c.page_start, c.page_end) == (min(pages), max(pages))
    assert any(c.page_start < c.page_end for c in chunks)  # at least one straddles a page break
    assert all(c.klass == "10" and c.subject == "science" and c.file == "jesc101.pdf" for c in chunks)
    assert all(c.chapter == INFO.title and c.chapter_code == "jesc101" for c in chunks)


def test_sentence_running_over_a_page_break_stays_whole_with_its_first_page():
    pages = [
        PageText(1, "We have already learnt about physical and chemical changes of matter"),
        PageText(2, "in our previous classes. Whenever a chemical change occurs, a reaction has taken place."),
    ]
    sents = _chunks(pages)[0].sentence_texts()
    assert sents[0] == ("We have already learnt about physical and chemical changes of matter in our previous "
                        "classes.", 1)


# ---------------------------------------------------------------- chunk size


def _long_pages() -> list[PageText]:
    sentences = [
        f"Sentence {i} says that reaction number {i} gives off heat and light when it happens in the open air."
        for i in range(40)
    ]
    return [PageText(1, " ".join(sentences[:20])), PageText(2, " ".join(sentences[20:]))]


@pytest.mark.parametrize("max_words", [25, 60, 140])
def test_chunks_are_bounded_by_max_words(max_words):
    chunks = _chunks(_long_pages(), max_words=max_words)
    assert len(chunks) > 1
    for c in chunks:
        assert len(c.text.split()) <= max_words, (len(c.text.split()), c.text[:80])


def test_consecutive_chunks_share_one_sentence_and_lose_none():
    chunks = _chunks(_long_pages(), max_words=60)
    for a, b in zip(chunks, chunks[1:]):
        assert a.sentence_texts()[-1] == b.sentence_texts()[0]
    seen = {t for c in chunks for t, _ in c.sentence_texts()}
    assert len(seen) == 40
    assert all(any(f"reaction number {i} gives" in t for t in seen) for i in range(40))


def test_overlap_zero_shares_nothing():
    chunks = _chunks(_long_pages(), max_words=60, overlap_sentences=0)
    texts = [t for c in chunks for t, _ in c.sentence_texts()]
    assert len(texts) == len(set(texts)) == 40


def test_one_sentence_longer_than_max_words_becomes_its_own_chunk():
    long_sentence = "Respiration " + " ".join(["releases energy"] * 30) + "."
    chunks = _chunks([PageText(1, f"Short one here. {long_sentence} Another short one.")], max_words=10)
    assert [c.text for c in chunks if "Respiration" in c.text] == [long_sentence]


# ---------------------------------------------------------------- section kinds

KIND_PAGES = [
    PageText(1, "Whenever a chemical change occurs, we can say that a chemical reaction has taken place.\n"
                "1.1 CHEMICAL EQUATIONS\n"
                "A word-equation shows the change of reactants to products through an arrow."),
    PageText(2, "QUESTIONS\n"
                "1. Why should a magnesium ribbon be cleaned before burning in air?\n"
                "2. Write the balanced equation for the reaction of hydrogen with chlorine.\n"
                "1.2 TYPES OF CHEMICAL REACTIONS\n"
                "Calcium oxide reacts vigorously with water to produce slaked lime."),
    PageText(3, "QUESTIONS\n"
                "1. Why do we apply paint on iron articles?\n"
                "2. Oil and fat containing food items are flushed with nitrogen. Why?"),
    PageText(4, "Rancidity is slowed down by keeping food in airtight containers.\n"
                "EXERCISES\n"
                "1. Which of the statements about the reaction below are incorrect?\n"
                "2. Fe2O3 + 2Al gives Al2O3 + 2Fe. The above reaction is an example of a displacement reaction."),
    PageText(5, "3. What happens when dilute hydrochloric acid is added to iron fillings?\n"
                "4. Translate the following statements into chemical equations and then balance them."),
]


@pytest.fixture(scope="module")
def kind_chunks() -> list[Chunk]:
    return _chunks(KIND_PAGES)


def _kind_of(chunks, needle):
    kinds = {c.section_kind for c in chunks if needle in c.text}
    assert kinds, f"no chunk holds {needle!r}"
    return kinds


def test_question_box_is_its_own_kind(kind_chunks):
    assert _kind_of(kind_chunks, "Why should a magnesium ribbon be cleaned") == {QUESTION_BOX}
    box = next(c for c in kind_chunks if "magnesium ribbon be cleaned" in c.text)
    assert box.text.startswith("QUESTIONS")
    assert box.section == "1.1 Chemical Equations"
    assert not box.is_evidence


def test_question_box_ends_at_a_section_heading(kind_chunks):
    assert _kind_of(kind_chunks, "Calcium oxide reacts vigorously") == {BODY}
    after = next(c for c in kind_chunks if "Calcium oxide" in c.text)
    assert after.section.startswith("1.2 ")
    assert after.is_evidence


def test_question_box_ends_at_the_page_break(kind_chunks):
    assert _kind_of(kind_chunks, "Why do we apply paint") == {QUESTION_BOX}
    assert _kind_of(kind_chunks, "Rancidity is slowed down") == {BODY}


def test_exercises_run_to_the_end_of_the_chapter(kind_chunks):
    assert _kind_of(kind_chunks, "Which of the statements") == {EXERCISE}
    assert _kind_of(kind_chunks, "displacement reaction") == {EXERCISE}
    assert _kind_of(kind_chunks, "dilute hydrochloric acid is added") == {EXERCISE}  # over the page break
    assert _kind_of(kind_chunks, "Translate the following statements") == {EXERCISE}
    assert all(not c.is_evidence for c in kind_chunks if c.section_kind == EXERCISE)


def test_body_text_is_evidence(kind_chunks):
    assert _kind_of(kind_chunks, "Whenever a chemical change occurs") == {BODY}
    assert _kind_of(kind_chunks, "A word-equation shows") == {BODY}
    assert kind_counts(kind_chunks)[BODY] >= 3


def test_chunks_never_mix_section_kinds(kind_chunks):
    for c in kind_chunks:
        if c.section_kind == BODY:
            assert "QUESTIONS" not in c.text and "EXERCISES" not in c.text
    assert kind_counts(kind_chunks) == {
        k: sum(c.section_kind == k for c in kind_chunks) for k in (BODY, QUESTION_BOX, EXERCISE)
    }


def test_letter_spaced_and_titled_question_headings():
    for head in ("Q U E S T I O N S", "Questions", "Discuss", "Let's discuss"):
        chunks = _chunks([PageText(1, f"Some body text sits here.\n{head}\nWhat is a reaction?")])
        assert [c.section_kind for c in chunks] == [BODY, QUESTION_BOX], head


def test_activity_heading_ends_a_question_box():
    chunks = _chunks([PageText(1, "QUESTIONS\n1. Why is respiration exothermic?\nActivity 1.6\nTake a small amount of "
                                  "calcium oxide.")])
    assert _kind_of(chunks, "Take a small amount of calcium oxide") == {BODY}


# ---------------------------------------------------------------- headings without a number

MIRRORS = PageText(9, "If you visit the Agra Fort, try to observe the full image of the Taj Mahal in its convex\n"
                      "mirror. You should stand suitably at the terrace adjoining the wall of the fort.\n"
                      "Uses of convex mirrors\n"
                      "Convex mirrors are commonly used as rear-view (wing) mirrors in vehicles. These mirrors\n"
                      "are fitted on the sides of the vehicle, enabling the driver to see traffic behind.")


def _sentences(chunks) -> list[str]:
    return [t for c in chunks for t, _ in c.sentence_texts()]


def test_a_short_line_between_two_sentences_is_a_heading_and_not_part_of_the_next_sentence():
    sents = _sentences(_chunks([MIRRORS]))
    assert "Uses of convex mirrors" in sents
    assert "Convex mirrors are commonly used as rear-view (wing) mirrors in vehicles." in sents


@pytest.mark.parametrize("line, why", [
    ("You should stand on the", "it ends on an article: a sentence that wraps"),
    ("So, we have", "a comma: a clause, not a heading"),
    ("Let OM = x cm", "a formula"),
    ("uses of convex mirrors", "it does not begin with a capital"),
])
def test_a_short_line_that_is_not_a_heading_stays_in_its_sentence(line, why):
    page = PageText(9, MIRRORS.text.replace("Uses of convex mirrors", line))
    assert line not in _sentences(_chunks([page])), why


def test_a_short_line_after_a_sentence_that_goes_on_is_not_a_heading():
    page = PageText(9, MIRRORS.text.replace("terrace adjoining the wall of the fort.", "terrace adjoining the wall of"))
    assert "Uses of convex mirrors" not in _sentences(_chunks([page]))


def test_a_term_that_wraps_onto_a_short_line_is_not_a_heading():
    page = PageText(9, "Six parties are recognised as national parties in the country at present, as the table shows.\n"
                       "Bahujan Samaj\n"
                       "Party (BSP):\n"
                       "Formed in 1984 under the leadership of Kanshi Ram, it seeks to represent the Bahujan samaj.")
    sents = _sentences(_chunks([page]))
    assert "Bahujan Samaj" not in sents
    assert any(t.startswith("Bahujan Samaj Party (BSP): Formed in 1984") for t in sents)


def test_a_line_as_long_as_the_pages_prose_is_not_a_heading():
    # a narrow column: every line of prose is short, so a seven-word line there is prose that wraps
    page = PageText(4, "Rivers carry silt down to the plains.\n"
                       "Farmers Grow Rice In The Fertile Plains\n"
                       "Wheat grows in the drier north-west.\n"
                       "Pulses are grown in both seasons here.")
    assert "Farmers Grow Rice In The Fertile Plains" not in _sentences(_chunks([page]))
    wide = PageText(4, "\n".join(ln if ln.startswith("Farmers") else ln[:-1] + " in the years of good monsoon rain."
                                  for ln in page.text.splitlines()))
    assert "Farmers Grow Rice In The Fertile Plains" in _sentences(_chunks([wide]))


# ---------------------------------------------------------------- question lists without a heading

NUMBERED = PageText(
    7,
    "1. What is a balanced chemical equation?\n"
    "2. Why should chemical equations be balanced?\n"
    "3. Write the balanced chemical equation for the reaction of zinc with sulphuric acid.\n"
    "4. Explain the following in terms of gain or loss of oxygen.",
)


def test_mark_question_lists_remarks_a_numbered_list_as_exercise():
    chunks = _chunks([NUMBERED])
    assert [c.section_kind for c in chunks] == [BODY]  # no heading: chunking alone calls it body
    marked = mark_question_lists(chunks)
    assert [c.section_kind for c in marked] == [EXERCISE]
    assert not marked[0].is_evidence
    assert marked[0].text == chunks[0].text and marked[0].chunk_id == chunks[0].chunk_id


def test_mark_question_lists_leaves_prose_alone():
    chunks = _chunks(BODY_PAGES)
    assert mark_question_lists(chunks) == chunks
    assert all(c.is_evidence for c in mark_question_lists(chunks))


def test_mark_question_lists_leaves_prose_with_a_few_questions_in_it_as_evidence():
    # NCERT's "Rancidity": three of its sentences ask, the rest state; "When fats ..." and "Do you know that ...?" state
    pages = [PageText(13, "Have you ever tasted or smelt the fat or oil containing food left for a long time? When "
                          "fats and oils are oxidised, they become rancid and their smell and taste change. Keeping "
                          "food in air tight containers helps to slow down oxidation. Do you know that chips "
                          "manufacturers usually flush bags of chips with gas such as nitrogen? Is magnesium being "
                          "oxidised or reduced in this reaction? What you have learnt")]
    marked = mark_question_lists(_chunks(pages))
    assert marked and all(c.is_evidence for c in marked)
    asked = [PageText(14, "Why is respiration an exothermic reaction? When are fats said to be rancid? Name the type "
                          "of reaction. Oils turn rancid.")]
    assert not any(c.is_evidence for c in mark_question_lists(_chunks(asked)))  # a list of questions is an exercise


def test_mark_question_lists_leaves_question_boxes_as_they_are(kind_chunks):
    marked = mark_question_lists(kind_chunks)
    assert [c.section_kind for c in marked if c.section_kind == QUESTION_BOX] == [QUESTION_BOX, QUESTION_BOX]


@pytest.mark.parametrize(
    "sentence, asking",
    [
        ("Why do we apply paint on iron articles?", True),
        ("Explain the following in terms of gain or loss of oxygen.", True),
        ("(a) Write the balanced equation.", True),
        ("Magnesium ribbon burns with a dazzling white flame.", False),
        ("Calcium oxide reacts vigorously with water.", False),
        ("Explain the following:", False),  # an introduction to a list, not a task on its own
        # a question word opens statements too: it asks only with its question mark
        ("When fats and oils are oxidised, they become rancid and their smell and taste change.", False),
        ("When are fats and oils said to be rancid?", True),
        ("Where the laws of member states provide for lesser rights, European Union law can be enforced.", False),
        ("Should a pathogen infect the body more than once, memory cells eliminate it.", False),
        ("What all these models have in common is that the machines operate deterministically.", False),
        # a task's verb asks without one; a verb that is also a noun only before what a task names
        ("State two reasons for power sharing.", True),
        ("State government has powers of its own.", False),
        ("Name the type of reaction.", True),
        ("Name of the element is given in the table.", False),
        ("List the metals whose wires you have seen in daily life.", True),
        ("Can you identify the various items used in making life comfortable.", True),
        # NCERT's "Do you know that ...?" states a fact; "Do you know why ...?" asks
        ("Do you know that chips manufacturers flush bags of chips with nitrogen?", False),
        ("Do you know why these metals are used for making vessels?", True),
    ],
)
def test_is_asking(sentence, asking):
    assert is_asking(sentence) is asking


# ---------------------------------------------------------------- chapter metadata


def test_detect_chapter_from_the_opening_lines():
    pages = [PageText(1, "Chemical Reactions\nand Equations\n1CHAPTER\nConsider the following situations of daily "
                         "life.")]
    info = detect_chapter(pages, "jesc101")
    assert info == ChapterInfo(title="Chemical Reactions and Equations", code="jesc101", number="1")


def test_detect_chapter_prefers_the_running_header_matching_the_first_page():
    # jess403: the title is printed over three lines on page 1 and as a running header on the odd pages
    pages = [PageText(1, "Chapter 3\nGender,\nReligion and\nCaste\nOverview\nThe existence of social diversity does "
                         "not threaten democracy.")]
    info = detect_chapter(pages, "jess403", headers=["#", "Democratic Politics", "Gender, Religion and Caste"])
    assert info.title == "Gender, Religion and Caste"
    assert info.code == "jess403"
    assert info.number == "3"


def test_detect_chapter_strips_page_number_marks_from_a_header():
    # jesc106 headers as clean_pages returns them: digits replaced by '#'
    pages = [PageText(1, "6\nControl and Coordination\nIn the previous chapter, we looked at life processes.")]
    info = detect_chapter(pages, "jesc106", headers=["Control and Coordination #", "Science#"])
    assert info.title == "Control and Coordination"
    assert info.number == "6"  # from the NCERT code: no CHAPTER marker here


def test_detect_chapter_for_a_markdown_style_heading_and_a_free_file_name():
    pages = [PageText(1, "Chapter 2: Life Processes\nHow do we tell whether something is alive?")]
    info = detect_chapter(pages, "Bio Notes_v2")
    assert info == ChapterInfo(title="Life Processes", code="bio-notes-v2", number="2")


def test_detect_chapter_falls_back_to_the_file_stem():
    pages = [PageText(1, "This page starts straight away with a long sentence of prose that is not a title at all.")]
    info = detect_chapter(pages, "mynotes")
    assert info.title == "mynotes" and info.number == ""


def test_a_one_word_header_names_the_chapter_but_a_subject_name_does_not():
    # jemh102: the book's name and the chapter's on alternate pages
    pages = [PageText(1, "2\n2.1 Introduction\nIn Class IX, you have studied polynomials in one variable.")]
    assert detect_chapter(pages, "jemh102", headers=["# MATHEMATICS", "POLYNOMIALS #"]).title == "Polynomials"
    assert detect_chapter(pages, "jemh102", headers=["# MATHEMATICS"]).title == "jemh102"


def test_words_split_by_drop_capitals_are_joined_where_the_chapter_uses_the_whole_word():
    pages = [PageText(1, "You already know that water resources are limited. Freshwater resources are renewed.")]
    assert detect_chapter(pages, "jess103", headers=["#", "WATER R ESOURCES"]).title == "Water Resources"
    pages = [PageText(1, "The Human Eye and\nthe Colourful World\n10CHAPTER\nYou have studied refraction. The "
                         "colourful world of rainbows comes later.")]  # twice, as rejoin_split_words asks
    assert detect_chapter(pages, "jesc110", headers=["The Human Eye and the Colour ful World #"]).title == (
        "The Human Eye and the Colourful World")
    pages = [PageText(1, "A NEW WORLD\nThe first chapter tells of a new world.")]
    assert detect_chapter(pages, "x").title == "A New World"  # "anew" is not a word of this text


def test_among_headers_the_opening_shares_equally_the_one_the_chapter_uses_most_wins():
    # jess404: "Democratic Politics" is the book, "Political Parties" the chapter
    text = ("Chapter 4\nOverview\nIn this tour of democracy, we have come across political parties several times, "
            "in democratic politics. Political parties are everywhere; parties compete; political parties govern.")
    info = detect_chapter([PageText(1, text)], "jess404", headers=["#", "Democratic Politics", "Political Parties"])
    assert info.title == "Political Parties" and info.number == "4"


def test_a_cover_page_lends_the_next_page_to_the_opening():
    # jess305: page 1 is the section's cover
    pages = [PageText(1, "SECTION III\nEVERYDAY LIFE AND POLITICS"),
             PageText(2, "It is difficult for us to imagine a world without print. Print culture is everywhere.")]
    assert detect_chapter(pages, "jess305", headers=["Print Culture"]).title == "Print Culture"
    assert detect_chapter(pages[:1] + [PageText(2, "Nothing about it here at all.")], "jess305",
                          headers=["Print Culture"]).title != "Print Culture"


def test_a_chapter_marker_that_names_the_chapter_beats_the_books_running_header():
    # jess201: only the book's name runs as a header; the first page says "CHAPTER I : DEVELOPMENT"
    pages = [PageText(1, "NOTES FOR THE TEACHER\nCHAPTER I : DEVELOPMENT\nDevelopment has many aspects. The "
                         "purpose of understanding economic development is to enable students to understand it.")]
    info = detect_chapter(pages, "jess201", headers=["# UNDERSTANDING ECONOMIC DEVELOPMENT"])
    assert (info.title, info.number) == ("Development", "1")


def test_a_heading_that_opens_many_chapters_is_not_taken_for_the_title():
    # lehe103 (Class 12 Home Science): the title is an image; the text opens with "Learning Objectives"
    pages = [PageText(1, "Learning Objectives\nAfter completing this chapter the learner will be able to:\n"
                         "understand the significance of public nutrition.")]
    assert detect_chapter(pages, "lehe103-en").title == "lehe103-en"
    # a title that merely begins with such a word is a title
    pages = [PageText(1, "Introduction to\nTrigonometry\n8\nYou have already studied about triangles.")]
    assert detect_chapter(pages, "jemh108").title == "Introduction to Trigonometry"


def test_the_title_lines_end_where_a_heading_that_opens_chapters_begins():
    # jess402 without its running headers: "Chapter 2", the title, then "Overview"
    pages = [PageText(1, "Chapter 2\nFederalism\nOverview\nIn the previous chapter, we noted that vertical division "
                         "of power is one form of power-sharing.")]
    assert detect_chapter(pages, "jess402") == ChapterInfo(title="Federalism", code="jess402", number="2")


def test_all_caps_title_is_title_cased():
    pages = [PageText(1, "LIFE PROCESSES\n5CHAPTER\nHow do we tell the difference between animate and inanimate?")]
    assert detect_chapter(pages, "jesc105").title == "Life Processes"


# ---------------------------------------------------------------- serialisation


def test_chunk_round_trips_through_a_dict_and_json(kind_chunks):
    for c in kind_chunks:
        d = c.to_dict()
        assert d["class"] == "10" and "klass" not in d
        assert Chunk.from_dict(d) == c
        assert Chunk.from_dict(json.loads(json.dumps(d))) == c


def test_from_dict_accepts_an_integer_class():
    c = _chunks(BODY_PAGES)[0]
    d = c.to_dict()
    d["class"] = 10
    assert Chunk.from_dict(d).klass == "10"
