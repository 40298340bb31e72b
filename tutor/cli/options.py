"""Options several commands share, each written once as an argparse parent parser (`parents=[...]`).

A parent holds no defaults of its own command: where two commands differ (the split they use by default, whether a
shelf must be named), a small function makes the parent for that command.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from tutor.evaluation.questions import PERTURBATIONS, SPLITS

ANSWERERS = ("extractive", "local", "openai")


def _parent() -> argparse.ArgumentParser:
    return argparse.ArgumentParser(add_help=False)


def shelf(required: bool) -> argparse.ArgumentParser:
    """--class and --subject: the shelf a question is asked on (required), or where given PDFs go (optional)."""
    p = _parent()
    p.add_argument("--class", dest="klass", required=required, help="class, e.g. 10")
    p.add_argument("--subject", required=required, help="subject, e.g. science")
    return p


def split(default: str) -> argparse.ArgumentParser:
    """--split: which part of a question set is asked."""
    p = _parent()
    p.add_argument("--split", choices=SPLITS, default=default,
                   help="the part of the set held out of all tuning (by article and chapter), the rest, or all "
                        f"(default {default}; calibration never uses the held-out part)")
    return p


POLICY = _parent()
POLICY.add_argument("--policy", type=Path, help="a policy TOML file (default: tutor/policy.toml)")

LIBRARIES = _parent()
LIBRARIES.add_argument("--libraries", type=Path, required=True,
                       help="folder holding <library>/class-*/<subject>/*.pdf (e.g. ../shared/data/libraries)")

EVAL_INDEX = _parent()
EVAL_INDEX.add_argument("--eval-index", type=Path, default=None,
                        help="where evaluation shelves are kept (default data/eval-index)")

REPORT = _parent()  # not `ask --json`, which prints the answer as JSON instead of writing a report
REPORT.add_argument("--json", type=Path, dest="json_out", help="write the report here")

MODELS = _parent()
MODELS.add_argument("--answerer", choices=ANSWERERS, default=None, help="the answerer (default: the policy's)")
MODELS.add_argument("--rerank", action="store_true", default=None, help="the gate's reranked tier (LLM scores 0-3)")
MODELS.add_argument("--judge", action="store_true", default=None, help="the LLM answerability judge before answering")

LIMIT = _parent()
LIMIT.add_argument("--limit", type=int, help="only the first N questions of each file")

PERTURB = _parent()
PERTURB.add_argument("--perturb", choices=PERTURBATIONS, default="none",
                     help="ask deterministic misspelt (typos) or reworded and reordered (reorder) copies of the "
                          "questions")

PROGRESS = _parent()
PROGRESS.add_argument("--progress", action="store_true", help="count what is asked on stderr")

# the common set of the commands that measure on labelled questions
EVALUATION = [LIBRARIES, POLICY, EVAL_INDEX, REPORT]
