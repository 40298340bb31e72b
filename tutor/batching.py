"""Model calls of students who ask at the same moment, run in arrival order and, where it pays, as one batch.

Streamlit serves each student's question on its own script thread, and the models (the question embedder, the
answerability reader) are shared by the process. A `Combiner` lets the first caller run a forward pass for
everything queued so far (up to `max_rows` rows, oldest first) while later callers wait for the next one; each caller
gets its own rows back, and strict arrival order means no question is passed over (a lock promises no order).

Whether to combine is the model's choice, by measurement (`python -m tutor bench-concurrency`): short questions are
embedded far cheaper together (20 NCERT questions: 98-231 ms in one MiniLM pass against 244-298 ms one by one), so
the embedder combines up to its batch size; the reader's three 160-token windows a question already keep both cores
busy (48 windows in one pass: 1.34 s against 1.38 s in 16), and a batch only makes its first question wait for its
last, so the reader takes one question a pass (`max_rows=1`: a FIFO lock).

A caller alone meets no queue and runs its own rows at once, exactly as before. Rows batched with other callers'
rows are padded to the longest row of the batch; masked padding leaves the results the same up to float rounding.
"""
from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


@dataclass(eq=False)
class _Job(Generic[T, R]):
    rows: Sequence[T]
    result: list[R] | None = None
    error: BaseException | None = None
    done: bool = False


class Combiner(Generic[T, R]):
    """`run(rows)` = `forward(rows)`, with the rows of callers who arrive while a forward pass runs combined into the
    next one. `forward` must return one result per row, in order; it runs on one caller's thread at a time."""

    def __init__(self, forward: Callable[[list[T]], Sequence[R]], max_rows: int = 32):
        if max_rows < 1:
            raise ValueError("max_rows must be at least 1")
        self._forward = forward
        self.max_rows = max_rows
        self._cv = threading.Condition()
        self._queue: deque[_Job[T, R]] = deque()
        self._running = False
        self.batches = 0  # forward passes run (for benchmarks and tests)
        self.combined = 0  # of which held more than one caller's rows

    def run(self, rows: Sequence[T]) -> list[R]:
        if not rows:
            return []
        job: _Job[T, R] = _Job(rows)
        with self._cv:
            self._queue.append(job)
            while not job.done:
                if self._running:
                    self._cv.wait()
                    continue
                batch = self._take()
                self._running = True
                self._cv.release()
                try:
                    self._run_batch(batch)
                finally:
                    self._cv.acquire()
                    self._running = False
                    self._cv.notify_all()
        if job.error is not None:
            raise job.error
        assert job.result is not None
        return job.result

    def _take(self) -> list[_Job[T, R]]:
        """The oldest queued jobs, as many as fit in max_rows (always at least one, however many rows it has)."""
        batch, n = [], 0
        while self._queue and (not batch or n + len(self._queue[0].rows) <= self.max_rows):
            j = self._queue.popleft()
            batch.append(j)
            n += len(j.rows)
        return batch

    def _run_batch(self, batch: list[_Job[T, R]]) -> None:
        rows = [r for j in batch for r in j.rows]
        try:
            out = list(self._forward(rows))
            if len(out) != len(rows):
                raise RuntimeError(f"forward returned {len(out)} results for {len(rows)} rows")
        except BaseException as e:  # noqa: BLE001 - every caller of the batch gets the error, none hangs
            for j in batch:
                j.error, j.done = e, True
            return
        finally:
            self.batches += 1
            self.combined += len(batch) > 1
        at = 0
        for j in batch:
            j.result, j.done = out[at : at + len(j.rows)], True
            at += len(j.rows)
