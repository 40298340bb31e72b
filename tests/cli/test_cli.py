"""The command line's parser (no model is loaded): options several commands share are written once as argparse parents
and read the same by each of them; where two commands differ, only the difference is theirs."""
from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from tutor.cli import build_parser


def parse(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(list(argv))


def test_a_shared_option_is_parsed_the_same_by_two_commands():
    a = parse("ask", "Q?", "--class", "10", "--subject", "science", "--policy", "p.toml", "--answerer", "local",
              "--rerank")
    e = parse("eval", "q.jsonl", "--libraries", "libs", "--policy", "p.toml", "--answerer", "local", "--rerank")
    for ns in (a, e):
        assert ns.policy == Path("p.toml") and ns.answerer == "local" and ns.rerank is True and ns.judge is None
    assert a.fn.__name__ == "cmd_ask" and e.fn.__name__ == "cmd_eval"


def test_the_evaluation_commands_share_libraries_eval_index_and_the_report_path():
    argv = ("--libraries", "libs", "--eval-index", "idx", "--json", "out.json")
    for cmd, positional in (("eval", "q.jsonl"), ("calibrate", "q.jsonl"), ("recall", "q.jsonl"),
                            ("followups", "f.jsonl")):
        ns = parse(cmd, positional, *argv)
        assert (ns.libraries, ns.eval_index, ns.json_out) == (Path("libs"), Path("idx"), Path("out.json")), cmd
        assert ns.policy is None


def test_a_parent_made_per_command_keeps_each_commands_default():
    assert parse("eval", "q.jsonl", "--libraries", "l").split == "all"
    assert parse("calibrate", "q.jsonl", "--libraries", "l").split == "tuning"  # never tuned on the held-out part
    assert parse("search", "Q?", "--class", "10", "--subject", "science").klass == "10"
    assert parse("ingest", "a.pdf").klass is None  # ingest: the folder layout may name the shelf instead
    with pytest.raises(SystemExit):
        parse("search", "Q?", "--subject", "science")  # a question is asked on a named shelf


def test_ask_json_is_a_switch_not_a_report_path():
    ns = parse("ask", "Q?", "--class", "10", "--subject", "science", "--json")
    assert ns.json is True and not hasattr(ns, "json_out")


def test_followups_are_read_by_the_models_the_app_uses_unless_told_not_to():
    assert parse("followups", "f.jsonl", "--libraries", "l").models is True  # the reader reads them, as in the app
    assert parse("followups", "f.jsonl", "--libraries", "l", "--no-models").models is False  # the gate alone
