"""The labelled question files under tests/data, read as their own tests check them: the rows, text compared blind to
case, spacing and the curly apostrophe, and a gold PDF's pages as the project extracts them and as pypdf does (each
PDF read once per session)."""
from __future__ import annotations

import json
from functools import cache

from helpers_paths import SHARED_DATA, TEST_DATA


def rows(name: str) -> list[dict]:
    """The rows of tests/data/<name>."""
    return [json.loads(line) for line in (TEST_DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def norm(text: str) -> str:
    return " ".join(text.lower().replace("\u2019", "'").split())


@cache
def cleaned_pages(gold_file: str) -> dict[int, str]:
    """Page number -> `norm`ed text of a shared PDF (`gold_file` under ../shared/data/libraries) as the project's
    cleaned extraction gives it (tutor.ingest.pdftext.extract_pdf)."""
    from tutor.ingest.pdftext import extract_pdf

    return {p.page: norm(p.text) for p in extract_pdf(SHARED_DATA / "libraries" / gold_file).pages}


@cache
def raw_pages(gold_file: str) -> list[str]:
    """The `norm`ed text of each page of the same PDF as pypdf extracts it, page 1 first."""
    import pypdf

    return [norm(p.extract_text() or "") for p in pypdf.PdfReader(str(SHARED_DATA / "libraries" / gold_file)).pages]
