"""Measure what two 1 MB questions sent at once cost another student (issue 15, item 1).

Builds the bundled sample library with the real MiniLM embedder in a temporary folder, then, in one process as the
Streamlit server would (one thread per session), sends two 1 MB questions at once and meanwhile times another
student's ordinary questions (at least --rounds, and on until the long ones are done). Prints the other student's
latency alone and under the attack, and what the two long questions got. It measures the tutor's own work, as the
server's threads share it; Streamlit's drawing of a reply is not included. `--max-question-chars 100000000` lifts the
limit, to see the attack as it was.

    .venv/bin/python scripts/measure_long_questions.py [--max-question-chars N] [--rounds 5]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tutor.config import SAMPLE_LIBRARY, setup_offline  # noqa: E402

QUESTION = "What is autotrophic nutrition?"
LONG = "How do green plants make their own food from carbon dioxide and water? " * 14_500  # ~1 MB


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-question-chars", type=int, default=None, help="override the policy's limit")
    ap.add_argument("--rounds", type=int, default=5, help="the other student's questions timed in each phase")
    args = ap.parse_args()
    setup_offline()
    from tutor.ingest.builder import discover, ingest
    from tutor.pipeline import Tutor
    from tutor.policy import load_policy
    from tutor.retrieval.embedding import default_embedder
    from tutor.retrieval.search import Library
    from tutor.store.shelf import ShelfStore

    policy = load_policy()
    if args.max_question_chars:
        policy = policy.with_values(max_question_chars=args.max_question_chars)
    with tempfile.TemporaryDirectory(prefix="measure-long-") as tmp:
        emb = default_embedder()
        ingest(discover([SAMPLE_LIBRARY]), ShelfStore(tmp), emb, workers=1)
        tutor = Tutor(Library(tmp, embedder=emb), policy)
        tutor.ask(QUESTION, "10", "science")  # warm up

        def timed() -> tuple[float, str]:
            t = time.perf_counter()
            ans = tutor.ask(QUESTION, "10", "science")
            return time.perf_counter() - t, ans.reason

        alone = [timed() for _ in range(args.rounds)]
        attack: list[tuple[float, str]] = []

        def attacker() -> None:
            t = time.perf_counter()
            ans = tutor.ask(LONG, "10", "science")
            attack.append((time.perf_counter() - t, ans.reason))

        threads = [threading.Thread(target=attacker) for _ in range(2)]
        for th in threads:
            th.start()
        under = [timed() for _ in range(args.rounds)]
        while any(th.is_alive() for th in threads):  # and on, for as long as the long questions hold the server
            under.append(timed())
        for th in threads:
            th.join()

    def line(xs: list[tuple[float, str]]) -> str:
        secs = [s for s, _ in xs]
        return (f"median {statistics.median(secs) * 1000:.1f} ms, max {max(secs) * 1000:.1f} ms "
                f"({', '.join(sorted({r for _, r in xs}))})")

    print(f"max_question_chars {policy.max_question_chars:,}; long question {len(LONG):,} characters")
    print(f"another student's question alone:          {line(alone)}")
    print(f"the same while two long questions run:     {line(under)}; {len(under)} questions")
    print("the two long questions:                    " + "; ".join(f"{s:.3f} s ({r})" for s, r in attack))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
