"""The combiner that lets students asking at once share a model's forward pass: each caller gets its own rows back,
callers who wait are served oldest first, a lone caller runs alone, and an error reaches every caller of its batch."""
from __future__ import annotations

import threading
import time

import pytest

from tutor.batching import Combiner


class SlowDouble:
    """A forward pass that takes a while (so callers pile up behind it) and records the batches it ran."""

    def __init__(self, first_takes_s: float = 0.3):
        self.batches: list[list[int]] = []
        self.first_takes_s = first_takes_s
        self.started = threading.Event()

    def __call__(self, rows: list[int]) -> list[int]:
        self.batches.append(list(rows))
        self.started.set()
        if len(self.batches) == 1:
            time.sleep(self.first_takes_s)
        return [2 * r for r in rows]


def _call_in_thread(c: Combiner, rows: list[int], out: dict, name: str) -> threading.Thread:
    def go() -> None:
        try:
            out[name] = c.run(rows)
        except Exception as e:  # noqa: BLE001 - the test reads it
            out[name] = e
    t = threading.Thread(target=go)
    t.start()
    return t


def _pile_up(c: Combiner, f: SlowDouble, waiting: dict[str, list[int]]) -> dict:
    """One caller starts a slow forward pass; the `waiting` callers queue behind it in the order given; every
    caller's result (or error) by name."""
    out: dict = {}
    threads = [_call_in_thread(c, [0], out, "first")]
    assert f.started.wait(5)
    for name, rows in waiting.items():
        threads.append(_call_in_thread(c, rows, out, name))
        time.sleep(0.02)  # so they queue in this order
    for t in threads:
        t.join(5)
    return out


def test_a_lone_caller_runs_its_own_rows_at_once():
    f = SlowDouble(first_takes_s=0)
    c = Combiner(f)
    assert c.run([1, 2, 3]) == [2, 4, 6]
    assert c.run([]) == [] and f.batches == [[1, 2, 3]]
    assert (c.batches, c.combined) == (1, 0)


def test_callers_who_arrive_during_a_forward_pass_share_the_next_one_and_get_their_own_rows():
    f = SlowDouble()
    c = Combiner(f, max_rows=32)
    out = _pile_up(c, f, {f"s{i}": [10 * i + 1, 10 * i + 2] for i in range(5)})
    assert out["first"] == [0]
    assert all(out[f"s{i}"] == [20 * i + 2, 20 * i + 4] for i in range(5))
    assert len(f.batches) == 2 and f.batches[1] == [1, 2, 11, 12, 21, 22, 31, 32, 41, 42]  # arrival order
    assert (c.batches, c.combined) == (2, 1)


def test_a_batch_holds_at_most_max_rows_and_the_oldest_callers_go_first():
    f = SlowDouble()
    c = Combiner(f, max_rows=4)
    # three rows each: only one caller fits a batch of four; "big" has more than max_rows and still runs, alone
    out = _pile_up(c, f, {**{f"s{i}": [i, i, i] for i in range(1, 6)}, "big": list(range(100, 110))})
    assert [b[0] for b in f.batches] == [0, 1, 2, 3, 4, 5, 100]
    assert all(len(b) <= 4 for b in f.batches[:-1]) and out["big"] == [2 * r for r in range(100, 110)]


def test_an_error_reaches_every_caller_of_its_batch_and_the_next_batch_still_runs():
    calls = []
    gate = threading.Event()

    def forward(rows: list[int]) -> list[int]:
        calls.append(list(rows))
        if len(calls) == 1:
            gate.wait(5)
            return [0 for _ in rows]
        if len(calls) == 2:
            raise ValueError("the model failed")
        return rows

    c = Combiner(forward)
    out: dict = {}
    first = _call_in_thread(c, [1], out, "first")
    time.sleep(0.05)
    a, b = _call_in_thread(c, [2], out, "a"), _call_in_thread(c, [3], out, "b")
    time.sleep(0.05)
    gate.set()
    for t in (first, a, b):
        t.join(5)
    assert isinstance(out["a"], ValueError) and isinstance(out["b"], ValueError)
    assert c.run([7]) == [7]  # the combiner is not left stuck


def test_a_forward_that_loses_rows_is_an_error_not_a_misaligned_answer():
    c = Combiner(lambda rows: rows[:-1])
    with pytest.raises(RuntimeError, match="2 results for 3 rows"):
        c.run([1, 2, 3])
    with pytest.raises(ValueError):
        Combiner(lambda rows: rows, max_rows=0)
