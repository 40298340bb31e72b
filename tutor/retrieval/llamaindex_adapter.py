"""LlamaIndex adapters: the gate as a `BaseNodePostprocessor`, and shelf chunks as `TextNode`s.

Thin on purpose: the postprocessor only calls the pure gate and turns its decision into nodes; the decision
itself (with every check) is returned to the caller, never stored on the shared postprocessor.
"""
from __future__ import annotations

from typing import Any

from llama_index.core.bridge.pydantic import Field
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from tutor.policy import Policy
from tutor.safety.gate import GateDecision, decide
from tutor.text.terms import TermStats
from tutor.types import Chunk, Hit


def chunk_to_node(chunk: Chunk) -> TextNode:
    """A chunk as a LlamaIndex node carrying all its metadata (embedding text keeps out the bookkeeping)."""
    meta = chunk.to_dict()
    text = meta.pop("text")
    # sentence spans keep each sentence's page: the gate needs them, the embedding and the LLM do not
    return TextNode(id_=chunk.chunk_id, text=text, metadata=meta,
                    excluded_embed_metadata_keys=list(meta), excluded_llm_metadata_keys=["sentences", "chunk_id"])


def node_to_hit(n: NodeWithScore, rank: int) -> Hit:
    meta = dict(n.node.metadata)
    meta["text"] = n.node.get_content()
    meta.setdefault("sentences", [])
    meta.setdefault("chunk_id", n.node.node_id)
    return Hit(Chunk.from_dict(meta), float(n.score or 0.0), rank)


class GatePostprocessor(BaseNodePostprocessor):
    """Keeps the gate's evidence nodes, or none when the gate refuses (so no LLM is called on nothing)."""

    policy: Policy = Field(description="the validated policy")
    stats: Any = Field(description="TermStats of the shelf the nodes come from")

    @classmethod
    def class_name(cls) -> str:
        return "TutorGatePostprocessor"

    def decide(self, nodes: list[NodeWithScore], query: str) -> GateDecision:
        hits = [node_to_hit(n, i) for i, n in enumerate(sorted(nodes, key=lambda n: -(n.score or 0.0)))]
        return decide(query, hits, self.policy, self.stats if isinstance(self.stats, TermStats) else TermStats([]))

    def _postprocess_nodes(self, nodes: list[NodeWithScore],
                           query_bundle: QueryBundle | None = None) -> list[NodeWithScore]:
        if query_bundle is None:
            raise ValueError("the gate needs the question (query_bundle)")
        decision = self.decide(nodes, query_bundle.query_str)
        if not decision.passed:
            return []
        keep = {h.chunk.chunk_id for h in decision.evidence}
        return [n for n in nodes if n.node.node_id in keep]
