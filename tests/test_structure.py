"""The shape of the package (issue 12): no import circle inside tutor/, no Streamlit import under tutor/, and no
module over 400 lines unless its docstring says why ("Long because ...")."""
from __future__ import annotations

import ast
from pathlib import Path

from helpers_paths import TUTOR

MAX_LINES = 400


def _modules() -> dict[str, Path]:
    out = {}
    for path in TUTOR.rglob("*.py"):
        parts = list(path.relative_to(TUTOR.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(path: Path) -> set[str]:
    """Every module named in an import anywhere in the file (function-level imports included: a circle hidden
    inside a function is still a circle)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def import_graph() -> dict[str, set[str]]:
    mods = _modules()
    return {m: {n for n in _imports(p) if n in mods and n != m} for m, p in mods.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state and (found := visit(n)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_the_cycle_finder_finds_a_circle_it_is_given():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_no_import_circle_inside_tutor():
    assert find_cycle(import_graph()) is None


def test_no_streamlit_under_tutor():
    offenders = [str(p) for p in TUTOR.rglob("*.py") if any(n.split(".")[0] == "streamlit" for n in _imports(p))]
    assert offenders == []


def test_long_modules_say_why():
    unexplained = []
    for path in TUTOR.rglob("*.py"):
        lines = path.read_text(encoding="utf-8").count("\n")
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        if lines > MAX_LINES and "Long because" not in doc:
            unexplained.append(f"{path.relative_to(TUTOR.parent)} ({lines} lines)")
    assert unexplained == []
