"""The reader's support head against a person's verdicts on the 30 hand-checked LLM drafts (docs/llm-hand-check.jsonl).

The file holds each draft sentence with its citations, the word checks' verdict and the person's; the book text is
not committed, so the sources are made again by asking the same question of the same evidence shelves (the gate is
independent of the answerer, so [n] names the same passage). Each sentence is read against the passage of its cited
text that supports it best, as the pipeline does.

    python scripts/reader_support_check.py --libraries ../shared/data/libraries [--threshold 0.5] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    from tutor.build import build_tutor
    from tutor.evaluation.libraries import eval_libraries
    from tutor.evaluation.questions import load_questions
    from tutor.policy import load_policy
    from tutor.reader.model import shared_reader
    from tutor.safety.checks import quoted, supporting_passage

    ap = argparse.ArgumentParser()
    ap.add_argument("--libraries", type=Path, required=True)
    ap.add_argument("--hand", type=Path, default=ROOT / "docs" / "llm-hand-check.jsonl")
    ap.add_argument("--threshold", type=float, default=None, help="default: the policy's min_support_probability")
    ap.add_argument("--eval-index", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    policy = load_policy().with_values(reader=False)
    threshold = policy.min_support_probability if args.threshold is None else args.threshold
    files = {"ncert": "ncert-class10.jsonl", "squad": "squad2-in-library.jsonl"}
    questions = {}
    for f in files.values():
        questions.update({q.id: q for q in load_questions(args.libraries.parent / "questions" / f)})
    records = [json.loads(line) for line in args.hand.read_text(encoding="utf-8").splitlines() if line.strip()]
    libs = eval_libraries(args.libraries, {questions[r["id"]].library for r in records}, args.eval_index,
                          log=lambda msg: print(msg, file=sys.stderr))
    tutors = {name: build_tutor(lib, policy=policy, models=False) for name, lib in libs.items()}
    reader = shared_reader()
    rows = []
    for r in records:
        q = questions[r["id"]]
        ans = tutors[q.library].ask(q.question, q.klass, q.subject)
        by_n = {s.n: s.text for s in ans.sources}
        for s in r["sentences"]:
            cited = " ".join(by_n[n] for n in s["citations"] if n in by_n)
            if not cited:
                rows.append({**s, "id": r["id"], "support_p": None, "note": "cited source not found"})
                continue
            if quoted(s["text"], cited):
                p = 1.0
            else:
                p = reader.supports([s["text"]], [supporting_passage(s["text"], cited)])[0]
            rows.append({**s, "id": r["id"], "support_p": round(p, 4)})
    judged = [x for x in rows if x["support_p"] is not None and x["hand_supported"] is not None]
    agree = sum((x["support_p"] >= threshold) == bool(x["hand_supported"]) for x in judged)
    missed = [x for x in judged if x["support_p"] >= threshold and not x["hand_supported"]]
    caught = [x for x in judged if x["support_p"] < threshold and not x["hand_supported"]]
    lost = [x for x in judged if x["support_p"] < threshold and x["hand_supported"]]
    both = [x for x in judged if x["supported_by_check"] and x["support_p"] >= threshold and not x["hand_supported"]]
    out = {"sentences": len(rows), "judged": len(judged), "threshold": threshold,
           "agreement_with_person": round(agree / len(judged), 4) if judged else None,
           "unsupported_by_hand": sum(not x["hand_supported"] for x in judged),
           "unsupported_caught": len(caught), "unsupported_passed": len(missed),
           "supported_refused": len(lost),
           "unsupported_passed_by_word_checks_and_reader": len(both),
           "passed_unsupported": [{"text": x["text"], "p": x["support_p"]} for x in missed],
           "word_checks_missed_reader_caught": [{"text": x["text"], "p": x["support_p"]} for x in judged
                                                if x["supported_by_check"] and not x["hand_supported"]
                                                and x["support_p"] < threshold]}
    print(json.dumps(out, indent=2, ensure_ascii=False))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({**out, "rows": rows}, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
