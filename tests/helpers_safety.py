"""Tiny builders for the safety-layer tests: chunks and hits by hand, explicit policies, a recording fake answerer
and a real FAISS shelf on disk made with HashEmbedder (a deterministic fake whose cosine follows shared words).

Nothing here reads the shipped policy or ../shared data: every threshold a test relies on is written in the test.
"""
from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

from tutor.policy import Policy
from tutor.store.shelf import Manifest, ShelfStore
from tutor.testing import HashEmbedder
from tutor.text.sentences import sentence_spans
from tutor.types import Check, Chunk, Hit, Source

EMB = HashEmbedder()

# Every policy field, written out: tests never depend on the shipped tutor/policy.toml.
EXPLICIT: dict[str, Any] = dict(
    top_k=8, max_evidence=4, min_context_chars=40,
    min_confidence=0.5, min_mean_confidence=0.4, evidence_drop=0.1, near_miss_margin=0.1, evidence_fused_top=0,
    unknown_term_penalty=0.3, min_term_coverage=0.3, offtopic_max_score=0.3, wrong_shelf_margin=0.1,
    require_clear_winner=False, min_top_ratio=1.2, min_rerank_score=2.0,
    answerer="extractive", max_answer_sentences=2, min_sentence_coverage=0.3, require_question_numbers=True,
    require_negation_match=True, require_answer_type=True, accept_definitions=True, require_names=True,
    home_country="India",
    min_token_overlap=0.6, min_window_overlap=1.0, min_sentence_similarity=0.3, min_supported_share=1.0,
    min_answer_word_share=0.8,
    approximate_index_above=200_000,
)


def policy(**values: Any) -> Policy:
    """The explicit test policy, with `values` changed (a setting this version of Policy lacks is left out of
    EXPLICIT, never out of `values`: a test naming a setting must fail if the setting is gone)."""
    known = {f.name for f in fields(Policy)}
    return Policy().with_values(**{**{k: v for k, v in EXPLICIT.items() if k in known}, **values})


def chunk(cid: str, text: str, *, kind: str = "body", section: str = "10.1 Refraction", page: int = 1,
          chapter: str = "Light", file: str = "light.pdf", klass: str = "10", subject: str = "science") -> Chunk:
    """A chunk whose sentences (split as ingestion splits them: tutor.text.sentences) all sit on `page`."""
    spans = [(s, e, page) for s, e in sentence_spans(text)]
    return Chunk(chunk_id=cid, klass=klass, subject=subject, chapter=chapter, chapter_code=cid.split(":")[0],
                 file=file, page_start=page, page_end=page, section_kind=kind, section=section, text=text,
                 sentences=tuple(spans))


def hits(*pairs: tuple[Chunk, float]) -> list[Hit]:
    """Hits ranked in the order given (the gate expects best first)."""
    return [Hit(c, s, r) for r, (c, s) in enumerate(pairs)]


def source(n: int, text: str, *, chunk_id: str | None = None, file: str = "light.pdf", page: int = 1,
           page_end: int | None = None, chapter: str = "Light", score: float = 0.7) -> Source:
    return Source(n=n, chunk_id=chunk_id or f"light:{n:04d}", score=score, chapter=chapter, chapter_code="light",
                  file=file, page=page, page_end=page if page_end is None else page_end, section="10.1 Refraction",
                  text=text)


def check(checks, name: str) -> Check:
    """The one check called `name` (fails the test if absent or repeated)."""
    found = [c for c in checks if c.name == name]
    assert len(found) == 1, f"expected one {name!r} check, got {[c.name for c in checks]}"
    return found[0]


# A tiny science shelf (light) and a social-science shelf (soil); each chunk is one section of a few sentences.
LIGHT = [
    chunk("light:0000", "Refraction is the bending of light when it passes from air into water. "
          "The speed of light changes at the boundary between the two media.", section="10.1 Refraction", page=3),
    chunk("light:0001", "A convex lens converges parallel rays of light to a principal focus. "
          "The power of a lens is measured in dioptres.", section="10.2 Lenses", page=5),
    chunk("light:0002", "A plane mirror forms a virtual image of the same size as the object. "
          "The image is as far behind the mirror as the object is in front.", section="10.3 Mirrors", page=7),
    chunk("light:0003", "Why does light bend when it passes from air into water? "
          "Explain the refraction of light with a diagram.", kind="exercise", section="Exercises", page=9),
]
SOIL = [
    chunk("soil:0000", "Alluvial soil is found in the northern plains and is very fertile. "
          "Alluvial soil is deposited by rivers such as the Ganga.", chapter="Resources", file="soil.pdf",
          subject="social-science", section="1.1 Soils", page=2),
    chunk("soil:0001", "Terrace farming and contour ploughing prevent soil erosion on slopes. "
          "Soil erosion is caused by deforestation and overgrazing.", chapter="Resources", file="soil.pdf",
          subject="social-science", section="1.2 Erosion", page=4),
]


def write_shelf(root: str | Path, chunks: list[Chunk], klass: str = "10", subject: str = "science") -> str:
    """A real FAISS shelf on disk, vectors from HashEmbedder; returns the version written."""
    store = ShelfStore(root)
    manifest = Manifest(klass, subject, EMB.name, EMB.dim)
    return store.write(manifest, chunks, EMB.embed([c.text for c in chunks]))


class NeedleJudge:
    """A fake reader or cross-lingual judge: `p` for passages holding `needle`, `other` for the rest, no span; records
    each (question, passages) it read."""

    def __init__(self, needle: str, p: float = 0.9, other: float = 0.05) -> None:
        self.needle, self.p, self.other, self.calls = needle, p, other, []

    def read(self, question, passages):
        from tutor.reader.model import Reading

        self.calls.append((question, list(passages)))
        return [Reading(self.p if self.needle in t else self.other, "", 0, 0) for t in passages]
