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


# what reads a question's language or script: done once, in tutor/question.py (issue 38)
QUESTION_READERS = {"detect_language", "reply_language", "is_hinglish", "english_reading", "has_devanagari",
                    "devanagari_language", "latin_language", "unread_script"}
STAGES = ("tutor.safety", "tutor.retrieval", "tutor.answering", "tutor.reader", "tutor.presentation")


def stage_rereads(modules: dict[str, Path]) -> dict[str, set[str]]:
    """The stage modules below the pipeline that import a function reading a question's language or script."""
    out = {}
    for m, path in modules.items():
        if m.startswith(STAGES):
            names = {n.rsplit(".", 1)[-1] for n in _imports(path) if n.startswith("tutor.text.")}
            if names & QUESTION_READERS:
                out[m] = names & QUESTION_READERS
    return out


def test_the_reread_finder_sees_an_import_of_the_language_detector(tmp_path):
    stage = tmp_path / "gate.py"
    stage.write_text("from tutor.text.language import detect_language, passage_language\n")
    assert stage_rereads({"tutor.safety.gate": stage}) == {"tutor.safety.gate": {"detect_language"}}
    stage.write_text("from tutor.text.language import passage_language\n")
    assert stage_rereads({"tutor.safety.gate": stage}) == {}


def test_no_stage_below_the_pipeline_reads_the_questions_language_again():
    """Retrieval, the gate, the reader, the answerer and the checks take the Question the pipeline made; they detect
    only passages' languages (tutor.text.language.passage_language)."""
    assert stage_rereads(_modules()) == {}
