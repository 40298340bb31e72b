"""Re-apply the answer checks' one-place word test (policy min_window_overlap) to LLM drafts already written by
`python -m tutor eval --answerer local --answers A.jsonl --json E.json`, without calling the model again.

The test only adds a condition to a sentence's support, so a draft that failed the checks still fails; a draft that
passed keeps passing only if every sentence is still supported by `tutor.safety.checks.sentence_support` under the
current policy (which now asks for every content word in one place of the text it cites). Prints the
eval's figures as they would be under the current policy, and the hand-checked figures when the JSONL carries
`hand_supported` verdicts.

Usage: .venv/bin/python scripts/recheck_llm_answers.py E.json A.jsonl [HAND.jsonl]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tutor.evaluation.metrics import rate  # noqa: E402
from tutor.policy import load_policy  # noqa: E402
from tutor.safety.checks import sentence_support  # noqa: E402
from tutor.types import AnswerSentence, Source  # noqa: E402


def still_passes(record: dict, policy) -> bool:
    """Whether an answered draft still passes: every sentence supported by the answer checks' own test, run on the
    text it cites (embedding similarity left out: the draft passed it when it was evaluated)."""
    if not record["answered"]:
        return False
    sentences, sources = [], {}
    for s in record["sentences"]:
        sentences.append(AnswerSentence(s["text"], tuple(s["citations"])))
        for n, text in zip(s["citations"], s["cited_text"]):
            sources[n] = Source(n=n, chunk_id=str(n), score=0.0, chapter="", chapter_code="", file="", page=0,
                                page_end=0, section="", text=text)
    return all(ok for ok, _, _ in sentence_support(tuple(sentences), list(sources.values()), policy, None))


def main(argv: list[str]) -> int:
    eval_json, answers = Path(argv[0]), Path(argv[1])
    policy = load_policy()
    report = json.loads(eval_json.read_text())
    records = {r["id"]: r for r in map(json.loads, answers.read_text().splitlines())}
    items = report["items"]
    answered = {i["id"]: i["answered"] and (i["id"] not in records or still_passes(records[i["id"]], policy))
                for i in items}
    pos = [i for i in items if i["expect"] == "answer"]
    neg = [i for i in items if i["expect"] == "refuse"]
    drafts = [r for r in records.values() if r["sentences"] and r["decided_by"] != "answerer"]
    newly_refused = [r["id"] for r in drafts if r["answered"] and not answered[r["id"]]]
    out = {
        "min_window_overlap": policy.min_window_overlap,
        "false_acceptance_rate": rate(sum(answered[i["id"]] for i in neg), len(neg)),
        "coverage": rate(sum(i["covered"] and answered[i["id"]] for i in pos), len(pos)),
        "answered": sum(answered.values()),
        "drafts": len(drafts),
        "drafts_refused_by_the_one_place_test": newly_refused,
        "hallucination_rate_checked": rate(
            sum(answered[r["id"]] and any(s["supported"] is False for s in r["sentences"]) for r in drafts),
            len(drafts)),
    }
    if len(argv) > 2:  # hand verdicts: drafts shown to the student that hold a sentence a person found unsupported
        hand = [json.loads(line) for line in Path(argv[2]).read_text().splitlines()]
        bad = [r for r in hand if any(not s["hand_supported"] for s in r["sentences"])]
        out["hand_checked"] = len(hand)
        out["hallucination_rate_checked_by_hand"] = rate(sum(still_passes(r, policy) for r in bad), len(hand))
        out["hand_bad_still_shown"] = [r["id"] for r in bad if still_passes(r, policy)]
        out["hand_good_now_refused"] = [r["id"] for r in hand if r["answered"] and r not in bad
                                        and not still_passes(r, policy)]
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
