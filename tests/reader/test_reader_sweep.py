"""scripts/reader_sweep.py, the pieces that run here: packing the examples and the base model small enough to travel to
a lent GPU, rebuilding the base there, and the fixed choice of validation groups."""
from __future__ import annotations

import hashlib

import pytest

from scripts.reader_sweep import load, pack, rebuild_base, validation_groups
from tutor.reader.examples import Example, save_examples


def _ex(group: str, source: str = "squad", first: str = "Who built the fort?", label: int = 1) -> Example:
    return Example("qa", first, "The fort was built by Raja Todar Mal in 1570.", label,
                   (22, 36) if label else None, source, group)


def test_pack_and_rebuild_keep_the_rows_the_examples_use_and_the_examples_themselves(tmp_path):
    from safetensors.torch import load_file

    from tutor.reader.model import base_model_path, make_tokenizer

    work = tmp_path / "d0"
    work.mkdir()
    train = [_ex("Fort"), _ex("Fort", first="Who destroyed the fort?", label=0)]
    save_examples(work / "train.jsonl", train)
    save_examples(work / "heldout.jsonl", [_ex("Other", first="When was the fort built?")])
    packed = tmp_path / "packed"
    pack(packed, {"d0": work})
    assert load(packed, "d0", "train") == train  # the examples travel unchanged, spans as tuples

    rebuild_base(packed, tmp_path / "base")
    base = load_file(str(base_model_path() / "model.safetensors"))
    rebuilt = load_file(str(tmp_path / "base" / "model.safetensors"))
    assert rebuilt.keys() == base.keys()
    key = next(k for k in base if k.endswith("word_embeddings.weight"))
    ids = make_tokenizer(64).encode("Who destroyed the fort?", "Raja Todar Mal in 1570.").ids
    for i in ids:  # every word piece an example uses is there, to fp16 precision
        assert (rebuilt[key][i] - base[key][i]).abs().max() < 1e-3
    unused = base[key].shape[0] - 1  # the last word piece of the vocabulary appears in no example
    assert unused not in ids and not rebuilt[key][unused].any()
    layer = next(k for k in base if "attention" in k and k.endswith("weight"))
    assert (rebuilt[layer] - base[layer]).abs().max() < 1e-2 and rebuilt[layer].shape == base[layer].shape


def test_validation_groups_are_fixed_by_sha1_not_chosen():
    titles = ["Alpha", "Beta", "Gamma", "Delta"]
    codes = [f"jesc1{n:02d}" for n in range(1, 13)]
    train = [_ex(t) for t in titles] + [_ex(c, source="ncert") for c in codes]
    val = validation_groups(train)
    smallest = min(titles, key=lambda t: hashlib.sha1(t.encode()).hexdigest())
    assert smallest in val and not (set(titles) - {smallest}) & val
    expected = {c for c in codes if int(hashlib.sha1(c.encode()).hexdigest(), 16) % 4 == 1}
    assert expected and expected == val - {smallest}


def test_examples_without_a_squad_article_are_refused_by_name():
    with pytest.raises(ValueError, match="SQuAD"):
        validation_groups([_ex("jesc101", source="ncert")])


def test_a_base_packed_alone_from_compressed_examples_stands_in_for_the_package(tmp_path, monkeypatch):
    """What a lent GPU machine trains on: the examples stay .jsonl.xz (train-reader --from-examples reads them), the
    base travels packed, and $TUTOR_READER_BASE_DIR points the reader at the rebuilt base with its word embeddings."""
    from safetensors.torch import load_file

    from tutor.reader.model import base_model_path, make_tokenizer

    work = tmp_path / "ex"
    work.mkdir()
    save_examples(work / "train.jsonl.xz", [_ex("Fort")])
    save_examples(work / "heldout.jsonl.xz", [_ex("Other", first="When was the fort built?")])
    packed = tmp_path / "packed"
    pack(packed, {"ex": work}, base_only=True)
    assert not list(packed.glob("*.jsonl*"))  # the examples were not copied
    rebuild_base(packed, tmp_path / "base")
    shipped = load_file(str(base_model_path() / "model.safetensors"))
    word = next(k for k in shipped if k.endswith("word_embeddings.weight"))
    monkeypatch.setenv("TUTOR_READER_BASE_DIR", str(tmp_path / "base"))
    assert base_model_path() == tmp_path / "base"
    ids = make_tokenizer(64).encode("When was the fort built?").ids  # the tokenizer comes from the stand-in too
    emb = load_file(str(base_model_path() / "model.safetensors"))[word]
    assert all(emb[i].any() for i in ids)
