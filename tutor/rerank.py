"""The reranked tier of the gate: the language model scores each candidate chunk 0-3 for how well it answers.

One batched call for all candidates; the reply is parsed leniently (`2: 3`, `[2] 3`, `Passage 2 - score 3`). A
failure or timeout returns None with the reason, and the gate falls back to retrieval scores (noted in diagnostics).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from tutor.llm import LLM, LLMError
from tutor.policy import Policy
from tutor.prompts import rerank_messages
from tutor.shelf import Hit

FALLBACK_NOTE = "reranker failed/timed out: fell back to retrieval scores"
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def parse_scores(text: str, n: int) -> dict[int, float]:
    """Scores by passage number (1..n) found in the reply; numbers out of range and repeats after the first are
    ignored, scores are clipped to [0, 3]."""
    out: dict[int, float] = {}
    for line in text.splitlines():
        nums = _NUMBER.findall(line)  # "2: 3", "[2] 3", "Passage 2 - score 3": the first names it, the last scores it
        if len(nums) < 2 or "." in nums[0]:
            continue
        i, score = int(nums[0]), float(nums[-1])
        if 1 <= i <= n and i not in out and 0 <= score <= 3:
            out[i] = score
    return out


@dataclass
class LLMReranker:
    """Callable as the pipeline's reranker: (question, evidence hits) -> {chunk_id: score 0-3}.

    Raises LLMError (with the fallback's reason) when the model fails, times out or scores fewer than half of the
    passages; the pipeline then keeps the retrieval scores and records FALLBACK_NOTE."""

    llm: LLM
    policy: Policy

    def __call__(self, question: str, hits: list[Hit]) -> dict[str, float]:
        hits = hits[: self.policy.rerank_candidates]
        if not hits:
            return {}
        messages = rerank_messages(question, [h.chunk.text for h in hits])
        text = self.llm.chat(messages, 8 * len(hits) + 16, self.policy.rerank_timeout_s)
        scores = parse_scores(text, len(hits))
        if len(scores) * 2 < len(hits):
            raise LLMError(f"the reranker scored {len(scores)} of {len(hits)} passages: {text[:80]!r}")
        # a passage the model skipped is scored 0: it is not evidence unless the model said so
        return {h.chunk.chunk_id: scores.get(i + 1, 0.0) for i, h in enumerate(hits)}
