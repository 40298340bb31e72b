"""`python -m tutor eval`, `followups`, `calibrate`, `recall`, `hand-check`, `bench`, `bench-reader` and
`bench-concurrency`: measuring the tutor on labelled questions and on the clock. Each command reads its options,
calls tutor.evaluation and prints what it got.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tutor.cli.options import EVALUATION, LIBRARIES, LIMIT, MODELS, PERTURB, POLICY, PROGRESS, REPORT, split

if TYPE_CHECKING:
    from tutor.retrieval.search import Library


def eval_indexes(args: argparse.Namespace, names: Iterable[str]) -> dict[str, Library]:
    """The evaluation shelves of each library the questions name, built or reused (progress on stderr): on this disk,
    or in the database `TUTOR_DATABASE_URL` names."""
    from tutor.evaluation.libraries import MissingLibrary, eval_libraries

    try:
        return eval_libraries(args.libraries, names, args.eval_index, log=lambda msg: print(msg, file=sys.stderr))
    except MissingLibrary as e:
        raise SystemExit(f"error: {e}") from None


def _counter(args: argparse.Namespace) -> Callable[[int, int], None]:
    """`i/n` on stderr with --progress, nothing without."""
    def progress(i: int, n: int) -> None:
        if args.progress:
            print(f"\r{i}/{n}", end="" if i < n else "\n", file=sys.stderr, flush=True)

    return progress


def write_json(path: Path, data: Any, ensure_ascii: bool = True) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=ensure_ascii))


def cmd_eval(args: argparse.Namespace) -> int:
    from tutor.build import build_tutor
    from tutor.evaluation.evaluate import run_eval
    from tutor.evaluation.libraries import training_articles
    from tutor.evaluation.questions import load_questions, perturbed, sample_questions, split_questions

    training = training_articles(args.libraries)
    qs = split_questions(load_questions(args.questions, args.limit), args.split, training)
    qs = sample_questions(qs, args.sample, args.seed)
    qs = perturbed(qs, args.perturb)  # misspelt or reworded copies of the questions, labels kept
    indexes = eval_indexes(args, {q.library for q in qs})
    tutors = {name: build_tutor(lib, policy=args.policy, answerer=args.answerer, rerank=args.rerank, judge=args.judge,
                                reader=args.reader)
              for name, lib in indexes.items()}
    report = run_eval(qs, tutors, split=args.split, training_json=training, sample=args.sample, seed=args.seed,
                      answers=args.answers, progress=_counter(args))
    _print_report(report)
    for part, m in (report.get("by_split") or {}).items():
        print(f"  {part:8} {m['questions']:4d} questions: false acceptance "
              f"{100 * (m['false_acceptance_rate'] or 0):.1f}%, coverage {100 * (m['coverage'] or 0):.1f}%")
    if args.answers:
        print(f"LLM answers with per-sentence grounding verdicts: {args.answers}")
    if args.json_out:
        write_json(args.json_out, report)
        print(f"\nwritten to {args.json_out}")
    return 0


def _print_report(r: dict) -> None:
    def pct(v: float | None) -> str:
        return "   -  " if v is None else f"{100 * v:5.1f}%"

    print(f"{r['questions']} questions ({r['answerable']} answerable, {r['unanswerable']} to refuse), "
          f"answerer {r['answerer']}")
    print(f"{'origin':24} {'n':>4} {'FA':>7} {'FR':>7} {'cover':>7} {'page':>7} {'recall':>7}")
    rows = list(r["by_origin"].items()) + [("ALL", r)]
    for name, m in rows:
        print(f"{name:24} {m['questions']:4d} {pct(m['false_acceptance_rate']):>7} {pct(m['false_refusal_rate']):>7} "
              f"{pct(m['coverage']):>7} {pct(m['page_accuracy']):>7} {pct(m['answer_recall']):>7}")
    print(f"latency ms p50 {r['latency_ms']['p50']}, p95 {r['latency_ms']['p95']}")
    if r.get("direct_answer_accuracy") is not None:
        parts = [("", r)] + [(f" ({k})", v) for k, v in (r.get("by_split") or {}).items()]
        for label, m in parts:
            print(f"short answers{label}: direct answer {pct(m['direct_answer_accuracy'])} "
                  f"(bold line shown {pct(m['direct_answer_shown'])}, right when shown "
                  f"{pct(m['direct_answer_precision'])}), first sentence {pct(m['first_sentence_accuracy'])}")
    rl = r.get("reader_latency_ms") or {}
    if rl.get("questions"):
        print(f"answerability reader: read {rl['questions']} questions, added p50 {rl['p50']} ms, p95 {rl['p95']} ms")
    if r.get("llm_drafts") or r.get("llm_answer_latency_ms", {}).get("answers"):
        print(f"LLM drafts checked: {r['llm_drafts']}; hallucination rate (a sentence the cited text does not "
              f"support): unchecked {pct(r['hallucination_rate_unchecked'])}, after the answer checks "
              f"{pct(r['hallucination_rate_checked'])}")
        lat = r["llm_answer_latency_ms"]
        print(f"LLM answer latency ms over {lat['answers']} answers: p50 {lat['p50']}, p95 {lat['p95']}")
    if r.get("judge", {}).get("asked"):
        j = r["judge"]
        print(f"answerability judge: asked {j['asked']}, accuracy {pct(j['accuracy'])}; on unanswerable "
              f"({j['unanswerable_asked']}): {pct(j['accuracy_on_unanswerable'])}")
    print("refusal reasons: " + ", ".join(f"{k} {v}" for k, v in r["refusal_reasons"].items()))


def cmd_followups(args: argparse.Namespace) -> int:
    from tutor.build import build_tutor
    from tutor.evaluation.followup_kinds import is_kinds_file
    from tutor.evaluation.followups import FOLLOWUP_MODES, evaluate_followups, load_conversations
    from tutor.policy import load_policy

    if is_kinds_file(args.conversations):
        return _followup_kinds(args)
    convs = load_conversations(args.conversations)
    indexes = eval_indexes(args, {c.followup.library for c in convs})
    base = load_policy(args.policy)
    # one tutor for each library and each way of asking the follow-up
    tutors = {(name, mode): build_tutor(lib, policy=base.with_values(**settings), models=args.models)
              for name, lib in indexes.items() for mode, settings in FOLLOWUP_MODES.items()}
    r = evaluate_followups(convs, lambda lib, mode: tutors[(lib, mode)], _counter(args))
    first = r["modes"]["alone"]
    print(f"{r['conversations']} conversations ({first['answerable']} answerable follow-ups, {first['unanswerable']} "
          f"the book does not answer); first turn answered from its chapter: {r['first_answered']}; follow-ups "
          f"resolved against it: {r['followups_resolved']}")
    print(f"{'follow-up asked':22} {'coverage':>9} {'FA':>7} {'p50 ms':>7}")
    for mode, m in r["modes"].items():
        print(f"{mode:22} {100 * m['coverage']:8.1f}% {100 * m['false_acceptance_rate']:6.1f}% "
              f"{m['latency_ms']['p50']:7.1f}")
    if args.verbose:
        for e in r["examples"]:
            print(f"  {e['id']} [{e['expect']}] {e['first']!r} -> {e['typed']!r} read as {e['resolved']!r}: "
                  f"{e['reason']}")
    if args.json_out:
        write_json(args.json_out, r, ensure_ascii=False)
        print(f"\nwritten to {args.json_out}")
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from tutor.build import build_tutor
    from tutor.evaluation.calibrate import CALIBRATED, calibrate, record_gate
    from tutor.evaluation.libraries import training_articles
    from tutor.evaluation.questions import load_questions, split_questions

    training = training_articles(args.libraries)
    files = {str(path): split_questions(load_questions(path, args.limit), args.split, training)
             for path in args.questions}
    indexes = eval_indexes(args, {q.library for qs in files.values() for q in qs})
    tutors = {name: build_tutor(lib, policy=args.policy, answerer="extractive") for name, lib in indexes.items()}
    base = next(iter(tutors.values())).policy
    records = {f: record_gate(qs, tutors) for f, qs in files.items()}
    cal = calibrate(records, base, args.target_fa, args.others_max_fa, args.others_min_coverage)
    primary = Path(cal.primary).name
    print(f"trade-off curve on {primary} (Pareto front): false acceptance -> best coverage, with the policy")
    for c in cal.front:
        print(f"  FA {100 * c['false_acceptance_rate']:5.1f}%  coverage {100 * c['coverage']:5.1f}%  "
              + ", ".join(f"{k}={c[k]}" for k in CALIBRATED))
    rec = cal.recommended
    if rec is None or cal.chosen is None:
        print(f"\nno policy reaches false acceptance <= {args.target_fa} on {primary} while the other files "
              f"stay within FA <= {args.others_max_fa} and coverage >= {args.others_min_coverage}; what each cue "
              "buys is measured at the base policy instead")
        at = "the base policy's thresholds"
    else:
        at = "the recommended thresholds"
        print(f"\nrecommended at FA <= {100 * args.target_fa:.1f}%: coverage {100 * rec['coverage']:.1f}%, "
              f"FA {100 * rec['false_acceptance_rate']:.1f}%: " + ", ".join(f"{k}={rec[k]}" for k in CALIBRATED))
        for name, o in rec.get("others", {}).items():
            print(f"  on {name}: FA {100 * o['false_acceptance_rate']:.1f}%, coverage {100 * o['coverage']:.1f}% "
                  f"(bounds: FA <= {100 * args.others_max_fa:.0f}%, coverage >= "
                  f"{100 * args.others_min_coverage:.0f}%)")
    for f in records:
        name = Path(f).name
        print(f"\nwhat each cue still buys on {name} (that cue off, all others on, at {at}):")
        for r in cal.ablation[f]:
            print(f"  without {r['without']:24} FA {100 * r['false_acceptance_rate']:5.1f}%  coverage "
                  f"{100 * r['coverage']:5.1f}%   best cov @FA<={100 * args.target_fa:.0f}%: "
                  f"{100 * r['best_coverage_at_target']:5.1f}%")
        print(f"\nwhat each idea buys on {name} (cumulative; FA and coverage at {at}, "
              f"then the best coverage any threshold gives at FA <= {100 * args.target_fa:.0f}% and <= 50%):")
        for r in cal.ideas[f]:
            print(f"  {r['idea']:34} FA {100 * r['false_acceptance_rate']:5.1f}%  "
                  f"coverage {100 * r['coverage']:5.1f}%   best cov @FA<={100 * args.target_fa:.0f}%: "
                  f"{100 * r['best_coverage_at_target']:5.1f}%   "
                  f"@FA<=50%: {100 * r['best_coverage_at_50']:5.1f}%   ROC AUC of its score {r['auc']:.3f}")
    if args.json_out:
        write_json(args.json_out, cal.report(args.target_fa, args.split))
    if cal.chosen is None:
        return 1
    if args.write:
        args.write.write_text(cal.chosen.to_toml())
        print(f"policy written to {args.write}")
    return 0


def cmd_recall(args: argparse.Namespace) -> int:
    from tutor.evaluation.questions import load_questions, perturbed
    from tutor.evaluation.recall import retrieval_recall
    from tutor.policy import load_policy

    qs = perturbed(load_questions(args.questions), args.perturb)
    libs = eval_indexes(args, {q.library for q in qs})
    policy = load_policy(args.policy)
    ks = sorted({int(x) for x in args.ks.split(",") if x.strip()} | {args.k})
    names = ("dense", "bm25", "trigram", "seed", "hybrid") if args.retriever == "all" else (args.retriever,)
    results = {}
    for name in names:
        r = results[name] = retrieval_recall(qs, libs.__getitem__, args.k, name, policy, ks)
        print(f"[{name}] recall@{r['k']} over {r['questions']} answerable questions ({r['with_gold_pages']} with gold "
              f"pages){'' if args.perturb == 'none' else f', questions perturbed: {args.perturb}'}")
        print(f"  chapter level: {100 * r['chapter_recall']['evidence']:.1f}% counting evidence chunks only "
              f"({100 * r['chapter_recall']['any']:.1f}% if the chunk that prints the question may count)")
        if r["with_gold_pages"]:
            print(f"  page level:    {100 * r['page_recall']['evidence']:.1f}% counting evidence chunks only "
                  f"({100 * r['page_recall']['any']:.1f}% if the chunk that prints the question may count)")
        print("  evidence only, " + "; ".join(
            f"@{kk}: chapter {100 * v['chapter']:.1f}%"
            + (f", page {100 * v['page']:.1f}%" if v["page"] is not None else "")
            + (f", answer {100 * v['answer']:.1f}%" if v["answer"] is not None else "") for kk, v in r["at"].items()))
    if args.json_out:
        write_json(args.json_out, results if len(results) > 1 else results[names[0]])
    return 0


def cmd_hand_check(args: argparse.Namespace) -> int:
    from tutor.evaluation.evaluate import hand_check_report

    records = [json.loads(line) for line in args.answers.read_text(encoding="utf-8").splitlines() if line.strip()]
    r = hand_check_report(records, args.n)
    print(json.dumps(r, indent=2))
    if r["drafts_checked_by_hand"] < args.n:
        print(f"only {r['drafts_checked_by_hand']} drafts have every sentence's hand_supported filled in",
              file=sys.stderr)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from tutor.evaluation.bench import print_report, run_bench

    result = run_bench(args.libraries, args.index_dir, quick=args.quick, questions=args.questions, policy=args.policy,
                       queries_only=args.queries_only, ingest_only=args.ingest_only)
    print_report(result)
    if args.json_out:
        write_json(args.json_out, result)
        print(f"\nwritten to {args.json_out}")
    return 0


def cmd_bench_reader(args: argparse.Namespace) -> int:
    from tutor.build import build_tutor
    from tutor.evaluation.bench_reader import measure_readers, record_calls
    from tutor.evaluation.questions import load_questions
    from tutor.reader.model import shared_reader

    qs = [q for path in args.questions for q in load_questions(path, args.limit)]
    indexes = eval_indexes(args, {q.library for q in qs})
    tutors = {name: build_tutor(lib, policy=args.policy, answerer="extractive") for name, lib in indexes.items()}
    # fp32 once per engine (ONNX Runtime, torch); int8 runs on torch only
    readers = {(f"{p}-{e}" if p == "fp32" else p): shared_reader(precision=p, engine=e if p == "fp32" else "torch")
               for p in args.precision for e in (args.engine if p == "fp32" else ["torch"])}
    calls = record_calls(qs, tutors.__getitem__, next(iter(readers.values())))
    threshold = next(iter(tutors.values())).policy.min_reader_probability
    r = measure_readers(readers, calls, rounds=args.rounds, threshold=threshold)
    print(f"{r['calls']} reader calls ({r['windows_per_call']} windows each) from {len(qs)} questions, "
          f"{r['rounds']} rounds; CPU: {r['cpu']}")
    for name, m in r["readers"].items():
        print(f"  {name:10}  p50 {m['p50_ms']:6.1f} ms  p95 {m['p95_ms']:6.1f} ms  mean {m['mean_ms']:6.1f} ms   "
              f"best P moved {m['probability_shift_mean']:.3f} on average (max {m['probability_shift_max']:.3f}), "
              f"{m['decisions_flipped']} decision(s) flipped at {threshold}")
    if args.json_out:
        write_json(args.json_out, r)
    return 0


def cmd_bench_concurrency(args: argparse.Namespace) -> int:
    from tutor.build import build_tutor
    from tutor.evaluation.bench_concurrency import one_at_a_time, together
    from tutor.evaluation.questions import load_questions

    qs = load_questions(args.questions, args.limit)
    indexes = eval_indexes(args, {q.library for q in qs})
    if len(indexes) != 1:
        raise SystemExit("error: bench-concurrency asks questions of one library")
    tutor = build_tutor(next(iter(indexes.values())), policy=args.policy, answerer="extractive")
    for q in qs[:5]:  # warm: models loaded, each shelf's lexical index built
        tutor.ask(q.question, q.klass, q.subject)
    # the warm-up's questions are not embedded for free (the test fake keeps no cache)
    clear = getattr(tutor.library.any_embedder(), "clear_cache", lambda: None)
    r = {"alone": one_at_a_time(tutor, qs[: args.students * args.rounds], clear),
         "together": together(tutor, qs, args.students, args.rounds, clear)}
    for name, m in r.items():
        lat = m["latency_ms"]
        print(f"{name:9} p50 {lat['p50']:8.1f} ms  p95 {lat['p95']:8.1f} ms  (n {lat['n']})  stage means: "
              + ", ".join(f"{k} {v}" for k, v in list(m["stage_mean_ms"].items())[:5]))
    t = r["together"]
    print(f"{t['students']} students x {t['rounds']} rounds: {t['questions_per_s']} questions/s, "
          f"{t['error_count']} error(s)")
    if args.json_out:
        write_json(args.json_out, r)
    return 0


def _followup_kinds(args: argparse.Namespace) -> int:
    """`followups` on a file of kind follow-ups (tests/data/followups-kinds.jsonl): each kind, each half, before and
    after."""
    from tutor.build import build_tutor
    from tutor.evaluation.followup_kinds import KIND_MODES, evaluate_kinds, load_kind_conversations, report_lines
    from tutor.policy import load_policy

    convs = load_kind_conversations(args.conversations)
    indexes = eval_indexes(args, {c.library for c in convs})
    base = load_policy(args.policy)
    tutors = {(name, mode): build_tutor(lib, policy=base.with_values(**settings), models=args.models)
              for name, lib in indexes.items() for mode, (settings, _) in KIND_MODES.items()}
    r = evaluate_kinds(convs, lambda lib, mode: tutors[(lib, mode)], _counter(args))
    print("\n".join(report_lines(r, args.verbose)))
    if args.json_out:
        write_json(args.json_out, r, ensure_ascii=False)
        print(f"\nwritten to {args.json_out}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("eval", help="evaluate on labelled questions",
                       parents=[*EVALUATION, MODELS, LIMIT, PERTURB, PROGRESS, split("all")])
    p.add_argument("questions", type=Path)
    p.add_argument("--sample", type=int, help="a deterministic sample of N questions, stratified by expect")
    p.add_argument("--seed", type=int, default=0, help="seed of --sample")
    p.add_argument("--answers", type=Path, help="write each LLM answer with per-sentence grounding verdicts (JSONL)")
    p.add_argument("--reader", action=argparse.BooleanOptionalAction, default=None,
                   help="the answerability reader on or off (default: the policy's)")
    p.set_defaults(fn=cmd_eval)

    p = sub.add_parser("followups", help="follow-up coverage and false acceptance, alone and resolved (two-turn JSONL)",
                       parents=[*EVALUATION, PROGRESS])
    p.add_argument("conversations", type=Path, help="e.g. tests/data/followups.jsonl, or a file of kind follow-ups "
                   "(tests/data/followups-kinds.jsonl: each kind, development and held-out halves apart)")
    p.add_argument("--verbose", action="store_true", help="print each follow-up as typed and as resolved")
    p.add_argument("--models", action=argparse.BooleanOptionalAction, default=True,
                   help="the models the policy names (the answerability reader) read the follow-ups, as in the app; "
                        "--no-models: the gate and the extractive answerer alone (the measure before 2026-11-27)")
    p.set_defaults(fn=cmd_followups)

    p = sub.add_parser("calibrate", help="search the thresholds: false acceptance against coverage",
                       parents=[*EVALUATION, LIMIT, split("tuning")])
    p.add_argument("questions", type=Path, nargs="+")
    p.add_argument("--target-fa", type=float, default=0.02,
                   help="highest false-acceptance rate allowed on the first file")
    p.add_argument("--others-max-fa", type=float, default=0.5, help="highest false-acceptance rate on the other files")
    p.add_argument("--others-min-coverage", type=float, default=0.5, help="least coverage on the other files")
    p.add_argument("--write", type=Path, help="write the recommended policy as TOML here")
    p.set_defaults(fn=cmd_calibrate)

    p = sub.add_parser("recall", help="retrieval recall@k (chapter and page level) on labelled questions",
                       parents=[*EVALUATION, PERTURB])
    p.add_argument("questions", type=Path)
    p.add_argument("-k", type=int, default=5)
    p.add_argument("--ks", default="1,3,5", help="also report evidence-only recall at these k (comma-separated)")
    p.add_argument("--retriever", choices=("dense", "hybrid", "bm25", "trigram", "seed", "all"), default="dense",
                   help="dense (cosine), hybrid (dense + BM25 + trigram, RRF), one lexical retriever alone, the seed "
                        "paraphrase score, or all of them")
    p.set_defaults(fn=cmd_recall)

    p = sub.add_parser("hand-check",
                       help="the grounding check against hand verdicts in an answers JSONL (eval --answers)")
    p.add_argument("answers", type=Path)
    p.add_argument("-n", type=int, default=30, help="how many hand-checked drafts to count (the first n)")
    p.set_defaults(fn=cmd_hand_check)


def register_bench(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="latency, ingest throughput, cold start and scale, against plain LlamaIndex",
                       parents=[LIBRARIES, POLICY, REPORT])
    p.add_argument("--quick", action="store_true", help="smaller scale sizes (for tests)")
    p.add_argument("--queries-only", action="store_true",
                   help="only retrieval recall and question latency: skip ingest, cold start and scale")
    p.add_argument("--ingest-only", action="store_true",
                   help="only the whole-library ingest (e5 vectors for Hindi questions included where the policy "
                        "uses them)")
    p.add_argument("--questions", type=Path,
                   help="questions to time (default: <libraries>/../questions/ncert-class10.jsonl)")
    p.set_defaults(fn=cmd_bench)

    p = sub.add_parser("bench-reader", help="the time the answerability reader adds per question, by precision",
                       parents=[*EVALUATION, LIMIT])
    p.add_argument("questions", type=Path, nargs="+")
    p.add_argument("--precision", nargs="+", choices=("fp32", "int8"), default=["fp32", "int8"],
                   help="the reader precisions to time (the first is the reference for the probability shift)")
    p.add_argument("--engine", nargs="+", choices=("onnx", "torch"), default=["onnx", "torch"],
                   help="what runs the fp32 reader: ONNX Runtime, torch, or both (timed side by side)")
    p.add_argument("--rounds", type=int, default=3)
    p.set_defaults(fn=cmd_bench_reader)

    p = sub.add_parser("bench-concurrency", help="students asking at once through one shared tutor, against alone",
                       parents=[*EVALUATION, LIMIT])
    p.add_argument("questions", type=Path)
    p.add_argument("--students", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    p.set_defaults(fn=cmd_bench_concurrency)
