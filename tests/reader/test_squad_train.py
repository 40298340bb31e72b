"""The second-generation reader's SQuAD examples, on a tiny SQuAD file made in the test: each question's positive
holds its answer and span; each negative is of a kind whose label holds by construction (the answer is not in the
window, or the question was changed); articles held out never reach training; real unanswerables are negatives."""
from __future__ import annotations

import json
import random
from collections import Counter

from tutor.reader.squad_train import (
    ArticleBM25,
    norm_title,
    real_unanswerables,
    squad11_examples,
    validation_article,
)

PARAS = [
    "The Normans were people who gave their name to Normandy in France. They were descended from Norse raiders. "
    "Their leader Rollo swore fealty to King Charles III in 911. The duchy grew strong under his heirs. "
    "Norman knights later fought in Italy and England.",
    "William the Conqueror led the Norman conquest of England in 1066. He was crowned at Westminster Abbey. "
    "The Domesday Book was a great survey of England completed in 1086. It recorded land and livestock. "
    "Many English words come from Norman French.",
    "Norman architecture used round arches and thick walls. Durham Cathedral is a famous example. "
    "Castles were built across England after the conquest. The Tower of London was begun by William.",
]


def _qa(pid: int, qid: int, question: str, answer: str, para: str) -> dict:
    return {"id": f"Normans/{pid}/{qid}", "question": question, "is_impossible": False,
            "answers": [{"text": answer, "answer_start": para.index(answer)}]}


def squad_file(tmp_path, title: str = "Normans", titles_extra=()):
    qs = [
        [_qa(0, 0, "Who swore fealty to King Charles III?", "Rollo", PARAS[0]),
         _qa(0, 1, "In what year did Rollo swear fealty?", "911", PARAS[0])],
        [_qa(1, 0, "Who led the Norman conquest of England?", "William the Conqueror", PARAS[1]),
         _qa(1, 1, "When was the Domesday Book completed?", "1086", PARAS[1])],
        [_qa(2, 0, "What kind of arches did Norman architecture use?", "round arches", PARAS[2])],
    ]
    arts = [{"title": title, "paragraphs": [{"context": p, "qas": q} for p, q in zip(PARAS, qs)]}]
    for t in titles_extra:
        arts.append({"title": t, "paragraphs": [{"context": PARAS[0], "qas": [
            _qa(0, 0, "Who swore fealty to King Charles III?", "Rollo", PARAS[0])]}]})
    path = tmp_path / "squad.json"
    path.write_text(json.dumps({"version": "1.1", "data": arts}))
    return path


def test_positives_hold_their_answer_and_negatives_do_not(tmp_path):
    title = next(t for t in (f"Article {i}" for i in range(100)) if not validation_article(t))
    ex = squad11_examples(squad_file(tmp_path, title), random.Random(0))
    pos = [e for e in ex if e.label == 1]
    neg = [e for e in ex if e.label == 0]
    assert len(pos) == 5 and all(e.source == "squad11" for e in pos)
    for e in pos:
        assert e.span is not None and e.second[e.span[0]:e.span[1]] in {"Rollo", "911", "William the Conqueror",
                                                                         "1086", "round arches"}
    assert neg and all(e.span is None for e in neg)
    answers = {e.first: e.second[e.span[0]:e.span[1]] for e in pos}
    for e in neg:
        if e.source == "squad11-swap":  # the question changed, read against the window that answered the original
            assert e.first not in answers and any(e.second == p.second for p in pos)
        else:  # the same question against a window without its answer
            assert answers[e.first].lower() not in e.second.lower()
    assert {e.source for e in neg} <= {"squad11-other", "squad11-same", "squad11-swap", "squad11-drop"}


def test_each_kind_of_negative_can_be_drawn_and_sampling_is_seeded(tmp_path):
    title = next(t for t in (f"Article {i}" for i in range(100)) if not validation_article(t))
    path = squad_file(tmp_path, title)
    kinds = Counter()
    for kind in ("other", "same", "drop"):
        ex = squad11_examples(path, random.Random(1), mix={kind: 1.0})
        kinds.update(e.source for e in ex if e.label == 0)
    assert kinds["squad11-other"] and kinds["squad11-same"] and kinds["squad11-drop"]
    a = squad11_examples(path, random.Random(3), questions=3)
    b = squad11_examples(path, random.Random(3), questions=3)
    assert a == b and sum(e.label for e in a) == 3


def test_excluded_and_validation_articles_never_reach_training(tmp_path):
    val = next(t for t in (f"Article {i}" for i in range(200)) if validation_article(t))
    keep = next(t for t in (f"Article {i}" for i in range(200)) if not validation_article(t))
    path = squad_file(tmp_path, keep, titles_extra=(val, "Held_Out Title"))
    train = squad11_examples(path, random.Random(0), exclude={norm_title("Held Out_Title")})
    assert {e.group for e in train} == {keep}
    held = squad11_examples(path, random.Random(0), keep="validation")
    assert {e.group for e in held} == {val}


def test_bm25_ranks_the_window_sharing_the_questions_rare_words_first():
    bm = ArticleBM25(PARAS)
    best = bm.windows[bm.ranked("Which survey recorded land and livestock?")[0]]
    assert best[0] == 1 and "Domesday" in best[1]


def test_real_unanswerables_are_negatives_and_answerables_positives(tmp_path):
    ctx = PARAS[1]
    data = {"data": [{"title": "Normans", "paragraphs": [{"context": ctx, "qas": [
        {"id": "a", "question": "Who led the conquest?", "is_impossible": False,
         "answers": [{"text": "William the Conqueror", "answer_start": ctx.index("William the Conqueror")},
                     {"text": "William", "answer_start": ctx.index("William the Conqueror")},
                     {"text": "William the Conqueror", "answer_start": ctx.index("William the Conqueror")}]},
        {"id": "b", "question": "Who led the conquest of Wales in 1066?", "is_impossible": True, "answers": [],
         "plausible_answers": [{"text": "William the Conqueror", "answer_start": 0}]},
    ]}]}]}
    path = tmp_path / "v2.json"
    path.write_text(json.dumps(data))
    ex = real_unanswerables(path, random.Random(0), "dev")
    assert [(e.source, e.label) for e in ex] == [("dev", 1), ("dev-real", 0)]
    assert ex[0].second[ex[0].span[0]:ex[0].span[1]] == "William the Conqueror"
    assert ex[0].answers == ("William the Conqueror", "William")  # every gold answer once, for the official metric


class _NoShelves:
    """A library with no shelves: no NCERT pairs are mined."""

    def keys(self):
        return []


def test_real_unanswerables_are_trained_on_only_when_asked_and_never_from_held_out_dev_articles(tmp_path):
    from tutor.reader.examples import heldout_articles
    from tutor.reader.squad_train import build_examples_v2

    train_title = next(t for t in (f"Article {i}" for i in range(100)) if not validation_article(t))
    (tmp_path / "squad11-train.json").write_text(squad_file(tmp_path, train_title).read_text())
    ctx = PARAS[1]

    def v2(title):
        return {"title": title, "paragraphs": [{"context": ctx, "qas": [
            {"id": f"{title}-a", "question": "Who led the conquest?", "is_impossible": False,
             "answers": [{"text": "William the Conqueror", "answer_start": ctx.index("William the Conqueror")}]},
            {"id": f"{title}-b", "question": "Who led the conquest of Wales?", "is_impossible": True, "answers": [],
             "plausible_answers": [{"text": "William the Conqueror", "answer_start": 0}]}]}]}

    dev_titles = [f"Dev {i}" for i in range(6)]
    held = heldout_articles(dev_titles)
    (tmp_path / "squad2-dev-articles.json").write_text(json.dumps({"data": [v2(t) for t in dev_titles]}))
    (tmp_path / "squad2-train-10-articles.json").write_text(json.dumps({"data": [v2("Ten 0")]}))
    plain = build_examples_v2(tmp_path, _NoShelves(), claim_passages=0)
    assert not [e for e in plain.train if e.source.endswith("-real")]
    assert {e.group for e in plain.heldout if e.source == "squad-dev-real"} == set(dev_titles)
    real = build_examples_v2(tmp_path, _NoShelves(), claim_passages=0, real=True)
    trained = {e.group for e in real.train if e.source.endswith("-real")}
    assert trained == (set(dev_titles) - held) | {"Ten 0"}
    assert {e.group for e in real.heldout if e.source == "squad-dev-real"} == held
    assert held <= real.heldout_articles and not trained & real.heldout_articles
