"""Choosing the answerer the policy names (extractive, local, openai) and the LLM answerer behind the same interface.

Kept apart from `answer.py` so that importing the default answerer never imports an LLM client. The LLM answerer
writes from numbered sources (tutor.answering.prompts), and turns the model's own doubts, refusals and failures into a
declined draft with a reason (tutor.safety.failsafe); the pipeline's answer checks then judge whatever it did write.
"""
from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tutor.answering.extractive import Answerer, Draft, ExtractiveAnswerer, OnToken, parse_sentences
from tutor.answering.llm import LLM, LLMError, LLMTimeout, OpenAISettings
from tutor.answering.prompts import answer_messages
from tutor.errors import TutorError
from tutor.policy import Policy
from tutor.question import Question
from tutor.reasons import Reason
from tutor.safety.failsafe import classify, from_error
from tutor.safety.gate import Candidate
from tutor.types import Source


@dataclass
class LLMAnswerer:
    """Explains the evidence in plain words with a language model; every sentence must carry a citation [n]."""

    llm: LLM
    name: str = "llm"
    uses_llm: bool = True

    def answer(self, question: Question, sources: list[Source], candidates: list[Candidate], policy: Policy,
               on_token: OnToken | None = None) -> Draft:
        messages = answer_messages(question.stated, sources, max_sentences=policy.max_answer_sentences,
                                   max_source_chars=policy.llm_source_chars)
        try:
            text = self.llm.chat(messages, policy.llm_max_tokens, policy.llm_timeout_s, on_token)
        except LLMTimeout as e:
            return Draft(e.partial, (), declined=Reason.LLM_TIMEOUT, detail=str(e))
        except LLMError as e:
            f = from_error(e.kind, str(e))
            return Draft("", (), declined=f.reason, detail=f"{f.category}: {e}")
        text = cited_at_end(text.strip())
        found = classify(text, " ".join(s.text for s in sources))
        if found is not None:
            return Draft(text, parse_sentences(text), declined=found.reason,
                         detail=f"{found.category}: the model wrote {found.evidence!r}")
        return Draft(text, parse_sentences(text))


_LEADING = re.compile(r"^\s*(?:[-*•]\s*)?((?:\[\d+\]\s*,?\s*)+)(.*)$")
_SENT_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'“‘0-9])")


def cited_at_end(text: str) -> str:
    """The prompt asks for one sentence per line led by its source, `[2] Steam is a gas.` (a small model keeps to
    that better than to a citation after each sentence); rewrite such lines as `Steam is a gas. [2]`, giving the
    line's citation to every sentence on it. Lines in any other form are left as written, for the checks to judge."""
    out = []
    for line in text.splitlines():
        m = _LEADING.match(line)
        if not m or not m.group(2).strip():
            out.append(line)
            continue
        cites = "".join(re.findall(r"\[\d+\]", m.group(1)))
        out += [f"{sent} {cites}" for sent in _SENT_END.split(m.group(2).strip())]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------- choosing
_LOCAL: dict[tuple[str, int, int], Any] = {}
_LOCAL_LOCK = threading.Lock()


def local_llm(policy: Policy, model_path: str | os.PathLike | None = None):
    """The local model, loaded once per (file, context, threads) in this process and shared (it has its own lock)."""
    from tutor.answering.llm import LocalLLM
    from tutor.answering.model_files import local_model_path

    path = str(model_path or local_model_path())
    key = (path, policy.llm_context_tokens, policy.llm_threads)
    with _LOCAL_LOCK:
        if key not in _LOCAL:
            _LOCAL[key] = LocalLLM(path, n_ctx=policy.llm_context_tokens, n_threads=policy.llm_threads or None)
        return _LOCAL[key]


def openai_settings(secrets: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None) -> OpenAISettings:
    """Settings from `secrets` (the app passes st.secrets: base_url/model/api_key under [llm], or TUTOR_LLM_* keys),
    else the environment."""
    merged = dict(os.environ if env is None else env)
    if secrets:
        section = secrets.get("llm") or {}
        names = (("base_url", "TUTOR_LLM_BASE_URL"), ("model", "TUTOR_LLM_MODEL"), ("api_key", "TUTOR_LLM_API_KEY"))
        for key, name in names:
            value = section.get(key) if hasattr(section, "get") else None
            value = value or secrets.get(name)
            if value:
                merged[name] = str(value)
    return OpenAISettings.from_env(merged)


def make_llm(policy: Policy, *, secrets: Mapping[str, Any] | None = None, llm: LLM | None = None) -> LLM | None:
    """The language model the policy's answerer needs (None for extractive); `llm` is used as given (tests)."""
    if llm is not None:
        return llm
    if policy.answerer == "local":
        return local_llm(policy)
    if policy.answerer == "openai":
        from tutor.answering.llm import OpenAICompatLLM

        return OpenAICompatLLM(openai_settings(secrets))
    if policy.answerer == "extractive":
        return None
    raise TutorError(f"unknown answerer {policy.answerer!r}: use extractive, local or openai")


def make_answerer(policy: Policy, llm: LLM | None = None, *, secrets: Mapping[str, Any] | None = None) -> Answerer:
    """The answerer the policy names, with its language model (loaded once per process for `local`)."""
    if policy.answerer == "extractive":
        return ExtractiveAnswerer()
    model = make_llm(policy, secrets=secrets, llm=llm)
    return LLMAnswerer(model, name=f"{policy.answerer} ({model.name})")


def make_parts(policy: Policy, llm: LLM | None = None, *, secrets: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Everything a Tutor takes from the policy: the answerer, the answerability readers (tutor/reader/model.py) and,
    when switched on, the LLM reranker (the gate's reranked tier) and the answerability judge. They share one model;
    with the extractive answerer, the reranker and the judge use the local model. Pass the result as keyword
    arguments: `Tutor(library, policy, **parts)`."""
    parts: dict[str, Any] = {"answerer": make_answerer(policy, llm, secrets=secrets)}
    if policy.reader:
        from tutor.reader.model import (
            default_readings_reader_dir,
            default_span_reader_dir,
            reader_available,
            shared_reader,
        )

        parts["reader"] = shared_reader()
        if policy.span_reader and reader_available(default_span_reader_dir()):
            parts["span_reader"] = shared_reader(default_span_reader_dir())
        readings = default_readings_reader_dir()
        if policy.hindi_reader and reader_available(readings):
            parts["hindi_reader"] = shared_reader(readings)
    if policy.cross_lingual:
        parts["cross_judge"] = cross_lingual_judge(policy)
    if not (policy.rerank or policy.judge):
        return parts
    model = getattr(parts["answerer"], "llm", None) or llm or local_llm(policy)
    if policy.rerank:
        from tutor.answering.rerank import LLMReranker

        parts["reranker"] = LLMReranker(model, policy)
    if policy.judge:
        from tutor.answering.llm_judge import AnswerabilityJudge

        parts["judge"] = AnswerabilityJudge(model, policy)
    return parts


def cross_lingual_judge(policy: Policy):
    """What decides a Hindi question about an English chapter (tutor/safety/crosslingual.py): multilingual e5's
    similarity, or the cross-lingual reader where it ships (None without it: such questions are then read through the
    dictionary alone, as before)."""
    if policy.cross_lingual_judge == "e5":
        from tutor.safety.crosslingual import ingest_judge

        return ingest_judge(policy)  # on the store where ingest put the English shelves' chunks
    from tutor.reader.model import default_xreader_dir, reader_available, shared_reader

    return shared_reader(default_xreader_dir(), engine="torch") if reader_available(default_xreader_dir()) else None
