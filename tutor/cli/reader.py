"""`python -m tutor train-reader`: the answerability reader's examples built from ../shared/data, then trained,
exported and measured on the held-out articles and chapters."""
from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from tutor.cli.options import EVAL_INDEX


def cmd_train_reader(args: argparse.Namespace) -> int:
    """Build the reader's examples from ../shared/data (held out by article and chapter), or load those an earlier
    `--examples-only` saved (`--from-examples`), then train, export and measure."""
    from tutor.reader.examples import ExampleSets, examples_file, load_examples, save_examples, summary
    from tutor.reader.training import train_reader

    work = args.work_dir
    work.mkdir(parents=True, exist_ok=True)
    if args.from_examples:
        d = args.from_examples
        meta = json.loads((d / EXAMPLES_META).read_text(encoding="utf-8"))
        sets = ExampleSets(load_examples(examples_file(d, "train")), load_examples(examples_file(d, "heldout")),
                           set(meta["heldout_articles"]))
        parts, notes = meta["parts"], {**(meta["notes"] or {}), "examples_built_by": meta["command"]}
        sets, notes = _with_additions(args, sets, notes)
    else:
        if args.libraries is None:
            from tutor.errors import TutorError

            raise TutorError("train-reader needs --libraries (to build its examples) or --from-examples")
        sets, parts, notes = _built_examples(args)
        sets, notes = _with_additions(args, sets, notes)  # before saving: --examples-only carries them to a GPU
        suffix = ".jsonl.xz" if args.compress else ".jsonl"
        save_examples(work / f"train{suffix}", sets.train)
        save_examples(work / f"heldout{suffix}", sets.heldout)
        (work / EXAMPLES_META).write_text(json.dumps(
            {"command": _command(), "heldout_articles": sorted(sets.heldout_articles), "parts": parts,
             "notes": notes}, indent=2) + "\n", encoding="utf-8")
    print(f"examples: train {len(sets.train)} {summary(sets.train)}; "
          f"held out {len(sets.heldout)} {summary(sets.heldout)}")
    print(f"held-out SQuAD articles: {sorted(sets.heldout_articles)}")
    if args.examples_only:
        return 0
    done = train_reader(sets, work, args.out, command=_command(), epochs=args.epochs, batch_size=args.batch_size,
                        lr=args.lr, seed=args.seed, max_length=args.max_length, threads=args.threads,
                        device=args.device, base=args.base, frozen_layers=args.frozen_layers, parts=parts,
                        notes=notes, checkpoint_every=args.checkpoint_every,
                        stop_after_minutes=args.stop_after_minutes, init_from=args.init_from)
    stopped = done.config["training"]["stopped_at_step"]
    print(f"trained {stopped if stopped is not None else done.steps} of {done.steps} steps in "
          f"{done.seconds / 60:.1f} min, peak memory {done.peak_rss_mb} MB")
    print(json.dumps(done.config["heldout_metrics"], indent=2))
    print(f"reader written to {args.out} (sha256 {done.config['sha256']}, {done.config['bytes'] / 1e6:.1f} MB)")
    return 0


EXAMPLES_META = "examples.json"  # beside the saved examples: the held-out articles, parts, notes, the command


def _command() -> str:
    return "python -m tutor " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def _built_examples(args: argparse.Namespace):
    """The example sets made from ../shared/data as the options ask, with the held-out parts to measure apart and
    the notes the config records about the data."""
    from dataclasses import replace

    from tutor.cli.evaluation import eval_indexes
    from tutor.evaluation.libraries import training_articles
    from tutor.reader.augment import augmented
    from tutor.reader.examples import build_examples

    lib = eval_indexes(args, {"ncert"})["ncert"]
    squad = training_articles(args.libraries)
    parts, notes = None, None
    if args.squad11:
        from tutor.reader.squad_train import HELDOUT_PARTS, NEGATIVE_MIX, build_examples_v2

        sets = build_examples_v2(squad.parent, lib, args.seed, args.squad11 if args.squad11 > 0 else None,
                                 args.ncert_questions, args.ncert_claim_passages, real=args.real_unanswerables,
                                 ncert_repeat=args.ncert_repeat)
        parts = {k: list(v) for k, v in HELDOUT_PARTS.items()}
        notes = {"training_data": "SQuAD 1.1 train (../shared/data/training/squad11-train.json, CC BY-SA 4.0), "
                                  f"{args.squad11 if args.squad11 > 0 else 'all'} questions sampled with seed "
                                  f"{args.seed}, one built negative each (mix {NEGATIVE_MIX}); NCERT printed-question "
                                  f"pairs (each {args.ncert_repeat} time(s)); claims of both"
                                  + ("; SQuAD 2.0's own questions, real unanswerables included, of the 10 train "
                                     "articles and the dev articles not held out" if args.real_unanswerables else "")
                                  + " (tutor/reader/squad_train.py)",
                 "heldout_squad": "SQuAD 1.1 train articles whose title's SHA-1 is 0 mod 25, every SQuAD 2.0 dev "
                                  "article, the 10 articles of squad2-train-10-articles.json (real unanswerables)"}
    else:
        sets = build_examples(squad, lib, args.seed, args.ncert_questions, args.ncert_claim_passages)
    sets = augmented(sets, squad, args.seed, args.extra_windows, args.swaps, args.negate, args.drop_answer)
    if args.code_mix:
        from tutor.reader.codemix import code_mixed
        from tutor.text.hindi_dictionary import dictionary_missing, dictionary_path

        if why := dictionary_missing():
            from tutor.errors import TutorError

            raise TutorError(f"--code-mix needs {why}")
        mixed_heldout = code_mixed(sets.heldout, dictionary_path(), 1.0, args.seed + 1)
        sets = replace(sets, train=code_mixed(sets.train, dictionary_path(), args.code_mix, args.seed),
                       heldout=sets.heldout + [e for e in mixed_heldout if e.source.endswith("-hi")])
    if args.tasks == "qa":
        sets = replace(sets, train=[e for e in sets.train if e.task == "qa"],
                       heldout=[e for e in sets.heldout if e.task == "qa"])
    return sets, parts, notes


def _with_additions(args: argparse.Namespace, sets, notes: dict | None):
    """What the options add to examples however they were made (built here or loaded with --from-examples): the
    written pairs, then questions also given as readings (--telegraphic, the written pairs' among them)."""
    if args.written_repeat:
        sets, notes = _with_written(args, sets, notes)
    if args.telegraphic:
        from dataclasses import replace

        from tutor.reader.telegraph import telegraphed

        sets = replace(sets, train=telegraphed(sets.train, args.telegraphic, args.seed))
        notes = {**(notes or {}), "telegraphic": f"a share {args.telegraphic} of the qa training questions also "
                                                 f"given as readings (tutor/reader/telegraph.py, seed {args.seed})"}
    return sets, notes


def _with_written(args: argparse.Namespace, sets, notes: dict | None):
    """The written NCERT pairs (tutor/reader/written.py) added to the training part `args.written_repeat` times, their
    windows read from the evaluation shelves; lines no shelf sentence matches are reported."""
    from dataclasses import replace

    from tutor.cli.evaluation import eval_indexes
    from tutor.errors import TutorError
    from tutor.reader.written import WRITTEN_PAIRS, load_pairs, written_examples

    if args.libraries is None:
        raise TutorError("--written-repeat needs --libraries (the shelves the written pairs' windows come from)")
    path = args.written_pairs or WRITTEN_PAIRS
    made = written_examples(eval_indexes(args, {"ncert"})["ncert"], load_pairs(path))
    if made.unmatched:
        print(f"warning: {len(made.unmatched)} written pairs match no shelf sentence, left out: "
              f"{'; '.join(made.unmatched[:5])}", file=sys.stderr)
    sets = replace(sets, train=sets.train + made.examples * args.written_repeat)
    return sets, {**(notes or {}), "written_pairs": f"{len(made.examples)} NCERT pairs written for the reader "
                                                    f"({path.name}, tutor/reader/written.py), each "
                                                    f"{args.written_repeat} time(s)"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train-reader", help="train the answerability reader (seeded, resumable) and export it",
                       parents=[EVAL_INDEX])
    p.add_argument("--libraries", type=Path, default=None,
                   help="folder holding <library>/class-*/<subject>/*.pdf (e.g. ../shared/data/libraries); needed "
                        "unless --from-examples")
    p.add_argument("--out", type=Path, default=Path("data/models/reader"), help="where the exported reader goes")
    p.add_argument("--work-dir", type=Path, default=Path("out/reader-training"),
                   help="examples and the resumable checkpoint (not committed: they hold shared data)")
    p.add_argument("--epochs", type=float, default=3.0)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr", type=float, default=8e-5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-length", type=int, default=160, help="word pieces of question + passage")
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: one per core)")
    p.add_argument("--device", default="cpu", help="torch device to train on (cpu, or cuda where a GPU is lent)")
    p.add_argument("--ncert-questions", type=int, default=700, help="printed NCERT questions mined for training")
    p.add_argument("--ncert-claim-passages", type=int, default=500, help="NCERT passages sampled for claim examples")
    # off by default: the shipped reader was trained without them (they moved the gate along the same trade-off, see
    # docs/evaluation.md, the reader's second round), so the command in data/models/reader/reader.json still makes it
    p.add_argument("--extra-windows", type=int, default=0,
                   help="more windows holding the answer, per answerable SQuAD training question (augment.py)")
    p.add_argument("--swaps", type=int, default=0,
                   help="questions with a name, number or key word swapped, per answerable SQuAD training question, "
                        "read against the window that answered the original (negatives; augment.py)")
    p.add_argument("--negate", action="store_true",
                   help="swapped questions may also be the question with its verb negated (augment.py)")
    p.add_argument("--drop-answer", action="store_true",
                   help="each answering SQuAD training window again without the answer's sentence "
                        "(negatives; augment.py)")
    p.add_argument("--base", choices=("minilm", "e5"), default="minilm",
                   help="the encoder: English MiniLM (the reader), or multilingual e5-small (the cross-lingual reader)")
    p.add_argument("--frozen-layers", type=int, default=0, help="lowest encoder layers kept as the base has them")
    p.add_argument("--tasks", choices=("all", "qa"), default="all", help="qa: answerability and span only, no claims")
    p.add_argument("--code-mix", type=float, default=0.0,
                   help="share of training questions with words written in Hindi through the English-Hindi "
                        "dictionary (codemix.py; the held-out part gets a code-mixed copy of each question too)")
    p.add_argument("--telegraphic", type=float, default=0.0,
                   help="share of qa training questions also given as a reading writes them: question word first, "
                        "content words only, no punctuation (telegraph.py)")
    p.add_argument("--squad11", type=int, default=0,
                   help="train on this many SQuAD 1.1 train questions (-1: all 87,599 but the held-out articles) with "
                        "built negatives (squad_train.py) instead of the SQuAD 2.0 dev articles")
    p.add_argument("--real-unanswerables", action="store_true",
                   help="with --squad11: also train on SQuAD 2.0's own questions (real unanswerables) of the 10 train "
                        "articles and of the dev articles not held out")
    p.add_argument("--ncert-repeat", type=int, default=1, help="with --squad11: each NCERT pair this many times")
    p.add_argument("--written-repeat", type=int, default=0,
                   help="add the NCERT pairs written for the reader (--written-pairs; tutor/reader/written.py) to the "
                        "training part this many times (0: not at all); needs --libraries")
    p.add_argument("--written-pairs", type=Path, default=None,
                   help="the written pairs' JSONL (default data/training/ncert-written-pairs.jsonl)")
    p.add_argument("--examples-only", action="store_true", help="build and save the examples, do not train")
    p.add_argument("--compress", action="store_true", help="with --examples-only: save them as .jsonl.xz")
    p.add_argument("--from-examples", type=Path, default=None,
                   help="train on the examples an earlier --examples-only saved in this folder (on a lent GPU "
                        "machine, which has neither ../shared nor the library)")
    p.add_argument("--init-from", type=Path, default=None,
                   help="an exported reader to start from (its heads included) instead of the base model: a second "
                        "stage of training, e.g. the span reader tuned on the gate's NCERT-shaped examples")
    p.add_argument("--checkpoint-every", type=int, default=50, help="steps between resumable checkpoints")
    p.add_argument("--stop-after-minutes", type=float, default=None,
                   help="end training early after this many minutes (the reader is exported as it is then)")
    p.set_defaults(fn=cmd_train_reader)
