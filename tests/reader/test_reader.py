"""The answerability reader: the shipped model on pairs made here, its checksum, and the training code (examples,
corruptions, a seeded resumable run and the export) on tiny data."""
from __future__ import annotations

import json
import random
import shutil

import pytest

from tutor.reader.examples import (
    Example,
    claim_examples,
    corrupt,
    heldout_chapter,
    load_examples,
    save_examples,
    squad_examples,
    summary,
    window,
)
from tutor.reader.model import READER_DIR, Reader, reader_available, shared_reader
from tutor.reader.telegraph import telegraphed
from tutor.reader.training import export, train

needs_reader = pytest.mark.skipif(not reader_available(), reason="the reader is not in data/models/reader")

PASSAGE = ("The Taj Mahal is a white marble mausoleum in Agra. It was commissioned in 1632 by the Mughal emperor "
           "Shah Jahan to house the tomb of his wife Mumtaz Mahal. The tomb is the centrepiece of a complex that "
           "includes a mosque and a guest house.")
OTHER = ("Agra is a city on the banks of the river Yamuna in Uttar Pradesh. The city is a major tourist "
         "destination and its economy depends on tourism and leather goods.")


@needs_reader
def test_shipped_reader_prefers_the_passage_that_answers():
    r = shared_reader()
    yes, no = r.read("Who commissioned the Taj Mahal?", [PASSAGE, OTHER])
    assert yes.probability > no.probability
    assert "Shah Jahan" in yes.span and yes.span == PASSAGE[yes.start:yes.end].strip()
    assert 0.0 <= no.probability <= 1.0


@needs_reader
def test_shipped_reader_tells_an_answer_from_a_related_unanswered_question():
    r = shared_reader()
    answered, = r.read("In which year was the Taj Mahal commissioned?", [PASSAGE])
    unanswered, = r.read("How many workers built the Taj Mahal?", [PASSAGE])
    assert answered.probability > unanswered.probability
    assert "1632" in answered.span


@needs_reader
def test_a_question_longer_than_the_reader_reads_is_cut_not_an_error():
    # an exercise line pasted with the chapter summary after it: longer than max_length word pieces on its own
    long_q = "Who commissioned the Taj Mahal? " + "The producers make energy from sunlight available. " * 60
    reading, = shared_reader().read(long_q, [PASSAGE])
    assert 0.0 <= reading.probability <= 1.0


@needs_reader
def test_shipped_support_head_catches_a_swapped_name():
    r = shared_reader()
    good, bad = r.supports(["Shah Jahan commissioned the Taj Mahal in 1632.",
                            "Akbar commissioned the Taj Mahal in 1632."], [PASSAGE, PASSAGE])
    assert good > bad


@needs_reader
def test_damaged_weights_are_refused_by_their_checksum(tmp_path):
    from tutor.errors import TutorError

    d = tmp_path / "reader"
    shutil.copytree(READER_DIR, d)
    w = d / "reader.safetensors"
    data = bytearray(w.read_bytes())
    data[-10] ^= 0xFF
    w.write_bytes(bytes(data))
    with pytest.raises(TutorError, match="sha256"):
        Reader(d)


@needs_reader
def test_the_int8_reader_reads_as_the_fp32_one_does():
    fp32 = shared_reader(precision="fp32")
    int8 = shared_reader(precision="int8")
    assert int8 is not fp32 and int8.precision == "int8"
    q = "Who commissioned the Taj Mahal?"
    a, b = fp32.read(q, [PASSAGE, OTHER]), int8.read(q, [PASSAGE, OTHER])
    assert b[0].probability > b[1].probability  # the same preference
    assert abs(a[0].probability - b[0].probability) < 0.15 and abs(a[1].probability - b[1].probability) < 0.15
    # the span is fp32's to find: int8's rounding moves this reader's narrow span margin (here "Shah Jahan" over "The
    # Taj Mahal" by 0.09 logits) to the wrong words, which is one reason int8 is not the default (docs/evaluation.md)
    assert "Shah Jahan" in a[0].span


def test_tutor_reader_dir_points_at_another_reader(monkeypatch, tmp_path):
    from tutor.errors import TutorError
    from tutor.reader.model import default_reader_dir

    monkeypatch.setenv("TUTOR_READER_DIR", str(tmp_path / "candidate"))
    assert default_reader_dir() == tmp_path / "candidate" and not reader_available()
    with pytest.raises(TutorError, match="candidate"):
        Reader()
    monkeypatch.delenv("TUTOR_READER_DIR")
    assert default_reader_dir() == READER_DIR


def test_an_unknown_reader_precision_is_refused_by_name(monkeypatch):
    from tutor.errors import TutorError
    from tutor.reader.model import reader_precision

    monkeypatch.setenv("TUTOR_READER_PRECISION", "int4")
    with pytest.raises(TutorError, match="TUTOR_READER_PRECISION"):
        reader_precision()
    assert reader_precision("INT8") == "int8"
    monkeypatch.delenv("TUTOR_READER_PRECISION")
    assert reader_precision() == "fp32"


def test_missing_reader_names_the_command_that_makes_it(tmp_path):
    from tutor.errors import TutorError

    with pytest.raises(TutorError, match="train-reader"):
        Reader(tmp_path / "nothing")


def test_corrupt_swaps_a_name_number_or_opposite():
    rng = random.Random(0)
    s = "Respiration is an exothermic process discovered in 1779 by Jan Ingenhousz."
    seen = {corrupt(s, "Lavoisier studied air in 1789. Priestley found oxygen.", rng) for _ in range(30)}
    seen.discard(None)
    assert seen and s not in seen
    assert any("endothermic" in x for x in seen) and any("1789" in x for x in seen)
    assert corrupt("the cat sat on the mat", "nothing here", rng) is None


def _article(t: str) -> dict:
    ctx = f"{t} is a town. It was founded in 1200 by Raja {t}. Its people grow rice. The town has a fort."
    at = ctx.index(f"Raja {t}")
    return {"title": t, "paragraphs": [{"context": ctx, "qas": [
        {"id": f"{t}-1", "question": f"Who founded {t}?", "is_impossible": False,
         "answers": [{"text": f"Raja {t}", "answer_start": at}]},
        {"id": f"{t}-2", "question": f"Who destroyed {t}?", "is_impossible": True, "answers": [],
         "plausible_answers": [{"text": f"Raja {t}", "answer_start": at}]}]}]}


SQUAD = {"data": [_article(t) for t in ("Alpha", "Beta", "Gamma", "Delta")]}


def test_squad_examples_hold_out_whole_articles_and_keep_spans(tmp_path):
    path = tmp_path / "squad.json"
    path.write_text(json.dumps(SQUAD))
    train_ex, held = squad_examples(path, random.Random(0))
    held_ex, _ = squad_examples(path, random.Random(0), held, keep="heldout")
    assert len(held) == 2
    assert {e.group for e in train_ex}.isdisjoint({e.group for e in held_ex})
    pos = [e for e in train_ex if e.label == 1]
    assert pos and all(e.second[e.span[0]:e.span[1]].startswith("Raja") for e in pos)
    assert any(e.label == 0 and e.first.startswith("Who destroyed") for e in train_ex)


def test_window_and_heldout_chapters():
    text = "One. Two. Three. Four."
    spans = [(0, 4), (5, 9), (10, 16), (17, 22)]
    assert window(text, spans, 1) == ("Two. Three. Four.", 5)
    assert window(text, spans, -3) == ("One. Two. Three.", 0)
    assert sum(heldout_chapter(f"jesc1{i:02d}") for i in range(1, 41)) in range(4, 17)  # about a quarter


def test_claim_examples_pair_true_and_corrupted_sentences():
    texts = [("g", "Copper reacts with oxygen in 1900 to form copper oxide. The mass of the product is more than "
                   "the mass of copper. Iron rusts in moist air and forms a brown layer."),
             ("g", "Zinc is more reactive than copper and displaces it in 1950 from a solution.")]
    ex = claim_examples(texts, random.Random(1), per_text=2)
    assert {e.label for e in ex} == {0, 1} and all(e.task == "claim" for e in ex)
    for e in ex:
        if e.label == 1:
            assert e.first in e.second


@pytest.mark.slow
def test_training_is_seeded_resumable_and_exports_a_loadable_reader(tmp_path):
    examples = [Example("qa", "Who founded Alpha?", "Alpha was founded by Raja Alpha.", 1, (21, 31), "t", "a"),
                Example("qa", "Who destroyed Alpha?", "Alpha was founded by Raja Alpha.", 0, None, "t", "a"),
                Example("claim", "Raja Alpha founded Alpha.", "Alpha was founded by Raja Alpha.", 1, None, "t", "a"),
                Example("claim", "Raja Beta founded Alpha.", "Alpha was founded by Raja Alpha.", 0, None, "t", "a")]
    logs: list[str] = []
    work = tmp_path / "work"
    train(examples, work, epochs=1, batch_size=2, seed=3, max_length=64, checkpoint_every=1, log=logs.append)
    assert (work / "checkpoint.pt").exists()  # the step before the last, kept for a resumed run
    logs.clear()
    result = train(examples, work, epochs=1, batch_size=2, seed=3, max_length=64, checkpoint_every=1, log=logs.append)
    assert logs[0] == "resumed at step 1/2"
    config = export(result["net"], tmp_path / "reader", {"max_length": 64})
    assert len(config["sha256"]) == 64 and config["bytes"] < 30_000_000
    r = Reader(tmp_path / "reader", engine="torch")  # (ONNX Runtime: tests/reader/test_runtime.py)
    reading, = r.read("Who founded Alpha?", ["Alpha was founded by Raja Alpha."])
    assert 0.0 <= reading.probability <= 1.0
    assert len(r.supports(["a", "b"], ["c", "d"])) == 2


@pytest.mark.slow
def test_train_reader_builds_its_examples_from_the_evaluation_shelves(tmp_path):
    """`python -m tutor train-reader --examples-only` end to end on the bundled sample library (real MiniLM) and a
    SQuAD file of one article made here: the evaluation shelves it is handed are used as they are."""
    import subprocess
    import sys

    from helpers_paths import REPO

    libs = tmp_path / "libraries" / "ncert"
    libs.mkdir(parents=True)
    (libs / "class-10").symlink_to(REPO / "data" / "sample" / "library" / "class-10")
    ctx = "The Normans settled in Normandy. Rollo was their leader in 911. They conquered England in 1066."
    other = {"context": "Later the king of the Franks met the Danes in Paris.", "qas": []}  # names to swap in
    squad = {"data": [{"title": t, "paragraphs": [{"context": ctx, "qas": [
        {"id": f"{t}-1", "question": "Who was the leader of the Normans?", "is_impossible": False,
         "answers": [{"text": "Rollo", "answer_start": ctx.index("Rollo")}]}]}, other]}
        for t in ("Normans", "Vikings", "Franks")]}
    (tmp_path / "training").mkdir()
    (tmp_path / "training" / "squad2-dev-articles.json").write_text(json.dumps(squad))
    # NCERT pairs written for the reader (tutor/reader/written.py), on the sample's first chapter: saved with the rest
    written = tmp_path / "written.jsonl"
    written.write_text("\n".join(json.dumps(p) for p in (
        {"chapter": "sci01", "chunk": "", "question": "What is the bouncing back of light called?", "expect": "answer",
         "evidence": "Reflection is the bouncing back of light from a surface.", "answer": "Reflection"},
        {"chapter": "sci01", "question": "Who discovered the laws of reflection?", "expect": "refuse"})) + "\n")
    work = tmp_path / "work"
    r = subprocess.run([sys.executable, "-m", "tutor", "train-reader", "--libraries", str(tmp_path / "libraries"),
                        "--eval-index", str(tmp_path / "ix"), "--work-dir", str(work), "--examples-only",
                        "--swaps", "1", "--compress", "--written-repeat", "2", "--written-pairs", str(written)],
                       capture_output=True, text=True, cwd=REPO, timeout=900)
    assert r.returncode == 0, r.stderr
    train = load_examples(work / "train.jsonl.xz")
    assert {e.source for e in train} >= {"squad", "squad-swap", "ncert-written"}
    mine = [e for e in train if e.source == "ncert-written"]
    assert sorted(e.label for e in mine) == [0, 0, 1, 1]
    assert all(e.second[e.span[0]:e.span[1]] == "Reflection" for e in mine if e.label)
    assert (work / "heldout.jsonl.xz").exists() and not (work / "train.jsonl").exists()
    meta = json.loads((work / "examples.json").read_text())
    assert meta["heldout_articles"] and "--examples-only" in meta["command"]
    assert "2 time(s)" in meta["notes"]["written_pairs"]

    # a lent GPU machine has neither ../shared nor the library: it trains on the saved examples alone, and may give
    # their questions as readings too (the reader of readings), the written pairs' among them
    r = subprocess.run([sys.executable, "-m", "tutor", "train-reader", "--from-examples", str(work),
                        "--work-dir", str(tmp_path / "work2"), "--out", str(tmp_path / "reader"), "--epochs", "1",
                        "--batch-size", "4", "--max-length", "64", "--telegraphic", "1.0"], capture_output=True,
                       text=True, cwd=REPO, timeout=900)
    assert r.returncode == 0, r.stderr
    config = json.loads((tmp_path / "reader" / "reader.json").read_text())
    assert config["examples_built_by"] == meta["command"]
    assert config["examples"]["train"] == summary(telegraphed(train, 1.0, 0)) != summary(train)
    assert "ncert-written-tele/qa/pos" in config["examples"]["train"] and "1.0" in config["telegraphic"]
    assert config["training"]["stopped_at_step"] is None


def test_train_reader_without_libraries_or_saved_examples_says_what_it_needs(tmp_path):
    import subprocess
    import sys

    from helpers_paths import REPO

    r = subprocess.run([sys.executable, "-m", "tutor", "train-reader", "--work-dir", str(tmp_path)],
                       capture_output=True, text=True, cwd=REPO, timeout=120)
    assert r.returncode == 2 and "--libraries" in r.stderr and "--from-examples" in r.stderr


def test_saved_examples_round_trip_plain_and_xz(tmp_path):
    examples = [Example("qa", "Who founded Alpha?", "Alpha was founded by Raja Alpha. अल्फा",
                        1, (21, 31), "squad", "Alpha", ("Raja Alpha", "Alpha")),
                Example("claim", "Raja Beta founded Alpha.", "Alpha was founded by Raja Alpha.", 0, None, "c", "a")]
    for name in ("x.jsonl", "x.jsonl.xz"):
        save_examples(tmp_path / name, examples)
        assert load_examples(tmp_path / name) == examples
    assert (tmp_path / "x.jsonl.xz").read_bytes()[:6] == b"\xfd7zXZ\x00"  # really xz, not text with that name


@pytest.mark.slow
def test_training_stopped_by_its_time_bound_says_where_it_stopped(tmp_path):
    examples = [Example("qa", "Who founded Alpha?", "Alpha was founded by Raja Alpha.", 1, (21, 31), "t", "a"),
                Example("qa", "Who destroyed Alpha?", "Alpha was founded by Raja Alpha.", 0, None, "t", "a")] * 4
    logs: list[str] = []
    result = train(examples, tmp_path, epochs=1, batch_size=2, max_length=64, stop_after_minutes=0.0,
                   log=logs.append)
    assert result["stopped_at_step"] == 0 and result["steps"] == 4
    assert logs[-1].startswith("stopped at step 0/4")
    result = train(examples, tmp_path, epochs=1, batch_size=2, max_length=64, log=logs.append)
    assert result["stopped_at_step"] is None


@pytest.mark.slow
def test_a_second_stage_starts_from_an_exported_reader_not_the_base(tmp_path):
    examples = [Example("qa", "Who founded Alpha?", "Alpha was founded by Raja Alpha.", 1, (21, 31), "t", "a"),
                Example("qa", "Who destroyed Alpha?", "Alpha was founded by Raja Alpha.", 0, None, "t", "a")]
    first = train(examples, tmp_path / "w1", epochs=1, batch_size=2, seed=1, max_length=64, log=lambda _: None)
    export(first["net"], tmp_path / "first", {"max_length": 64})
    # stopped before its first step, the second stage is the first reader (heads included; exported in fp16), not the
    # base model with fresh heads
    second = train(examples, tmp_path / "w2", epochs=1, batch_size=2, max_length=64, stop_after_minutes=0.0,
                   init_from=tmp_path / "first", log=lambda _: None)
    fresh = train(examples, tmp_path / "w3", epochs=1, batch_size=2, max_length=64, stop_after_minutes=0.0,
                  log=lambda _: None)
    a, b, c = (r["net"].state_dict() for r in (first, second, fresh))
    import torch
    assert all(torch.allclose(a[k], b[k], atol=1e-2, rtol=1e-2) for k in a)
    assert not all(torch.allclose(a[k], c[k], atol=1e-2, rtol=1e-2) for k in a)
    broken = tmp_path / "broken"
    broken.mkdir()
    from safetensors.torch import save_file
    save_file({"not.a.weight": torch.zeros(2)}, str(broken / "reader.safetensors"))
    with pytest.raises(ValueError, match="does not fit the reader"):
        train(examples, tmp_path / "w4", epochs=1, batch_size=2, max_length=64, init_from=broken, log=lambda _: None)


@needs_reader
def test_questions_read_at_the_same_moment_get_what_each_gets_alone():
    import threading

    r = Reader()  # its own combiner: the counts below are this test's
    asks = [("Who commissioned the Taj Mahal?", [PASSAGE, OTHER]),
            ("In which year was the Taj Mahal commissioned?", [PASSAGE]),
            ("On which river is Agra?", [OTHER, PASSAGE]),
            ("How many workers built the Taj Mahal?", [PASSAGE])] * 3
    alone = [r.read(q, ps) for q, ps in asks]
    got: dict[int, list] = {}
    start = threading.Barrier(len(asks))

    def student(i: int) -> None:
        start.wait()
        got[i] = r.read(*asks[i])

    threads = [threading.Thread(target=student, args=(i,)) for i in range(len(asks))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    # one question a forward pass (batching bought no throughput: see BATCH_ROWS), so each gets what it gets alone
    assert r._batcher.batches == 2 * len(asks) and r._batcher.combined == 0
    for i, readings in enumerate(alone):
        assert [x.span for x in got[i]] == [x.span for x in readings]
        assert [x.probability for x in got[i]] == pytest.approx([x.probability for x in readings], abs=1e-5)


def test_best_spans_are_ordered_with_probabilities_from_the_span_heads_softmaxes():
    import numpy as np

    from tutor.reader.model import best_spans

    # tokens: [CLS], two question tokens, then the passage "ampere is the unit" at characters 0-6, 7-9, 10-13, 14-18
    offs = [None, None, None, (0, 6), (7, 9), (10, 13), (14, 18)]
    start = np.array([0.0, 9.0, 9.0, 5.0, 0.0, 1.0, 0.0])  # question tokens are never a span, however they score
    end = np.array([0.0, 9.0, 9.0, 5.0, 0.0, 0.0, 2.0])
    top = best_spans(start, end, offs, 18, k=3)
    assert [(s, e) for s, e, _, _ in top] == [(0, 6), (0, 18), (0, 13)]  # logit sums 10, 7, 5
    probs = [p for *_, p in top]
    assert probs == sorted(probs, reverse=True) and 0 < sum(probs) <= 1
    # the softmax runs over [CLS] and the passage only: P(start at "ampere") = e^5 / (e^0 + e^5 + e^0 + e^1 + e^0)
    p_start = np.exp(5) / (3 + np.exp(5) + np.exp(1))
    p_end = np.exp(5) / (3 + np.exp(5) + np.exp(2))
    assert abs(top[0][3] - p_start * p_end) < 1e-9
    assert best_spans(start, end, [None, None], 0) == []
