"""Reading what a fake language model (tutor.testing.FakeLLM) was asked."""
from __future__ import annotations

from typing import Any


def prompt_text(call: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in call["messages"])
