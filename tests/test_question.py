"""The question read once (tutor/question.py, issue 38): what Question.read makes of typed text, the facts it works
out once, and the gate, lexical retrieval, the answerers and the suggestions run on a Question built by hand."""
from __future__ import annotations

from dataclasses import replace

import pytest

import tutor.question as question_module
import tutor.text.lexical_terms as lexical_terms
from tutor.answering.extractive import ExtractiveAnswerer
from tutor.answering.llm_answerer import LLMAnswerer
from tutor.question import (
    DEVANAGARI,
    EXAMPLE,
    HINGLISH,
    LATIN,
    MORE,
    WHY,
    Question,
    followup_kind,
    question_word,
)
from tutor.reasons import Reason
from tutor.retrieval.lexical import LexicalIndex
from tutor.safety.gate import decide
from tutor.suggestions import suggest_instead
from tutor.testing import FakeLLM
from tutor.text.terms import TermStats
from tutor.types import Source

from helpers_llm import prompt_text
from helpers_safety import LIGHT, check, hits, policy

REFRACTION = LIGHT[0]
STATS = TermStats([c.text for c in LIGHT])


@pytest.mark.parametrize("typed, script, language", [
    ("What is refraction of light?", LATIN, "en"),
    ("प्रकाश का अपवर्तन क्या है?", DEVANAGARI, "hi"),
    ("prakash ka apvartan kya hai", HINGLISH, "hi"),
])
def test_read_names_the_script_and_the_language_of_the_reply(typed, script, language):
    q = Question.read(f"  {typed} ")
    assert (q.typed, q.script, q.language, q.unread_language) == (typed, script, language, "")
    assert bool(q.reading) is (script == HINGLISH)  # Hinglish gets its first English reading at once
    assert q.reading.startswith("what is") or not q.reading


def test_read_says_what_it_cannot_read():
    assert "Tamil" in Question.read("ஒளி விலகல் என்றால் என்ன?").unread_language.title()
    assert "spanish" in Question.read("¿Qué es la ley de Ohm y para qué sirve?").unread_language.lower()


def test_read_collapses_faux_bold_and_keeps_what_was_typed():
    q = Question.read("What is JJJJute?")
    assert q.typed == "What is JJJJute?" and q.text != q.typed


def test_the_gate_reads_asked_once_it_is_set():
    q = Question.read("What is it?")
    assert q.gate_text == "What is it?"
    q = replace(q, resolved="What is refraction?", asked="What is refraction of light?")
    assert q.gate_text == "What is refraction of light?"
    assert q.terms == ("refraction", "light")


def test_facts_are_worked_out_once(monkeypatch):
    calls = []
    real = question_module.key_numbers
    monkeypatch.setattr(question_module, "key_numbers", lambda t: calls.append(t) or real(t))
    q = Question.of("How many years after 1947 did India adopt its constitution?")
    assert q.numbers == q.numbers == frozenset({"1947"})
    assert calls == ["How many years after 1947 did India adopt its constitution?"]
    assert q.factoid and q.asks_fact and q.answer_type is not None


@pytest.mark.parametrize("text, fact", [
    ("What is the SI unit of electric current?", True),
    ("India is the second largest producer of rice after which country?", True),  # the question word comes late
    ("According to the Constitution, in which year was English to stop being used?", True),
    ("A tax on imports is an example of what?", True),
    ("How many atoms of oxygen make up a molecule of ozone?", True),
    ("Explain what happens when zinc is put in dilute acid.", False),  # asks to explain, whatever word follows
    ("How does the heart pump blood, and what happens then?", False),  # how, not how many
    ("Compare which of the two mirrors forms a larger image.", False),
    ("Why is the sky blue?", False),
])
def test_a_short_factual_question_is_told_by_its_question_word_anywhere_near_the_start(text, fact):
    assert Question.of(text).asks_fact is fact


@pytest.mark.parametrize("text, thing", [
    ("Which gas do chips manufacturers fill bags of chips with?", True),
    ("In which year was the Reserve Bank of India set up?", True),
    ("Who founded Young Italy?", True),
    ("Where is the headquarters of the World Trade Organisation?", True),
    ("How many pairs of cranial nerves arise from our brain?", True),
    ("What is a food chain?", False),  # a description, which no span is
    ("What happens at the synapse between two neurons?", False),
    ("What happens to the image distance when we move the object away?", False),  # "when" joins a clause here
    ("India is the second largest producer of rice after which country?", True),
    ("Name a device that helps to maintain a potential difference across a conductor.", False),
    ("Why is the sky blue?", False),
    ("Explain which gas is given off when zinc meets acid.", False),  # not a short factual question at all
])
def test_a_question_after_something_the_book_must_name_is_told_by_its_question_word(text, thing):
    assert Question.of(text).asks_thing is thing


def test_the_question_word_is_the_first_in_the_question():
    assert question_word("After the revolt, who led the army?") == "who"
    assert question_word("What happens to the image when we move the object?") == "what"
    assert question_word("How  many moons does Mars have?") == "how many"
    assert question_word("Tell me about rivers.") == ""
    assert question_word("When lead nitrate is heated, which gas gives the brown fumes?") == "which"
    assert question_word("When was the Reserve Bank of India set up?") == "when"  # no scene, the question itself


@pytest.mark.parametrize("text, about_you", [
    ("Do you compare the price paid by you with those of others?", True),
    ("Do you agree with this view? Give reasons.", True),
    ("Did you ever complain to a shopkeeper?", True),
    ("In your opinion, should voting be compulsory?", True),
    ("What would you do if a shopkeeper cheated you?", True),
    ("क्या आप दुकानदार से बिल माँगते हैं?", True),
    ("kya aap bill maangte ho", True),
    ("Do you know which gas is filled in bags of chips?", False),  # asks about the world
    ("What do you mean by a displacement reaction?", False),
    ("What do you think happens if all the decomposers die?", False),
    ("Have you noticed that the sky is blue?", False),
    ("Would you expect a copper wire to conduct electricity?", False),
    ("Will you get the same result with a concave mirror?", False),
    ("How do you find the focal length of a lens?", False),
    ("क्या आप जानते हैं कि आकाश नीला क्यों है?", False),
    ("What is the SI unit of electric current?", False),
])
def test_a_question_about_the_student_is_told_from_one_about_the_world(text, about_you):
    assert Question.of(text).about_you is about_you


def test_understood_says_what_was_read_and_leaves_out_what_is_empty():
    q = replace(Question.read("प्रकाश का अपवर्तन क्या है?"), reading="what is refraction of light",
                read_from="Hindi", unread=("अपवर्तन",), asked="what is refraction of light")
    shown = q.understood()
    assert shown["script"] == DEVANAGARI and shown["reading"] == "what is refraction of light"
    assert shown["unread words"] == "अपवर्तन" and shown["terms"] == "refraction, light"
    assert "numbers" not in shown and "negated" not in shown


def test_a_question_built_by_hand_runs_through_the_gate_as_its_english_reading():
    """The student's words are Devanagari; the gate reads the English reading the pipeline set, and decides as it
    does for that English question typed."""
    q = Question(typed="प्रकाश का अपवर्तन क्या है?", text="प्रकाश का अपवर्तन क्या है?", language="hi",
                 script=DEVANAGARI, reading="What is refraction of light?", read_from="Hindi",
                 asked="What is refraction of light?")
    p = policy(min_confidence=0.5, min_mean_confidence=0.0)
    by_hand = decide(q, hits((REFRACTION, 0.7)), p, STATS)
    typed = decide("What is refraction of light?", hits((REFRACTION, 0.7)), p, STATS)
    assert by_hand.passed and by_hand.reason == typed.reason == "answered"
    assert [(c.name, c.passed, c.value) for c in by_hand.checks] == [(c.name, c.passed, c.value) for c in typed.checks]
    assert check(by_hand.checks, "term_coverage").passed  # its terms are the reading's, not the Devanagari words'


def test_the_gate_holds_a_factual_question_to_the_numbers_it_was_given():
    q = replace(Question.of("How many moons did Galileo see in 1610?"), asked="How many moons did Galileo see in 1610?")
    d = decide(q, hits((REFRACTION, 0.9)), policy(min_confidence=0.0, min_mean_confidence=0.0, min_term_coverage=0.0,
                                                  offtopic_max_score=0.0), STATS)
    assert not check(d.checks, "question_numbers").passed and d.reason == "not_answerable"


@pytest.mark.parametrize("typed, kind", [
    ("Why?", WHY), ("Why does it happen?", WHY), ("Why is that so?", WHY), ("What is the reason?", WHY),
    ("kyon?", WHY), ("aisa kyon hota hai?", WHY),
    ("Give an example.", EXAMPLE), ("Examples?", EXAMPLE), ("Can you give me some examples?", EXAMPLE),
    ("e.g.?", EXAMPLE), ("udaharan do", EXAMPLE),
    ("Tell me more.", MORE), ("Explain it more simply.", MORE), ("explain in simpler words", MORE), ("aur batao", MORE),
    # a word of its own is an aspect or a topic, two kinds at once is no one kind: read the old way
    ("Why is it called so?", ""), ("Give an example of a base.", ""), ("Why? Give an example.", ""),
    ("What are its uses?", ""), ("What is myopia?", ""), ("Who invented it?", ""), ("", ""),
])
def test_a_follow_up_asks_a_kind_only_in_a_closed_form(typed, kind):
    assert followup_kind(typed) == kind
    assert Question.read(typed).followup_kind == kind
    assert Question.read(typed).understood().get("asks for", "") == kind  # shown in the diagnostics


@pytest.mark.parametrize("typed, noun", [
    ("Which acid is injected by nettle leaves?", "acid"), ("How many carats is pure gold?", "carats"),
    ("Which kind of mirror is used as a rear-view mirror?", "mirror"), ("In which year was it founded?", "year"),
    ("What is brass an alloy of?", ""), ("Which of these is a metal?", ""), ("Who wrote the book?", ""),
    # a noun phrase before its helping verb asks for its head, the last word
    ("Which plant hormone is given as an example of a hormone that inhibits growth?", "hormone"),
    ("Which two gases are given out?", "gases"), ("Which Indian state is the largest?", "state"),
    ("Which Act says that equal wages should be paid?", "act"), ("Which gas do manufacturers fill bags with?", "gas"),
    ("At which place near Kolkata was the first jute mill set up?", "place"),
    ("What country currently has a group of Huguenots?", "country"),
    # after a clause that sets the scene, within the one sentence
    ("When a decomposition reaction is brought about by heating, what kind of decomposition is it?", "decomposition"),
    ("Besides Confucianism, Buddhism, and Islam, what religions were tolerated during the Yuan?", "religions"),
])
def test_the_noun_a_question_asks_for(typed, noun):
    assert Question.read(typed).asked_noun == noun


def _hindi_question(asked: str) -> Question:
    """A Devanagari question as the pipeline leaves it: read as English, resolved, misspelt word still in `asked`."""
    return Question(typed="प्रकाश का अपवर्तन क्या है?", text="प्रकाश का अपवर्तन क्या है?", language="hi",
                    script=DEVANAGARI, reading="What is refraction of light?", read_from="Hindi",
                    resolved="What is refraction of light?", asked=asked)


def test_lexical_search_reads_a_question_built_by_hand_as_its_english_reading():
    index = LexicalIndex([c.text for c in LIGHT], include=[c.is_evidence for c in LIGHT])
    q = _hindi_question("What is refraction of light?")
    assert [w for w, _ in q.index_words] == ["refraction", "light"]
    assert index.search_bm25(q, 3)[0][0] == 0 and index.search_trigram(q, 3)[0][0] == 0  # the refraction chunk
    # the same lists as the English question typed: the Devanagari words are never what retrieval reads
    assert index.search_bm25(q, 3) == index.search_bm25("What is refraction of light?", 3)
    assert index.search_trigram(q, 3) == index.search_trigram("What is refraction of light?", 3)
    assert 3 not in {i for i, _ in index.search_bm25(q, 4)}  # the exercise restating it is not indexed


def test_the_spelling_repair_and_the_fuzzy_terms_read_the_questions_pieces():
    index = LexicalIndex([c.text for c in LIGHT])
    q = _hindi_question("What is refracton of light?")
    assert q.pieces[2] == ("refracton", 0, 0, "refracton") and q.pieces[-1] == ("light?", 0, 1, "light")
    # the repair reads what the gate reads before it is made: the resolved reading
    asked, fixes = index.correct(replace(q, resolved="What is refracton of light?", asked=""), 0.5)
    assert asked == "What is refraction of light?" and [f.match for f in fixes] == ["refraction"]
    weights, fuzzy = index.query_terms(q, 0.5)
    assert weights["light"] == 1.0 and 0.5 <= weights["refraction"] < 1.0 and fuzzy[0].word == "refracton"
    assert index.correct(q, 0.0) == ("What is refracton of light?", [])  # no repair asked for: as written


def test_the_lexical_side_tokenises_the_question_once(monkeypatch):
    calls = []
    real = lexical_terms.words
    monkeypatch.setattr("tutor.question.words", lambda t: calls.append(t) or real(t))
    index = LexicalIndex([c.text for c in LIGHT])
    q = _hindi_question("What is refraction of light?")
    index.search_bm25(q, 3, 0.5), index.search_trigram(q, 3), index.query_terms(q, 0.5), index.trigram_scores(q)
    assert calls == ["What is refraction of light?"]


def test_the_answerers_and_the_suggestions_take_the_question_built_by_hand():
    q = _hindi_question("What is refraction of light?")
    p = policy(min_confidence=0.5, min_mean_confidence=0.0)
    d = decide(q, hits((REFRACTION, 0.7)), p, STATS)
    sources = [Source.from_hit(1, d.evidence[0])]
    draft = ExtractiveAnswerer().answer(q, sources, list(d.candidates), p)
    assert draft.text.startswith("Refraction is the bending of light") and draft.sentences[0].citations == (1,)
    llm = FakeLLM(reply="Refraction is the bending of light. [1]")
    LLMAnswerer(llm).answer(q, sources, list(d.candidates), p)
    prompt = prompt_text(llm.chats[0])
    assert "Question: What is refraction of light?" in prompt and "अपवर्तन" not in prompt  # q.stated, in English
    assert q.stated == "What is refraction of light?"
    assert suggest_instead(q, hits((REFRACTION, 0.4)), Reason.LOW_CONFIDENCE, STATS)[0].section == "10.1 Refraction"
    assert suggest_instead(replace(q, asked="What is a tectonic plate?"), hits((REFRACTION, 0.4)),
                           Reason.LOW_CONFIDENCE, STATS) == ()  # no word of the question in the section


def test_a_definition_question_names_its_term():
    assert Question.of("What is meant by refraction?").defines == "refraction"
    assert Question.of("Define the power of a lens.").defines == "power of a lens"
    assert Question.of("What is it?").defines == "" and Question.of("Why does light bend?").defines == ""
