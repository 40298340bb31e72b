"""Answer checks, run after any answerer: citations, grounding in the cited text, forbidden phrasing.

Pure functions over the draft, the numbered sources and the policy (plus one batch of sentence embeddings).
Any failed check turns the answer into a refusal; the caller never shows a partial answer.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from tutor.policy import Policy
from tutor.reasons import Reason
from tutor.safety.vocabulary import FORBIDDEN_PHRASES, UNTRUSTWORTHY_PHRASES, is_instruction_like
from tutor.text.normalize import normalize_for_matching
from tutor.text.sentences import sentence_spans
from tutor.text.terms import content_terms, term_set
from tutor.types import AnswerSentence, Check, Source

ANSWER = "answer"

_FORBIDDEN = re.compile(r"\b(?:" + "|".join(FORBIDDEN_PHRASES) + r")\b", re.I)
_UNTRUSTWORTHY = re.compile(r"\b(?:" + "|".join(UNTRUSTWORTHY_PHRASES) + r")\b", re.I)


def check_citations(sentences: tuple[AnswerSentence, ...], n_sources: int) -> list[Check]:
    """Every sentence cites at least one source; every citation is 1..n_sources."""
    uncited = [i + 1 for i, s in enumerate(sentences) if not s.citations]
    bad = sorted({n for s in sentences for n in s.citations if n < 1 or n > n_sources})
    return [
        Check("citations_present", ANSWER, bool(sentences) and not uncited, float(len(sentences) - len(uncited)),
              float(len(sentences)), f"uncited sentence(s): {uncited}" if uncited else "every sentence cites a source",
              Reason.MISSING_CITATIONS),
        Check("citations_valid", ANSWER, not bad, ", ".join(map(str, bad)) or "none", f"1..{n_sources}",
              f"citation(s) {bad} point to no source" if bad else "every citation points to a source",
              Reason.INVALID_CITATIONS),
    ]


def token_overlap(sentence: str, cited_text: str) -> float:
    """Share of the sentence's content terms that occur in the cited text (1.0 for a sentence with none)."""
    terms = content_terms(sentence)
    if not terms:
        return 1.0
    present = term_set(cited_text)
    return sum(t in present for t in terms) / len(terms)


def normalized_words(text: str) -> str:
    """Words of a text for the "quoted word for word" test, in any script: the matching normalisation (case,
    punctuation, digits and script variants folded) split on whitespace. An ASCII-only form made every Hindi
    sentence look unquoted and sent it to the embedding model (0.6 s a question on the e5 shelf)."""
    return " ".join(normalize_for_matching(text).split())


def quoted(sentence: str, text: str) -> bool:
    """Whether `sentence` occurs word for word (whole words, after normalisation) in `text`."""
    words = normalized_words(sentence)
    return bool(words) and f" {words} " in f" {normalized_words(text)} "


def supporting_passage(sentence: str, cited_text: str) -> str:
    """The sentence, or pair of neighbouring sentences, of the cited text that shares most words with `sentence`."""

    parts = [cited_text[s:e] for s, e in sentence_spans(cited_text)] or [cited_text]
    windows = parts + [" ".join(parts[i : i + 2]) for i in range(len(parts) - 1)]
    return max(windows, key=lambda w: (token_overlap(sentence, w), -len(w)))


def sentence_support(
    sentences: tuple[AnswerSentence, ...],
    sources: list[Source],
    policy: Policy,
    similarity: Callable[[str, str], float] | None,
) -> list[tuple[bool, float, float]]:
    """Per sentence: (supported, token overlap, similarity) against the text it cites. An uncited sentence, or one
    citing no existing source, is unsupported: nothing it says is backed by the book.

    Besides the overlap with the whole cited text, the sentence's content words must occur in one place of it (the
    sentence, or two neighbouring sentences, that supports it best) in at least `min_window_overlap` of them: a
    paraphrase that gathers its words from across a chunk ("Respiration is an endothermic process" beside
    "respiration is an exothermic process" and "energy is absorbed" elsewhere) is not what the book says. A quote
    is its own window (1.0)."""
    by_n = {s.n: s for s in sources}
    out = []
    for s in sentences:
        cited = [by_n[n] for n in s.citations if n in by_n]
        text = " ".join(c.text for c in cited)
        overlap = token_overlap(s.text, text) if cited else 0.0
        is_quote = bool(cited) and quoted(s.text, text)
        window = 1.0 if is_quote else max((token_overlap(s.text, supporting_passage(s.text, c.text)) for c in cited),
                                          default=0.0)
        sim = -1.0
        if cited and similarity is not None:
            sim = 1.0 if is_quote else max(similarity(s.text, supporting_passage(s.text, c.text)) for c in cited)
        ok = (bool(cited) and overlap >= policy.min_token_overlap and window >= policy.min_window_overlap
              and (similarity is None or sim >= policy.min_sentence_similarity))
        out.append((ok, min(overlap, window), sim))
    return out


def check_instructions(sentences: tuple[AnswerSentence, ...]) -> list[Check]:
    """No sentence of the answer addresses a language model ("ignore previous instructions ..."): such text in a
    source is an injection, and repeating it would pass grounding because it is, word for word, in the source."""

    bad = [i + 1 for i, s in enumerate(sentences) if is_instruction_like(s.text)]
    return [Check("no_instructions", ANSWER, not bad, ", ".join(map(str, bad)) or "none", "none",
                  f"sentence(s) {bad} address an AI model instead of teaching" if bad
                  else "no sentence addresses an AI model", Reason.SOURCE_INSTRUCTIONS)]


def check_grounding(
    sentences: tuple[AnswerSentence, ...],
    sources: list[Source],
    policy: Policy,
    similarity: Callable[[str, str], float] | None,
    verdicts: list[tuple[bool, float, float]] | None = None,
) -> list[Check]:
    """Each sentence must be supported by what it cites: token overlap with the cited text, and embedding
    similarity with the passage of it that supports the sentence best, each against its own threshold; the share
    of supported sentences and the answer's content-word share must reach the policy. A sentence quoted verbatim
    has similarity 1 (no embedding needed); `similarity=None` skips the embedding test. `verdicts`, when the caller
    has them, are `sentence_support` of the same sentences (so the pipeline judges each sentence once)."""
    by_n = {s.n: s for s in sources}
    if verdicts is None:
        verdicts = sentence_support(sentences, sources, policy, similarity)
    # an uncited sentence is the citation checks' failure; grounding judges what the sentences cite
    n_written = len(sentences)
    cited_only = [(s, v) for s, v in zip(sentences, verdicts) if s.citations]
    sentences = tuple(s for s, _ in cited_only)
    verdicts = [v for _, v in cited_only]
    vacuous = n_written > 0 and not sentences  # all uncited: the citation check says so
    supported = sum(ok for ok, _, _ in verdicts)
    details = [f"sentence {i + 1}: overlap {overlap:.2f}, similarity {sim:.2f}{'' if ok else ' (unsupported)'}"
               for i, (ok, overlap, sim) in enumerate(verdicts)]
    share = supported / len(sentences) if sentences else 0.0
    all_terms = [t for s in sentences for t in content_terms(s.text)]
    cited_all = set().union(*(term_set(by_n[n].text) for s in sentences for n in s.citations if n in by_n))
    word_share = sum(t in cited_all for t in all_terms) / len(all_terms) if all_terms else 0.0
    return [
        Check("grounding", ANSWER, (share >= policy.min_supported_share and bool(sentences)) or vacuous,
              round(share, 4), policy.min_supported_share, "; ".join(details) or "no sentences", Reason.LOW_GROUNDING),
        Check("answer_word_share", ANSWER,
              (word_share >= policy.min_answer_word_share and bool(sentences)) or vacuous, round(word_share, 4),
              policy.min_answer_word_share, "share of the answer's content words found in the cited text",
              Reason.LOW_GROUNDING),
    ]


def check_phrasing(sentences: tuple[AnswerSentence, ...], sources: list[Source]) -> list[Check]:
    """No hedging or filler, and no words that mark the answer as uncertain, partial or an error.

    A sentence quoted word for word from the source it cites is the book's own wording and is not scanned.
    """
    by_n = {s.n: s.text for s in sources}
    own = [s.text for s in sentences if not any(quoted(s.text, by_n.get(n, "")) for n in s.citations)]
    text = " ".join(own)
    hedges = sorted({m.group(0).lower() for m in _FORBIDDEN.finditer(text)})
    doubts = sorted({m.group(0).lower() for m in _UNTRUSTWORTHY.finditer(text)})
    found = hedges + doubts
    return [Check("phrasing", ANSWER, not found, ", ".join(found) or "none", "none",
                  "forbidden or uncertain phrasing" if found else "no forbidden phrasing", Reason.FORBIDDEN_PHRASING)]


def verdict(checks: list[Check]) -> str:
    """The reason code of a failed answer: the one failing reason, or multiple_issues."""
    reasons = list(dict.fromkeys(c.reason for c in checks if not c.passed))
    if not reasons:
        return Reason.ANSWERED
    return reasons[0] if len(reasons) == 1 else Reason.MULTIPLE_ISSUES
