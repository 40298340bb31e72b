"""`python -m tutor ask`: one question, a cited answer or a refusal with its reason (`--json`: the whole result)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tutor.cli.options import MODELS, POLICY, shelf

if TYPE_CHECKING:
    from tutor.types import TutorAnswer


def _print_answer(ans: TutorAnswer, debug: bool) -> None:
    if ans.was_refusal:
        print(ans.answer)
        print(f"Why: {ans.message}  [{ans.reason}]")
        if ans.suggestions:
            print("You could ask about: " + "; ".join(f"{s.chapter}" + (f" – {s.section}" if s.section else "")
                                                      + f" (p. {s.page})" for s in ans.suggestions))
    else:
        if ans.direct_answer:
            print(f"Answer: {ans.direct_answer}\n")
        for s in ans.sentences:
            print(f"{s.text} " + "".join(f"[{n}]" for n in s.citations))
        print()
        for src in ans.cited_sources:
            pages = f"{src.page}{'-' + str(src.page_end) if src.page_end != src.page else ''}"
            print(f"[{src.n}] {src.chapter}, page {pages} ({src.file}, score {src.score:.3f})")
    print(f"confidence {ans.confidence:.2f}; LLM called: {'yes' if ans.llm_called else 'no'}; "
          f"decided by {ans.decided_by}")
    for note in ans.notes:
        print(f"note: {note}")
    if debug:
        print("\nchecks (value vs threshold):")
        for c in ans.checks:
            print(f"  {'PASS' if c.passed else 'FAIL'} {c.stage:6} {c.name:18} {c.value!s:>10} vs "
                  f"{c.threshold!s:<10} {c.detail}")
        print("timings (ms): " + ", ".join(f"{k} {v:.1f}" for k, v in ans.timings_ms.items()))
        for src in ans.sources:
            print(f"  source [{src.n}] {src.score:.3f} {src.chunk_id} p.{src.page}: {src.text[:120]}…")
        for src in ans.near_misses:
            print(f"  near miss {src.score:.3f} {src.chunk_id} p.{src.page}: {src.text[:100]}…")


def cmd_ask(args: argparse.Namespace) -> int:
    from tutor.build import build_tutor
    from tutor.config import audit_db_path
    from tutor.types import Passage

    tutor = build_tutor(args.index_dir, policy=args.policy, answerer=args.answerer, rerank=args.rerank,
                        judge=args.judge, audit=audit_db_path())
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


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ask", help="ask a question: a cited answer or a refusal with the reason",
                       parents=[shelf(required=True), MODELS, POLICY])
    p.add_argument("question")
    p.add_argument("--selected-text", type=Path, help="a file holding the passage that is the only context")
    p.add_argument("--stream", action="store_true", help="print an LLM's draft on stderr as it is written")
    p.add_argument("--debug", action="store_true", help="print every check of the gate and of the answer")
    p.add_argument("--json", action="store_true", help="print the whole result as JSON")
    p.set_defaults(fn=cmd_ask)
