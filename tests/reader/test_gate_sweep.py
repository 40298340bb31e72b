"""scripts/gate_sweep.py on a CPU with tiny data: packing what travels, the base rebuilt from a reader and the
packed rows, and a one-configuration sweep whose reader comes back in parts that load and were replayed."""
from __future__ import annotations

import json
from pathlib import Path

from scripts.gate_sweep import pack, rebuild_base, sweep
from tutor.policy import load_policy
from tutor.reader.examples import Example, save_examples

READER = Path("data/models/reader")  # the shipped gate reader: every configuration starts from an exported reader
WINDOW = "The fort was built by Raja Todar Mal in 1570. It stands on a hill above the river."


def _ex(first: str, label: int) -> Example:
    return Example("qa", first, WINDOW, label, (22, 36) if label else None, "ncert", "jesc101")


def _record(id_: str, expect: str, question: str, half: str = "tuning") -> dict:
    return {"set": "ncert-class10", "id": id_, "half": half, "expect": expect, "answered": True,
            "covered": expect == "answer", "first_ok": False, "path": "gate", "question": question,
            "window": WINDOW, "p": 0.5}


def test_pack_then_sweep_brings_back_a_replayed_reader(tmp_path, monkeypatch):
    from safetensors.torch import load_file

    from tutor.reader.model import Reader, base_model_path, make_tokenizer

    monkeypatch.setenv("TUTOR_READER_BASE_DIR", str(base_model_path()))  # restored after the sweep sets its own
    train = [_ex("Who built the fort?", 1), _ex("Who destroyed the fort?", 0)] * 4
    save_examples(tmp_path / "d0.jsonl", train)
    records = tmp_path / "records.jsonl"
    rows = [_record("a", "answer", "When was the fort built?"), _record("n", "refuse", "Who painted the fort?"),
            _record("h", "answer", "Where does the fort stand?", half="heldout")]
    rows[0]["windows"] = [WINDOW, "The river floods in July."]  # a record of a gate that read two windows
    records.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    packed = tmp_path / "packed"
    pack(packed, records, {"d0": (tmp_path / "d0.jsonl", 0)})
    assert (packed / "d0.jsonl.xz").exists() and (packed / "records.jsonl").read_text() == records.read_text()

    rebuild_base(packed, READER, tmp_path / "base")
    rebuilt = load_file(str(tmp_path / "base" / "model.safetensors"))
    base = load_file(str(base_model_path() / "model.safetensors"))
    key = next(k for k in base if k.endswith("word_embeddings.weight"))
    for i in make_tokenizer(64).encode("Where does the fort stand?", WINDOW).ids:  # the records' words too
        assert (rebuilt[key][i] - base[key][i]).abs().max() < 1e-3

    grid = [{"id": "c1", "init": str(READER), "parts": [["d0", 1, 0]], "epochs": 1, "lr": 1e-5, "batch": 4,
             "seed": 0}]
    out = tmp_path / "out"
    done = sweep(packed, out, grid, budget_s=10**6, device="cpu", work=tmp_path / "work", windows=3)
    assert [d["id"] for d in done] == ["c1"] and done[0]["n"] == len(train) and done[0]["bars"] is not None
    logged = json.loads((out / "sweep.jsonl").read_text().splitlines()[0])
    assert set(logged["p"]) == {"a", "n", "h"} and logged["figures"]["ncert-class10/heldout"]["questions"] == 1
    assert [len(logged["pw"][i]) for i in "anh"] == [2, 1, 1]  # every window recorded, up to 3
    k = load_policy().reader_windows
    assert {i: max(w[:k]) for i, w in logged["pw"].items()} == logged["p"]  # as the gate decides
    back = tmp_path / "back"
    back.mkdir()
    (back / "reader.json").write_text((out / "c1.json").read_text())
    (back / "reader.safetensors").write_bytes(b"".join((out / f"c1.part{i}").read_bytes()
                                                       for i in range(len(list(out.glob("c1.part*"))))))
    reading = Reader(back, engine="torch").read("When was the fort built?", [WINDOW])[0]
    assert abs(reading.probability - logged["p"]["a"]) < 1e-3  # what came back is what was replayed
