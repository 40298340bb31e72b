"""The shelves an evaluation runs on: one set per library folder the questions name, built (or reused: ingestion
is a no-op for unchanged files) under the evaluation index, or in the shared database (`TUTOR_DATABASE_URL`), one
namespace per library there; and the SQuAD training articles beside the libraries."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from tutor.config import data_dir, database_url
from tutor.ingest.builder import discover, ingest
from tutor.retrieval.embedding import Embedder
from tutor.retrieval.search import Library
from tutor.store.backends import namespace_for, open_store


class MissingLibrary(FileNotFoundError):
    """The questions name a library that has no folder under the libraries folder."""


def training_articles(libraries: Path) -> Path:
    """The SQuAD training articles beside the libraries (they tell which article an unanswerable question is on)."""
    return libraries.parent / "training" / "squad2-dev-articles.json"


def eval_store(name: str, eval_index: Path | None = None, url: str | None = None):
    """The store of library `name`'s evaluation shelves: the folder `<eval_index>/<name>` (default eval index:
    `<data dir>/eval-index`), or, with a database URL (None: `TUTOR_DATABASE_URL`; "": none), the namespace
    `namespace_for("eval", name)` in that database."""
    root = (eval_index or data_dir() / "eval-index") / name
    return open_store(root, database_url() if url is None else url, namespace_for("eval", name))


def eval_libraries(libraries: Path, names: Iterable[str], eval_index: Path | None = None,
                   log: Callable[[str], None] | None = None, *, url: str | None = None,
                   embedder: Embedder | None = None) -> dict[str, Library]:
    """Library name -> its evaluation shelves as a Library (in `eval_store(name, eval_index, url)`), each shelf's
    model chosen by the default rule (Hindi chapters: multilingual-e5-small, else MiniLM) unless `embedder` is
    given. `log` hears of each library where files were ingested."""
    from tutor.safety.crosslingual import ingest_judge

    out = {}
    for name in sorted(names):
        src = libraries / name
        if not src.exists():
            raise MissingLibrary(f"library folder {src} does not exist")
        store = eval_store(name, eval_index, url)
        report = ingest(discover([src]), store, embedder, cross_judge=ingest_judge())  # as maintainers' ingest
        changed = [f for f in report.files if f.status in ("added", "replaced")]
        if changed and log is not None:
            log(f"library {name}: {len(changed)} file(s) ingested in {report.seconds:.1f}s")
        out[name] = Library(store.root, embedder=embedder, store=store)
    return out
