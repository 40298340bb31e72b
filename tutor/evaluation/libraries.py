"""The shelves an evaluation runs on: one index per library folder the questions name, built (or reused: ingestion
is a no-op for unchanged files) under the evaluation index; and the SQuAD training articles beside the libraries."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from tutor.config import data_dir
from tutor.ingest.builder import discover, ingest
from tutor.store.shelf import ShelfStore


class MissingLibrary(FileNotFoundError):
    """The questions name a library that has no folder under the libraries folder."""


def training_articles(libraries: Path) -> Path:
    """The SQuAD training articles beside the libraries (they tell which article an unanswerable question is on)."""
    return libraries.parent / "training" / "squad2-dev-articles.json"


def eval_libraries(libraries: Path, names: Iterable[str], eval_index: Path | None = None,
                   log: Callable[[str], None] | None = None) -> dict[str, Path]:
    """Library name -> the folder of its shelves under `eval_index` (default `<data dir>/eval-index`), each shelf's
    model chosen by the default rule (Hindi chapters: multilingual-e5-small, else MiniLM). `log` hears of each
    library where files were ingested."""
    root = eval_index or data_dir() / "eval-index"
    out = {}
    for name in sorted(names):
        src = libraries / name
        if not src.exists():
            raise MissingLibrary(f"library folder {src} does not exist")
        report = ingest(discover([src]), ShelfStore(root / name), None)
        changed = [f for f in report.files if f.status in ("added", "replaced")]
        if changed and log is not None:
            log(f"library {name}: {len(changed)} file(s) ingested in {report.seconds:.1f}s")
        out[name] = root / name
    return out
