"""One thread at a time in `ast.parse`, for the Python versions whose parser is not safe across threads.

CPython before 3.13 keeps the depth counter of the AST constructor in state shared by every thread of the
interpreter (gh-106905 and its follow-ups). Two threads inside `ast.parse` at once can fail with
'SystemError: AST constructor recursion depth mismatch'. The app meets that at server start: Streamlit parses a page
script (its "magic") while the warm-up thread loads shelves, and numpy reads every .npy header with
`ast.literal_eval`, inspect reads builtin signatures with `ast.parse`, torch and onnxscript parse their own source.
CI saw it once in tests/ui/test_pages.py (the Ask page failed to draw).

`serialise_ast_parse()` puts one re-entrant lock around `ast.parse`; every caller named above (and
`ast.literal_eval`) looks the function up at call time, so all of them take the lock. A parse takes micro- to
milliseconds, so nobody waits long.
"""
from __future__ import annotations

import ast
import functools
import sys
import threading
from collections.abc import Callable

_LOCK = threading.RLock()
AFFECTED = sys.version_info < (3, 13)


def serialised(parse: Callable) -> Callable:
    """`parse` behind the module's lock (re-entrant: a finaliser that parses inside a parse does not deadlock)."""
    if getattr(parse, "__serialised__", False):
        return parse

    @functools.wraps(parse)
    def locked(*args, **kwargs):
        with _LOCK:
            return parse(*args, **kwargs)

    locked.__serialised__ = True
    return locked


def serialise_ast_parse(force: bool = False) -> bool:
    """Install the lock around `ast.parse` (once; a second call changes nothing) where the running Python needs it,
    or always with `force`. True when `ast.parse` is now serialised."""
    if not (AFFECTED or force):
        return False
    ast.parse = serialised(ast.parse)
    return True
