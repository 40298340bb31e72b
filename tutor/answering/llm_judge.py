"""The answerability judge: does this evidence actually state the answer to this question? Yes or no, with the
model's probability of yes (from the first token's log-probabilities), to catch on-topic questions whose answer
is not in the book. Runs after the gate passed and before any answer is written.
"""
from __future__ import annotations

from dataclasses import dataclass

from tutor.answering.llm import LLM
from tutor.answering.prompts import judge_messages
from tutor.policy import Policy
from tutor.reasons import Reason
from tutor.types import Check, Hit

FALLBACK_NOTE = "answerability judge failed/timed out: the gate's decision stands"


@dataclass(frozen=True)
class JudgeVerdict:
    """The judge's probability of yes for each chunk read (best first), the best of them and the check it makes."""

    probabilities: tuple[tuple[str, float], ...]
    best: float
    check: Check

    @property
    def answerable(self) -> bool:
        return self.check.passed


@dataclass
class AnswerabilityJudge:
    """Asks the model, chunk by chunk (best evidence first, at most `judge_chunks`), whether it states the answer;
    stops at the first chunk whose probability reaches the policy's threshold."""

    llm: LLM
    policy: Policy

    def __call__(self, question: str, evidence: list[Hit]) -> JudgeVerdict:
        p = self.policy
        probs: list[tuple[str, float]] = []
        for h in evidence[: p.judge_chunks]:
            prob = self.llm.yes_probability(judge_messages(question, h.chunk.text, max_chars=p.llm_source_chars),
                                            p.judge_timeout_s)
            probs.append((h.chunk.chunk_id, round(float(prob), 4)))
            if prob >= p.min_answerable_probability:
                break
        best = max((v for _, v in probs), default=0.0)
        check = Check("answerability_judge", "gate", best >= p.min_answerable_probability, best,
                      p.min_answerable_probability,
                      "the language model's probability that the evidence states the answer: "
                      + ", ".join(f"{cid} {v:.2f}" for cid, v in probs), Reason.JUDGE_NOT_ANSWERABLE)
        return JudgeVerdict(tuple(probs), best, check)
