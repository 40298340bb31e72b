"""The extractive answerer and the answer parser: every sentence cited [n] within 1..len(sources), quoted in reading
order, never a question printed in the book; "[1][2]" and a stray "[2]" parsed onto the right sentence."""
from __future__ import annotations

import re

import pytest

from tutor.answering.extractive import ExtractiveAnswerer, parse_sentences
from tutor.safety.gate import decide
from tutor.text.terms import TermStats
from tutor.types import AnswerSentence, Chunk

from helpers_safety import LIGHT, chunk, hits, policy, source

ANSWERER = ExtractiveAnswerer()


def sources_for(evidence):
    return [source(i + 1, h.chunk.text, chunk_id=h.chunk.chunk_id, page=h.chunk.page_start)
            for i, h in enumerate(evidence)]


def extract(question, pairs, **pol):
    p = policy(**pol)
    hs = hits(*pairs)
    stats = TermStats([h.chunk.text for h in hs])
    d = decide(question, hs, p, stats)
    srcs = sources_for(d.evidence)
    return ANSWERER.answer(question, srcs, list(d.candidates), p), srcs, d


def test_extractive_answerer_is_offline():
    assert ANSWERER.uses_llm is False and ANSWERER.name == "extractive"


def test_every_sentence_ends_with_a_citation_in_range():
    draft, srcs, d = extract("How does a lens bend rays of light?",
                             [(LIGHT[0], 0.62), (LIGHT[1], 0.6), (LIGHT[2], 0.58)], max_answer_sentences=3)
    assert d.passed and len(srcs) == 3
    assert draft.sentences
    pieces = re.findall(r"[^\[\]]+?\[\d+\]", draft.text)
    assert " ".join(p.strip() for p in pieces) == draft.text  # the text is sentence [n] sentence [n] ...
    for s in draft.sentences:
        assert len(s.citations) == 1 and 1 <= s.citations[0] <= len(srcs)
        cited = srcs[s.citations[0] - 1]
        assert s.text in cited.text  # a quote from the source it cites


def test_parsing_the_answer_text_gives_back_its_sentences():
    draft, _, _ = extract("What is the power of a lens measured in?", [(LIGHT[1], 0.8), (LIGHT[0], 0.75)])
    parsed = parse_sentences(draft.text)
    assert [(s.text, s.citations) for s in parsed] == [(s.text, s.citations) for s in draft.sentences]


def test_the_sentence_that_answers_leads_and_the_rest_follow_in_reading_order():
    c = chunk("lens:0000", "A lens is a piece of glass with curved surfaces. "
              "The power of a lens is measured in dioptres and depends on its focal length.", section="10.2 Lenses")
    draft, _, _ = extract("What is the power of a lens measured in?", [(c, 0.8)], max_answer_sentences=2)
    # the second sentence covers the question best: it is the answer, read first; the first supports it
    assert [s.text for s in draft.sentences] == [
        "The power of a lens is measured in dioptres and depends on its focal length.",
        "A lens is a piece of glass with curved surfaces.",
    ]


def test_quotes_are_in_source_order_across_chunks():
    first = chunk("lens:0000", "Convex lens rays converge at the principal focus of the lens.", section="A")
    second = chunk("lens:0001", "Concave lens rays diverge from the principal focus of the lens.", section="B")
    draft, srcs, _ = extract("Where do rays of a concave lens and a convex lens meet the focus?",
                             [(second, 0.8), (first, 0.79)], max_answer_sentences=2)
    assert [s.chunk_id for s in srcs] == ["lens:0001", "lens:0000"]
    assert [s.citations for s in draft.sentences] == [(1,), (2,)]
    assert draft.text.index("[1]") < draft.text.index("[2]")


@pytest.mark.parametrize("asking", [
    "What is the power of a lens measured in?",
    "Explain how the power of a lens is measured in dioptres.",
    "1. State the unit in which the power of a lens is measured.",
])
def test_never_quotes_a_question_printed_in_the_text(asking):
    c = chunk("lens:0000", f"{asking} The power of a lens is the reciprocal of its focal length in metres. "
              "Its unit is the dioptre.", section="10.2 Lenses")
    draft, _, d = extract("What is the power of a lens measured in?", [(c, 0.8)], max_answer_sentences=3)
    assert draft.sentences
    assert all(s.text != asking for s in draft.sentences)
    assert asking not in draft.text
    assert all(cand.text != asking for cand in d.candidates)


def test_at_most_max_answer_sentences():
    c = chunk("lens:0000", "A lens has a power. The power of a lens is measured in dioptres. "
              "A lens of high power bends rays strongly. The power of a convex lens is positive.", section="10.2")
    for n in (1, 2, 3):
        draft, _, _ = extract("What is the power of a lens?", [(c, 0.8)], max_answer_sentences=n)
        assert 1 <= len(draft.sentences) <= n


def test_a_candidate_from_a_chunk_that_is_not_a_source_is_never_quoted():
    p = policy()
    hs = hits((LIGHT[1], 0.8))
    d = decide("What is the power of a lens measured in?", hs, p, TermStats([LIGHT[1].text]))
    draft = ANSWERER.answer("What is the power of a lens measured in?", [], list(d.candidates), p)
    assert draft.sentences == () and draft.text == ""


def test_each_sentence_keeps_the_page_it_was_printed_on():
    text = "Light bends when it enters water. The bending of light is called refraction of light."
    split = text.index("The")
    c = Chunk("light:0100", "10", "science", "Light", "light", "light.pdf", 5, 6, "body", "10.1",
              text, ((0, split - 1, 5), (split, len(text), 6)))
    draft, _, _ = extract("What is the bending of light called?", [(c, 0.8)], max_answer_sentences=2)
    pages = {s.text: s.page for s in draft.sentences}
    assert pages["The bending of light is called refraction of light."] == 6
    assert pages.get("Light bends when it enters water.", 5) == 5


# ---------------------------------------------------------------- parse_sentences


def test_parse_two_citations_on_one_sentence():
    got = parse_sentences("Refraction is the bending of light.[1][2] A lens converges rays.[2]")
    assert got == (AnswerSentence("Refraction is the bending of light.", (1, 2)),
                   AnswerSentence("A lens converges rays.", (2,)))


def test_parse_spaced_citations():
    got = parse_sentences("Refraction is the bending of light. [1] [3] A lens converges rays. [2]")
    assert [(s.text, s.citations) for s in got] == [("Refraction is the bending of light.", (1, 3)),
                                                    ("A lens converges rays.", (2,))]


def test_parse_a_stray_citation_joins_the_sentence_before_it():
    got = parse_sentences("Refraction is the bending of light. [1]\n[2]\nA lens converges rays. [3]")
    assert [(s.text, s.citations) for s in got] == [("Refraction is the bending of light.", (1, 2)),
                                                    ("A lens converges rays.", (3,))]


def test_parse_an_uncited_sentence_has_no_citations():
    got = parse_sentences("Refraction is the bending of light. A lens converges rays. [1]")
    assert [s.citations for s in got] == [(), (1,)]


def test_parse_keeps_out_of_range_numbers_for_the_checks_to_reject():
    assert parse_sentences("Refraction is the bending of light. [0] A lens converges rays. [5]")[0].citations == (0,)
    assert parse_sentences("Refraction is the bending of light. [0] A lens converges rays. [5]")[1].citations == (5,)


def test_parse_empty_text():
    assert parse_sentences("") == () and parse_sentences("  \n ") == ()
