"""Fixtures several test files share. Helpers to import live beside this file (`helpers_*.py`: PDFs made in the test,
small shelves, paths, local servers, the PostgreSQL test server); the test fakes live in tutor/testing.py."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from tutor.retrieval.search import Library

from helpers_postgres import PostgresTestServer
from helpers_safety import EMB, LIGHT, SOIL, write_shelf


@pytest.fixture
def library(tmp_path) -> Library:
    """Two tiny real FAISS shelves on disk (class 10 science: light; social science: soil), HashEmbedder vectors."""
    write_shelf(tmp_path / "index", LIGHT, subject="science")
    write_shelf(tmp_path / "index", SOIL, subject="social-science")
    return Library(tmp_path / "index", embedder=EMB)


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory) -> Iterator[PostgresTestServer]:
    """One real PostgreSQL 16 + pgvector server for the whole session (started on first use, stopped at the end)."""
    server = PostgresTestServer(tmp_path_factory.mktemp("postgres"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(pg_server) -> Iterator[str]:
    """A fresh, empty database on the session's server (pgvector created in it), dropped after the test."""
    with pg_server.database() as url:
        yield url


@pytest.fixture(scope="session", autouse=True)
def _session_vector_cache(tmp_path_factory) -> Iterator[None]:
    """Passage vectors (tutor/retrieval/vector_cache.py) go to the session's own file, never the project's data/."""
    patch = pytest.MonkeyPatch()
    patch.setenv("TUTOR_VECTOR_CACHE", str(tmp_path_factory.mktemp("vectors") / "vector-cache.sqlite3"))
    yield
    patch.undo()


@pytest.fixture(autouse=True)
def _no_released_sentences() -> Iterator[None]:
    """Each test starts and ends with no released sentence (tutor.safety.vocabulary's set is process-wide: a release
    made in one test must not let a sentence through in the next)."""
    from tutor.safety.vocabulary import set_released

    set_released(())
    yield
    set_released(())
