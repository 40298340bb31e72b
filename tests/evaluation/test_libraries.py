"""The evaluation's shelves (tutor/evaluation/libraries.py): one set per library folder, on this disk or, with a
database URL, in one namespace per library of the real PostgreSQL test server, so two libraries with the same
class/subject stay apart. Tiny libraries made in the test, HashEmbedder vectors."""
from __future__ import annotations

from pathlib import Path

import pytest

from tutor.build import build_tutor
from tutor.evaluation.libraries import MissingLibrary, eval_libraries
from tutor.store.backends import namespace_for
from tutor.store.pg_shelf import PgShelfStore
from tutor.store.shelf import ShelfStore
from tutor.testing import HashEmbedder

from helpers_library import LIGHT_PAGES, SOIL_PAGES, make_pdf

LIGHT_Q = "What is the bending of light called?"


def two_libraries(root: Path) -> Path:
    """Two libraries that both hold a class 10 science shelf: `optics` (light) and `earth` (soil)."""
    make_pdf(root / "optics" / "class-10" / "science" / "light.pdf", LIGHT_PAGES)
    make_pdf(root / "earth" / "class-10" / "science" / "soil.pdf", SOIL_PAGES)
    return root


def files_of(lib) -> set[str]:
    return {c.file for c in lib.shelf("10", "science").chunks}


def test_with_a_database_url_each_library_gets_its_own_namespace_and_they_stay_apart(tmp_path, pg_url):
    libraries = two_libraries(tmp_path / "libraries")
    heard: list[str] = []
    libs = eval_libraries(libraries, {"optics", "earth"}, tmp_path / "eval-index", heard.append, url=pg_url,
                          embedder=HashEmbedder())
    assert {type(lib.store) for lib in libs.values()} == {PgShelfStore}
    assert libs["optics"].store.namespace == namespace_for("eval", "optics") != libs["earth"].store.namespace
    assert files_of(libs["optics"]) == {"light.pdf"} and files_of(libs["earth"]) == {"soil.pdf"}
    assert len(heard) == 2 and not (tmp_path / "eval-index").exists()  # nothing written on this disk
    # the default namespace (the app's shelves) saw none of it
    assert PgShelfStore(pg_url, tmp_path / "app").keys() == []
    # a tutor over one library answers from its own shelf
    ans = build_tutor(libs["optics"], models=False).ask(LIGHT_Q, "10", "science")
    assert not ans.was_refusal and ans.sources and {s.file for s in ans.sources} == {"light.pdf"}
    # run again: the same shelves are reused, nothing ingested
    again = eval_libraries(libraries, {"optics", "earth"}, tmp_path / "eval-index", heard.append, url=pg_url,
                           embedder=HashEmbedder())
    assert len(heard) == 2 and files_of(again["earth"]) == {"soil.pdf"}


def test_without_a_database_url_the_shelves_are_folders_under_the_eval_index(tmp_path, monkeypatch):
    monkeypatch.delenv("TUTOR_DATABASE_URL", raising=False)
    libraries = two_libraries(tmp_path / "libraries")
    libs = eval_libraries(libraries, {"optics", "earth"}, tmp_path / "eval-index", embedder=HashEmbedder())
    assert isinstance(libs["earth"].store, ShelfStore)
    assert libs["earth"].root == tmp_path / "eval-index" / "earth"
    assert files_of(libs["optics"]) == {"light.pdf"} and files_of(libs["earth"]) == {"soil.pdf"}
    with pytest.raises(MissingLibrary, match="nowhere"):
        eval_libraries(libraries, {"nowhere"}, tmp_path / "eval-index", embedder=HashEmbedder())


def test_namespaces_are_distinct_for_distinct_names_and_checked():
    assert namespace_for("eval", "a-b") != namespace_for("eval", "a_b")
    assert namespace_for("eval", "ncert") != namespace_for("bench", "ncert")
    assert namespace_for("eval", "ncert").startswith("eval_ncert_")
    with pytest.raises(ValueError, match="namespace"):
        PgShelfStore("postgresql://nowhere/db", namespace='x"; DROP TABLE shelves; --')
