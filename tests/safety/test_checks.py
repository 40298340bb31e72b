"""Answer checks: citations present and 1-based in range, grounding in the cited text (token overlap and embedding
similarity, each on both sides of its threshold), forbidden and uncertain phrasing, and the verdict."""
from __future__ import annotations

import pytest

from tutor.answering.extractive import parse_sentences
from tutor.safety.checks import check_citations, check_grounding, check_phrasing, token_overlap, verdict
from tutor.types import AnswerSentence, Check

from helpers_safety import check, policy, source

S = AnswerSentence
FOUR = 4


# ---------------------------------------------------------------- citations


def test_every_sentence_cited_in_range_passes():
    checks = check_citations((S("Light bends.", (1,)), S("Lenses focus light.", (2, 4))), FOUR)
    assert all(c.passed for c in checks)
    assert {c.stage for c in checks} == {"answer"}


def test_uncited_sentence_fails_as_missing_citations():
    checks = check_citations((S("Light bends.", (1,)), S("Lenses focus light.", ())), FOUR)
    present = check(checks, "citations_present")
    assert not present.passed and present.reason == "missing_citations"
    assert (present.value, present.threshold) == (1.0, 2.0)
    assert "[2]" in present.detail  # names the uncited sentence, 1-based
    assert check(checks, "citations_valid").passed
    assert verdict(checks) == "missing_citations"


def test_no_sentences_at_all_is_missing_citations():
    assert not check(check_citations((), FOUR), "citations_present").passed


def test_citation_5_of_4_is_invalid():
    checks = check_citations((S("Light bends.", (5,)),), FOUR)
    valid = check(checks, "citations_valid")
    assert not valid.passed and valid.reason == "invalid_citations"
    assert valid.value == "5" and valid.threshold == "1..4"
    assert verdict(checks) == "invalid_citations"


def test_citation_0_is_invalid_because_citations_are_1_based():
    valid = check(check_citations((S("Light bends.", (0,)),), FOUR), "citations_valid")
    assert not valid.passed and valid.value == "0"


def test_citation_4_of_4_is_valid():
    assert check(check_citations((S("Light bends.", (4,)),), FOUR), "citations_valid").passed


def test_one_bad_citation_among_good_ones_fails_and_is_named():
    valid = check(check_citations((S("Light bends.", (1, 7)), S("Lenses focus.", (2,))), FOUR), "citations_valid")
    assert not valid.passed and valid.value == "7"


def test_any_citation_is_invalid_when_there_are_no_sources():
    assert not check(check_citations((S("Light bends.", (1,)),), 0), "citations_valid").passed


# ---------------------------------------------------------------- grounding

CITED = "Refraction bends light rays at the boundary of water."
SRC = [source(1, CITED)]
# content terms: refraction, bend, light, ray, mirror: four of five are in CITED
FOUR_OF_FIVE = "Refraction bends light rays in mirrors."
# every content term is in CITED, but the words are not CITED's own: only the similarity can judge it
PARAPHRASE = "At the boundary of water, rays of light bend: this is refraction."


class FakeSimilarity:
    """Cosine similarity by hand: `value` for every pair (or per passage via `by_passage`); records each call."""

    def __init__(self, value: float = 0.0, by_passage: dict[str, float] | None = None):
        self.value, self.by_passage, self.calls = value, by_passage or {}, []

    def __call__(self, sentence: str, passage: str) -> float:
        self.calls.append((sentence, passage))
        return self.by_passage.get(passage, self.value)


def test_token_overlap_counts_content_words_found_in_the_cited_text():
    assert token_overlap(FOUR_OF_FIVE, CITED) == pytest.approx(0.8)
    assert token_overlap(PARAPHRASE, CITED) == 1.0
    assert token_overlap("Acids turn blue litmus paper red.", CITED) == 0.0


@pytest.mark.parametrize("threshold, passes", [(0.8, True), (0.81, False)])
def test_grounding_on_both_sides_of_min_token_overlap(threshold, passes):
    pol = policy(min_token_overlap=threshold, min_answer_word_share=0.0, min_window_overlap=0.0)
    g = check(check_grounding((S(FOUR_OF_FIVE, (1,)),), SRC, pol, None), "grounding")
    assert g.passed is passes and g.value == (1.0 if passes else 0.0)
    assert "overlap 0.80" in g.detail and g.reason == "low_grounding"


@pytest.mark.parametrize("threshold, passes", [(0.59, True), (0.61, False)])
def test_grounding_on_both_sides_of_min_sentence_similarity(threshold, passes):
    # overlap is 1.0; only the hand-given similarity (0.6) decides
    sim = FakeSimilarity(0.6)
    pol = policy(min_token_overlap=0.5, min_sentence_similarity=threshold)
    g = check(check_grounding((S(PARAPHRASE, (1,)),), SRC, pol, sim), "grounding")
    assert g.passed is passes
    assert "overlap 1.00, similarity 0.60" in g.detail
    assert sim.calls == [(PARAPHRASE, CITED)]


def test_a_verbatim_quote_has_similarity_1_without_calling_the_embedder():
    sim = FakeSimilarity(-1.0)
    pol = policy(min_token_overlap=1.0, min_sentence_similarity=0.99)
    g = check(check_grounding((S(CITED, (1,)),), SRC, pol, sim), "grounding")
    assert g.passed and "similarity 1.00" in g.detail
    assert sim.calls == []


def test_similarity_is_measured_against_the_supporting_sentence_not_the_whole_chunk():
    long = ("Acids turn blue litmus paper red. " + CITED + " A plane mirror forms a virtual image behind it.")
    sim = FakeSimilarity(0.0, by_passage={CITED: 0.9})
    pol = policy(min_token_overlap=0.5, min_sentence_similarity=0.8)
    g = check(check_grounding((S(PARAPHRASE, (1,)),), [source(1, long)], pol, sim), "grounding")
    assert [p for _, p in sim.calls] == [CITED]
    assert g.passed


def test_similarity_is_the_best_over_the_cited_sources():
    other = "Rays of light bend at the boundary of water and glass."
    srcs = [source(1, CITED), source(2, other)]
    sim = FakeSimilarity(0.1, by_passage={other: 0.9})
    pol = policy(min_token_overlap=0.5, min_sentence_similarity=0.8)
    assert check(check_grounding((S(PARAPHRASE, (1, 2)),), srcs, pol, sim), "grounding").passed
    assert not check(check_grounding((S(PARAPHRASE, (1,)),), srcs, pol, sim), "grounding").passed


def test_a_sentence_citing_no_real_source_is_unsupported():
    for sim in (None, FakeSimilarity(1.0)):
        g = check(check_grounding((S(CITED, (9,)),), SRC, policy(min_token_overlap=0.0, min_sentence_similarity=-1.0),
                                  sim), "grounding")
        assert not g.passed and "overlap 0.00" in g.detail


@pytest.mark.parametrize("threshold, passes", [(0.5, True), (0.51, False)])
def test_grounding_on_both_sides_of_min_supported_share(threshold, passes):
    sentences = (S(CITED, (1,)), S("Acids turn blue litmus paper red.", (1,)))  # one of two supported
    pol = policy(min_token_overlap=0.6, min_supported_share=threshold, min_answer_word_share=0.0)
    g = check(check_grounding(sentences, SRC, pol, None), "grounding")
    assert g.value == 0.5 and g.passed is passes
    assert "sentence 2: overlap 0.00" in g.detail and "(unsupported)" in g.detail


@pytest.mark.parametrize("threshold, passes", [(0.8, True), (0.81, False)])
def test_answer_word_share_on_both_sides(threshold, passes):
    pol = policy(min_token_overlap=0.5, min_answer_word_share=threshold, min_window_overlap=0.0)
    checks = check_grounding((S(FOUR_OF_FIVE, (1,)),), SRC, pol, None)
    w = check(checks, "answer_word_share")
    assert w.value == pytest.approx(0.8) and w.passed is passes
    assert check(checks, "grounding").passed
    assert verdict(checks) == ("answered" if passes else "low_grounding")


def test_no_sentences_is_not_grounded():
    checks = check_grounding((), SRC, policy(min_supported_share=0.0, min_answer_word_share=0.0), None)
    assert not check(checks, "grounding").passed


# ---------------------------------------------------------------- phrasing

CLEAN = "Refraction is the bending of light when it passes from air into water."
CLEAN_SRC = [source(1, CLEAN + " The speed of light changes at the boundary.")]


def phrasing(text: str, cites=(1,), sources=CLEAN_SRC):
    return check(check_phrasing(parse_sentences(text) if "[" in text else (S(text, cites),), sources), "phrasing")


@pytest.mark.parametrize("phrase", [
    "In general", "Typically", "I believe", "As a best practice", "Based on my understanding",
    "You might also consider", "I'm not sure", "maybe", "I cannot", "error occurred",
])
def test_forbidden_or_uncertain_phrase_fails(phrase):
    c = phrasing(f"{phrase}, {CLEAN[0].lower()}{CLEAN[1:]}")
    assert not c.passed and c.reason == "forbidden_phrasing"
    assert phrase.lower() in c.value


def test_phrase_in_mid_sentence_and_any_case_fails():
    c = phrasing(f"{CLEAN[:-1]}, MAYBE.")
    assert not c.passed and c.value == "maybe"


def test_several_phrases_are_all_reported():
    assert phrasing("I believe refraction is maybe the bending of light.").value == "i believe, maybe"


def test_a_clean_textbook_sentence_passes():
    c = phrasing(f"{CLEAN} [1] Light slows down in glass and bends. [1]")
    assert c.passed and c.value == "none"


def test_phrases_match_whole_words_only():
    # "maybe" inside another word, "typical" without "-ly": a textbook may say these
    assert phrasing("Mayberry is a typical town near the river.").passed


def test_the_books_own_words_quoted_verbatim_are_not_scanned():
    book = "In general, metals are good conductors of heat and electricity."
    srcs = [source(1, "Metals are lustrous. " + book), source(2, CLEAN)]
    assert check(check_phrasing((S(book, (1,)),), srcs), "phrasing").passed
    # the same words cited to a source that does not hold them are the answerer's, and are scanned
    assert not check(check_phrasing((S(book, (2,)),), srcs), "phrasing").passed
    # a hedge added to a quote makes it the answerer's sentence
    assert not check(check_phrasing((S("I believe " + book[0].lower() + book[1:], (1,)),), srcs), "phrasing").passed


# ---------------------------------------------------------------- verdict


def _c(name, passed, reason):
    return Check(name, "answer", passed, None, None, "", reason)


def test_verdict_answered_when_all_pass():
    assert verdict([_c("a", True, "missing_citations"), _c("b", True, "low_grounding")]) == "answered"


def test_verdict_names_the_one_failing_reason_even_from_two_checks():
    assert verdict([_c("grounding", False, "low_grounding"), _c("answer_word_share", False, "low_grounding"),
                    _c("phrasing", True, "forbidden_phrasing")]) == "low_grounding"


def test_verdict_multiple_issues():
    sentences = (S("I believe light bends.", ()),)
    checks = check_citations(sentences, FOUR) + check_phrasing(sentences, CLEAN_SRC)
    assert [c.reason for c in checks if not c.passed] == ["missing_citations", "forbidden_phrasing"]
    assert verdict(checks) == "multiple_issues"


def test_a_hindi_sentence_quoted_word_for_word_needs_no_embedding():
    from tutor.safety.checks import quoted

    book = "लौह की कमी से होने वाला अरक्तता (IDA) एक आम समस्या है। यह गर्भवती महिलाओं में अधिक होती है।"
    src = source(1, book, file="h.pdf", page=3)
    sentence = AnswerSentence("यह गर्भवती महिलाओं में अधिक होती है।", (1,))

    def no_model(a: str, b: str) -> float:
        raise AssertionError("a quoted sentence must not be sent to the embedding model")

    checks = check_grounding((sentence,), [src], policy(), no_model)
    assert checks[0].passed and "similarity 1.00" in checks[0].detail
    assert quoted("यह गर्भवती महिलाओं", book)
    assert not quoted("वती महिलाओं", book)  # whole words only: a word's tail is not a quote
    assert not quoted("he is", "the issue") and quoted("The issue", "the issue, again")


@pytest.mark.parametrize("sentence, window, passes", [
    # every content word in one sentence of the cited text (a paraphrase of it)
    ("Respiration is an exothermic process that gives out energy.", 1.0, True),
    # the words are all in the chunk, but gathered from two places: the book never says this
    ("Respiration is an endothermic process.", 2 / 3, False),
])
def test_a_sentence_must_find_its_words_in_one_place_of_the_cited_text(sentence, window, passes):
    cited = ("Do you know that respiration is an exothermic process that gives out energy? We need energy to stay "
             "alive. Food is broken down in the cells. Reactions in which energy is absorbed are known as "
             "endothermic reactions.")
    pol = policy(min_token_overlap=0.6, min_window_overlap=1.0, min_answer_word_share=0.0)
    g = check(check_grounding((S(sentence, (1,)),), [source(1, cited)], pol, None), "grounding")
    assert token_overlap(sentence, cited) == 1.0  # the old test alone would pass both
    assert g.passed is passes and f"overlap {window:.2f}" in g.detail
