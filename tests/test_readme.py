"""The README stays what a newcomer reads in five minutes: short, every setting the code reads named in it, each
figure with its date and command, and no link in it or in docs/ broken. The history and the details live under docs/,
each page dated (issue 38)."""
from __future__ import annotations

import re
import tomllib
import unicodedata
from dataclasses import fields
from pathlib import Path

from helpers_paths import REPO

from tutor.policy import DEFAULT_POLICY_FILE, Policy

README = REPO / "README.md"
MAX_LINES = 250
DOCS = sorted((REPO / "docs").glob("*.md"))
# the pages a reader reaches from the README: their links are checked too
PAGES = [README, *DOCS, REPO / "tests" / "data" / "README.md", REPO / "data" / "sample" / "README.md"]
# Every name the code reads: a literal TUTOR_ name in the package, the shared Streamlit code, the pages, the app and the
# scripts a maintainer reruns. The policy's fields are read by a rule (`TUTOR_<FIELD>`, tutor/policy.py).
CODE = [*sorted((REPO / "tutor").rglob("*.py")), *sorted((REPO / "ui").rglob("*.py")),
        *sorted((REPO / "pages").glob("*.py")), REPO / "app.py", *sorted((REPO / "scripts").glob("*.py"))]
NAME = re.compile(r"\bTUTOR_[A-Z0-9_]+")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\)")
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")


def readme() -> str:
    return README.read_text(encoding="utf-8")


def policy_names() -> set[str]:
    return {f"TUTOR_{f.name.upper()}" for f in fields(Policy) if not f.metadata.get("table")}


def names_in(paths: list[Path]) -> set[str]:
    """TUTOR_* literals in these files, less prefixes (`TUTOR_LLM_` in "TUTOR_LLM_* keys")."""
    found = {m for path in paths for m in NAME.findall(path.read_text(encoding="utf-8"))}
    return {n for n in found if not n.endswith("_")}


def names_the_code_reads() -> set[str]:
    """The variables the README must name one by one: every literal in the code but the policy's own fields, which
    the README explains once as a rule (`TUTOR_<FIELD>`, each field described in tutor/policy.toml)."""
    return names_in(CODE) - policy_names()


def undocumented(names: set[str], text: str) -> list[str]:
    return sorted(n for n in names if not re.search(rf"\b{n}\b", text))


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks (a `#` comment in a shell block is not a heading, a `[x](y)` not a link)."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced:
            out.append(line)
    return out


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (letters, digits, marks, `-` and `_` kept),
    each space a hyphen."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().replace("`", "")).lower()
    kept = "".join(c for c in text if c in "-_ " or unicodedata.category(c)[0] in "LNM")
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in prose_lines(page.read_text(encoding="utf-8")):
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
    return out


def local_links(page: Path) -> list[str]:
    """Relative links and in-page anchors of a Markdown page (code spans and blocks left out; URLs left out)."""
    targets = []
    for line in prose_lines(page.read_text(encoding="utf-8")):
        targets += LINK.findall(re.sub(r"`[^`]*`", "", line))
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:", t)]


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in local_links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target} (no such heading in {dest.relative_to(REPO)})")
    return broken


def figure_rows(text: str) -> list[list[str]]:
    """The rows of the table under "## Current figures" that give a figure (not the group headings in bold)."""
    section = text.split("## Current figures", 1)[1].split("\n## ", 1)[0]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in section.splitlines()
            if line.startswith("|") and not re.match(r"\|[\s|:-]+\|?$", line)]
    return [r for r in rows[1:] if len(r) == 4 and r[1]]


def test_the_readme_is_short():
    lines = readme().splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; move detail to docs/ (at most {MAX_LINES})"


def test_every_variable_the_code_reads_is_in_the_readme():
    names = names_the_code_reads()
    assert {"TUTOR_DATA_DIR", "TUTOR_OCR_CACHE", "TUTOR_DATABASE_URL", "TUTOR_POLICY",
            "TUTOR_HINDI_DICTIONARY", "TUTOR_LLM_BASE_URL"} <= names  # the scan reaches config, ingest, text, LLM
    missing = undocumented(names, readme())
    assert not missing, f"README.md does not document {', '.join(missing)}"


def test_the_check_fails_for_a_variable_the_readme_lacks():
    text = readme()
    assert undocumented({"TUTOR_DATA_DIR"}, text) == []
    assert undocumented({"TUTOR_DATA_DIR"}, text.replace("TUTOR_DATA_DIR", "TUTOR_DATA_FOLDER")) == ["TUTOR_DATA_DIR"]
    assert undocumented({"TUTOR_DATA"}, "`TUTOR_DATA_DIR`") == ["TUTOR_DATA"]  # a name's prefix does not count


def test_the_readme_explains_policy_variables():
    text = readme()
    assert "tutor/policy.toml" in text
    assert "TUTOR_<FIELD>" in text
    assert "TUTOR_POLICY" in text


def test_every_policy_field_is_described_in_the_policy_file():
    """The README sends a reader to tutor/policy.toml for the `TUTOR_<FIELD>` variables: each field stands there with a
    comment above it saying what it does."""
    text = DEFAULT_POLICY_FILE.read_text(encoding="utf-8")
    values = tomllib.loads(text)
    lines = text.splitlines()
    missing, bare = [], []
    for f in fields(Policy):
        if f.name not in values:
            missing.append(f.name)
        elif not f.metadata.get("table"):
            at = next(i for i, line in enumerate(lines) if re.match(rf"{f.name}\s*=", line))
            if at == 0 or not lines[at - 1].startswith("#"):
                bare.append(f.name)
    assert not missing, f"tutor/policy.toml lacks the policy fields {', '.join(missing)}"
    assert not bare, f"tutor/policy.toml gives no comment above {', '.join(bare)}"


def test_every_variable_the_readme_names_is_read_by_the_code():
    """The other way round: a variable the README documents but nothing reads any more is stale."""
    named = names_in([README]) - {"TUTOR_FIELD"}
    stale = sorted(named - names_in(CODE) - policy_names())
    assert not stale, f"README.md documents {', '.join(stale)}, which no code reads"


def test_every_current_figure_names_its_date_and_command():
    rows = figure_rows(readme())
    assert len(rows) >= 8, "the figures table was not found under '## Current figures'"
    undated = [r[0] for r in rows if not DATE.search(r[2])]
    no_command = [r[0] for r in rows if "`" not in r[3]]
    assert not undated, f"figures without the date they were measured: {undated}"
    assert not no_command, f"figures without the command that reproduces them: {no_command}"


def test_every_docs_page_says_when_it_was_measured():
    """Each page under docs/ dates its figures before its first section."""
    assert {p.name for p in DOCS} >= {"architecture.md", "evaluation.md", "performance.md", "deployment.md",
                                      "security.md"}
    undated = [p.name for p in DOCS if not DATE.search(p.read_text(encoding="utf-8").split("\n## ", 1)[0])]
    assert not undated, f"docs pages that do not say when their figures were measured: {', '.join(undated)}"


def test_the_link_check_finds_headings_as_github_does():
    assert slug("PostgreSQL + pgvector (2026-11-25)") == "postgresql--pgvector-2026-11-25"
    assert slug("The reader, fourth round (2026-11-25, night): one window — shipped") == \
        "the-reader-fourth-round-2026-11-25-night-one-window--shipped"
    assert slug("The answerability reader's time") == "the-answerability-readers-time"
    assert slug("Reading the question (`tutor/text/`)") == "reading-the-question-tutortext"


def test_every_relative_link_in_the_readme_and_docs_points_to_a_file_and_heading():
    targets = local_links(README)
    assert any(t.endswith(".png") for t in targets) and any(t.endswith(".md") for t in targets)  # the scan works
    assert any("#" in t for p in DOCS for t in local_links(p))
    broken = {str(p.relative_to(REPO)): b for p in PAGES if (b := broken_links(p))}
    assert not broken, f"broken links: {broken}"
