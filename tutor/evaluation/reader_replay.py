"""A candidate answerability reader measured in the gate in seconds: the gate's reader bars replayed over one
recorded evaluation run, with the candidate's probabilities in place of the shipped reader's.

With `policy.reader_windows` 1 the gate's reader reads one window per question, and which window it reads does not
depend on the reader (the gate chooses it from the evidence). So one run of the question sets with the reader's bars
opened (min_reader_probability and min_rescue_reader_probability 0) records, per question, what the reader read and
how the answer scored (`record`); any reader then reads those windows again (`probabilities`: about 700 windows in
20 s on 2 cores, where a run of the three English sets takes half an hour) and `figures` replays the bars: a question
the gate passed is kept when P >= bar, one the reader could rescue when P >= rescue, one the reader never read as it
was. Exact where the reader's own span does not change the composed answer (the span reader composes it): the
thirty-first session's R5 replayed gives the figures its own run gave at 0.15 / 0.8 on all three sets, to the decimal.

`python -m tutor record-reader` writes the records, `python -m tutor replay-reader` reads them (tutor/cli/replay.py).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tutor.evaluation.bench_reader import RecordingReader
from tutor.evaluation.metrics import rate

if TYPE_CHECKING:
    from tutor.evaluation.questions import Question
    from tutor.pipeline import Tutor
    from tutor.safety.answerability import ReaderModel

HALVES = ("tuning", "heldout")


def record(questions: Sequence[Question], tutors: Mapping[str, Tutor], set_name: str,
           training_json: str | Path | None = None, progress: Callable[[int, int], None] | None = None,
           windows: int | None = None) -> list[dict[str, Any]]:
    """Ask every question of one set through its library's tutor, the reader's bars opened and its reads recorded.
    One record per question: its half, label, how the answer scored (evaluate.judge), how the reader was asked
    ("gate": the gate passed it, "rescue": the reader could rescue it, None: not read) and what it read: `window`
    the first window, `windows` all it read (`windows` read per question, default the policy's reader_windows) and
    `pk` its best P among the first k of them. With more than one window read, the answer follows the window of
    the highest P, so a replay's coverage and first sentence are the recorded reader's where another reader would
    choose another window; its decisions stay exact (a question passes on its best P)."""
    from tutor.evaluation.evaluate import judge
    from tutor.evaluation.questions import split_questions

    half = {q.id: h for h in HALVES for q in split_questions(list(questions), h, training_json)}
    saved = {name: (t.reader, t.policy) for name, t in tutors.items()}
    recorders: dict[str, RecordingReader] = {}
    for name, t in tutors.items():
        if t.reader is None:
            raise ValueError(f"the tutor of {name} has no answerability reader: nothing to record")
        recorders[name] = RecordingReader(t.reader)
        t.reader = recorders[name]
        t.policy = t.policy.with_values(min_reader_probability=0.0, min_rescue_reader_probability=0.0,
                                        reader_windows=windows or t.policy.reader_windows,
                                        reader_stop_early=False)  # every window read, for replaying any k
    out = []
    try:
        for i, q in enumerate(questions):
            rec = recorders[q.library]
            rec.calls.clear()
            ans = tutors[q.library].ask(q.question, q.klass, q.subject)
            row = judge(q, ans)
            names = {c.name for c in ans.checks}
            path = "rescue" if "reader_rescue" in names else "gate" if "reader" in names else None
            read = rec.calls[0] if path and rec.calls else None
            out.append({"set": set_name, "id": q.id, "half": half.get(q.id, "tuning"), "expect": q.expect,
                        "answered": row["answered"], "covered": bool(row["covered"]), "first_ok": bool(row["first_ok"]),
                        "path": path if read is not None else None, "question": read[0] if read else None,
                        "window": read[1][0] if read else None, "p": ans.measures.get("reader_p") if read else None,
                        "windows": read[1] if read else [],
                        "pk": [ans.measures.get(f"reader_p{k}") for k in range(1, len(read[1]) + 1)] if read else []})
            if progress:
                progress(i + 1, len(questions))
    finally:
        for name, t in tutors.items():
            t.reader, t.policy = saved[name]
    return out


def probabilities(reader: ReaderModel, records: Iterable[dict[str, Any]], k: int = 1) -> dict[str, float]:
    """The reader's P(the passage answers) for every record the gate's reader read, by question id: its best P
    among the first `k` windows recorded (as the gate decides with reader_windows k)."""
    return {i: max(ps) for i, ps in window_probabilities(reader, records, k).items()}


def window_probabilities(reader: ReaderModel, records: Iterable[dict[str, Any]], k: int) -> dict[str, list[float]]:
    """The reader's P for each of the first `k` windows recorded, by question id: `probabilities` at any k up to
    `k`, replayed later without the reader."""
    return {r["id"]: [round(float(x.probability), 4) for x in reader.read(r["question"], _windows(r)[:k])]
            for r in records if r["window"] is not None}


def recorded(records: Iterable[dict[str, Any]], k: int = 1) -> dict[str, float]:
    """The recorded reader's P by question id, its best among the first `k` windows it read."""
    return {r["id"]: r["pk"][min(k, len(r["pk"])) - 1] if r.get("pk") else r["p"]
            for r in records if r["window"] is not None}


def _windows(r: dict[str, Any]) -> list[str]:
    return r.get("windows") or [r["window"]]  # records written before `windows` hold only the first


def _arrays(rows: Sequence[dict[str, Any]], p: Mapping[str, float]) -> dict[str, Any]:
    """The rows as arrays, with P for those the reader read: what `_counts` replays at any bars."""
    import numpy as np

    return {"answered": np.array([r["answered"] for r in rows], dtype=bool),
            "gate": np.array([r["path"] == "gate" for r in rows], dtype=bool),
            "read": np.array([r["path"] is not None for r in rows], dtype=bool),
            "p": np.array([p[r["id"]] if r["path"] is not None else 0.0 for r in rows], dtype=float),
            "refuse": np.array([r["expect"] == "refuse" for r in rows], dtype=bool),
            "covered": np.array([r["covered"] for r in rows], dtype=bool),
            "first": np.array([r["first_ok"] for r in rows], dtype=bool)}


def _keep(a: dict[str, Any], bar: float, rescue: float):
    """Which questions are answered at these bars: as recorded where the reader did not read them, else by P (the
    gate's bar for those it passed, the rescue bar for those the reader could rescue)."""
    import numpy as np

    return a["answered"] & (~a["read"] | (a["p"] >= np.where(a["gate"], bar, rescue)))


def _counts(a: dict[str, Any], bar: float, rescue: float) -> dict[str, int]:
    keep = _keep(a, bar, rescue)
    ans = keep & ~a["refuse"]
    return {"accepted": int((keep & a["refuse"]).sum()), "refuse": int(a["refuse"].sum()),
            "covered": int((ans & a["covered"]).sum()), "first": int((ans & a["first"]).sum()),
            "answer": int((~a["refuse"]).sum())}


def kept(r: dict[str, Any], p: Mapping[str, float], bar: float, rescue: float) -> bool:
    """Whether one recorded question is answered at these bars."""
    return bool(_keep(_arrays([r], p), bar, rescue)[0])


def _rates(c: dict[str, int]) -> dict[str, float | None]:
    return {"false_acceptance": rate(c["accepted"], c["refuse"]), "coverage": rate(c["covered"], c["answer"]),
            "first_sentence": rate(c["first"], c["answer"])}


def figures(records: Sequence[dict[str, Any]], p: Mapping[str, float], bar: float, rescue: float
            ) -> dict[str, dict[str, float | None]]:
    """False acceptance, coverage and first-sentence accuracy (as `python -m tutor eval` counts them), per set and
    half ("ncert-class10/tuning"), with the questions counted."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault(f"{r['set']}/{r['half']}", []).append(r)
    return {name: {"questions": len(rows), **_rates(_counts(_arrays(rows, p), bar, rescue))}
            for name, rows in sorted(groups.items())}


BARS = tuple(round(0.01 * i, 2) for i in range(1, 61))
RESCUE_BARS = tuple(round(0.05 * i, 2) for i in range(10, 20))


def choose_bars(records: Sequence[dict[str, Any]], p: Mapping[str, float], caps: Mapping[str, float], most: str,
                then: str | None = None) -> tuple[float, float] | None:
    """The bars (reader, rescue) chosen on the tuning halves: every set in `caps` at most that false acceptance, the
    most coverage of set `most`, then the most first-sentence accuracy of set `then`, then the least false
    acceptance of the capped sets. None when no bars meet the caps."""
    sets = {name: _arrays([r for r in records if r["half"] == "tuning" and r["set"] == name], p)
            for name in {most, *caps, *([then] if then else [])}}
    best: tuple[tuple, float, float] | None = None
    for bar in BARS:
        for rescue in RESCUE_BARS:
            f = {name: _rates(_counts(a, bar, rescue)) for name, a in sets.items()}
            fa = {name: f[name]["false_acceptance"] or 0.0 for name in caps}
            if any(fa[name] > cap + 1e-9 for name, cap in caps.items()):
                continue
            key = (f[most]["coverage"] or 0.0, (f[then]["first_sentence"] or 0.0) if then else 0.0,
                   -round(sum(fa.values()), 4))
            if best is None or key > best[0]:
                best = (key, bar, rescue)
    return None if best is None else (best[1], best[2])
