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


# the text tools that tokenise, stem or scan a text: called on the question only in tutor/question.py, once (issue 38)
TEXT_TOOL_MODULES = ("text/terms.py", "text/lexical_terms.py", "text/normalize.py")
QUESTION_TEXTS = {"question", "asked"}  # what the stages have called a question's raw text
QUESTION_FIELDS = {"typed", "gate_text", "asked", "resolved", "reading", "stated"}  # a Question's texts
READING_STAGES = STAGES + ("tutor.suggestions", "tutor.store.pg_lexical")
# not on the question path: they build the reader's training examples from SQuAD rows, whose questions are plain text
TRAINING = {"tutor.reader.examples", "tutor.reader.squad_train"}


def text_tools() -> set[str]:
    """Every public function of the text modules that read words, terms, numbers, names or negation."""
    out = set()
    for rel in TEXT_TOOL_MODULES:
        tree = ast.parse((TUTOR / rel).read_text(encoding="utf-8"))
        out |= {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}
    return out


def _names_the_question(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id in QUESTION_TEXTS
               or isinstance(n, ast.Attribute) and n.attr in QUESTION_FIELDS for n in ast.walk(node))


def question_rereads(modules: dict[str, Path], tools: set[str]) -> list[str]:
    """Calls, in the stages below the pipeline, of a text tool on the question's text: `content_terms(question)`,
    `words(q.gate_text)` (module:line tool)."""
    out = []
    for m, path in sorted(modules.items()):
        if not m.startswith(READING_STAGES) or m in TRAINING:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name in tools and any(_names_the_question(a) for a in [*node.args, *(k.value for k in node.keywords)]):
                out.append(f"{m}:{node.lineno} {name}")
    return out


def test_the_text_tools_are_found_and_the_reread_finder_sees_a_tokenised_question(tmp_path):
    tools = text_tools()
    assert {"content_terms", "term_set", "tokens", "stem", "key_numbers", "negated", "words", "index_term",
            "trigrams", "normalize_for_matching"} <= tools
    stage = tmp_path / "lexical.py"
    stage.write_text("def search(question, q, chunk):\n    return words(question), terms(q.gate_text), "
                     "stem(chunk.text), q.index_words\n")
    assert question_rereads({"tutor.retrieval.lexical": stage}, tools) == ["tutor.retrieval.lexical:2 words",
                                                                     "tutor.retrieval.lexical:2 terms"]
    stage.write_text("def search(q, chunk):\n    return content_terms(q.asked), term_set(chunk.text)\n")
    assert question_rereads({"tutor.suggestions": stage}, tools) == ["tutor.suggestions:2 content_terms"]


def test_no_stage_below_the_pipeline_tokenises_the_question_again():
    """Lexical retrieval, the gate, the answerers and the suggestions read the Question's terms, words, trigrams,
    numbers and names, worked out once in tutor/question.py; they tokenise only passages."""
    assert question_rereads(_modules(), text_tools()) == []
