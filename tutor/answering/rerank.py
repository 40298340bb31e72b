"""The reranked tier of the gate: the language model scores each candidate chunk 0-3 for how well it answers.

`batched`: one call for all candidates, the reply parsed leniently (`2: 3`, `[2] 3`, `Passage 2 - score 3`).
`per_chunk` (the default): 3 x P(yes) of a yes/no question per candidate, because the shipped 1.5B model scored
every passage 3 in one batched call. A failure, a timeout or a reply that ranks nothing raises, and the pipeline
falls back to retrieval scores (noted in diagnostics).
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass

from tutor.answering.llm import LLM, LLMError, LLMTimeout
from tutor.answering.prompts import judge_messages, rerank_messages
from tutor.policy import Policy
from tutor.types import Hit

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
        if self.policy.rerank_mode == "per_chunk":
            return self._per_chunk(question, hits)
        messages = rerank_messages(question, [h.chunk.text for h in hits])
        text = self.llm.chat(messages, 8 * len(hits) + 16, self.policy.rerank_timeout_s)
        scores = parse_scores(text, len(hits))
        if len(scores) * 2 < len(hits):
            raise LLMError(f"the reranker scored {len(scores)} of {len(hits)} passages: {text[:80]!r}")
        if len(hits) >= 3 and len(set(scores.values())) == 1 and len(scores) == len(hits):
            # one score for every passage ranks nothing: the retrieval scores know more
            raise LLMError(f"the reranker gave all {len(hits)} passages the same score: {text[:60]!r}")
        # a passage the model skipped is scored 0: it is not evidence unless the model said so
        return {h.chunk.chunk_id: scores.get(i + 1, 0.0) for i, h in enumerate(hits)}

    def _per_chunk(self, question: str, hits: list[Hit]) -> dict[str, float]:
        """Relevance 3 x P(yes) of "does this passage state the answer?", one call per passage, all within the
        reranker's one time budget."""
        deadline = time.monotonic() + self.policy.rerank_timeout_s
        out = {}
        for h in hits:
            left = deadline - time.monotonic()
            if left <= 0:
                raise LLMTimeout(self.policy.rerank_timeout_s)
            msgs = judge_messages(question, h.chunk.text, max_chars=self.policy.llm_source_chars)
            out[h.chunk.chunk_id] = round(3.0 * float(self.llm.yes_probability(msgs, left)), 4)
        return out
