"""What the answerability reader adds to a question's time, by precision, on the windows the gate really hands it.

The windows are recorded once by asking labelled questions through the tutor with a recording reader (so the reader
reads exactly what it reads in the app: the best evidence windows of questions the gate passed); then each precision
reads the same calls, interleaved round by round, so a busy machine slows them alike. The CPU features torch
dispatches to are reported with the figures (`ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2` makes a machine with
AVX-512 run as an AVX2-only laptop does).
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tutor.evaluation.metrics import percentile

if TYPE_CHECKING:
    from tutor.evaluation.questions import Question
    from tutor.pipeline import Tutor
    from tutor.safety.answerability import ReaderModel


@dataclass
class RecordingReader:
    """A reader that reads with the real one and keeps every (question, passages) it was asked."""

    inner: ReaderModel
    calls: list[tuple[str, list[str]]] = field(default_factory=list)

    def read(self, question: str, passages: Sequence[str]):
        self.calls.append((question, list(passages)))
        return self.inner.read(question, passages)

    def supports(self, claims: Sequence[str], texts: Sequence[str]) -> list[float]:
        return self.inner.supports(claims, texts)


def record_calls(questions: Sequence[Question], tutor_for: Callable[[str], Tutor], inner: ReaderModel
                 ) -> list[tuple[str, list[str]]]:
    """Ask every question through its library's tutor with a recording reader; the reader calls it made."""
    rec = RecordingReader(inner)
    for q in questions:
        t = tutor_for(q.library)
        saved = t.reader
        t.reader = rec
        try:
            t.ask(q.question, q.klass, q.subject)
        finally:
            t.reader = saved
    return rec.calls


def cpu_capability() -> dict[str, str]:
    """What the CPU offers (its vector extensions), what torch dispatches to here, and the settings that can lower
    it (a bench on a machine with AVX-512 or AMX says so, and can be rerun as an AVX2-only laptop would run)."""
    import torch

    from tutor.retrieval.embedding import cpu_flags

    # not Linux: no flags, and torch's own dispatch level still says what ran
    return {"cpu_flags": " ".join(sorted(cpu_flags())), "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "ATEN_CPU_CAPABILITY": os.environ.get("ATEN_CPU_CAPABILITY", ""),
            "ONEDNN_MAX_CPU_ISA": os.environ.get("ONEDNN_MAX_CPU_ISA", ""), "threads": str(torch.get_num_threads())}


def measure_readers(readers: dict[str, ReaderModel], calls: Sequence[tuple[str, list[str]]], rounds: int = 3,
                    warmup: int = 5, threshold: float = 0.5) -> dict[str, Any]:
    """p50/p95/mean milliseconds per call for each reader (calls interleaved reader by reader, `rounds` passes), and
    how far each reader's best probability per call moves from the first reader's (mean, max, decisions flipped at
    `threshold`)."""
    names = list(readers)
    for name in names:
        for q, ps in calls[:warmup]:
            readers[name].read(q, ps)
    times: dict[str, list[float]] = {n: [] for n in names}
    best: dict[str, list[float]] = {n: [] for n in names}
    for rnd in range(rounds):
        for q, ps in calls:
            for name in names:
                t0 = time.perf_counter()
                readings = readers[name].read(q, ps)
                times[name].append((time.perf_counter() - t0) * 1000)
                if rnd == 0:
                    best[name].append(max(r.probability for r in readings))
    ref = best[names[0]]
    out: dict[str, Any] = {"calls": len(calls), "windows_per_call": round(sum(len(p) for _, p in calls)
                                                                         / max(1, len(calls)), 2),
                           "rounds": rounds, "cpu": cpu_capability(), "readers": {}}
    for name in names:
        ms = times[name]
        diffs = [abs(a - b) for a, b in zip(best[name], ref)]
        out["readers"][name] = {
            "p50_ms": round(percentile(ms, 50), 1), "p95_ms": round(percentile(ms, 95), 1),
            "mean_ms": round(sum(ms) / max(1, len(ms)), 1),
            "probability_shift_mean": round(sum(diffs) / max(1, len(diffs)), 4),
            "probability_shift_max": round(max(diffs, default=0.0), 4),
            "decisions_flipped": sum((a >= threshold) != (b >= threshold) for a, b in zip(best[name], ref)),
        }
    return out
