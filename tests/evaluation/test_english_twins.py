"""scripts/english_twins.py: Hindi and Hinglish rows asked in English, each English question once, in halves by id."""
from __future__ import annotations

import json

from scripts.english_twins import twins


def _row(id_: str, question: str, english: str, expect: str = "answer") -> dict:
    return {"id": id_, "question": question, "english": english, "expect": expect, "script": "devanagari",
            "library": "ncert", "split": "tuning", "half": "tuning"}


def test_each_english_question_once_asked_in_english_with_halves_by_id(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    rows_a = [_row(f"d{i}", "प्रश्न", f"What is thing {i}?", "refuse" if i % 2 else "answer") for i in range(40)]
    rows_b = [_row("h0", "kya hai", " what is THING 0? "), _row("h1", "naya", "Why is the sky blue?")]
    a.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows_a), encoding="utf-8")
    b.write_text("".join(json.dumps(r) + "\n" for r in rows_b) + "\n", encoding="utf-8")
    out = twins([a, b])
    assert [r["question"] for r in out] == [f"What is thing {i}?" for i in range(40)] + ["Why is the sky blue?"]
    assert all(r["script"] == "english" and r["id"].endswith("-en") for r in out)
    assert [r["expect"] for r in out[:2]] == ["answer", "refuse"]  # the label travels with its question
    halves = {r["half"] for r in out}
    assert halves == {"tuning", "heldout"} and all(r["half"] == r["split"] for r in out)
    assert twins([a, b]) == out  # the halves are the ids', not a draw
