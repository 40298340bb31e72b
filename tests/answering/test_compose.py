"""How an extractive answer is laid out: prose only (no caption, instruction, question or equation; an equation run
into a sentence cut off), the answering sentence first and the rest in the book's reading order, citations numbered
as they appear, and the direct answer only when the reader is sure of it and it is of the kind asked for."""
from __future__ import annotations

import pytest

from tutor.answering.compose import in_reading_order, quotable, renumbered
from tutor.answering.extractive import Draft, ExtractiveAnswerer
from tutor.safety.answerability import Finding, direct_answer
from tutor.safety.gate import decide
from tutor.text.terms import TermStats
from tutor.types import AnswerSentence

from helpers_safety import chunk, hits, policy, source


def test_prose_is_quoted_and_captions_instructions_questions_and_equations_are_not():
    assert quotable("The SI unit of electric current is ampere.") == "The SI unit of electric current is ampere."
    assert quotable("I Q t= (11.1) The SI unit of electric charge is coulomb.") == (
        "The SI unit of electric charge is coulomb.")
    assert quotable("C6H12O6(aq) + 6O2(aq) → 6CO2(aq) + 6H2O(l) + energy (1.18) (Glucose) (iii) The decomposition of "
                    "vegetable matter into compost is exothermic.") == (
        "The decomposition of vegetable matter into compost is exothermic.")  # the equation's labels go with it
    assert quotable("See Section (10.2) (on mirrors) The mirror formula applies to both kinds.") == (
        "See Section (10.2) (on mirrors) The mirror formula applies to both kinds.")  # prose, not an equation
    assert quotable("Figure 11.2 A schematic diagram of an electric circuit.") == ""
    assert quotable("Fig. 3.4 Reaction of zinc with dilute sulphuric acid.") == ""
    assert quotable("Activity 1.1 Take a clean magnesium ribbon.") == ""
    assert quotable("Take about 2 g of ferrous sulphate crystals in a dry boiling tube.") == ""
    assert quotable("Let us now study the effect of current.") == ""
    assert quotable("What happens when an electric current flows through a conductor?") == ""
    assert quotable("V = I R (12.5) =") == ""
    assert quotable("  Ohm's law   holds for metallic conductors. ") == "Ohm's law holds for metallic conductors."


def test_a_list_items_bullet_is_cut_off_and_what_follows_is_judged_as_prose_or_not():
    # NCERT's bullets come out of the text layer as the letters of a dingbat font: "n" for its square, "l", "Ø"
    assert quotable("n Control and coordination are the functions of the nervous system.") == (
        "Control and coordination are the functions of the nervous system.")
    assert quotable("n Take about 2 g lead nitrate powder in a boiling tube.") == ""  # an activity's step
    assert quotable("• Depletion of resources for satisfying the greed of a few.") == (
        "Depletion of resources for satisfying the greed of a few.")
    assert quotable("Ø What comment are the artists making on the social changes?") == ""
    # a letter that is a word, or a variable before a verb, is not a bullet
    assert quotable("A Turing machine is a mathematical model of computing.") == (
        "A Turing machine is a mathematical model of computing.")
    assert quotable("n is the number of sides of the polygon.") == "n is the number of sides of the polygon."


def test_a_do_you_know_that_sentence_is_quoted_as_the_statement_it_is_and_a_real_question_is_not():
    told = "Did you know that gold and silver are the most malleable metals?"
    assert quotable(told) == told  # the book's words, as printed
    assert quotable("Do you know why these metals are used for making vessels?") == ""
    assert quotable("Do you know?") == ""


def test_an_unnumbered_equation_run_into_the_next_sentence_is_cut_off_and_prose_that_writes_one_out_is_kept():
    assert quotable("2NaCl(aq) + 2H2O(l) fi 2NaOH(aq) + Cl2(g) + H2(g) Chlorine gas is given off at the anode, and "
                    "hydrogen gas at the cathode.") == ("Chlorine gas is given off at the anode, and hydrogen gas at "
                                                        "the cathode.")  # "fi": the font's arrow, as extracted
    assert quotable("Metal + Water → Metal oxide + Hydrogen Metal oxide + Water → Metal hydroxide Metals like "
                    "potassium and sodium react violently with cold water.") == (
        "Metals like potassium and sodium react violently with cold water.")
    # prose before the equation: the sentence is the book's, whole
    written = "In general, a neutralisation reaction can be written as – Base + Acid → Salt + Water"
    assert quotable(written) == written
    assert quotable("Now, in general, for the ith class interval, we have the frequency fi corresponding to the class "
                    "mark xi.").startswith("Now, in general")  # "fi" among words is a variable, not an arrow


def test_an_activitys_steps_are_not_quoted_and_statements_that_open_with_such_a_word_are():
    for step in ("Clean a magnesium ribbon about 3-4 cm long by rubbing it with sandpaper .",
                 "Burn it using a spirit lamp or burner.",
                 "Test the gas evolved successively with dry and wet blue litmus paper .",
                 "n Once the test tubes are filled with the respective gases, remove them carefully.",
                 "For this, collect the samples of following metals – aluminium, copper, iron and zinc.",
                 "Now pour some dilute HCl in the beaker and switch on the current.",
                 "Do not touch the wire while the current flows."):
        assert quotable(step) == "", step
    for told in ("Heat is given out in this reaction.", "Light travels in straight lines.",
                 "When an acid reacts with a metal, hydrogen gas is evolved.",
                 "If a substance gains oxygen during a reaction, it is said to be oxidised.",
                 "People stop the trains, pull the chain unnecessarily and this causes heavy damage."):
        assert quotable(told) == told, told


def test_a_heading_in_capitals_run_into_a_sentence_is_cut_off_and_a_line_all_in_capitals_is_not_quoted():
    assert quotable("NOTES FOR THE TEACHER CHAPTER 3 : MONEY AND CREDIT Money is a fascinating subject.") == (
        "Money is a fascinating subject.")
    assert quotable("10.2 DEFECTS OF VISION AND THEIR CORRECTION10.2 DEFECTS OF VISION AND THEIR CORRECTION "
                    "Sometimes, the eye may gradually lose its power of accommodation.") == (
        "Sometimes, the eye may gradually lose its power of accommodation.")
    assert quotable("ALSALS The earth’s crust is the major source of metals.") == (
        "The earth’s crust is the major source of metals.")
    assert quotable("DEVELOPMENT OF R ESOURCES Resources are vital for human survival.") == (
        "Resources are vital for human survival.")  # a word the PDF splits stays in the heading
    assert quotable("MODES OF REPRODUCTION A hydra can regenerate its body.") == "A hydra can regenerate its body."
    # the heading cut a sentence whose start is elsewhere: its tail is not quoted
    assert quotable("PRODUCTION ACROSS COUNTRIES multinational corporations (MNCs) emerged on the scene.") == ""
    assert quotable("THOSE PEOPLE DON'T WANT TO DEVELOP!") == ""  # a cartoon's speech, a heading, a map's labels
    for told in ("DNA copying is an essential part of reproduction.", "WTO has put pressure on developing countries.",
                 "HIV AIDS is a disease of the immune system."):  # abbreviations open sentences
        assert quotable(told) == told, told


def test_a_hindi_sentence_is_prose_though_its_script_has_no_capitals_and_its_vowel_signs_are_marks():
    # Devanagari has no lower case, and a vowel sign or virama is a mark, not `isalpha`: about 40% of a Hindi sentence
    sentence = "जन स्वास्थ्य की संकल्पना का अर्थ है सभी लोगों के स्वास्थ्य की देखभाल करना।"
    assert quotable(sentence) == sentence
    assert quotable("HIV और AIDS से बचाव के लिए जानकारी ज़रूरी है।") == "HIV और AIDS से बचाव के लिए जानकारी ज़रूरी है।"
    assert quotable("चित्र 3.1 जन स्वास्थ्य पोषण के कार्यक्रम") == ""  # a caption, as the Hindi editions number them
    assert quotable("PUBLIC HEALTH NUTRITION जन") == ""  # a heading in capitals with a stray Hindi word


def test_a_short_heading_in_title_case_before_its_sentence_is_cut_off_and_a_variable_named_a_is_not_a_heading():
    assert quotable("Chapter 4 Overview In this tour of democracy, we have come across political parties.") == (
        "In this tour of democracy, we have come across political parties.")
    assert quotable("(c) Presbyopia The power of accommodation of the eye usually decreases with ageing.") == (
        "The power of accommodation of the eye usually decreases with ageing.")
    assert quotable("(a) Myopia Myopia is also known as near-sightedness.") == (
        "Myopia is also known as near-sightedness.")
    for told in ("As A gets larger and larger, C gets smaller and smaller.",
                 "When A is very close to 0°, BC gets very close to 0.",
                 "Mahatma Gandhi led the Salt March in 1930."):
        assert quotable(told) == told, told


def test_a_sentence_that_says_what_the_chapter_will_do_is_not_quoted():
    for signpost in ("In this chapter we will look at the development of print, from its beginnings in East Asia.",
                     "We shall also discuss the heating effect of electric current and its applications.",
                     "This chapter provides case histories of consumers who were exploited.",
                     "The next section will provide examples of the varying terms of credit.",
                     "You will be learning more about these metal oxides in the next section."):
        assert quotable(signpost) == "", signpost
    for told in ("In this chapter, we looked at the present phase of globalisation.",
                 "We have learnt in Class IX that atoms of one element do not change into those of another.",
                 "Chapters of the Constitution were drafted by committees."):
        assert quotable(told) == told, told


def test_a_sentence_that_only_points_at_a_figure_is_not_quoted():
    assert quotable("This is illustrated in Fig.9.4 (a) and (b).") == ""
    assert quotable("This is illustrated in Fig.9.15(a) and Fig.9.15 (b).") == ""
    assert quotable("This is shown in Fig. 9.14 (a).") == ""
    told = "This is shown in Fig. 9.14: the image is real, inverted and diminished."
    assert quotable(told) == told


def test_a_tables_rows_read_as_one_line_are_not_quoted_and_prose_with_figures_is():
    rows = ("State Literacy Rate % Net Attendance Ratio (per 100 persons) secondary stage (aged 15–17 years) 2017–18 "
            "Haryana 28 82 73 Kerala 6 94 94 Bihar 27 62 69 Sources : Economic Survey 2024–25.")
    assert quotable(rows) == ""
    census = ("According to the 1901 census, out of 711,988 inhabitants 56.2% were Catholics, 35.7% Jews, 5% Greek "
              "orthodox Christians and 2.8% Protestants.")
    assert quotable(census) == census


def test_the_lead_comes_first_and_the_rest_in_the_books_reading_order():
    text = "First the book says this. Then it says that. Finally it says the other thing."
    srcs = [source(1, text, chunk_id="ch:0003"), source(2, "Earlier chunk sentence here.", chunk_id="ch:0001")]
    lead = AnswerSentence("Then it says that.", (1,))
    rest = [AnswerSentence("Finally it says the other thing.", (1,)),
            AnswerSentence("Earlier chunk sentence here.", (2,)),
            AnswerSentence("First the book says this.", (1,)), AnswerSentence("Then it says that.", (1,))]
    got = in_reading_order(lead, rest, srcs, 3)
    # at most three, the lead once, the two others most preferred in reading order: ch:0001 comes before ch:0003
    assert [s.text for s in got] == ["Then it says that.", "Earlier chunk sentence here.",
                                     "Finally it says the other thing."]


def test_citations_are_numbered_in_the_order_they_appear():
    srcs = [source(1, "a"), source(2, "b"), source(3, "c")]
    sents = (AnswerSentence("From b.", (2,)), AnswerSentence("From a.", (1,)), AnswerSentence("From b again.", (2,)))
    draft, new = renumbered(Draft("x", sents), srcs)
    assert [s.citations for s in draft.sentences] == [(1,), (2,), (1,)]
    assert [(s.n, s.text) for s in new] == [(1, "b"), (2, "a"), (3, "c")]  # the uncited source keeps its place last
    assert draft.text == "From b. [1] From a. [2] From b again. [1]"


def _found(spans, sentence="The SI unit of electric current is ampere, written A."):
    return Finding(0.9, spans[0][0], "ch:0001", sentence, 3, tuple(spans))


def test_the_direct_answer_is_the_most_probable_span_of_the_kind_asked_for_above_the_bar():
    p = policy(min_direct_answer_probability=0.3)
    lead = "The SI unit of electric current is ampere, written A."
    q = "What is the SI unit of electric current?"
    assert direct_answer(q, _found([("ampere", 0.8)]), lead, p) == ("ampere", 0.8)
    # below the bar: no bold line at all (its probability is still told, for calibration)
    assert direct_answer(q, _found([("ampere", 0.2)]), lead, p) == ("", 0.2)
    # a span outside the lead sentence is never shown
    assert direct_answer(q, _found([("volt", 0.9)]), lead, p) == ("", None)
    # "how many" wants a number: the more probable span without one is passed over
    lead = "There are 118 elements known today, and chemists group them in a table."
    found = _found([("chemists", 0.6), ("118", 0.5)], lead)
    assert direct_answer("How many elements are known today?", found, lead, p) == ("118 elements", 0.5)
    # "who" wants a name: the span may be the name alone
    lead = "The law was stated by Georg Simon Ohm in 1827."
    found = _found([("in 1827", 0.5), ("Georg Simon Ohm", 0.4)], lead)
    assert direct_answer("Who stated the law?", found, lead, p) == ("Georg Simon Ohm", 0.4)


@pytest.mark.parametrize("question, span, lead, shown", [
    ("Which acid do nettle leaves inject?", "methanoic", "Nettle leaves inject methanoic acid into the skin.",
     "methanoic acid"),
    ("How many carats is pure gold?", "24", "Pure gold is said to be 24 carat.", "24 carat"),
    ("Which kind of mirror is used as a rear-view mirror?", "convex", "A convex mirror gives a wider view.",
     "convex mirror"),
    # the noun is in the span already, or the sentence goes on with another word: the span as it is
    ("Which lens corrects myopia?", "concave lens", "A concave lens corrects myopia.", "concave lens"),
    ("Which metal is liquid?", "Mercury", "Mercury is the only metal that is liquid.", "Mercury"),
    # a number with the unit the book counts it in
    ("What was the literacy rate of women?", "54", "The literacy rate among women is only 54 per cent.",
     "54 per cent"),
    ("What is the potential difference in India?", "220", "In India the potential difference is 220 V.", "220 V"),
    ("How long is the road?", "1.5", "The road is 1.5 km long.", "1.5 km"),
    ("What is normal body temperature?", "37", "Normal body temperature is 37 °C.", "37 °C"),
    # a number followed by a word that is no unit: as it is
    ("How many members were elected in 2019?", "2019", "In 2019 many members were elected.", "2019"),
    ("How many states are there?", "28", "There are 28 states and 8 union territories.", "28 states"),
    # no noun asked for
    ("What is the SI unit of current?", "ampere", "The SI unit of current is ampere units.", "ampere"),
    # a rule or law known by its owner's name keeps the name the book writes before it; a lower-case possessive no
    ("Which rule gives the direction of the force?", "left-hand rule",
     "The direction is given by a simple rule, called Fleming’s left-hand rule.", "Fleming’s left-hand rule"),
    ("Which law relates current and potential difference?", "law", "This is Ohm's law.", "Ohm's law"),
    ("Which crop grows here?", "rice", "The farmer's rice grows in the delta.", "rice"),
    # a scene-setting clause before the question word: the noun after it is still the one asked for
    ("When a decomposition reaction is brought about by heating, what kind of decomposition is it?", "thermal",
     "When a decomposition reaction is carried out by heating, it is called thermal decomposition.",
     "thermal decomposition"),
])
def test_the_direct_answer_takes_the_noun_the_question_asks_for_when_the_book_puts_it_next(question, span, lead,
                                                                                          shown):
    p = policy(min_direct_answer_probability=0.3)
    assert direct_answer(question, _found([(span, 0.7)], lead), lead, p) == (shown, 0.7)


def test_a_sentence_from_elsewhere_that_covers_less_of_the_question_is_not_added():
    current = chunk("elec:0001", "The SI unit of electric current is ampere. One ampere is one coulomb per second.",
                    chapter="Electricity", file="elec.pdf")
    power = chunk("elec:0009", "The SI unit of electric power is watt. Power is the rate of doing work.",
                  chapter="Electricity", file="elec.pdf")
    p = policy(max_answer_sentences=3, min_term_coverage=0.1)
    q = "What is the SI unit of electric current?"
    hs = hits((current, 0.8), (power, 0.78))
    d = decide(q, hs, p, TermStats([h.chunk.text for h in hs]))
    srcs = [source(i + 1, h.chunk.text, chunk_id=h.chunk.chunk_id) for i, h in enumerate(d.evidence)]
    draft = ExtractiveAnswerer().answer(q, srcs, list(d.candidates), p)
    texts = [s.text for s in draft.sentences]
    assert texts[0] == "The SI unit of electric current is ampere."
    assert "The SI unit of electric power is watt." not in texts


def test_every_quote_shares_a_word_with_the_question():
    # a chapter summary's points, one per sentence: the one that answers, and two beside it about other things
    summary = chunk("eye:0035", "The eye loses its power of accommodation at old age. The splitting of white light "
                    "into its component colours is called dispersion. Scattering of light causes the blue colour of "
                    "sky.",
                    chapter="The Human Eye", file="eye.pdf")
    prose = chunk("elec:0001", "The SI unit of electric current is ampere. One ampere is one coulomb of charge flowing "
                  "per second. Ampere was a French physicist.", chapter="Electricity", file="elec.pdf")
    # an activity: a safety note ranked by its neighbour's words, and the step itself (an instruction: never quoted)
    activity = chunk("chem:0002", "It would be better if students wear suitable eyeglasses. Clean a magnesium ribbon "
                     "about 3-4 cm long by rubbing it with sandpaper.", chapter="Chemical Reactions", file="chem.pdf")
    p = policy(max_answer_sentences=3, min_term_coverage=0.1)

    def answered(q, c):
        hs = hits((c, 0.8))
        d = decide(q, hs, p, TermStats([c.text]))
        srcs = [source(1, c.text, chunk_id=c.chunk_id)]
        return [s.text for s in ExtractiveAnswerer().answer(q, srcs, list(d.candidates), p).sentences]

    assert answered("Why is the sky blue?", summary) == ["Scattering of light causes the blue colour of sky."]
    # beside the lead, what shares the question's words ("ampere", "current") is kept
    got = answered("What is one ampere of electric current?", prose)
    assert "One ampere is one coulomb of charge flowing per second." in got and len(got) >= 2
    # nothing to quote: no answer is written (the pipeline refuses an empty draft)
    assert answered("Why should a magnesium ribbon be cleaned before burning in air?", activity) == []


def test_the_end_of_a_sentence_cut_from_its_start_is_not_quoted_and_words_with_a_capital_inside_open_prose():
    # "Metals and alloys" sat beside a table: the text layer kept the rest of the sentence apart
    assert quotable("have very low resistivity in the range of 10–8 Ω m to 10–6 Ω m.") == ""
    assert quotable("grapes get fermented.") == ""  # a list's item after "... when:"
    assert quotable("Metals have very low resistivity.") == "Metals have very low resistivity."
    assert quotable("pH of the stomach is about 2 in our digestive system.").startswith("pH of")
    assert quotable("mRNA carries the code to the ribosome in cells.").startswith("mRNA")
    assert quotable("पौधे भोजन बनाते हैं।") == "पौधे भोजन बनाते हैं।"  # Devanagari has no case
