"""`python -m tutor record-reader` and `replay-reader`: a candidate answerability reader measured in the gate from
one recorded run (tutor/evaluation/reader_replay.py)."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from tutor.cli.evaluation import _counter, eval_indexes
from tutor.cli.options import EVAL_INDEX, LIBRARIES, POLICY, PROGRESS

CAPS = "ncert-class10=0.01,squad2-in-library=0.30"


def cmd_record(args: argparse.Namespace) -> int:
    from tutor.build import build_tutor
    from tutor.evaluation.libraries import training_articles
    from tutor.evaluation.questions import load_questions
    from tutor.evaluation.reader_replay import record

    training = training_articles(args.libraries)
    sets = [(path.stem, load_questions(path)) for path in args.questions]
    tutors = {name: build_tutor(lib, policy=args.policy, reader=True)  # one tutor per library, for every set
              for name, lib in eval_indexes(args, {q.library for _, qs in sets for q in qs}).items()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as f:
        for stem, qs in sets:
            rows = record(qs, tutors, stem, training, progress=_counter(args), windows=args.windows)
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
            print(f"{stem}: {len(rows)} questions, the reader read {sum(r['window'] is not None for r in rows)}")
    print(f"written to {args.out}")
    return 0


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


def _print(name: str, bars: tuple[float, float] | None, figs: dict | None) -> None:
    if bars is None or figs is None:
        print(f"{name}: no bars meet the caps on the tuning halves")
        return
    print(f"{name} at bars {bars[0]} / rescue {bars[1]}   (false acceptance / coverage / first sentence, %)")
    for part, f in figs.items():
        print(f"  {part:32} {f['questions']:4d}  {_pct(f['false_acceptance']):>5} / {_pct(f['coverage']):>5} / "
              f"{_pct(f['first_sentence']):>5}")


def cmd_replay(args: argparse.Namespace) -> int:
    from tutor.evaluation.reader_replay import choose_bars, figures, probabilities, recorded
    from tutor.policy import load_policy
    from tutor.reader.model import Reader

    records = [json.loads(line) for line in args.records.read_text(encoding="utf-8").splitlines() if line.strip()]
    sets = {r["set"] for r in records}
    caps = {k: float(v) for k, v in (c.split("=", 1) for c in args.caps.split(",") if c)}
    caps = {k: v for k, v in caps.items() if k in sets}
    most = args.most if args.most in sets else sorted(sets)[0]
    then = args.then if args.then in sets else None
    policy = load_policy(args.policy)
    fixed = (policy.min_reader_probability, policy.min_rescue_reader_probability)
    k = args.windows or policy.reader_windows
    readers = [("recorded", None)] + [(str(d), d) for d in args.reader]
    out = {}
    for name, d in readers:
        if d is None:
            p = recorded(records, k)
        else:
            p = probabilities(Reader(d, engine=args.engine, threads=args.threads), records, k)
        chosen = choose_bars(records, p, caps, most, then)
        out[name] = {"policy_bars": fixed, "at_policy": figures(records, p, *fixed), "chosen_bars": chosen,
                     "at_chosen": figures(records, p, *chosen) if chosen else None, "p": p}
        _print(f"{name}, the policy's bars", fixed, out[name]["at_policy"])
        _print(f"{name}, bars chosen on the tuning halves (caps {caps}, most coverage of {most})", chosen,
               out[name]["at_chosen"])
    if args.json_out:
        args.json_out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        print(f"written to {args.json_out}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("record-reader", help="one run with the reader's bars opened, recording what it read",
                       parents=[LIBRARIES, POLICY, EVAL_INDEX, PROGRESS])
    p.add_argument("questions", type=Path, nargs="+", help="question sets (each named by its file's stem)")
    p.add_argument("--out", type=Path, required=True, help="the records (JSONL)")
    p.add_argument("--windows", type=int, default=None,
                   help="windows the reader reads per question while recording (default the policy's reader_windows)")
    p.set_defaults(fn=cmd_record)
    p = sub.add_parser("replay-reader", help="readers measured in the gate from recorded runs, the bars replayed",
                       parents=[POLICY])
    p.add_argument("records", type=Path, help="what record-reader wrote")
    p.add_argument("--reader", type=Path, nargs="*", default=[], help="reader folders to replay (beside the recorded)")
    p.add_argument("--engine", choices=("onnx", "torch"), default="torch")
    p.add_argument("--windows", type=int, default=None,
                   help="decide on the best P among the first K windows recorded (as reader_windows K would; "
                        "default the policy's reader_windows)")
    p.add_argument("--threads", type=int, default=None,
                   help="the reader's threads (1 beside a training that holds the cores: far faster than sharing)")
    p.add_argument("--caps", default=CAPS, help=f"SET=FA,...: the false acceptance each set's tuning half may have "
                                                f"when bars are chosen (default {CAPS})")
    p.add_argument("--most", default="ncert-class10", help="the set whose tuning coverage the chosen bars maximise")
    p.add_argument("--then", default="short-answers", help="ties: the set whose first-sentence accuracy decides")
    p.add_argument("--json", type=Path, dest="json_out", help="write the figures and probabilities here")
    p.set_defaults(fn=cmd_replay)
