"""Retrieval recall@k on labelled questions: is the gold chapter (and page) among the top k chunks, for each
retriever."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tutor.evaluation.questions import Question
from tutor.policy import Policy
from tutor.types import Hit

if TYPE_CHECKING:
    from tutor.retrieval.search import Library


def retrieval_recall(questions: list[Question], library_for: Callable[[str], Library], k: int = 5,
                     retriever: str = "dense", policy: Policy | None = None,
                     ks: Iterable[int] = (1, 3, 5)) -> dict[str, Any]:
    """Recall@k of retrieval for the answerable questions: the gold chapter (and, where given, a gold page) among the
    top k chunks. Counted twice: over evidence chunks only (the honest count: the chunk that prints a question does
    not answer it) and over any chunk (as a plain pipeline would count). `retriever` is dense, hybrid, bm25, trigram
    (tutor/retrieval/search.py, with the policy's depths) or seed (the seed paraphrase score,
    tutor/retrieval/lexical.py); `at` holds
    the evidence-only recall at each of `ks` (chapter; page where gold pages are given; answer: a gold answer text
    inside a retrieved chunk of the gold file, where answers are given)."""
    from tutor.policy import load_policy
    from tutor.retrieval.lexical import ParaphraseScorer

    ks = sorted(set(ks) | {k})
    depth = max(50, 4 * max(ks))
    pol = (policy or load_policy()).with_values(top_k=depth)
    n = n_pages = n_answers = 0
    hit = {"evidence": 0, "any": 0}
    hit_page = {"evidence": 0, "any": 0}
    at = {kk: {"chapter": 0, "page": 0, "answer": 0} for kk in ks}
    seeds: dict[Any, ParaphraseScorer] = {}
    for q in questions:
        if q.expect != "answer" or not q.gold_file:
            continue
        lib = library_for(q.library)
        shelf = lib.shelf(q.klass, q.subject)
        if retriever == "seed":
            key = (shelf.key, shelf.version)
            if key not in seeds:
                seeds[key] = ParaphraseScorer([c.text for c in shelf.chunks], [c.is_evidence for c in shelf.chunks])
            hits = [Hit(shelf.chunks[i], s, r) for r, (i, s) in enumerate(seeds[key].search(q.question, depth))]
        else:
            hits = lib.retrieve(q.question, shelf, lib.embed_query(q.question, shelf), pol, retriever)
        gold = Path(q.gold_file).name
        n += 1
        n_pages += bool(q.gold_pages)
        n_answers += bool(q.answers)

        def on_page(h: Hit) -> bool:
            pages = set(range(h.chunk.page_start, h.chunk.page_end + 1))
            return h.chunk.file == gold and bool(pages & set(q.gold_pages or ()))

        evidence = [h for h in hits if h.chunk.is_evidence]
        for kind, top in (("evidence", evidence[:k]), ("any", hits[:k])):
            hit[kind] += any(h.chunk.file == gold for h in top)
            if q.gold_pages:
                hit_page[kind] += any(on_page(h) for h in top)
        for kk in ks:
            at[kk]["chapter"] += any(h.chunk.file == gold for h in evidence[:kk])
            at[kk]["page"] += bool(q.gold_pages) and any(on_page(h) for h in evidence[:kk])
            at[kk]["answer"] += bool(q.answers) and any(h.chunk.file == gold and a.lower() in h.chunk.text.lower()
                                                        for h in evidence[:kk] for a in q.answers or ())
    return {"k": k, "retriever": retriever, "questions": n, "with_gold_pages": n_pages, "with_answers": n_answers,
            "chapter_recall": {kk: round(v / n, 4) if n else None for kk, v in hit.items()},
            "page_recall": {kk: round(v / n_pages, 4) if n_pages else None for kk, v in hit_page.items()},
            "at": {kk: {"chapter": round(v["chapter"] / n, 4) if n else None,
                        "page": round(v["page"] / n_pages, 4) if n_pages else None,
                        "answer": round(v["answer"] / n_answers, 4) if n_answers else None} for kk, v in at.items()}}
