"""scripts/sample_examples.py: the seeded sample of training examples a reader is trained on when the whole set does
not fit a session on these cores."""
from __future__ import annotations

import json

from scripts.sample_examples import rule_of, sample
from tutor.reader.examples import Example, load_examples, save_examples


def _ex(source: str, n: int) -> Example:
    return Example("qa", f"question {n}", "A passage.", 1, None, source, "g")


def test_each_source_falls_under_its_own_rule_then_reading_copies_then_the_rest():
    shares = {"ncert": 1.0, "claim-ncert": 1.0, "tele": 0.5, "other": 0.1}
    assert rule_of("ncert", shares) == "ncert"
    assert rule_of("ncert-tele", shares) == "ncert"  # an NCERT pair's reading copy is an NCERT pair
    assert rule_of("claim-ncert", shares) == "claim-ncert"
    assert rule_of("squad11-tele", shares) == "tele"
    assert rule_of("squad11-swap", shares) == "other"
    assert rule_of("ncertx", shares) == "other"  # a prefix of a longer name is not the rule's source


def test_the_sample_keeps_its_shares_is_seeded_and_leaves_the_held_out_examples_whole(tmp_path):
    src = tmp_path / "ex"
    src.mkdir()
    train = [_ex("ncert", i) for i in range(50)] + [_ex("squad11-tele", i) for i in range(400)] + [
        _ex("squad11", i) for i in range(400)]
    save_examples(src / "train.jsonl.xz", train)
    save_examples(src / "heldout.jsonl.xz", [_ex("squad11", 0)])
    (src / "examples.json").write_text(json.dumps({"notes": "kept"}))
    shares = {"ncert": 1.0, "tele": 0.5, "other": 0.0}
    counts = sample(src, tmp_path / "a", shares, seed=3)
    assert counts["ncert"] == 50 and counts["squad11"] == 0
    assert 150 < counts["squad11-tele"] < 250
    kept = load_examples(tmp_path / "a" / "train.jsonl")
    assert len(kept) == sum(counts.values()) and kept != sorted(kept, key=lambda e: e.source)  # shuffled
    assert load_examples(tmp_path / "a" / "heldout.jsonl") == [_ex("squad11", 0)]
    assert json.loads((tmp_path / "a" / "examples.json").read_text()) == {"notes": "kept"}
    sample(src, tmp_path / "b", shares, seed=3)
    assert (tmp_path / "a" / "train.jsonl").read_bytes() == (tmp_path / "b" / "train.jsonl").read_bytes()
