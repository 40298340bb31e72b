"""The reader on ONNX Runtime (tutor/reader/runtime.py): the same readings as torch, exported once, and torch kept
where the runtime or the exporter cannot serve."""
from __future__ import annotations

import logging
import sys

import pytest

from tutor.reader.model import Reader, reader_available
from tutor.reader.runtime import onnx_file, onnx_net, reader_engine

PASSAGE = ("The Taj Mahal is a white marble mausoleum in Agra. It was commissioned in 1632 by the Mughal emperor "
           "Shah Jahan to house the tomb of his wife Mumtaz Mahal.")
OTHER = "Agra is a city on the banks of the river Yamuna in Uttar Pradesh."


def test_the_engine_comes_from_the_environment_and_an_unknown_one_is_refused_by_name(monkeypatch):
    from tutor.errors import TutorError

    monkeypatch.delenv("TUTOR_READER_ENGINE", raising=False)
    assert reader_engine() == "onnx" and reader_engine("torch") == "torch"
    monkeypatch.setenv("TUTOR_READER_ENGINE", "Torch ")
    assert reader_engine() == "torch"
    monkeypatch.setenv("TUTOR_READER_ENGINE", "tensorrt")
    with pytest.raises(TutorError, match="tensorrt.*TUTOR_READER_ENGINE"):
        reader_engine()


def test_without_onnxruntime_the_reader_keeps_torch(monkeypatch, tmp_path, caplog):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails as if it were not installed
    with caplog.at_level(logging.WARNING):
        assert onnx_net(object, (), "0" * 64, tmp_path) is None
    assert "not installed" in caplog.text and not list(tmp_path.iterdir())


def test_a_network_the_exporter_cannot_take_leaves_torch_and_no_file(tmp_path, caplog):
    pytest.importorskip("onnxruntime")
    with caplog.at_level(logging.WARNING):
        assert onnx_net(object, (), "1" * 64, tmp_path) is None  # no .bert: the export fails
    assert "runs on torch" in caplog.text
    assert not list(tmp_path.glob("*.onnx")) and not [p for p in tmp_path.iterdir() if p.is_dir()]


@pytest.mark.slow
@pytest.mark.skipif(not reader_available(), reason="the reader is not in data/models/reader")
def test_the_shipped_reader_reads_alike_on_onnx_runtime_and_torch():
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnxscript")
    onnx, torch_ = Reader(engine="onnx"), Reader(engine="torch")
    assert onnx.engine == "onnx" and torch_.engine == "torch"
    from tutor.reader.model import READER_DIR

    assert onnx_file(READER_DIR, onnx.config["sha256"]).exists()  # exported once, beside the weights
    for q in ("Who commissioned the Taj Mahal?", "When was the Taj Mahal built?", "What is the capital of France?"):
        a, b = onnx.read(q, [PASSAGE, OTHER]), torch_.read(q, [PASSAGE, OTHER])
        for x, y in zip(a, b):
            assert abs(x.probability - y.probability) < 1e-4 and x.span == y.span
    claims = ["Shah Jahan commissioned the Taj Mahal.", "Akbar commissioned the Taj Mahal."]
    for x, y in zip(onnx.supports(claims, [PASSAGE] * 2), torch_.supports(claims, [PASSAGE] * 2)):
        assert abs(x - y) < 1e-4
