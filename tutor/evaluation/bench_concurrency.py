"""Many students at once through one shared Tutor, as Streamlit's script threads share the app's cached Tutor: the
latency each student sees and where the time goes, against the same questions asked one at a time.

Each round releases every student's thread together (a barrier), so the questions really arrive at once; a student's
latency is the wall-clock time of its `ask`, and the stage means come from the answers' own timings. `clear_cache`
(the embedder's) is called before each pass, so no question is embedded for free because it was asked before.
"""
from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tutor.evaluation.bench_queries import summary

if TYPE_CHECKING:
    from tutor.evaluation.questions import Question
    from tutor.pipeline import Tutor


def _stage_means(timings: list[dict[str, float]]) -> dict[str, float]:
    sums: dict[str, float] = defaultdict(float)
    for t in timings:
        for k, v in t.items():
            sums[k] += v
    return {k: round(v / max(1, len(timings)), 1) for k, v in sorted(sums.items(), key=lambda kv: -kv[1])}


def run_threads(target: Callable[[int], None], n: int) -> float:
    """`target(0)` .. `target(n - 1)` on n threads at once; the seconds until the last is done."""
    threads = [threading.Thread(target=target, args=(i,)) for i in range(n)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - t0


def one_at_a_time(tutor: Tutor, questions: Sequence[Question],
                  clear_cache: Callable[[], None] = lambda: None) -> dict[str, Any]:
    """Every question asked alone, in turn."""
    clear_cache()
    ms, timings = [], []
    for q in questions:
        t0 = time.perf_counter()
        ans = tutor.ask(q.question, q.klass, q.subject)
        ms.append((time.perf_counter() - t0) * 1000)
        timings.append(ans.timings_ms)
    return {"latency_ms": summary(ms, 1), "stage_mean_ms": _stage_means(timings)}


def together(tutor: Tutor, questions: Sequence[Question], students: int, rounds: int,
             clear_cache: Callable[[], None] = lambda: None) -> dict[str, Any]:
    """`students` threads asking at once, `rounds` times (student i asks question (round * students + i) mod n)."""
    clear_cache()
    barrier = threading.Barrier(students)
    ms: list[float] = []
    timings: list[dict[str, float]] = []
    errors: list[str] = []
    lock = threading.Lock()

    def student(i: int) -> None:
        for r in range(rounds):
            q = questions[(r * students + i) % len(questions)]
            barrier.wait()
            t0 = time.perf_counter()
            try:
                ans = tutor.ask(q.question, q.klass, q.subject)
            except Exception as e:  # noqa: BLE001 - a failed question is counted, not raised in a thread
                with lock:
                    errors.append(f"{type(e).__name__}: {e}")
                continue
            took = (time.perf_counter() - t0) * 1000
            with lock:
                ms.append(took)
                timings.append(ans.timings_ms)

    wall = run_threads(student, students)
    return {"students": students, "rounds": rounds, "asked": students * rounds, "answered_or_refused": len(ms),
            "errors": errors[:5], "error_count": len(errors), "latency_ms": summary(ms, 1),
            "questions_per_s": round(len(ms) / wall, 2), "stage_mean_ms": _stage_means(timings)}
