"""A deterministic fake language model for the unit tests: replies from a function of the prompt, streams the
reply word by word, records every call, and can fail, time out or hang on demand."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tutor.answering.llm import LLMError, _run_with_deadline


@dataclass
class FakeLLM:
    """`reply` is a string or a function of the messages; `yes` the judge's probability (or a function of the
    messages); `raises` an exception to raise; `hang` makes chat stream tokens forever (until cancelled)."""

    reply: str | Callable[[list[dict[str, str]]], str] = ""
    yes: float | Callable[[list[dict[str, str]]], float] = 1.0
    raises: BaseException | None = None
    hang: bool = False
    name: str = "fake"
    calls: list[dict[str, Any]] = field(default_factory=list)
    stopped: threading.Event = field(default_factory=threading.Event)

    def chat(self, messages, max_tokens, timeout_s, on_token=None) -> str:
        self.calls.append({"kind": "chat", "messages": messages, "max_tokens": max_tokens, "timeout_s": timeout_s})
        if self.raises is not None:
            raise self.raises
        text = self.reply(messages) if callable(self.reply) else self.reply

        def produce(emit, cancelled):
            if self.hang:
                give_up = time.monotonic() + 60  # a safety net for the test run, far beyond any deadline used
                while not cancelled.is_set() and time.monotonic() < give_up:
                    emit("and ")
                    time.sleep(0.01)
                self.stopped.set()
                return
            for i, word in enumerate(text.split(" ")):
                emit(word if i == 0 else " " + word)

        return _run_with_deadline(produce, timeout_s, on_token)

    def yes_probability(self, messages, timeout_s) -> float:
        self.calls.append({"kind": "judge", "messages": messages, "timeout_s": timeout_s})
        if self.raises is not None:
            raise self.raises
        return self.yes(messages) if callable(self.yes) else self.yes

    @property
    def chats(self) -> list[dict[str, Any]]:
        return [c for c in self.calls if c["kind"] == "chat"]


def prompt_text(call: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in call["messages"])


def failing(kind: str = "tool_failure") -> FakeLLM:
    return FakeLLM(raises=LLMError("server down", kind))
