"""A reader measured in the gate from one recorded run (tutor/evaluation/reader_replay.py): what the record holds,
that replaying a reader's probabilities gives what a run with that reader at those bars gives, and how bars are
chosen on the tuning halves only."""
from __future__ import annotations

import json

from safety.test_answerability import FakeReader

from tutor.evaluation.questions import Question
from tutor.evaluation.reader_replay import choose_bars, figures, kept, probabilities, record, recorded
from tutor.pipeline import Tutor
from tutor.retrieval.search import Library

from helpers_safety import EMB, chunk, policy, write_shelf

LENS = "What is the power of a lens measured in?"
SPEED = "Why does the speed of light change in water?"  # the book says it changes, never why


def _q(id_: str, text: str, expect: str, answers=None, half="tuning") -> Question:
    return Question(id_, text, expect, "10", "science", "ncert", "light.pdf" if expect == "answer" else None, None,
                    answers, "test", split=half)


def _tutor(library, reader):
    return Tutor(library, policy(reader_windows=1, min_reader_probability=0.5, min_rescue_reader_probability=0.9),
                 reader=reader)


def test_record_opens_the_bars_keeps_what_was_read_and_restores_the_tutor(library):
    reader = FakeReader(needle="dioptres", p=0.3, other=0.2)  # under the policy's 0.5: a run at it refuses both
    t = _tutor(library, reader)
    before = t.policy
    qs = [_q("lens", LENS, "answer", ("dioptres",)), _q("speed", SPEED, "refuse", half="heldout")]
    rows = record(qs, {"ncert": t}, "set-a")
    assert t.reader is reader and t.policy is before  # the tutor as it was
    by = {r["id"]: r for r in rows}
    assert by["lens"]["answered"] and by["lens"]["covered"] and by["lens"]["path"] == "gate"
    assert "dioptres" in by["lens"]["window"] and by["lens"]["question"] == LENS and by["lens"]["p"] == 0.3
    assert by["speed"]["p"] == 0.2 and by["speed"]["set"] == "set-a" and by["speed"]["half"] == "heldout"
    json.dumps(rows)  # written as JSON lines
    # the run at the policy's own bars refuses both; the replay at those bars says the same
    assert all(t.ask(q.question, "10", "science").was_refusal for q in qs)
    p = {r["id"]: r["p"] for r in rows}
    assert not any(kept(r, p, 0.5, 0.9) for r in rows)
    assert [kept(r, p, 0.25, 0.9) for r in rows] == [True, False]


def test_a_candidate_reader_replayed_gives_what_its_own_run_gives(library):
    rows = record([_q("lens", LENS, "answer", ("dioptres",)), _q("speed", SPEED, "refuse")],
                  {"ncert": _tutor(library, FakeReader(needle="dioptres", p=0.3, other=0.2))}, "set-a")
    candidate = FakeReader(needle="dioptres", p=0.8, other=0.6)
    p = probabilities(candidate, rows)
    assert p == {"lens": 0.8, "speed": 0.6}
    t = _tutor(library, candidate)
    for r in rows:
        answered = not t.ask(r["question"], "10", "science").was_refusal
        assert kept(r, p, 0.5, 0.9) == answered
    f = figures(rows, p, 0.5, 0.9)["set-a/tuning"]
    assert f["false_acceptance"] == 1.0 and f["coverage"] == 1.0
    assert figures(rows, p, 0.7, 0.9)["set-a/tuning"]["false_acceptance"] == 0.0


def test_several_windows_recorded_replay_the_best_p_among_the_first_k(tmp_path):
    # one long chunk: the gate reads the lens sentence's window first, then the focal length one's
    write_shelf(tmp_path / "index", [chunk(
        "light:0001", "The power of a lens is measured in dioptres. A convex lens converges rays. Mirrors reflect "
        "light. A plane mirror forms a virtual image. Water bends light. Glass slabs shift rays. The power of a lens "
        "of focal length one metre is one dioptre.", section="10.2 Lenses", page=5)])
    t = _tutor(Library(tmp_path / "index", embedder=EMB), FakeReader(needle="dioptres", p=0.3, other=0.2))
    rows = record([_q("lens", LENS, "answer", ("dioptres",))], {"ncert": t}, "set-a", windows=2)
    assert t.policy.reader_windows == 1  # the tutor as it was
    (r,) = rows
    assert r["window"] == r["windows"][0] and "dioptres" in r["window"] and "focal length" in r["windows"][1]
    assert r["pk"] == [0.3, 0.3] and recorded(rows, 1) == recorded(rows, 2) == {"lens": 0.3}
    # a candidate that finds the answer only in the second window passes with two windows read, not with one
    candidate = FakeReader(needle="focal length", p=0.8, other=0.1)
    assert probabilities(candidate, rows, 1) == {"lens": 0.1}
    assert probabilities(candidate, rows, 2) == {"lens": 0.8}
    # a record written before several windows were kept holds `window` alone, read as the first
    old = {k: v for k, v in r.items() if k not in ("windows", "pk")}
    assert probabilities(candidate, [old], 2) == {"lens": 0.1} and recorded([old], 2) == {"lens": 0.3}


def _row(id_, expect, p, half="tuning", path="gate", set_="s", covered=None):
    return {"set": set_, "id": id_, "half": half, "expect": expect, "answered": True,
            "covered": expect == "answer" if covered is None else covered, "first_ok": expect == "answer",
            "path": path, "question": "q", "window": None if path is None else "w", "p": p}


def test_unread_questions_stand_and_rescued_ones_meet_the_rescue_bar():
    p = {"r": 0.6}
    assert kept(_row("u", "refuse", None, path=None), p, 0.99, 0.99)  # the reader never read it
    assert kept(_row("r", "answer", 0.6, path="rescue"), p, 0.1, 0.5)
    assert not kept(_row("r", "answer", 0.6, path="rescue"), p, 0.1, 0.7)
    assert not kept({**_row("r", "answer", 0.6), "answered": False}, p, 0.0, 0.0)  # refused by a later check


def test_bars_are_chosen_on_the_tuning_halves_under_the_caps():
    rows = [_row("a1", "answer", 0.9), _row("a2", "answer", 0.4), _row("n1", "refuse", 0.3),
            _row("n2", "refuse", 0.1),
            # held out: a choice made on these would be a different one
            _row("h1", "answer", 0.2, half="heldout"), _row("h2", "refuse", 0.95, half="heldout")]
    p = {r["id"]: r["p"] for r in rows}
    bar, _ = choose_bars(rows, p, {"s": 0.0}, "s")
    assert 0.3 < bar <= 0.4  # both answerable kept, no refusal
    bar, _ = choose_bars(rows, p, {"s": 0.5}, "s")  # one refusal allowed: the same coverage, the fewer accepted
    assert 0.3 < bar <= 0.4
    assert choose_bars([_row("n", "refuse", 0.99)], {"n": 0.99}, {"s": 0.0}, "s") is None


def test_replay_reader_reads_the_records_with_a_real_reader(tmp_path, capsys):
    from tutor.cli import main

    window = "The SI unit of electric current is ampere. It is named after Andre-Marie Ampere."
    rows = [{**_row("a", "answer", 0.9, set_="ncert-class10"), "question": "What is the SI unit of electric current?",
             "window": window},
            {**_row("n", "refuse", 0.4, set_="ncert-class10"), "question": "Who discovered the electron?",
             "window": window}]
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "replay.json"
    assert main(["replay-reader", str(records), "--reader", "data/models/reader", "--caps", "ncert-class10=0.0",
                 "--json", str(out)]) == 0
    got = json.loads(out.read_text())
    assert got["recorded"]["p"] == {"a": 0.9, "n": 0.4}
    real = got["data/models/reader"]
    assert real["p"]["a"] > real["p"]["n"]  # the shipped reader reads the answering window as answering
    bar, _ = real["chosen_bars"]
    assert real["p"]["n"] < bar <= real["p"]["a"]
    assert real["at_chosen"]["ncert-class10/tuning"]["coverage"] == 1.0
    assert "bars chosen on the tuning halves" in capsys.readouterr().out
