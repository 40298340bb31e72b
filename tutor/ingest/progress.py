"""Ingest's progress events, and one percentage and time left for a whole ingest across every PDF and both embedding
passes, so the CLI and the Maintainers page show the same estimate (issue 37: the e5 pass ran for minutes with none).

An ingest has three phases: reading the changed PDFs (one pool for all files), the shelves (chunking, MiniLM or e5
embedding, writing; one after another) and, where Hindi questions are judged with e5, the e5 vectors of each English
shelf's chunks. Each phase is a share of the whole (`SHARES`, from the time each took on an NCERT shelf with ONNX
embedders, docs/performance.md); within a phase, progress is the share of its files or shelves done, the shelf under
way counted by its own done/total. The time left is the elapsed time scaled by what remains, shown once 3 % is done.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Progress:
    """A progress event: the stage, how far along it is, and the file it concerns; with the whole ingest's estimate
    where ingest made one."""

    stage: str  # "hash", "extract", "embed", "write", "done"
    done: int
    total: int
    file: str = ""
    message: str = ""
    overall: float | None = None  # the whole ingest's share done, 0-1
    eta_s: float | None = None  # its seconds left; None until there is an estimate


ProgressFn = Callable[[Progress], None]

# each phase's share of an ingest's time (without e5 vectors, "cross" is left out and the rest scaled up): the whole
# NCERT library as shipped (MiniLM on torch, the judge's e5 in int8 on ONNX Runtime; quiet cores, 2026-11-27) spent
# 53.5 s reading, chunking and writing, 62.2 s loading and running MiniLM and 170.2 s making the e5 vectors
# (bench --ingest-only, docs/performance.md); the fp32 run on science alone had given 0.20 / 0.13 / 0.67
SHARES = {"read": 0.19, "shelves": 0.22, "cross": 0.59}
PHASES = tuple(SHARES)
MIN_FOR_ETA = 0.03


class Estimate:
    """Fills each Progress event's `overall` (0–1) and `eta_s` (seconds left, None until 3 % is done). Ingest says
    which phase it is in (`enter`) and, in the shelves phase, which shelf (`shelf`); events do the rest."""

    def __init__(self, n_shelves: int, cross: bool, clock: Callable[[], float] = time.monotonic):
        used = {k: v for k, v in SHARES.items() if cross or k != "cross"}
        total = sum(used.values())
        self._share = {k: v / total for k, v in used.items()}
        self._n_shelves = max(1, n_shelves)
        self._clock = clock
        self._t0 = clock()
        self._phase = "read"
        self._units_done = 0  # shelves finished in this phase (files are counted by the events themselves)
        self._last_message = ""
        self.fraction = 0.0

    def enter(self, phase: str) -> None:
        """The next phase begins: the ones before it count as done."""
        if phase not in PHASES:
            raise ValueError(f"unknown ingest phase {phase!r}; known: {', '.join(PHASES)}")
        self._phase, self._units_done, self._last_message = phase, 0, ""

    def shelf(self, index: int) -> None:
        """The shelves phase has reached shelf `index` (0-based): those before it are done."""
        self._units_done = index

    def _within(self, p: Progress) -> float:
        part = p.done / p.total if p.total else 1.0
        if self._phase == "read":
            return part if p.stage == "extract" else 0.0
        if self._phase == "cross" and p.message != self._last_message:  # one message per shelf: a new shelf began
            self._units_done += bool(self._last_message)
            self._last_message = p.message
        if self._phase == "shelves" and p.stage != "embed":  # hashing, chunking, writing: the embedding is the time
            part = 1.0 if p.stage == "write" else 0.0
        return min(1.0, (self._units_done + part) / self._n_shelves)

    def update(self, p: Progress) -> Progress:
        """`p` with the overall fraction and the time left filled in (never moving backwards)."""
        if p.stage == "done":
            self.fraction = 1.0
            return replace(p, overall=1.0, eta_s=0.0)
        before = sum(self._share.get(k, 0.0) for k in PHASES[:PHASES.index(self._phase)])
        now = before + self._share.get(self._phase, 0.0) * self._within(p)
        self.fraction = max(self.fraction, min(now, 0.999))
        return replace(p, overall=self.fraction, eta_s=self.eta_s())

    def eta_s(self) -> float | None:
        if self.fraction < MIN_FOR_ETA:
            return None
        return (self._clock() - self._t0) * (1 - self.fraction) / self.fraction


def eta_text(seconds: float | None) -> str:
    """'about 2 min 10 s left', 'about 40 s left', or 'estimating…' before there is an estimate."""
    if seconds is None:
        return "estimating…"
    s = int(round(seconds))
    return f"about {s // 60} min {s % 60} s left" if s >= 60 else f"about {s} s left"


def overall_text(p: Progress) -> str:
    """'42 % of the whole ingest, about 1 min 5 s left' (empty when the event carries no estimate)."""
    if p.overall is None:
        return ""
    if p.stage == "done":
        return "100 % of the whole ingest"
    return f"{p.overall:.0%} of the whole ingest, {eta_text(p.eta_s)}".replace("%", " %", 1)
