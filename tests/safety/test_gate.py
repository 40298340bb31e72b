"""The confidence gate on hits built by hand: each check on both sides of its threshold, the evidence bands, drops
with reasons, the wrong-shelf hint, the reranked tier and the confidence scale.

Scores are cosine similarities (higher is closer) written into each Hit, so each threshold is crossed on purpose.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from tutor.question import Question
from tutor.reasons import Tier
from tutor.safety.gate import decide, widened
from tutor.store.shelf import ShelfKey
from tutor.text.terms import TermStats

from helpers_safety import LIGHT, SOIL, check, chunk, hits, policy

PRISM = "A glass prism splits white light into a spectrum of colours."
STATS = TermStats([c.text for c in LIGHT] + [PRISM])  # "prism" is known to the shelf but not in LIGHT[0]
Q = "What is refraction of light?"
REFRACTION, LENSES, MIRRORS, EXERCISE = LIGHT


def ids(hs) -> list[str]:
    return [h.chunk.chunk_id for h in hs]


def failed(decision) -> list[str]:
    return [c.name for c in decision.checks if not c.passed]


def test_a_well_supported_question_passes_every_check():
    d = decide(Q, hits((REFRACTION, 0.6)), policy(), STATS)
    assert d.passed and d.reason == "answered" and failed(d) == []
    assert ids(d.evidence) == ["light:0000"]
    assert d.tier == "retrieval" and 0.5 <= d.confidence <= 1.0
    assert {c.stage for c in d.checks} == {"gate"}


# ---------------------------------------------------------------- context


@pytest.mark.parametrize("extra, passes", [(0, True), (1, False)])
def test_context_needs_min_context_chars_of_evidence(extra, passes):
    need = len(REFRACTION.text) + extra
    d = decide(Q, hits((REFRACTION, 0.6)), policy(min_context_chars=need), STATS)
    c = check(d.checks, "context")
    assert (c.passed, c.value, c.threshold) == (passes, float(len(REFRACTION.text)), float(need))
    assert d.passed is passes
    assert d.reason == ("answered" if passes else "insufficient_context")


def test_no_hits_at_all_is_insufficient_context():
    d = decide(Q, [], policy(), STATS)
    assert not d.passed and d.reason == "insufficient_context"
    assert d.evidence == () and d.candidates == ()


# ---------------------------------------------------------------- off-topic and confidence


@pytest.mark.parametrize("score, passes", [(0.31, True), (0.29, False)])
def test_off_topic_on_both_sides_of_offtopic_max_score(score, passes):
    d = decide(Q, hits((REFRACTION, score)), policy(offtopic_max_score=0.3, min_confidence=0.0,
                                                    min_mean_confidence=0.0), STATS)
    c = check(d.checks, "off_topic")
    assert (c.passed, c.value, c.threshold) == (passes, score, 0.3)
    assert d.reason == ("answered" if passes else "off_topic")


@pytest.mark.parametrize("score, passes", [(0.51, True), (0.49, False)])
def test_confidence_on_both_sides_of_min_confidence(score, passes):
    # every question term is on the shelf, so no penalty: the adjusted score is the best score
    d = decide(Q, hits((REFRACTION, score)), policy(min_confidence=0.5, min_mean_confidence=0.0), STATS)
    c = check(d.checks, "confidence")
    assert d.values["unknown"] == 0.0
    assert (c.passed, c.value) == (passes, score)
    assert d.reason == ("answered" if passes else "low_confidence")


def test_unknown_term_penalty_lowers_the_confidence_below_the_threshold():
    q = "What is refraction of zorblax?"  # "zorblax" is on no page of the shelf
    idf_r, idf_z = STATS.idf("refraction"), STATS.idf("zorblax")
    unknown = idf_z / (idf_r + idf_z)
    pol = policy(min_confidence=0.5, min_mean_confidence=0.0, min_term_coverage=0.0, min_sentence_coverage=0.0)

    with_penalty = decide(q, hits((REFRACTION, 0.6)), pol.with_values(unknown_term_penalty=0.3), STATS)
    c = check(with_penalty.checks, "confidence")
    assert with_penalty.values["unknown"] == pytest.approx(unknown)
    assert c.value == pytest.approx(0.6 - 0.3 * unknown, abs=1e-4)
    assert not c.passed and with_penalty.reason == "low_confidence"

    without = decide(q, hits((REFRACTION, 0.6)), pol.with_values(unknown_term_penalty=0.0), STATS)
    assert check(without.checks, "confidence").passed and without.passed


@pytest.mark.parametrize("threshold, passes", [(0.57, True), (0.58, False)])
def test_mean_confidence_on_both_sides(threshold, passes):
    # both chunks are within evidence_drop of the best: mean (0.6 + 0.55) / 2 = 0.575
    d = decide(Q, hits((REFRACTION, 0.6), (LENSES, 0.55)),
               policy(min_mean_confidence=threshold, evidence_drop=0.1), STATS)
    c = check(d.checks, "mean_confidence")
    assert ids(d.evidence) == ["light:0000", "light:0001"]
    assert c.value == pytest.approx(0.575) and c.passed is passes
    assert d.reason == ("answered" if passes else "low_confidence")


# ---------------------------------------------------------------- term coverage and answerability


def test_term_coverage_on_both_sides():
    q = "What is refraction of light in a prism?"  # "prism" is known to the shelf but not in the evidence
    w = {t: STATS.idf(t) for t in ("refraction", "light", "prism")}
    expected = (w["refraction"] + w["light"]) / sum(w.values())
    assert 0.3 < expected < 0.9
    for threshold, passes in ((expected - 0.01, True), (expected + 0.01, False)):
        d = decide(q, hits((REFRACTION, 0.6)), policy(min_term_coverage=threshold, min_sentence_coverage=0.0), STATS)
        c = check(d.checks, "term_coverage")
        assert d.values["unknown"] == 0.0
        assert c.value == pytest.approx(expected, abs=1e-4) and c.passed is passes
        assert failed(d) == ([] if passes else ["term_coverage"])
        assert d.reason == ("answered" if passes else "low_confidence")


def test_answerability_needs_one_sentence_to_cover_the_question_not_just_the_chunk():
    # the chunk holds both terms, but in sentences too far apart for any one sentence (and its neighbours) to cover both
    scattered = chunk("light:0009", "Refraction changes the direction of a ray at a boundary. "
                      "Glass and water are transparent media for rays. "
                      "A ray meets a surface at an angle called incidence. "
                      "Light travels fastest through a vacuum.", section="10.4 Scattered")
    stats = TermStats([c.text for c in LIGHT] + [scattered.text])
    w_r, w_l = stats.idf("refraction"), stats.idf("light")
    best_sentence = max(w_r, w_l) / (w_r + w_l)
    for threshold, passes in ((best_sentence - 0.01, True), (best_sentence + 0.01, False)):
        d = decide(Q, hits((scattered, 0.6)), policy(min_term_coverage=0.5, min_sentence_coverage=threshold), stats)
        assert check(d.checks, "term_coverage").value == 1.0
        c = check(d.checks, "answerability")
        assert c.value == pytest.approx(best_sentence, abs=1e-4) and c.passed is passes
        assert d.reason == ("answered" if passes else "not_answerable")


BOIL = chunk("heat:0000", "Water boils at 100 degrees Celsius at sea level. Ice melts at zero degrees Celsius.",
             chapter="Heat", section="4.1 Boiling", file="heat.pdf")
BOIL_STATS = TermStats([c.text for c in LIGHT] + [BOIL.text])


@pytest.mark.parametrize("question, passes", [("What boils at 100 degrees Celsius at sea level?", True),
                                              ("What boils at 90 degrees Celsius at sea level?", False)])
def test_numbers_in_the_question_must_appear_beside_the_answer(question, passes):
    d = decide(question, hits((BOIL, 0.8)), policy(require_question_numbers=True), BOIL_STATS)
    c = check(d.checks, "question_numbers")
    assert c.passed is passes
    assert failed(d) == ([] if passes else ["question_numbers"])
    assert d.reason == ("answered" if passes else "not_answerable")


def test_an_explanation_question_is_not_held_to_its_numbers():
    # "Why ...?" asks for a reason; numbers in it (often a page number stuck to a copied question) are not the answer
    d = decide("Why does water boil at 90 degrees Celsius in the mountains?", hits((BOIL, 0.8)),
               policy(require_question_numbers=True), BOIL_STATS)
    assert "question_numbers" not in [c.name for c in d.checks]


def test_question_numbers_check_is_off_when_the_policy_says_so():
    d = decide("What boils at 90 degrees Celsius at sea level?", hits((BOIL, 0.8)),
               policy(require_question_numbers=False), BOIL_STATS)
    assert "question_numbers" not in [c.name for c in d.checks]
    assert d.passed


# ---------------------------------------------------------------- clear winner


def test_clear_winner_is_not_checked_unless_switched_on():
    d = decide(Q, hits((REFRACTION, 0.6), (LENSES, 0.59)), policy(require_clear_winner=False), STATS)
    assert "clear_winner" not in [c.name for c in d.checks] and d.passed


@pytest.mark.parametrize("second, passes", [(0.58, False), (0.45, True)])
def test_clear_winner_on_both_sides_of_min_top_ratio(second, passes):
    d = decide(Q, hits((REFRACTION, 0.6), (LENSES, second)), policy(require_clear_winner=True, min_top_ratio=1.2),
               STATS)
    c = check(d.checks, "clear_winner")
    assert c.value == pytest.approx(0.6 / second, abs=1e-4) and c.passed is passes
    assert d.reason == ("answered" if passes else "no_clear_winner")


def test_clear_winner_compares_against_the_next_different_section():
    same_section = chunk("light:0005", "Light bends towards the normal when it enters a denser medium such as glass.",
                         section=REFRACTION.section)
    d = decide(Q, hits((REFRACTION, 0.6), (same_section, 0.59), (LENSES, 0.45)),
               policy(require_clear_winner=True, min_top_ratio=1.2), STATS)
    assert check(d.checks, "clear_winner").value == pytest.approx(0.6 / 0.45, abs=1e-4)
    assert d.passed


# ---------------------------------------------------------------- exercises never become evidence


@pytest.mark.parametrize("kind", ["exercise", "question_box"])
def test_exercise_and_question_box_chunks_are_dropped_even_when_they_score_highest(kind):
    asking = chunk("light:0008", "What is refraction of light? Explain the refraction of light in water.",
                   kind=kind, section="Questions")
    d = decide(Q, hits((asking, 0.95), (REFRACTION, 0.6)), policy(), STATS)
    assert ids(d.evidence) == ["light:0000"]
    assert "light:0008" not in ids(d.near_misses)
    dropped = {h.chunk.chunk_id: why for h, why in d.dropped}
    assert "restates questions" in dropped["light:0008"] and kind.replace("_", " ") in dropped["light:0008"]
    assert d.values["best"] == 0.6  # the exercise's 0.95 counts for nothing
    assert all(c.hit.chunk.chunk_id == "light:0000" for c in d.candidates)


def test_only_exercises_retrieved_means_no_evidence_and_a_refusal():
    d = decide(Q, hits((EXERCISE, 0.9)), policy(), STATS)
    assert not d.passed and d.evidence == ()
    assert d.reason == "insufficient_context"
    assert ids(h for h, _ in d.dropped) == ["light:0003"]


# ---------------------------------------------------------------- evidence, near-miss and ignored bands


def test_evidence_near_miss_and_ignored_bands():
    far = chunk("light:0006", "Light from the sun reaches the earth in about eight minutes.", section="10.5 Sun")
    d = decide(Q, hits((REFRACTION, 0.8), (LENSES, 0.71), (MIRRORS, 0.65), (far, 0.59)),
               policy(evidence_drop=0.1, near_miss_margin=0.1), STATS)
    # band: >= 0.7 evidence; >= 0.6 near miss; below, ignored
    assert ids(d.evidence) == ["light:0000", "light:0001"]
    assert ids(d.near_misses) == ["light:0002"]
    dropped = {h.chunk.chunk_id: why for h, why in d.dropped}
    assert dropped == {"light:0002": "near miss: logged, not used",
                       "light:0006": "scored below the evidence and near-miss bands"}


def test_just_below_the_evidence_band_is_a_near_miss():
    d = decide(Q, hits((REFRACTION, 0.8), (LENSES, 0.69)), policy(evidence_drop=0.1, near_miss_margin=0.1), STATS)
    assert ids(d.evidence) == ["light:0000"] and ids(d.near_misses) == ["light:0001"]


def test_evidence_is_capped_at_max_evidence_and_the_rest_are_near_misses():
    d = decide(Q, hits((REFRACTION, 0.8), (LENSES, 0.79), (MIRRORS, 0.78)), policy(max_evidence=2), STATS)
    assert ids(d.evidence) == ["light:0000", "light:0001"]
    assert ids(d.near_misses) == ["light:0002"]


def test_every_hit_is_either_evidence_or_dropped_with_a_reason():
    hs = hits((EXERCISE, 0.9), (REFRACTION, 0.8), (LENSES, 0.75), (MIRRORS, 0.2))
    d = decide(Q, hs, policy(), STATS)
    dropped_ids = ids(h for h, _ in d.dropped)
    assert sorted(ids(d.evidence) + dropped_ids) == sorted(ids(hs))
    assert all(why for _, why in d.dropped)


# ---------------------------------------------------------------- wrong subject


SOCIAL = ShelfKey("10", "social-science")


def test_wrong_subject_names_the_shelf_that_scores_far_better():
    d = decide(Q, hits((REFRACTION, 0.35)), policy(min_confidence=0.5, wrong_shelf_margin=0.1), STATS,
               other_shelves=[(SOCIAL, 0.8)])
    assert not d.passed
    assert d.reason == "wrong_subject" and d.other_shelf == SOCIAL


@pytest.mark.parametrize("other_score", [
    0.44,  # within wrong_shelf_margin of this shelf's 0.35
    0.49,  # far enough above, but itself below min_confidence
])
def test_no_wrong_subject_when_the_other_shelf_is_not_far_better_and_confident(other_score):
    d = decide(Q, hits((REFRACTION, 0.35)), policy(min_confidence=0.5, wrong_shelf_margin=0.1), STATS,
               other_shelves=[(SOCIAL, other_score)])
    assert not d.passed and d.reason == "low_confidence" and d.other_shelf is None


def test_a_passed_decision_never_names_another_shelf():
    d = decide(Q, hits((REFRACTION, 0.6)), policy(), STATS, other_shelves=[(SOCIAL, 0.95)])
    assert d.passed and d.reason == "answered" and d.other_shelf is None


# ---------------------------------------------------------------- reranked tier


LENS_Q = "What is the power of a lens?"


def test_reranker_scores_choose_the_evidence_and_the_tier_says_reranker():
    hs = hits((REFRACTION, 0.6), (LENSES, 0.55), (MIRRORS, 0.52))
    plain = decide(LENS_Q, hs, policy(evidence_drop=0.1), STATS)
    assert ids(plain.evidence) == ["light:0000", "light:0001", "light:0002"]  # retrieval alone keeps all three

    rr = {"light:0001": 3.0, "light:0000": 1.0, "light:0002": 0.5}
    d = decide(LENS_Q, hs, policy(evidence_drop=0.1, min_rerank_score=2.0), STATS, rerank=rr)
    assert d.tier == "reranker" and d.passed
    assert ids(d.evidence) == ["light:0001"]
    assert ids(d.near_misses) == ["light:0000"]  # within one point of min_rerank_score
    names = [c.name for c in d.checks]
    assert "rerank_confidence" in names and "confidence" not in names and "mean_confidence" not in names
    assert check(d.checks, "rerank_confidence").value == 3.0
    assert d.confidence == 1.0  # 3 of 3


@pytest.mark.parametrize("top, passes", [(2.0, True), (1.9, False)])
def test_rerank_confidence_on_both_sides_of_min_rerank_score(top, passes):
    hs = hits((REFRACTION, 0.6), (LENSES, 0.55))
    d = decide(LENS_Q, hs, policy(min_rerank_score=2.0), STATS, rerank={"light:0001": top, "light:0000": 0.0})
    c = check(d.checks, "rerank_confidence")
    assert d.tier == "reranker"
    assert c.passed is passes and d.passed is passes
    assert ids(d.evidence) == (["light:0001"] if passes else [])


def test_reranked_tier_still_drops_exercises_even_when_the_reranker_likes_them():
    d = decide(Q, hits((EXERCISE, 0.9), (REFRACTION, 0.6)), policy(), STATS,
               rerank={"light:0003": 3.0, "light:0000": 2.5})
    assert ids(d.evidence) == ["light:0000"]
    assert "light:0003" in ids(h for h, _ in d.dropped)


# ---------------------------------------------------------------- the confidence scale


@pytest.mark.parametrize("pairs, kw", [
    ([(REFRACTION, 0.6)], {}),
    ([(REFRACTION, 0.99)], {}),
    ([(REFRACTION, 0.49)], {}),
    ([(REFRACTION, 0.2)], {}),
    ([(REFRACTION, -0.9)], {}),
    ([(REFRACTION, 0.95)], {"min_context_chars": 10_000}),  # high score, refused for another reason
    ([(REFRACTION, 0.95)], {"min_sentence_coverage": 1.0, "min_term_coverage": 1.0, "min_confidence": -1.0}),
    ([(EXERCISE, 0.9)], {}),
])
def test_confidence_is_in_0_1_and_below_one_half_on_every_refusal(pairs, kw):
    d = decide("What is refraction of light in a prism?" if kw.get("min_term_coverage") else Q,
               hits(*pairs), policy(**kw), STATS)
    assert 0.0 <= d.confidence <= 1.0
    if d.passed:
        assert d.confidence >= 0.5
    else:
        assert d.confidence < 0.5


def test_confidence_rises_with_the_score():
    scores = [0.5, 0.6, 0.7, 0.8]
    confs = [decide(Q, hits((REFRACTION, s)), policy(min_confidence=0.5), STATS).confidence for s in scores]
    assert confs == sorted(confs) and confs[0] < confs[-1]


# ---------------------------------------------------------------- answerability cues added with calibration

NORMANS = chunk("hist:0000", "The Normans conquered England in 1066. Their leader William was crowned king. "
                "The Normans did not conquer Scotland, whose kings kept their crown.", section="1.1 Normans")
NORMAN_STATS = TermStats([c.text for c in LIGHT] + [NORMANS.text])
BARTER = chunk("money:0000", "Suppose a weaver wants to exchange cloth for rice. She must find a farmer who wants "
               "cloth. This situation is called the double coincidence of wants. Money removes this difficulty.",
               section="2.1 Money")
BARTER_STATS = TermStats([c.text for c in LIGHT] + [BARTER.text])


@pytest.mark.parametrize("question, passes", [
    ("Which country did the Normans conquer in 1066?", True),  # positive question, positive text
    ("Which country did the Normans not conquer?", True),  # the text has the negation beside the answer
])
def test_negated_factual_question_needs_a_negation_beside_the_answer(question, passes):
    d = decide(question, hits((NORMANS, 0.8)), policy(), NORMAN_STATS)
    assert [c.name for c in d.checks if not c.passed] == []


def test_negated_factual_question_without_a_negation_in_the_text_is_not_answerable():
    text = chunk("hist:0001", "The Normans conquered England in 1066. Their leader William was crowned king there.")
    d = decide("Which country did the Normans never conquer?", hits((text, 0.8)), policy(),
               TermStats([c.text for c in LIGHT] + [text.text]))
    assert check(d.checks, "negation").passed is False
    assert d.reason == "not_answerable"
    d = decide("Which country did the Normans never conquer?", hits((text, 0.8)),
               policy(require_negation_match=False), TermStats([c.text for c in LIGHT] + [text.text]))
    assert "negation" not in [c.name for c in d.checks]


def test_a_why_question_about_a_negative_fact_is_not_held_to_negation():
    text = chunk("acid:0000", "Dry hydrogen chloride gas does form hydrogen ions only in the presence of water. "
                 "Hydrogen ions change the colour of litmus paper.")
    d = decide("Why does dry HCl gas not change the colour of dry litmus paper?", hits((text, 0.8)), policy(),
               TermStats([c.text for c in LIGHT] + [text.text]))
    assert "negation" not in [c.name for c in d.checks]


@pytest.mark.parametrize("question, kind_present", [
    ("When did the Normans conquer England?", True),  # "1066" is a date
    ("Who was crowned king after the Normans conquered England?", True),  # "William" is a name
    ("How many ships did the Normans sail to England?", True),  # 1066 is a number, so the type is present
])
def test_answer_type_present(question, kind_present):
    d = decide(question, hits((NORMANS, 0.8)), policy(), NORMAN_STATS)
    assert check(d.checks, "answer_type").passed is kind_present


def test_answer_type_missing_refuses_a_how_many_question():
    text = chunk("hist:0002", "The Normans sailed to England and conquered it. Their leader was crowned king there.")
    stats = TermStats([c.text for c in LIGHT] + [text.text])
    d = decide("How many ships did the Normans sail to England?", hits((text, 0.8)), policy(), stats)
    assert check(d.checks, "answer_type").passed is False and d.reason == "not_answerable"
    d = decide("When does a short circuit happen in England?", hits((text, 0.8)), policy(), stats)
    assert "answer_type" not in [c.name for c in d.checks]  # "when does" asks for a condition, not a date


def test_a_definition_in_so_many_words_is_enough_even_when_the_paragraph_scores_low():
    q = "What is the double coincidence of wants?"
    strict = policy(min_confidence=0.5, offtopic_max_score=0.3, min_mean_confidence=0.4)
    d = decide(q, hits((BARTER, 0.28)), strict, BARTER_STATS)
    assert d.passed and d.candidates[0].text.startswith("This situation is called the double coincidence of wants")
    assert "defines the term" in check(d.checks, "confidence").detail
    d = decide(q, hits((BARTER, 0.28)), strict.with_values(accept_definitions=False), BARTER_STATS)
    assert not d.passed and d.reason == "off_topic"


def test_a_mention_that_does_not_define_is_no_definition():
    text = chunk("money:0001", "Economists still discuss the double coincidence of wants in many books today.")
    d = decide("What is the double coincidence of wants?", hits((text, 0.28)), policy(),
               TermStats([c.text for c in LIGHT] + [text.text]))
    assert not d.passed


def test_names_in_the_question_must_occur_in_the_evidence():
    d = decide("When did the Normans conquer England?", hits((NORMANS, 0.8)), policy(), NORMAN_STATS)
    assert check(d.checks, "names").passed
    d = decide("When did the Normans conquer New France?", hits((NORMANS, 0.8)), policy(), NORMAN_STATS)
    c = check(d.checks, "names")
    assert not c.passed and c.value == "new france" and d.reason == "not_answerable"
    d = decide("When did the Normans conquer New France?", hits((NORMANS, 0.8)), policy(require_names=False),
               NORMAN_STATS)
    assert "names" not in [c.name for c in d.checks]


def test_a_name_typed_without_its_accents_is_the_name_the_book_prints_with_them():
    text = chunk("yuan:0001", "Tugh Temür founded the Academy of the Pavilion of the Star of Literature. Möngke Khan "
                 "died in 1259.")
    stats = TermStats([c.text for c in LIGHT] + [text.text])
    for q in ("What academy did Tugh Temur found?", "When did Mongke Khan die?", "When did Möngke Khan die?"):
        assert check(decide(q, hits((text, 0.8)), policy(), stats).checks, "names").passed, q
    # a name the book does not print is still missing
    c = check(decide("When did Ogedei Khan die?", hits((text, 0.8)), policy(), stats).checks, "names")
    assert not c.passed and c.value == "ogedei khan"


def test_a_negation_in_a_clause_of_purpose_does_not_make_the_question_negated():
    text = chunk("food:0000", "Chips manufacturers usually flush bags of chips with gas such as nitrogen to prevent "
                 "the chips from getting oxidised. Nitrogen is an unreactive gas.")
    stats = TermStats([c.text for c in LIGHT] + [text.text])
    d = decide("Which gas do manufacturers fill bags of chips with so that the chips do not get oxidised?",
               hits((text, 0.8)), policy(), stats)
    assert "negation" not in [c.name for c in d.checks]
    # the question's own negation still counts, before a clause of purpose or without one
    d = decide("Which gas is not used in bags of chips so that they stay fresh?", hits((text, 0.8)), policy(), stats)
    assert check(d.checks, "negation").passed is False
    assert Question.of("What should we do in order not to waste water?").negated is False
    assert Question.of("Which metals do not react with acids?").negated is True


def test_an_activity_step_behind_a_bullet_ranks_below_the_books_statement_as_one_without_a_bullet_does():
    from tutor.safety.gate import rank_sentences, term_weights

    statement = "Lead nitrate on heating gives off brown fumes of nitrogen dioxide."
    for step in ("Take about 2 g lead nitrate powder in a boiling tube and heat it.",
                 "n Take about 2 g lead nitrate powder in a boiling tube and heat it."):  # NCERT's bullet, as extracted
        c = chunk("chem:0000", f"{step} {statement}", section="1.2 Decomposition", page=9)
        q = "What happens when lead nitrate is heated?"  # both sentences hold its every word
        cands = rank_sentences(q, hits((c, 0.8)), term_weights(q, TermStats([c.text])))
        assert [x.text for x in cands][:1] == [statement], step


def test_a_sentence_the_answer_would_not_quote_ranks_below_the_books_statement():
    from tutor.safety.gate import rank_sentences, term_weights

    statement = "Magnesium ribbon burns with a dazzling white flame and changes into a white powder."
    # each holds every word of the question too: only its form tells it from the book's statement
    for not_prose in ("Burn the magnesium ribbon: it burns with a dazzling white flame and changes into a white "
                      "powder.",
                      "MAGNESIUM RIBBON BURNS WITH A DAZZLING WHITE FLAME AND CHANGES INTO A WHITE POWDER!"):
        c = chunk("chem:0000", f"{not_prose} {statement}", section="1.1 Chemical Equations", page=2)
        q = "What does magnesium ribbon change into when it burns with a dazzling white flame?"
        cands = rank_sentences(q, hits((c, 0.8)), term_weights(q, TermStats([c.text])))
        assert [x.text for x in cands][:1] == [statement], not_prose


def test_a_statement_that_opens_with_a_question_word_is_a_candidate_sentence():
    # "When fats and oils are oxidised, they become rancid ..." states the answer; it used to be read as a question and
    # left out, so the answer could only come from the sentences around it
    from tutor.safety.gate import rank_sentences, term_weights

    statement = "When fats and oils are oxidised, they become rancid and their smell and taste change."
    text = f"Keeping food in air tight containers helps to slow down oxidation. {statement}"
    c = chunk("chem:0001", text, section="1.3.2 Rancidity", page=13)
    q = "What do fats and oils become when they are oxidised?"
    cands = rank_sentences(q, hits((c, 0.8)), term_weights(q, TermStats([c.text])))
    assert [x.text for x in cands][:1] == [statement]
    asked = "When are fats and oils said to be rancid?"  # the same words as a question are still no candidate
    c2 = chunk("chem:0002", f"{asked} Keeping food in air tight containers helps to slow down oxidation.",
               section="1.3.2 Rancidity", page=13)
    assert asked not in [x.text for x in rank_sentences(q, hits((c2, 0.8)), term_weights(q, TermStats([c2.text])))]


def test_a_do_you_know_that_sentence_is_a_candidate_and_a_real_question_is_not():
    from tutor.safety.gate import rank_sentences, term_weights

    told = ("Do you know that chips manufacturers usually flush bags of chips with gas such as nitrogen to prevent "
            "the chips from getting oxidised ?")  # as the text layer gives it, the space before "?" included
    asked = "Do you know why chips manufacturers flush bags of chips with a gas?"
    c = chunk("chem:0003", f"{asked} Keeping food in air tight containers helps to slow down oxidation. {told}",
              section="1.3.2 Rancidity", page=13)
    q = "Which gas do chips manufacturers fill bags of chips with?"
    texts = [x.text for x in rank_sentences(q, hits((c, 0.8)), term_weights(q, TermStats([c.text])))]
    assert texts[:1] == [told] and asked not in texts


def test_once_the_gate_passes_the_chunk_the_words_found_first_joins_the_evidence_and_its_sentence_can_lead():
    # hybrid order: the question's words found the lenses chunk first; its cosine is far below the band
    q = "In what unit is the power of a lens measured?"
    hs = hits((LENSES, 0.45), (REFRACTION, 0.8), (MIRRORS, 0.5))
    p = policy(min_term_coverage=0.0, min_sentence_coverage=0.0, require_answer_type=False)
    gate = decide(q, hs, p, STATS)
    assert gate.passed and ids(gate.evidence) == ["light:0000"]
    assert not any("dioptres" in c.text for c in gate.candidates)

    assert widened(gate, hs, q, STATS, p) is gate  # switched off (0): the decision as the gate made it
    # dense retrieval has no fused ranking: its first chunks are the band's, and below it only lower cosines
    assert widened(gate, hs, q, STATS, p.with_values(evidence_fused_top=1, retriever="dense")) is gate
    wide = widened(gate, hs, q, STATS, p.with_values(evidence_fused_top=1))
    assert ids(wide.evidence) == ["light:0000", "light:0001"]  # after the band, never before it
    assert wide.candidates[0].text == "The power of a lens is measured in dioptres."
    assert wide.checks == gate.checks and wide.values == gate.values and wide.passed
    assert "light:0001" not in ids(wide.near_misses) + ids(h for h, _ in wide.dropped)
    assert "light:0002" in ids(h for h, _ in wide.dropped)  # only the first chunk of the fused order joins
    # a question the reader rescued (low cosine, the reader sure) is widened as well; a reranked one is not
    rescued = replace(gate, tier=Tier.READER)
    assert ids(widened(rescued, hs, q, STATS, p.with_values(evidence_fused_top=1)).evidence)[-1] == "light:0001"
    assert widened(replace(gate, tier=Tier.RERANKER), hs, q, STATS, p.with_values(evidence_fused_top=1)).evidence \
        == gate.evidence

    # an explanation is not widened: its words also find the exercises that restate them
    explain = "Explain how the power of a lens is measured."
    gate = decide(explain, hs, p, STATS)
    assert gate.passed and widened(gate, hs, explain, STATS, p.with_values(evidence_fused_top=1)) is gate

    # a chunk of another chapter found first by the words does not join: the band's chapters are the topic
    other = hits((SOIL[0], 0.45), (REFRACTION, 0.8))
    gate = decide(q, other, p, STATS)
    assert gate.passed and widened(gate, other, q, STATS, p.with_values(evidence_fused_top=1)) is gate


def test_a_refusal_is_not_widened():
    q = "Why does light bend at the boundary between air and water?"
    hs = hits((LENSES, 0.4), (REFRACTION, 0.45))
    p = policy(evidence_fused_top=2)
    gate = decide(q, hs, p, STATS)
    assert not gate.passed and failed(gate) == ["confidence"]
    assert widened(gate, hs, q, STATS, p) is gate


def test_the_books_own_country_is_named_by_our_country():
    q = "What is the potential difference between the live wire and the neutral wire in India?"
    ours = chunk("elec:0034", "In our country, the potential difference between the two is 220 V. "
                              "The live wire has red insulation and the neutral wire black.", page=10)
    p = policy(min_term_coverage=0.0, min_sentence_coverage=0.0, require_answer_type=False)
    stats = TermStats([ours.text])
    assert check(decide(q, hits((ours, 0.8)), p, stats).checks, "names").passed
    # only as written when no country is the books' own, and another country is never "our country"
    assert not check(decide(q, hits((ours, 0.8)), p.with_values(home_country=""), stats).checks, "names").passed
    france = q.replace("India", "France")
    assert not check(decide(france, hits((ours, 0.8)), p, stats).checks, "names").passed
    # "India" written in the evidence names it whatever the setting
    written = chunk("elec:0035", "In India, the potential difference between the live wire and the neutral wire "
                                 "is 220 V.", page=10)
    assert check(decide(q, hits((written, 0.8)), p.with_values(home_country=""), TermStats([written.text])).checks,
                 "names").passed
