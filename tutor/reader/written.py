"""Question pairs written for the reader from the NCERT chapters (data/training/ncert-written-pairs.jsonl), as training
examples: NCERT-shaped answerability of both kinds, which the printed questions (examples.ncert_examples) give too few
of, and whose negatives come from other chapters only.

Each line names its chapter and is either answerable, with the one sentence of the chapter that answers it
(`evidence`, copied from the shelf) and the answer inside it (`answer`), or to refuse, on the chapter's topic though
the chapter does not state the answer. An answerable question becomes a positive on the window of its evidence
sentence (the sentence before it, it, the one after: the window the gate's reader reads), with the answer's span; a
question to refuse becomes a negative on the window the gate's own sentence ranking picks on its shelf, the hardest
on-topic window there is. Chapters held out of training (examples.heldout_chapter) are refused at load, and their
windows are never read."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tutor.reader.examples import Example, heldout_chapter, ranked_window, window

if TYPE_CHECKING:
    from tutor.retrieval.search import Library
    from tutor.types import Chunk

SOURCE = "ncert-written"
WRITTEN_PAIRS = Path(__file__).resolve().parents[2] / "data" / "training" / "ncert-written-pairs.jsonl"


@dataclass(frozen=True)
class WrittenPairs:
    """The examples made, and the lines whose evidence sentence no chunk of their chapter holds (reported, not
    dropped silently: a shelf chunked otherwise than when the pairs were written)."""

    examples: list[Example]
    unmatched: list[str]


def load_pairs(path: Path) -> list[dict]:
    """The pairs of a JSONL file; a pair on a held-out chapter is an error (it would leak into the held-out figures)."""
    pairs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    held = sorted({p["chapter"] for p in pairs if heldout_chapter(p["chapter"])})
    if held:
        raise ValueError(f"{path}: pairs on chapters held out of training: {', '.join(held)}")
    return pairs


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


def _evidence_window(chunks: list[Chunk], evidence: str, hint: str | None) -> tuple[str, int] | None:
    """(window text, where the evidence sentence starts in it) around the chunk sentence that is the evidence (or
    holds it: a writer may start mid-sentence), the hinted chunk first; a short sentence inside the evidence (a
    heading) is not it."""
    ev = _norm(evidence)
    for c in sorted(chunks, key=lambda c: c.chunk_id != hint):
        spans = [(s, e) for s, e, _ in c.sentences]
        for i, (s, e) in enumerate(spans):
            sent = _norm(c.text[s:e])
            if sent and (ev[:60] in sent or (len(sent) >= 30 and sent[:60] in ev)):
                text, start = window(c.text, spans, i - 1)
                return text, s - start
    return None


def written_examples(library: Library, pairs: list[dict]) -> WrittenPairs:
    """The pairs as qa examples on `library`'s shelves (module docstring)."""
    from tutor.safety.gate import term_weights
    from tutor.text.terms import TermStats

    by_chapter: dict[str, list[Chunk]] = {}
    shelves = {}
    for key in library.keys():
        shelf = library.shelf(key.klass, key.subject)
        for c in shelf.chunks:
            if c.is_evidence:
                by_chapter.setdefault(c.chapter_code, []).append(c)
                shelves[c.chapter_code] = shelf
    stats: dict = {}
    out: list[Example] = []
    unmatched: list[str] = []
    for p in pairs:
        code, q = p["chapter"], p["question"]
        if p["expect"] == "answer":
            found = _evidence_window(by_chapter.get(code, []), p["evidence"], p.get("chunk"))
            if found is None:
                unmatched.append(q)
                continue
            text, at_evidence = found
            at = text.find(p["answer"], at_evidence)  # in the evidence, not an earlier mention in the window
            at = at if at >= 0 else text.find(p["answer"])
            span = (at, at + len(p["answer"])) if at >= 0 else None
            out.append(Example("qa", q, text, 1, span, SOURCE, code))
            continue
        shelf = shelves.get(code)
        if shelf is None:
            unmatched.append(q)
            continue
        if shelf.key not in stats:
            stats[shelf.key] = TermStats([c.text for c in shelf.chunks])
        hits = [h for h in shelf.search(library.embed_query(q, shelf), 40)
                if h.chunk.is_evidence and not heldout_chapter(h.chunk.chapter_code)]
        found = ranked_window(q, hits, term_weights(q, stats[shelf.key]))
        if found is None:
            unmatched.append(q)
            continue
        out.append(Example("qa", q, found[0], 0, None, SOURCE, found[1]))
    return WrittenPairs(out, unmatched)
