"""The README stays what a newcomer reads in five minutes: short, every setting the code reads named in it, and no
link in it broken. The history and the details live under docs/ (issue 38)."""
from __future__ import annotations

import re
from dataclasses import fields

from helpers_paths import REPO

from tutor.policy import Policy

README = REPO / "README.md"
MAX_LINES = 250
# Every name the code reads: a literal TUTOR_ name in the package, the shared Streamlit code, the pages and the app.
CODE = [*sorted((REPO / "tutor").rglob("*.py")), *sorted((REPO / "ui").rglob("*.py")),
        *sorted((REPO / "pages").glob("*.py")), REPO / "app.py"]
NAME = re.compile(r"TUTOR_[A-Z0-9_]+")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def readme() -> str:
    return README.read_text(encoding="utf-8")


def names_the_code_reads() -> set[str]:
    """TUTOR_* literals in the code, less prefixes (`TUTOR_LLM_` in "TUTOR_LLM_* keys") and the policy's own
    `TUTOR_<FIELD>` names, which the README explains once as a rule."""
    policy = {f"TUTOR_{f.name.upper()}" for f in fields(Policy)}
    found = {m for path in CODE for m in NAME.findall(path.read_text(encoding="utf-8"))}
    return {n for n in found if not n.endswith("_") and n not in policy}


def test_the_readme_is_short():
    lines = readme().splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; move detail to docs/ (at most {MAX_LINES})"


def test_every_variable_the_code_reads_is_in_the_readme():
    names = names_the_code_reads()
    assert {"TUTOR_DATA_DIR", "TUTOR_OCR_CACHE", "TUTOR_DATABASE_URL", "TUTOR_POLICY"} <= names  # the scan works
    text = readme()
    missing = sorted(n for n in names if not re.search(rf"\b{n}\b", text))
    assert not missing, f"README.md does not document {', '.join(missing)}"


def test_the_readme_explains_policy_variables():
    text = readme()
    assert "tutor/policy.toml" in text
    assert "TUTOR_<FIELD>" in text
    assert "TUTOR_POLICY" in text


def test_every_relative_link_in_the_readme_points_to_a_file():
    targets = [t for t in LINK.findall(readme()) if not re.match(r"[a-z][a-z0-9+.-]*:|#", t)]
    assert any(t.endswith(".png") for t in targets) and any(t.endswith(".md") for t in targets)  # the scan works
    broken = []
    for target in targets:
        path = target.split("#", 1)[0]
        if not (REPO / path).exists():
            broken.append(target)
    assert not broken, f"README.md links to files that do not exist: {', '.join(broken)}"
