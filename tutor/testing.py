"""The test fakes, in one place: the deterministic HashEmbedder (production code names it: a shelf built with it is
searched with it, and the app runs on it under `TUTOR_EMBEDDER=hash`), a fake language model that records every call
and can fail, time out or hang on demand (`FakeLLM`, `failing`), and an answerer that records what it was given
(`RecordingAnswerer`). Single-use doubles stay in the test that uses them.
"""
from __future__ import annotations

import hashlib
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tutor.answering.extractive import Draft, parse_sentences
from tutor.answering.llm import LLMError, _run_with_deadline
from tutor.text.normalize import normalize_for_embedding

HASH_EMBEDDER_NAME = "test/hash-embedder"


class HashEmbedder:
    """A deterministic fake for unit tests: hashed word and character-trigram counts, normalised.

    Texts that share words get high cosine similarity and unrelated texts near zero, so thresholds mean something.
    Vectors have length 1 (an all-zero row, from a text without words, stays zero), like every real embedder's.
    """

    name = HASH_EMBEDDER_NAME

    def __init__(self, dim: int = 256):
        self.dim = dim

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            words = re.findall(r"[a-z0-9\u0900-\u0963\u0966-\u097f]+", normalize_for_embedding(t).lower())
            feats = words + [w[j : j + 3] for w in words for j in range(max(1, len(w) - 2))]
            for f in feats:
                h = int.from_bytes(hashlib.blake2b(f.encode(), digest_size=4).digest(), "little")
                out[i, h % self.dim] += 1.0 if f in words else 0.3
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


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


def failing(kind: str = "tool_failure") -> FakeLLM:
    return FakeLLM(raises=LLMError("server down", kind))


@dataclass
class RecordingAnswerer:
    """A fake LLM answerer: returns `reply` (or raises `raises`) and records every call it gets."""

    reply: str = ""
    raises: BaseException | None = None
    name: str = "fake-llm"
    uses_llm: bool = True
    calls: list[dict[str, Any]] = field(default_factory=list)

    def answer(self, question, sources, candidates, policy, on_token=None) -> Draft:
        self.calls.append({"question": question.stated, "read": question, "sources": list(sources),
                           "candidates": list(candidates)})
        if self.raises is not None:
            raise self.raises
        return Draft(self.reply, parse_sentences(self.reply))
