"""One question's stage timings and its time budget (the policy's `question_time_budget_s`)."""
from __future__ import annotations

import time
from collections.abc import Callable

from tutor.errors import QuestionTimeout


class StageTimer:
    """Stage timings of one question, and its time budget: `check` raises QuestionTimeout once the budget is spent,
    so a question past it stops at the next stage instead of holding a server thread to the end."""

    def __init__(self, budget_s: float = float("inf"), clock: Callable[[], float] = time.monotonic) -> None:
        self.ms: dict[str, float] = {}
        self.budget_s, self.clock = budget_s, clock
        self.deadline = clock() + budget_s

    def check(self, after: str) -> None:
        if self.clock() > self.deadline:
            raise QuestionTimeout(after, self.budget_s)

    def stage(self, name: str):
        timer = self

        class _Ctx:
            def __enter__(self):
                self.t = time.perf_counter()

            def __exit__(self, *exc):
                timer.ms[name] = round(timer.ms.get(name, 0.0) + (time.perf_counter() - self.t) * 1000, 3)

        return _Ctx()
