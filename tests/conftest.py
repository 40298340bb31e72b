"""Fixtures several test files share. Helpers to import live beside this file (`helpers_*.py`: PDFs made in the test,
small shelves, paths, local servers); the test fakes live in tutor/testing.py."""
from __future__ import annotations

import pytest

from tutor.retrieval.search import Library

from helpers_safety import EMB, LIGHT, SOIL, write_shelf


@pytest.fixture
def library(tmp_path) -> Library:
    """Two tiny real FAISS shelves on disk (class 10 science: light; social science: soil), HashEmbedder vectors."""
    write_shelf(tmp_path / "index", LIGHT, subject="science")
    write_shelf(tmp_path / "index", SOIL, subject="social-science")
    return Library(tmp_path / "index", embedder=EMB)
