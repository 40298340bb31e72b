"""`ast.parse` one thread at a time (tutor/astlock.py), the guard against CPython 3.11's parser failing when two
threads parse at once (CI: the Ask page failed with 'AST constructor recursion depth mismatch' while the warm-up
thread read .npy headers)."""
from __future__ import annotations

import ast
import threading
import time

import numpy as np

from tutor import astlock


def most_inside_at_once(parse, threads: int = 4, calls: int = 5) -> int:
    """Run `parse` from several threads; how many were inside the fake parser at the same moment, at most."""
    inside, most, guard = 0, 0, threading.Lock()

    def work():
        nonlocal inside, most
        for _ in range(calls):
            parse("x = 1")

    def fake(source):
        nonlocal inside, most
        with guard:
            inside += 1
            most = max(most, inside)
        time.sleep(0.002)  # long enough for another thread to come in, if it may
        with guard:
            inside -= 1
        return source

    parse = parse(fake)
    workers = [threading.Thread(target=work) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return most


def test_a_serialised_parser_is_entered_by_one_thread_at_a_time():
    assert most_inside_at_once(lambda f: f) > 1  # the harness does see overlap when nothing serialises
    assert most_inside_at_once(astlock.serialised) == 1


def test_a_parse_inside_a_parse_on_the_same_thread_does_not_deadlock():
    inner = astlock.serialised(lambda s: s)
    outer = astlock.serialised(lambda s: inner(s) + "!")
    t = threading.Thread(target=outer, args=("x",), daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive()
    assert outer("x") == "x!"


def test_installed_it_holds_ast_parse_literal_eval_and_numpy_headers(monkeypatch, tmp_path):
    monkeypatch.setattr(ast, "parse", ast.parse)  # restored after the test
    assert astlock.serialise_ast_parse(force=True)
    installed = ast.parse
    assert astlock.serialise_ast_parse(force=True) and ast.parse is installed  # once, not wrapped twice
    np.save(tmp_path / "v.npy", np.ones((2, 3), dtype="float32"))

    done: list[str] = []
    readers = [threading.Thread(target=lambda: done.append(repr(ast.literal_eval("{'a': (1, 2)}"))), daemon=True),
               threading.Thread(target=lambda: done.append(str(np.load(tmp_path / "v.npy").shape)), daemon=True)]
    with astlock._LOCK:  # another thread is parsing
        for r in readers:
            r.start()
        time.sleep(0.3)
        assert done == []  # both wait for it
    for r in readers:
        r.join(10)
    assert sorted(done) == ["(2, 3)", "{'a': (1, 2)}"]
    assert ast.parse("y = 2").body[0].targets[0].id == "y"  # and it still parses
