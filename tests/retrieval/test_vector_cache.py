"""The passage vectors kept on disk by their text (tutor/retrieval/vector_cache.py): a real SQLite file in tmp_path."""
from __future__ import annotations

import numpy as np
import pytest

from tutor.retrieval.vector_cache import VectorCache


def test_vectors_come_back_by_text_and_model_across_instances(tmp_path):
    path = tmp_path / "cache.sqlite3"
    VectorCache(path, "e5:passage", 3).put({"alpha": np.array([1.0, 0.0, 0.0]), "beta": np.array([0.0, 1.0, 0.0])})
    again = VectorCache(path, "e5:passage", 3)  # another process would see the same
    got = again.get(["beta", "gamma", "alpha", "beta"])
    assert sorted(got) == ["alpha", "beta"]
    assert got["beta"].tolist() == [0.0, 1.0, 0.0] and got["beta"].dtype == np.float32
    assert VectorCache(path, "minilm", 3).get(["alpha"]) == {}  # another model's vectors are not this one's
    assert again.count() == 2


def test_a_text_stored_again_is_replaced_and_long_lists_are_read_whole(tmp_path):
    cache = VectorCache(tmp_path / "c.sqlite3", "m", 2)
    cache.put({f"t{i}": np.array([i, 1.0]) for i in range(1200)})  # more than SQLite's bound parameters at once
    cache.put({"t5": np.array([-1.0, -1.0])})
    got = cache.get([f"t{i}" for i in range(1200)])
    assert len(got) == 1200 and got["t5"].tolist() == [-1.0, -1.0] and got["t1199"].tolist() == [1199.0, 1.0]


def test_a_damaged_file_is_a_miss_never_an_error(tmp_path, caplog):
    path = tmp_path / "c.sqlite3"
    path.write_bytes(b"this is not a database, it was cut short" * 100)
    cache = VectorCache(path, "m", 2)
    assert cache.get(["a"]) == {}
    cache.put({"a": np.array([1.0, 0.0])})  # nothing raised: the vector is computed again next time
    assert cache.get(["a"]) == {} and cache.count() == 0
    assert "computing instead" in caplog.text


def test_a_row_of_another_width_is_ignored(tmp_path):
    path = tmp_path / "c.sqlite3"
    VectorCache(path, "m", 2).put({"a": np.array([1.0, 0.0])})
    assert VectorCache(path, "m", 3).get(["a"]) == {}


def test_the_judges_int8_and_fp32_vectors_are_kept_apart_and_the_precision_is_checked(tmp_path, monkeypatch):
    from tutor.errors import TutorError
    from tutor.retrieval.embedding import judge_precision
    from tutor.retrieval.vector_cache import e5_passage_cache

    monkeypatch.delenv("TUTOR_JUDGE_PRECISION", raising=False)
    assert judge_precision() == "int8" and judge_precision("FP32") == "fp32"
    int8, fp32 = e5_passage_cache(tmp_path / "v.sqlite3"), e5_passage_cache(tmp_path / "v.sqlite3", "fp32")
    int8.put({"a passage": np.ones(384, np.float32)})
    assert int8.get(["a passage"]) and fp32.get(["a passage"]) == {}  # an fp32 judge never reads int8 vectors
    monkeypatch.setenv("TUTOR_JUDGE_PRECISION", "int4")
    with pytest.raises(TutorError, match="'int4' is not one of int8, fp32 .TUTOR_JUDGE_PRECISION."):
        judge_precision()
