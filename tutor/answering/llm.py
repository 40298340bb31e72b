"""Language-model clients behind one small protocol: a local GGUF through llama-cpp-python, or any
OpenAI-compatible server over HTTP. Both stream tokens, both keep a hard deadline, neither touches a model hub.

A call that passes its deadline raises `LLMTimeout` at the deadline: generation runs in a worker thread that the
caller stops waiting for (the worker stops at its next token or prompt batch and frees the model).
"""
from __future__ import annotations

import json
import math
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from tutor.errors import TutorError

Message = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": ...}
OnToken = Callable[[str], None]


class LLMError(TutorError):
    """The model could not answer: server down, bad reply, prompt too long. `kind` says which, for the failsafe."""

    def __init__(self, message: str, kind: str = "tool_failure"):
        self.kind = kind
        super().__init__(message)


class LLMTimeout(LLMError):
    """The model did not finish within its time limit; `partial` is what it had written by then."""

    def __init__(self, seconds: float, partial: str = ""):
        self.seconds, self.partial = seconds, partial
        super().__init__(f"the language model did not finish within {seconds:g} s", "timeout")


class LLM(Protocol):
    """A chat model. `chat` returns the whole reply (and streams it to `on_token`); `yes_probability` returns
    P(first token is yes) / (P(yes) + P(no)) in [0, 1] for a yes/no question."""

    name: str

    def chat(self, messages: list[Message], max_tokens: int, timeout_s: float,
             on_token: OnToken | None = None) -> str: ...

    def yes_probability(self, messages: list[Message], timeout_s: float) -> float: ...


def chatml(messages: list[Message]) -> str:
    """Messages in Qwen's ChatML, ending with the opened assistant turn."""
    body = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
    return body + "<|im_start|>assistant\n"


_STOPS = ("<|im_end|>", "<|im_start|>", "<|endoftext|>")


def _run_with_deadline(produce: Callable[[Callable[[str], None], threading.Event], None], timeout_s: float,
                       on_token: OnToken | None) -> str:
    """Run `produce(emit, cancelled)` in a worker thread; collect what it emits until it ends or the deadline.

    The caller returns at the deadline whatever the worker is doing; `cancelled` tells the worker to stop."""
    q: queue.Queue = queue.Queue()
    cancelled = threading.Event()
    _END = object()

    def worker() -> None:
        try:
            produce(lambda piece: q.put(piece), cancelled)
            q.put(_END)
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            q.put(e)

    threading.Thread(target=worker, daemon=True, name="llm-call").start()
    deadline = time.monotonic() + timeout_s
    parts: list[str] = []
    while True:
        left = deadline - time.monotonic()
        try:
            item = q.get(timeout=max(0.0, left)) if left > 0 else q.get_nowait()
        except queue.Empty:
            cancelled.set()
            raise LLMTimeout(timeout_s, "".join(parts)) from None
        if item is _END:
            return "".join(parts)
        if isinstance(item, BaseException):
            raise item
        parts.append(item)
        if on_token is not None:
            on_token(item)


def _yes_no(pairs: dict[str, float]) -> float | None:
    """P(yes)/(P(yes)+P(no)) from first-token probabilities keyed by token text; None when neither appears."""
    yes = sum(p for t, p in pairs.items() if t.strip().lower() == "yes")
    no = sum(p for t, p in pairs.items() if t.strip().lower() == "no")
    return yes / (yes + no) if yes + no > 0 else None


# ---------------------------------------------------------------------------------------------- local model
class LocalLLM:
    """A GGUF model through llama-cpp-python, prompted in ChatML; loaded once, one call at a time (a lock)."""

    def __init__(self, model_path: str | Path, *, n_ctx: int = 4096, n_threads: int | None = None, n_batch: int = 64,
                 name: str | None = None):
        try:
            from llama_cpp import Llama
        except ImportError as e:
            raise LLMError("llama-cpp-python is not installed: run `make llm` or `pip install .[llm]`",
                           "technical_limitation") from e
        t0 = time.perf_counter()
        self._llm = Llama(model_path=str(model_path), n_ctx=n_ctx, n_threads=n_threads or os.cpu_count() or 1,
                          n_batch=n_batch, verbose=False)
        self.load_s = time.perf_counter() - t0
        self.name = name or f"local:{Path(model_path).name}"
        self.n_ctx, self.n_batch = n_ctx, n_batch
        self._lock = threading.Lock()

    def _tokens(self, messages: list[Message], reserve: int) -> list[int]:
        prompt = chatml(messages)
        tokens = self._llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
        if len(tokens) + reserve > self.n_ctx:
            raise LLMError(f"the prompt ({len(tokens)} tokens) and the answer ({reserve}) do not fit the model's "
                           f"context of {self.n_ctx} tokens", "technical_limitation")
        return tokens

    def _prefill(self, tokens: list[int], cancelled: threading.Event) -> None:
        """Evaluate the prompt batch by batch so that a cancelled call stops between batches; the KV cache keeps
        the common prefix of the last prompt (the system message), so only the new part is evaluated."""
        llm = self._llm
        keep = 0
        for a, b in zip(llm.input_ids[: llm.n_tokens], tokens[:-1]):
            if a != b:
                break
            keep += 1
        llm.n_tokens = keep
        body = tokens[keep:-1]
        for i in range(0, len(body), self.n_batch):
            if cancelled.is_set():
                raise LLMTimeout(0)
            llm.eval(body[i : i + self.n_batch])

    def _acquire(self, deadline: float) -> None:
        if not self._lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise LLMTimeout(0)

    def chat(self, messages: list[Message], max_tokens: int, timeout_s: float, on_token: OnToken | None = None) -> str:
        tokens = self._tokens(messages, max_tokens)
        deadline = time.monotonic() + timeout_s

        def produce(emit, cancelled: threading.Event) -> None:
            self._acquire(deadline)
            try:
                self._prefill(tokens, cancelled)
                stream = self._llm.create_completion(tokens, max_tokens=max_tokens, temperature=0.0, top_k=1,
                                                     repeat_penalty=1.0, stop=list(_STOPS), stream=True)
                for part in stream:
                    if cancelled.is_set():
                        stream.close()
                        return
                    text = part["choices"][0].get("text") or ""
                    if text:
                        emit(text)
            finally:
                self._lock.release()

        return _run_with_deadline(produce, timeout_s, on_token)

    def yes_probability(self, messages: list[Message], timeout_s: float) -> float:
        import numpy as np

        tokens = self._tokens(messages, 1)
        deadline = time.monotonic() + timeout_s
        out: list[float] = []

        def produce(emit, cancelled: threading.Event) -> None:
            self._acquire(deadline)
            try:
                self._prefill(tokens, cancelled)
                self._llm.eval(tokens[-1:])
                logits = np.array(self._llm._ctx.get_logits_ith(-1)[: self._llm.n_vocab()], dtype=np.float64)
                probs = np.exp(logits - logits.max())
                probs /= probs.sum()
                pairs: dict[str, float] = {}
                for word in ("Yes", "yes", "YES", " Yes", " yes", "No", "no", "NO", " No", " no"):
                    ids = self._llm.tokenize(word.encode(), add_bos=False, special=False)
                    if len(ids) == 1:
                        pairs[word] = pairs.get(word, 0.0) + float(probs[ids[0]])
                p = _yes_no(pairs)
                out.append(0.5 if p is None else p)
            finally:
                self._lock.release()

        _run_with_deadline(produce, timeout_s, None)
        return out[0]


# ---------------------------------------------------------------------------------------------- HTTP server
@dataclass(frozen=True)
class OpenAISettings:
    """Where an OpenAI-compatible server is: base URL (ending in /v1), model name, API key (may be empty)."""

    base_url: str
    model: str
    api_key: str = ""

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> OpenAISettings:
        env = dict(os.environ if env is None else env)
        base = env.get("TUTOR_LLM_BASE_URL", "").strip()
        if not base:
            raise LLMError("the openai answerer needs TUTOR_LLM_BASE_URL (e.g. http://127.0.0.1:8000/v1), "
                           "TUTOR_LLM_MODEL and, for a hosted API, TUTOR_LLM_API_KEY", "technical_limitation")
        return cls(base.rstrip("/"), env.get("TUTOR_LLM_MODEL", "").strip() or "default",
                   env.get("TUTOR_LLM_API_KEY", "").strip())


class OpenAICompatLLM:
    """Any server speaking the OpenAI chat-completions API (llama.cpp's server, Ollama, vLLM, a hosted API)."""

    def __init__(self, settings: OpenAISettings, *, transport: Any = None):
        import httpx

        self.settings = settings
        self.name = f"openai:{settings.model}"
        headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
        self._client = httpx.Client(base_url=settings.base_url, headers=headers, transport=transport,
                                    timeout=httpx.Timeout(60.0, connect=5.0), trust_env=False)

    def _body(self, messages: list[Message], max_tokens: int, **extra: Any) -> dict[str, Any]:
        return {"model": self.settings.model, "messages": messages, "max_tokens": max_tokens, "temperature": 0.0,
                **extra}

    @contextmanager
    def _request(self, body: dict[str, Any], timeout_s: float) -> Iterator[Any]:
        """One POST to /chat/completions (read whole unless the body asks to stream); transport failures, timeouts and
        non-200 answers as LLM errors."""
        import httpx

        try:
            with self._client.stream("POST", "/chat/completions", json=body, timeout=timeout_s) as r:
                if r.status_code != 200 or not body.get("stream"):
                    r.read()
                if r.status_code != 200:
                    raise LLMError(f"the language-model server answered HTTP {r.status_code}: {r.text[:200]}")
                yield r
        except httpx.TimeoutException as e:
            raise LLMTimeout(timeout_s) from e
        except httpx.HTTPError as e:
            raise LLMError(f"the language-model server at {self.settings.base_url} did not answer: {e}") from e

    def _post(self, body: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        with self._request(body, timeout_s) as r:
            return r.json()

    def chat(self, messages: list[Message], max_tokens: int, timeout_s: float, on_token: OnToken | None = None) -> str:
        body = self._body(messages, max_tokens, stream=True)

        def produce(emit, cancelled: threading.Event) -> None:
            with self._request(body, timeout_s) as r:
                for piece in _sse_pieces(r.iter_lines()):
                    if cancelled.is_set():
                        return
                    emit(piece)

        return _run_with_deadline(produce, timeout_s, on_token)

    def yes_probability(self, messages: list[Message], timeout_s: float) -> float:
        got: list[dict[str, Any]] = []
        # in the worker too: httpx's timeout bounds each read, the deadline bounds the whole call
        _run_with_deadline(lambda emit, cancelled: got.append(
            self._post(self._body(messages, 1, logprobs=True, top_logprobs=20), timeout_s)), timeout_s, None)
        d = got[0]
        choice = (d.get("choices") or [{}])[0]
        content = ((choice.get("logprobs") or {}).get("content") or [])
        if content:
            first = content[0]
            pairs = {t["token"]: math.exp(t["logprob"]) for t in first.get("top_logprobs") or []}
            pairs.setdefault(first.get("token", ""), math.exp(first.get("logprob", -math.inf)))
            p = _yes_no(pairs)
            if p is not None:
                return p
        # a server without log-probabilities: the word it chose, as certainty
        word = ((choice.get("message") or {}).get("content") or "").strip().lower()
        if word.startswith("yes"):
            return 1.0
        if word.startswith("no"):
            return 0.0
        raise LLMError(f"the answerability judge answered neither yes nor no: {word[:40]!r}")


def _sse_pieces(lines: Iterator[str]) -> Iterator[str]:
    """Text pieces from an OpenAI streaming response (server-sent events, `data: {...}` lines, `[DONE]`)."""
    for line in lines:
        line = line.strip()
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            return
        try:
            d = json.loads(data)
        except json.JSONDecodeError as e:
            raise LLMError(f"the language-model server sent a malformed event: {data[:80]!r}") from e
        if "error" in d:
            raise LLMError(f"the language-model server reported an error: {str(d['error'])[:200]}")
        for ch in d.get("choices") or []:
            piece = (ch.get("delta") or {}).get("content") or ""
            if piece:
                yield piece
