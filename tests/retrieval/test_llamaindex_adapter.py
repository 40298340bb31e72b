"""The LlamaIndex adapter: the gate as a node postprocessor (no nodes on a refusal, only evidence nodes on a pass)
and the chunk <-> node round trip."""
from __future__ import annotations

import pytest
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle, TextNode

from tutor.retrieval.llamaindex_adapter import GatePostprocessor, chunk_to_node, node_to_hit
from tutor.text.terms import TermStats
from tutor.types import Chunk

from helpers_safety import LIGHT, policy

STATS = TermStats([c.text for c in LIGHT])
Q = "What is refraction of light?"
REFRACTION, LENSES, MIRRORS, EXERCISE = LIGHT


def node_keeping_sentences(chunk: Chunk) -> TextNode:
    """A node whose metadata still holds the sentence spans (what chunk_to_node should carry)."""
    meta = chunk.to_dict()
    text = meta.pop("text")
    return TextNode(id_=chunk.chunk_id, text=text, metadata=meta)


def scored(make, pairs) -> list[NodeWithScore]:
    return [NodeWithScore(node=make(c), score=s) for c, s in pairs]


def gate() -> GatePostprocessor:
    return GatePostprocessor(policy=policy(evidence_drop=0.1, near_miss_margin=0.1), stats=STATS)


# ---------------------------------------------------------------- the postprocessor


def test_refusal_returns_no_nodes():
    nodes = scored(chunk_to_node, [(REFRACTION, 0.2), (LENSES, 0.15)])  # off-topic scores
    pp = gate()
    assert pp.postprocess_nodes(nodes, query_bundle=QueryBundle(Q)) == []
    d = pp.decide(nodes, Q)
    assert not d.passed and d.reason == "off_topic"


def test_a_pass_keeps_only_the_evidence_nodes():
    nodes = scored(node_keeping_sentences,
                   [(MIRRORS, 0.55), (EXERCISE, 0.95), (REFRACTION, 0.7), (LENSES, 0.62)])
    pp = gate()
    kept = pp.postprocess_nodes(nodes, query_bundle=QueryBundle(Q))
    d = pp.decide(nodes, Q)
    assert d.passed
    # band: >= 0.6 evidence; the exercise (highest) and the near miss (0.55) are dropped
    assert [n.node.node_id for n in kept] == ["light:0000", "light:0001"]
    assert {h.chunk.chunk_id for h, _ in d.dropped} == {"light:0003", "light:0002"}
    assert all(n.score in (0.7, 0.62) for n in kept)  # the original NodeWithScore objects, scores untouched


def test_postprocessor_needs_the_question():
    with pytest.raises(ValueError, match="question"):
        gate().postprocess_nodes(scored(chunk_to_node, [(REFRACTION, 0.7)]))


def test_postprocessor_keeps_no_per_question_state():
    pp = gate()
    before = dict(pp.__dict__)
    pp.postprocess_nodes(scored(node_keeping_sentences, [(REFRACTION, 0.7)]), query_bundle=QueryBundle(Q))
    pp.postprocess_nodes(scored(chunk_to_node, [(REFRACTION, 0.1)]), query_bundle=QueryBundle("cricket?"))
    assert dict(pp.__dict__) == before


def test_gate_postprocessor_passes_an_answerable_question_over_chunk_to_node_nodes():
    nodes = scored(chunk_to_node, [(REFRACTION, 0.7), (LENSES, 0.62)])
    kept = gate().postprocess_nodes(nodes, query_bundle=QueryBundle(Q))
    assert [n.node.node_id for n in kept] == ["light:0000", "light:0001"]


# ---------------------------------------------------------------- chunk <-> node


def test_chunk_to_node_carries_the_text_id_and_metadata():
    n = chunk_to_node(LENSES)
    assert n.node_id == LENSES.chunk_id and n.get_content() == LENSES.text
    assert n.metadata["class"] == "10" and n.metadata["page_start"] == 5 and n.metadata["section_kind"] == "body"
    # the embedding sees only the text, never the bookkeeping
    assert n.get_content(metadata_mode=MetadataMode.EMBED) == LENSES.text
    assert "chunk_id" not in n.get_content(metadata_mode=MetadataMode.LLM)


def test_node_to_hit_keeps_score_rank_and_every_field_but_the_sentences():
    h = node_to_hit(NodeWithScore(node=chunk_to_node(EXERCISE), score=0.42), 3)
    assert (h.score, h.rank) == (0.42, 3)
    for field in ("chunk_id", "klass", "subject", "chapter", "chapter_code", "file", "page_start", "page_end",
                  "section_kind", "section", "text"):
        assert getattr(h.chunk, field) == getattr(EXERCISE, field), field
    assert not h.chunk.is_evidence


def test_node_to_hit_with_no_score_scores_zero():
    assert node_to_hit(NodeWithScore(node=chunk_to_node(LENSES), score=None), 0).score == 0.0


def test_node_with_sentence_metadata_round_trips_exactly():
    h = node_to_hit(NodeWithScore(node=node_keeping_sentences(REFRACTION), score=0.7), 0)
    assert h.chunk == REFRACTION


def test_chunk_to_node_to_hit_round_trip():
    h = node_to_hit(NodeWithScore(node=chunk_to_node(REFRACTION), score=0.7), 0)
    assert h.chunk == REFRACTION
