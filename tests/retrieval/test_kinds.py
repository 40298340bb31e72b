"""Kind follow-ups on a tiny chapter made here (tutor/retrieval/kinds.py): the chapter read once in order, the
book's reason and example found beside the earlier answer and only about its subject, the sentences around it for
"more" (the summary's wording first when asked more simply), and nothing where the book gives nothing."""
from __future__ import annotations

from tutor.question import EXAMPLE, MORE, WHY
from tutor.retrieval.kinds import find, names_topic, reading_order, topic_of, topic_run

from helpers_safety import chunk

DEFECTS, SCATTER, SUMMARY = "10.1 Defects of Vision", "10.2 Scattering", "10.3 Summary"
EYE = [
    chunk("eye:0000", "Myopia is also known as near-sightedness. A person with myopia can see nearby objects clearly "
          "but cannot see distant objects distinctly. In a myopic eye, the image of a distant object is formed in "
          "front of the retina. This defect may arise due to excessive curvature of the eye lens.",
          section=DEFECTS, page=2),
    # neighbouring chunks overlap: the first sentence repeats the last of the chunk before
    chunk("eye:0001", "This defect may arise due to excessive curvature of the eye lens. This defect can be "
          "corrected by using a concave lens. Hypermetropia is also known as far-sightedness. A person with "
          "hypermetropia cannot see nearby objects distinctly. The near point, for the person, is farther away "
          "than 25 cm. This is because the light rays are focussed behind the retina.", section=DEFECTS, page=3),
    chunk("eye:0002", "The Tyndall effect is the scattering of light by colloidal particles. This phenomenon is "
          "seen when a fine beam of sunlight enters a smoke-filled room. The sky looks blue because of scattering.",
          section=SCATTER, page=9),
    chunk("eye:0003", "What you have learnt. Myopia is corrected by using a concave lens of suitable power. "
          "Hypermetropia is corrected by using a convex lens.", section=SUMMARY, page=10),
    chunk("eye:0004", "Why does myopia happen? Give an example of scattering because of dust.", kind="exercise",
          section="Exercises", page=11),
    chunk("other:0000", "Myopia is caused by reading in the dark, says another book.", section=DEFECTS),
]
LINES = reading_order(EYE, "eye")
MYOPIA = ["Myopia is also known as near-sightedness."]


def texts(found) -> list[str]:
    return [ln.text for ln in found.lines]


def test_the_chapter_is_read_once_in_order_without_exercises_or_other_chapters():
    said = [ln.text for ln in LINES]
    assert said.count("This defect may arise due to excessive curvature of the eye lens.") == 1
    assert not any("?" in t or "another book" in t for t in said)
    assert [ln.pos for ln in LINES] == list(range(len(LINES)))
    assert LINES[0].chunk.chunk_id == "eye:0000" and LINES[4].chunk.chunk_id == "eye:0001" and LINES[4].page == 3


def test_why_finds_the_cause_that_continues_the_answer_not_the_next_defects_cause():
    found = find(WHY, LINES, MYOPIA, topic_of("myopia"))
    assert texts(found) == ["This defect may arise due to excessive curvature of the eye lens."]
    assert found.anchors[0].text == MYOPIA[0] and "give a reason" in found.note


def test_why_reads_across_one_sentence_that_neither_names_the_topic_nor_points_back():
    found = find(WHY, LINES, ["Hypermetropia is also known as far-sightedness."], topic_of("hypermetropia"))
    assert texts(found) == ["This is because the light rays are focussed behind the retina."]


def test_example_finds_the_books_instance_and_none_where_the_book_gives_none():
    tyndall = find(EXAMPLE, LINES, ["The Tyndall effect is the scattering of light by colloidal particles."],
                   topic_of("Tyndall effect"))
    assert texts(tyndall) == ["This phenomenon is seen when a fine beam of sunlight enters a smoke-filled room."]
    myopia = find(EXAMPLE, LINES, MYOPIA, topic_of("myopia"))
    assert myopia.lines == () and "0 about myopia" in myopia.note  # the exercise's "example" is not the book's


def test_more_gives_the_sentences_around_the_answer_it_did_not_give_in_reading_order():
    given = MYOPIA + ["A person with myopia can see nearby objects clearly but cannot see distant objects "
                      "distinctly."]
    found = find(MORE, LINES, given, topic_of("myopia"), max_sentences=2)
    assert texts(found) == ["In a myopic eye, the image of a distant object is formed in front of the retina.",
                            "This defect may arise due to excessive curvature of the eye lens."]
    simpler = find(MORE, LINES, given, topic_of("myopia"), max_sentences=2, simpler=True)
    assert texts(simpler)[0] == "Myopia is corrected by using a concave lens of suitable power."  # the summary's


def test_nothing_more_when_the_answer_already_said_all_the_book_has_on_it():
    found = find(MORE, LINES, ["The sky looks blue because of scattering."], topic_of("sky"))
    assert found.lines == () and "nothing more" in found.note


def test_an_answer_that_is_not_in_the_chapter_gives_nothing_to_read_around():
    found = find(WHY, LINES, ["Plants make food by photosynthesis in their leaves."], topic_of("plants"))
    assert found.lines == () and found.anchors == () and "not in this chapter" in found.note


LISTS = [chunk("fed:0000", "Union List includes subjects of national importance such as defence and currency. "
               "They are included in this list because we need a uniform policy on these matters. "
               "The Union Government alone can make laws on the subjects in the Union List. "
               "State List contains subjects of State and local importance such as police and agriculture. "
               "The State Governments alone can make laws on the subjects in the State List.", section="")]


def test_a_reason_about_a_neighbour_is_not_the_topics_reason():
    lines = reading_order(LISTS, "fed")
    union = find(WHY, lines, ["Union List includes subjects of national importance such as defence and currency."],
                 topic_of("Union List"))
    assert texts(union) == ["They are included in this list because we need a uniform policy on these matters."]
    later = find(WHY, lines, ["The Union Government alone can make laws on the subjects in the Union List."],
                 topic_of("Union List"))  # the answer quoted the sentence after the reason: found all the same
    assert texts(later) == texts(union)
    state = find(WHY, lines, ["State List contains subjects of State and local importance such as police and "
                              "agriculture."], topic_of("State List"))
    assert state.lines == ()  # "this list" two sentences up is the Union List


def test_a_topic_is_named_by_all_its_words_or_two_in_three_of_a_long_one():
    assert names_topic("The State List has police.", topic_of("State List"))
    assert not names_topic("They are included in this list.", topic_of("State List"))
    assert names_topic("Kerosene is optically denser than water.", topic_of("optically denser medium"))
    assert not names_topic("Kerosene is lighter than water.", topic_of("optically denser medium"))
    assert not names_topic("Anything at all.", [])


def test_the_run_stops_at_the_end_of_a_section():
    run = topic_run(LINES, [LINES[0]], topic_of("myopia"))
    assert all(LINES[i].section == DEFECTS for i in run) and 0 in run and 3 in run


def test_a_second_example_comes_only_from_the_same_paragraph_and_never_repeats_the_answer():
    shelf = [chunk("al:0000", "1.1 Alloys An alloy is a mixture of two or more metals, such as brass. "
                   "For example, brass is an alloy of copper and zinc. Solder, such as an alloy of lead and tin, has "
                   "a low melting point. Iron rusts in moist air. Water is a liquid at room temperature. "
                   "Bronze is one more example of an alloy of copper and tin.", section="1.1 Alloys")]
    lines = reading_order(shelf, "al")
    found = find(EXAMPLE, lines, ["An alloy is a mixture of two or more metals, such as brass."], topic_of("alloy"))
    assert texts(found) == ["For example, brass is an alloy of copper and zinc.",
                            "Solder, such as an alloy of lead and tin, has a low melting point."]
    assert not any(t.startswith("Bronze") or t.startswith("1.1") for t in texts(found))  # too far; a heading


def _example_after(announcement: str, after: str, section: str = "4.2 Motion") -> list[str]:
    shelf = [chunk("mo:0000", "4.2 Motion A body in uniform motion covers equal distances in equal intervals of time. "
                   f"{announcement} {after}", section=section),
             chunk("mo:0001", "4.3 Force A force changes the state of motion of a body.", section="4.3 Force")]
    lines = reading_order(shelf, "mo")
    found = find(EXAMPLE, lines, ["A body in uniform motion covers equal distances in equal intervals of time."],
                 topic_of("uniform motion"))
    return texts(found)


def test_an_announced_example_is_the_sentences_after_the_announcement_not_the_announcement():
    car = "A car moving at 40 km per hour on a straight road covers 40 km in every hour."
    for announcement in ("Consider the following example of uniform motion.", "Let us consider an example.",
                         "Study the following examples carefully.",
                         "Consider, for example, the following."):
        assert _example_after(announcement, car) == [car], announcement
    # two sentences of the example, a caption passed over
    two = "Figure 4.1 A car on a road. A car moves at 40 km per hour. It covers 40 km in every hour."
    assert _example_after("Let us take an example.", two) == ["A car moves at 40 km per hour.",
                                                              "It covers 40 km in every hour."]


def test_an_example_that_names_its_instance_is_kept_and_an_announcement_at_a_sections_end_gives_none():
    named = "For example, a car in uniform motion at 40 km per hour covers 40 km in every hour."
    assert _example_after(named, "Speed is distance over time.") == [named]
    assert _example_after("Consider the following example.", "") == []  # the next section's sentence is not it


def test_an_announcement_followed_by_a_caption_gives_way_to_an_example_that_names_the_topic():
    shelf = [chunk("mn:0000", "An MNC is a company that owns or controls production in more than one nation. "
                   "Consider the following example. This is a call centre in Bengaluru with telephone lines. "
                   "To take an example, Cargill Foods, a very large American MNC, has bought Parakh Foods.",
                   section="")]
    found = find(EXAMPLE, reading_order(shelf, "mn"),
                 ["An MNC is a company that owns or controls production in more than one nation."], topic_of("MNC"))
    assert texts(found) == ["To take an example, Cargill Foods, a very large American MNC, has bought Parakh Foods."]
