"""The English twins of Hindi and Hinglish question files: each row asked as its `english` field, once per distinct
English question, split into halves by the SHA-1 of its id (even: tuning). A set of questions written blind, checked
on the shelves, to measure the English path's false acceptance on questions nobody tuned on.

    python scripts/english_twins.py tests/data/xling-fresh{3,4,5,7,8,10,11,12,13,14}-{devanagari,hinglish}.jsonl \
        --out out/test-twins.jsonl
    python -m tutor eval out/test-twins.jsonl --libraries ../shared/data/libraries
"""
from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path


def twins(files: list[Path]) -> list[dict]:
    seen: set[str] = set()
    out = []
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            english = row["english"].strip()
            if english.lower() in seen:
                continue
            seen.add(english.lower())
            twin = {**row, "question": english, "script": "english", "id": row["id"] + "-en"}
            even = int(hashlib.sha1(twin["id"].encode("utf-8")).hexdigest(), 16) % 2 == 0
            twin["half"] = twin["split"] = "tuning" if even else "heldout"
            out.append(twin)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    rows = twins(a.files)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"{len(rows)} English twins written to {a.out}")


if __name__ == "__main__":
    main()
