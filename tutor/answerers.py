"""Choosing the answerer the policy names: extractive now; the LLM answerers plug in here.

Kept apart from `answer.py` so that importing the default answerer never imports an LLM client.
"""
from __future__ import annotations

from tutor.answer import Answerer, ExtractiveAnswerer
from tutor.errors import TutorError
from tutor.policy import Policy


def make_answerer(policy: Policy) -> Answerer:
    if policy.answerer == "extractive":
        return ExtractiveAnswerer()
    raise TutorError(
        f"the {policy.answerer!r} answerer is not available yet: only 'extractive' is built (LLM answerers are planned)"
    )
