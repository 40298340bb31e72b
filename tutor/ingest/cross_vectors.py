"""After ingest: the English shelves' chunks embedded for Hindi questions, so the cross-lingual judge
(tutor/safety/crosslingual.py) reads stored vectors at question time instead of embedding five chunks (a second on
2 cores). Vectors go to the content-addressed store of tutor/retrieval/vector_cache.py, so a shelf already done costs
one lookup per chunk, and a failure here costs a slower Hindi question, never a shelf."""
from __future__ import annotations

from collections.abc import Callable, Iterable

from tutor.retrieval.embedding import E5_NAME
from tutor.store.shelf import ShelfKey


def warm_shelves(store, keys: Iterable[ShelfKey], judge, progress: Callable[[int, int, str], None]
                 ) -> dict[ShelfKey, str]:
    """Each shelf of `keys` not embedded with e5 (MiniLM: English): the vectors of its evidence chunks (or their
    windows: `judge.passages_of`) put in the judge's store (`judge.warm`), with `progress(done, total, message)`;
    returns a line per shelf saying what was done (or why not). Shelves embedded with e5 (Hindi chapters) are left
    alone: a Hindi question is answered from them directly."""
    out: dict[ShelfKey, str] = {}
    for key in keys:
        try:
            manifest = store.manifest(key.klass, key.subject)
            if manifest is None or manifest.embedding_model == E5_NAME:
                continue
            texts = judge.passages_of([c for c in store.load(key.klass, key.subject).chunks if c.is_evidence])
            what = f"embedding {key.klass}/{key.subject} for Hindi questions (multilingual e5)"
            new = judge.warm(texts, lambda done, total, what=what: progress(done, total, what))
            out[key] = f"{len(texts)} passages ready for Hindi questions ({new} embedded now)"
        except Exception as e:  # noqa: BLE001 - the shelf is written; Hindi questions will embed at question time
            out[key] = (f"chunks not embedded for Hindi questions ({type(e).__name__}: {e}); they will be at "
                        "question time")
    return out
