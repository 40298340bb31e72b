"""The command line end to end on the bundled sample library, with the real all-MiniLM-L6-v2 model.

`python -m tutor ingest` then `python -m tutor search`, each in its own process, as a person would run them.
"""
from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers_paths import SAMPLE_LIBRARY

from tutor.cli import main
from tutor.store.shelf import ShelfKey, ShelfStore

SAMPLE = SAMPLE_LIBRARY

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (SAMPLE / "class-10" / "science").is_dir(), reason=f"sample library missing at {SAMPLE}"),
]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tutor", *args], capture_output=True, text=True, timeout=600, check=False
    )


@dataclass(frozen=True)
class Ingested:
    """The index folder and what `ingest` printed."""

    path: Path
    output: str


@pytest.fixture(scope="module")
def ingested(tmp_path_factory) -> Ingested:
    idx = tmp_path_factory.mktemp("cli") / "index"
    res = run_cli("--index-dir", str(idx), "ingest", str(SAMPLE), "--quiet")
    assert res.returncode == 0, res.stderr
    return Ingested(idx, res.stdout)


@pytest.fixture
def index(ingested) -> Path:
    return ingested.path


def test_ingest_reports_every_sample_file_added(ingested):
    lines = [ln for ln in ingested.output.splitlines() if ln.startswith("added")]
    files = sorted(re.search(r"10/([a-z-]+/\w+\.pdf)", ln).group(1) for ln in lines)
    assert files == ["science/sci01.pdf", "science/sci02.pdf", "science/sci03.pdf", "social-science/soc01.pdf",
                     "social-science/soc02.pdf"]
    assert all(re.search(r"\b(\d)/\1 pages", ln) for ln in lines)  # every page of each file kept
    assert "0 refused" in ingested.output
    assert ShelfStore(ingested.path).keys() == [ShelfKey("10", "science"), ShelfKey("10", "social-science")]


def test_manifest_names_the_real_model(index):
    m = ShelfStore(index).manifest("10", "science")
    assert m.embedding_model == "sentence-transformers/all-MiniLM-L6-v2" and m.dim == 384
    assert set(m.chapters) == {"sci01.pdf", "sci02.pdf", "sci03.pdf"}


def test_search_answers_refraction_from_sci01_with_scores_in_descending_order(index):
    res = run_cli("--index-dir", str(index), "search", "What is refraction of light?", "--class", "10",
                  "--subject", "science", "-k", "5", "--all-shelves")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "cosine similarity" in out and "higher is closer" in out
    ranked = re.findall(r"^(\d+)\. (-?\d\.\d{3})  (.+?) \(p\. (\d+)(?:-\d+)?\)", out, re.M)
    assert [int(r[0]) for r in ranked] == [1, 2, 3, 4, 5]
    scores = [float(r[1]) for r in ranked]
    assert scores == sorted(scores, reverse=True)
    assert all(-1.0 <= s <= 1.0 for s in scores)
    # the chapter printed first is the one sci01.pdf holds, by the shelf's own manifest
    chapters = ShelfStore(index).manifest("10", "science").chapters
    assert ranked[0][2] == chapters["sci01.pdf"].chapter != chapters["sci02.pdf"].chapter
    assert "Refraction" in ranked[0][2]
    # and the science shelf beats social science for this question
    shelf_lines = re.findall(r"^  (-?\d\.\d{3})  class 10 ([a-z-]+)$", out, re.M)
    assert [s for _, s in shelf_lines] == ["science", "social-science"]
    assert float(shelf_lines[0][0]) > float(shelf_lines[1][0])


def test_reingest_is_a_noop(index):
    before = ShelfStore(index).current_version("10", "science")
    res = run_cli("--index-dir", str(index), "ingest", str(SAMPLE), "--quiet")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    statuses = [ln.split()[0] for ln in lines if ("/sci" in ln or "/soc" in ln) and not ln.startswith("shelf ")]
    assert statuses == ["unchanged"] * 5
    assert ShelfStore(index).current_version("10", "science") == before
    # each shelf is said to be ready for Hindi questions (its e5 vectors are in the store, or were made now)
    ready = [ln for ln in lines if ln.startswith("shelf 10/") and "ready for Hindi questions" in ln]
    assert len(ready) == 2, lines


def test_search_on_an_unknown_shelf_is_a_clear_error(index, capsys):
    assert main(["--index-dir", str(index), "search", "What is money?", "--class", "10", "--subject",
                 "mathematics"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: There is no shelf for class 10 mathematics.")
    assert "10/science" in err and "10/social-science" in err


def test_ingest_of_a_loose_file_without_flags_is_a_clear_error(tmp_path, capsys):
    loose = tmp_path / "chapter.pdf"
    loose.write_bytes((SAMPLE / "class-10" / "science" / "sci01.pdf").read_bytes())
    assert main(["--index-dir", str(tmp_path / "idx"), "ingest", str(loose), "--quiet"]) == 2
    assert "--class and --subject" in capsys.readouterr().err
    assert not (tmp_path / "idx").exists()


def test_ingest_shows_the_whole_ingest_percentage_and_time_left(tmp_path):
    res = run_cli("--index-dir", str(tmp_path / "idx"), "ingest", str(SAMPLE))
    assert res.returncode == 0, res.stderr
    bars = res.stderr.replace("\r", "\n")
    assert re.search(r"overall +[1-9]\d?%\|.*\| about \d+ (min \d+ )?s left", bars), bars[-2000:]
    assert re.search(r"overall 100%\|.*\| done", bars), bars[-2000:]
