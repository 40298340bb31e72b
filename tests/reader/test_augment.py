"""The reader's extra training pairs (tutor/reader/augment.py): more answer windows and swapped questions, on a
paragraph made here."""
from __future__ import annotations

import random

from tutor.reader.augment import augment, swap_question
from tutor.reader.examples import Example, sentences, window

PARA = ("The Normans settled in Normandy in the 10th century. Their leader Rollo swore fealty to King Charles III "
        "in 911. In return Charles gave Rollo the lands between the Epte and the sea. The Normans later conquered "
        "England in 1066 under William. They also founded states in Sicily and southern Italy.")
OTHER = "Richard II ruled Normandy after 996. Hugh Capet became king of France in 987."


def _positive(question: str, answer: str, first: int) -> Example:
    text, off = window(PARA, sentences(PARA), first)
    s = text.index(answer)
    return Example("qa", question, text, 1, (s, s + len(answer)), "squad", "Normans")


def test_a_swapped_question_names_something_the_window_does_not_hold():
    rng = random.Random(0)
    text, _ = window(PARA, sentences(PARA), 0)
    seen = set()
    for _ in range(40):
        bad = swap_question("When did Rollo swear fealty to Charles?", text, ["Hugh Capet", "Richard", "Rollo"],
                            ["911", "987"], rng)
        assert bad is not None and bad != "When did Rollo swear fealty to Charles?"
        seen.add(bad)
        swapped_in = set(bad.split()) - set("When did Rollo swear fealty to Charles?".split())
        assert all(w.lower() not in text.lower() for w in swapped_in)  # the window cannot answer about it
    assert any("Hugh Capet" in b for b in seen) and any("Richard" in b for b in seen)


def test_a_question_with_nothing_the_window_holds_is_not_swapped():
    text, _ = window(PARA, sentences(PARA), 0)
    # "Paris" is not in the window: swapping it would not make the question unanswerable from this window
    assert swap_question("what is the capital city?", text, ["Hugh Capet"], ["987"], random.Random(0)) is None
    assert swap_question("Where is Paris?", text, ["Hugh Capet"], [], random.Random(0)) is None


def test_numbers_and_opposites_are_swapped_too():
    text = "Prices rose in 1973 when production was cut. The embargo increased the price of oil."
    bad = swap_question("What increased in 1973?", text, [], ["1979"], random.Random(1))
    assert bad in {"What decreased in 1973?", "What increased in 1979?"}


def test_augment_adds_answer_windows_with_true_spans_and_swapped_negatives():
    pos = _positive("In which year did the Normans conquer England?", "1066", 3)
    neg = Example("qa", "Who founded Rome?", PARA[:50], 0, None, "squad", "Normans")
    out = augment([pos, neg], {"Normans": [PARA, OTHER]}, random.Random(0), extra_windows=2, swaps=1)
    windows = [e for e in out if e.label == 1]
    swapped = [e for e in out if e.label == 0]
    assert 1 <= len(windows) <= 2
    for e in windows:
        assert e.first == pos.first and e.second != pos.second
        assert e.second[e.span[0]:e.span[1]] == "1066"
    assert len(swapped) == 1 and swapped[0].second == pos.second and swapped[0].source == "squad-swap"
    assert swapped[0].first != pos.first
    assert all(e.group == "Normans" for e in out)  # an augmented pair stays in its article: held out alike


def test_augment_leaves_negatives_and_spanless_positives_alone():
    weak = Example("qa", "Who was Rollo?", PARA[:120], 1, None, "ncert", "jesc101")
    neg = Example("qa", "Who founded Rome?", PARA[:50], 0, None, "squad", "Normans")
    assert augment([weak, neg], {"Normans": [PARA]}, random.Random(0), extra_windows=2, swaps=2) == []


def test_negation_is_a_swap_only_when_asked_and_the_window_is_not_negative():
    text = "Rollo was the leader of the Vikings. He swore fealty to Charles."
    assert swap_question("Who was the leader of the Vikings?", text, [], [], random.Random(0)) is None
    assert (swap_question("Who was the leader of the Vikings?", text, [], [], random.Random(0), negate=True)
            == "Who was not the leader of the Vikings?")
    negative = "Rollo was not the first leader of the Vikings."
    assert swap_question("Who was the leader?", negative, [], [], random.Random(0), negate=True) is None


def test_drop_answer_makes_a_negative_window_of_the_neighbours_without_the_answer():
    e = _positive("When did Rollo swear fealty to Charles III?", "911", 0)
    out = augment([e], {"Normans": [PARA]}, random.Random(0), extra_windows=0, swaps=0, drop_answer=True)
    drops = [x for x in out if x.source == "squad-drop"]
    assert len(drops) == 1
    d = drops[0]
    assert d.label == 0 and d.span is None and d.first == e.first
    assert "911" not in d.second and "fealty" not in d.second  # the answer's sentence is gone
    # what is left is the answer's neighbours, whole sentences of the paragraph, still on the topic
    assert "Normans settled in Normandy" in d.second and "Epte" in d.second
    assert all(s.strip() in PARA for s in d.second.split(". ") if s.strip())


def test_no_drop_negative_when_the_answer_is_said_again_nearby():
    para = "Rollo was born in 860. He swore fealty in 911. The treaty of 911 gave him land. He died in 930."
    text, _ = window(para, sentences(para), 0)
    s = text.index("911")
    e = Example("qa", "When did Rollo swear fealty?", text, 1, (s, s + 3), "squad", "R")
    out = augment([e], {"R": [para]}, random.Random(0), extra_windows=0, swaps=0, drop_answer=True)
    assert not [x for x in out if x.source == "squad-drop"]  # "911" stays in the next sentence: no true negative
