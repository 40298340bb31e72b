"""SQuAD's official answer metric, as its evaluation script computes it."""

import pytest

from tutor.evaluation.metrics import squad_normalize, squad_scores


def test_normalisation_drops_case_punctuation_and_articles():
    assert squad_normalize("The  Norman conquest, of England.") == "norman conquest of england"
    assert squad_normalize("an apple a day") == "apple day"
    assert squad_normalize("Theory") == "theory"  # an article only as a whole word


def test_scores_take_the_best_gold_answer():
    em, f1 = squad_scores("the Normans", ["Normandy", "Normans"])
    assert (em, f1) == (1.0, 1.0)
    em, f1 = squad_scores("William of Normandy", ["William the Conqueror", "Duke William"])
    assert em == 0.0 and f1 == pytest.approx(0.4)  # "william" shared: P 1/3, R 1/2


def test_a_wrong_span_scores_nothing():
    assert squad_scores("1066", ["Hastings"]) == (0.0, 0.0)
