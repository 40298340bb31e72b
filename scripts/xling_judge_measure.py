"""What the gate across languages (tutor/safety/crosslingual.py) rests on, measured on a Devanagari question set:
retrieval recall@k of the dictionary reading (gold chapter / gold page among the first k evidence chunks) and the ROC
AUC of multilingual e5's best cosine over the first k chunks, with the question as typed and with its reading, on the
tuning and held-out halves.

    python scripts/xling_judge_measure.py tests/data/xling-devanagari.jsonl --libraries ../shared/data/libraries

Uses the evaluation shelves (data/eval-index, built by `python -m tutor eval` if missing) and the shipped policy's
retrieval. About three minutes on 2 cores.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from tutor.evaluation.libraries import eval_libraries
from tutor.evaluation.metrics import roc_auc
from tutor.evaluation.questions import load_questions, split_questions
from tutor.policy import load_policy
from tutor.retrieval.embedding import E5Embedder
from tutor.text.readings import shelf_reading

KS = (1, 3, 5, 10, 20)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("questions", type=Path)
    ap.add_argument("--libraries", type=Path, default=Path("../shared/data/libraries"))
    ap.add_argument("--eval-index", type=Path, default=None)
    args = ap.parse_args()
    qs = load_questions(args.questions)
    held = {q.id for q in split_questions(qs, "heldout")}
    libs = eval_libraries(args.libraries, {q.library for q in qs}, args.eval_index)
    pol = load_policy().with_values(top_k=50)
    e5 = E5Embedder()
    recall = {k: [0, 0] for k in KS}
    rows = []  # (held out, answerable, typed cosines, reading cosines) over the first max(KS) evidence chunks
    for q in qs:
        lib = libs[q.library]
        shelf = lib.shelf(q.klass, q.subject)
        reading = shelf_reading(q.question, lib.term_stats(shelf))[0] or q.question
        hits = [h for h in lib.retrieve(reading, shelf, lib.embed_query(reading, shelf), pol)
                if h.chunk.is_evidence][:max(KS)]
        vecs = e5.embed_passages([h.chunk.text for h in hits])
        rows.append((q.id in held, q.expect == "answer", vecs @ e5.embed_query([q.question])[0],
                     vecs @ e5.embed_query([reading])[0]))
        if q.expect == "answer" and q.gold_file:
            gold = Path(q.gold_file).name
            for k in KS:
                recall[k][0] += any(h.chunk.file == gold for h in hits[:k])
                recall[k][1] += any(h.chunk.file == gold and set(q.gold_pages or ()) & set(
                    range(h.chunk.page_start, h.chunk.page_end + 1)) for h in hits[:k])
    n = sum(1 for q in qs if q.expect == "answer" and q.gold_file)
    print(f"retrieval on the dictionary reading, {n} answerable questions: gold chapter / page among the first k "
          "evidence chunks")
    print("  " + "; ".join(f"@{k}: {100 * c / n:.1f} / {100 * p / n:.1f}" for k, (c, p) in recall.items()))
    print("ROC AUC of the best e5 cosine over the first k chunks (answerable vs unanswerable): all / tuning / held-out")
    for which, col in (("typed", 2), ("reading", 3)):
        for k in (3, 5, 10, 20):
            aucs = []
            for keep in (lambda r: True, lambda r: not r[0], lambda r: r[0]):
                part = [r for r in rows if keep(r)]
                score = [float(np.max(r[col][:k])) if len(r[col]) else 0.0 for r in part]
                aucs.append(roc_auc([s for s, r in zip(score, part) if r[1]],
                                    [s for s, r in zip(score, part) if not r[1]]))
            print(f"  {which:8s} k={k:2d}: " + " / ".join("-" if a is None else f"{a:.3f}" for a in aucs))


if __name__ == "__main__":
    main()
