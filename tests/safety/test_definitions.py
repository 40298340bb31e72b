"""A definition question's answer led by the sentence that defines its term (tutor/safety/definitions.py): the loose
test that chooses the lead, the gate's strict test left as it was, and the lead itself on decisions built by hand."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from tutor.safety.definitions import definition_led, definition_sentence, keeps_definition
from tutor.safety.gate import decide, widened
from tutor.text.terms import TermStats

from helpers_safety import chunk, hits, policy


def said(*texts: str) -> list[SimpleNamespace]:
    return [SimpleNamespace(text=t) for t in texts]


@pytest.mark.parametrize("question, sentence", [
    ("What is a food web?", "The relationship can be shown as a series of branching lines called a food web (Fig. 3)."),
    ("What is federalism?", "Federalism is a system of government in which the power is divided."),
    ("What are hormones?", "A hormone is a chemical messenger released into the blood."),
    ("What is a hormone?", "Hormones are chemical messengers released into the blood."),
    ("What is a coalition government?", "Coalition government: A government formed by at least two parties."),
    ("Define power of a lens.", "The power of a lens is defined as the reciprocal of its focal length."),
    ("What is meant by corrosion?", "It is said to corrode and this process is known as corrosion."),
    ("What is a tariff?", "A tariff means a tax on imports."),
    ("What is soil erosion?", "The washing down of the soil cover is described as soil erosion."),
    ("What is a mineral?", "Geologists define mineral as a homogenous, naturally occurring substance."),
])
def test_the_loose_test_finds_a_term_beside_the_words_that_define_it(question, sentence):
    assert definition_sentence(question, said(sentence), loose=True) is not None


@pytest.mark.parametrize("question, sentence", [
    # a defining word somewhere in a sentence that names the term: the gate's test takes it, the lead's does not
    ("What is a coalition government?", "The cartoon refers to the problems of a grand coalition government."),
    # "X is called Y" defines Y
    ("What is electric current?", "A closed path of an electric current is called an electric circuit."),
    ("What is an alloy?", "If one of the metals is mercury, then the alloy is known as an amalgam."),
    # "X is" / "X are" that says something of X, not what it is
    ("What is soil erosion?", "Soil erosion is also caused due to defective methods of farming."),
    ("What is a mineral?", "Minerals are found in varied forms in nature."),
    ("What is a rainbow?", "A rainbow is always formed in a direction opposite to that of the Sun."),
])
def test_the_loose_test_refuses_a_sentence_that_defines_something_else(question, sentence):
    assert definition_sentence(question, said(sentence), loose=True) is None


def test_the_gates_strict_test_is_unchanged():
    cartoon = "The cartoon at the left refers to the problems of a grand coalition government."
    assert definition_sentence("What is a coalition government?", said(cartoon)) is not None
    # nor does it take the other number or "called X" without "is", which only the lead's test does
    assert definition_sentence("What are hormones?", said("A hormone is a chemical messenger.")) is None
    assert definition_sentence("What is a food web?", said("Branching lines called a food web.")) is None
    # a question that asks for no definition has none
    assert definition_sentence("Why do stars twinkle?", said("Twinkling is called scintillation.")) is None


FOOD = chunk("eco:0000", "Many food chains share their animals in nature. A web of feeding links joins the food chains "
             "of a forest. So the relationship is shown as a series of branching lines called a food web.",
             section="13.1 Food chains and webs")
STATS = TermStats([FOOD.text, "Light travels in straight lines through a glass slab."])


def test_a_passed_definition_question_is_led_by_its_definition():
    d = decide("What is a food web?", hits((FOOD, 0.7)), policy(), STATS)
    assert d.passed and not d.values.get("definition")
    assert not d.candidates[0].text.endswith("called a food web.")  # the gate ranks another sentence first
    led = definition_led(d, "What is a food web?")
    assert led.candidates[0].text.endswith("called a food web.")
    assert sorted(c.text for c in led.candidates) == sorted(c.text for c in d.candidates)  # only the order changes
    assert (led.passed, led.reason, led.checks, led.evidence) == (d.passed, d.reason, d.checks, d.evidence)


def test_the_policy_switches_the_lead_where_the_gate_widens_its_answer():
    q, found = "What is a food web?", hits((FOOD, 0.7))
    d = decide(q, found, policy(), STATS)
    led = widened(d, found, q, STATS, policy(definition_lead=True))
    assert led.candidates[0].text.endswith("called a food web.")
    assert widened(d, found, q, STATS, policy(definition_lead=False)).candidates == d.candidates


def test_no_lead_changes_for_a_refusal_or_a_question_that_asks_no_definition():
    d = decide("What is a food web?", hits((FOOD, 0.7)), policy(min_confidence=0.99), STATS)
    assert not d.passed and definition_led(d, "What is a food web?") is d
    d = decide("Which chains share their animals?", hits((FOOD, 0.7)), policy(), STATS)
    assert definition_led(d, "Which chains share their animals?") is d


def test_a_definition_that_leads_the_answer_keeps_the_lead_from_the_readers_span():
    first = said("So the relationship is shown as a series of branching lines called a food web.",
                 "Food web, consisting of many food chains and animals.")
    q = "What is a food web?"
    assert keeps_definition(q, first, "many food chains and animals")
    assert not keeps_definition(q, first, "branching lines")  # the span is in the definition: it leads as ever
    assert not keeps_definition(q, first, None) and not keeps_definition(q, first, "")  # the reader found no span
    assert not keeps_definition(q, first[1:], "branching lines")  # the answer does not begin with a definition
    assert not keeps_definition("Which lines form a food web?", first, "many food chains")  # asks no definition
