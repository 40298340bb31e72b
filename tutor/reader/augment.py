"""More training pairs for the answerability reader from the labelled questions it already has (examples.py).

Two kinds, both made from the SQuAD training articles only (never from a held-out one):

- **More answer windows**: an answerable question read again with the answer at another place in a three-sentence
  window of its paragraph (positive, with its span). The first reader saw each answer in one window only, so its span
  head learnt from about 700 spans and its positives were outnumbered 2.5 to 1.
- **Swapped questions**: an answerable question with one of its specifics (a name, a number or year, a key word)
  replaced by another name or number of the same article, or by the word's opposite, read against the very window
  that answers the original (negative). This is the commonest kind of SQuAD 2.0 unanswerable (an entity or a number
  swapped, an antonym: Rajpurkar et al. 2018, table 2), and the case the gate missed: a passage on the topic, with a
  plausible answer, that does not answer what was asked. The replacement never occurs in the window, so the label
  holds by construction: the window cannot state an answer about a name it does not contain. Optionally (`negate`)
  the question's verb negated ("Who was not ...") where the window says nothing in the negative, SQuAD 2.0's
  negation kind.
- **The answer taken out** (`drop_answer`): the window that answers a question with the sentence holding the answer
  removed and its neighbours closed up (negative). The topic, the names and most of the question's words stay; only
  the answer is gone: the textbook case of a chapter that mentions what was asked about without answering it
  ("the importance of earthing"). The label holds by construction: the answer's text is nowhere in the new window.
"""
from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from tutor.reader.examples import NAME, NUMBER, OPPOSITE, WINDOW, Example, ExampleSets, sentences, window

# a capitalised word inside a question is a specific even at the start after the question word ("When did Rollo ...")
_Q_NAME = re.compile(r"(?<=\w )[A-Z][a-z]{2,}(?: [A-Z][a-z]{2,})*")
# a question word with its verb, where "not" can follow: "Who was ...", "What is ..."
_NEGATABLE = re.compile(r"(?:What|Which|Who|Where|When)\s+(?:is|was|are|were|can|could|will|would|has|have|had)\b")
_QUESTION_WORDS = {"What", "Which", "Who", "Whom", "Whose", "When", "Where", "Why", "How", "The", "In", "On", "Of"}


def swap_question(question: str, window_text: str, pool_names: Sequence[str], pool_numbers: Sequence[str],
                  rng: random.Random, negate: bool = False) -> str | None:
    """The question with one name, number or key word that the window contains replaced by a name or number of the
    pool the window does not contain, or by the word's opposite when the window does not hold that opposite, or its
    verb negated (with `negate`) when the window says nothing in the negative. None when nothing in the question can
    be swapped."""
    low = window_text.lower()
    moves: list[tuple[re.Match, list[str]]] = []
    names = [m for m in _Q_NAME.finditer(question)
             if m.group(0) not in _QUESTION_WORDS and m.group(0).lower() in low]
    new_names = [n for n in pool_names if n.lower() not in low]
    if names and new_names:
        moves += [(m, new_names) for m in names]
    nums = [m for m in NUMBER.finditer(question) if m.group(0) in window_text]
    new_nums = [n for n in pool_numbers if n not in window_text]
    if nums and new_nums:
        moves += [(m, new_nums) for m in nums]
    for m in re.finditer(r"[A-Za-z]+", question):
        w = m.group(0).lower()
        if w in OPPOSITE and OPPOSITE[w] not in re.findall(r"[a-z]+", low):
            opp = OPPOSITE[w]
            moves.append((m, [opp.capitalize() if m.group(0)[0].isupper() else opp]))
    negated = re.search(r"\b(?:not|no|never|none|nor)\b|n't", low)
    m = _NEGATABLE.match(question) if negate else None
    if m and not negated:  # "Who was the leader?" -> "Who was not the leader?": the window says who was
        moves.append((m, [m.group(0) + " not"]))
    if not moves:
        return None
    m, choices = rng.choice(moves)
    return question[: m.start()] + rng.choice(choices) + question[m.end():]


def _pool(texts: Sequence[str]) -> tuple[list[str], list[str]]:
    joined = " ".join(texts)
    return sorted({m.group(0) for m in NAME.finditer(joined)}), sorted({m.group(0) for m in NUMBER.finditer(joined)})


def augment(examples: Sequence[Example], contexts: dict[str, list[str]], rng: random.Random,
            extra_windows: int = 1, swaps: int = 1, negate: bool = False, drop_answer: bool = False) -> list[Example]:
    """New pairs made from the answerable qa examples of `examples` (those with a span): `extra_windows` more
    windows holding the answer, `swaps` swapped questions against the answering window each, and (`drop_answer`)
    the answering window without the answer's sentence. `contexts` maps a group (article or chapter) to its
    paragraphs: where the window came from, and the pool of names and numbers to swap in."""
    pools = {g: _pool(texts) for g, texts in contexts.items()}
    out: list[Example] = []
    for e in examples:
        if e.task != "qa" or e.label != 1 or e.span is None:
            continue
        names, numbers = pools.get(e.group, ([], []))
        for _ in range(swaps):
            bad = swap_question(e.first, e.second, names, numbers, rng, negate)
            if bad is not None and bad != e.first:
                out.append(Example("qa", bad, e.second, 0, None, e.source + "-swap", e.group))
        answer = e.second[e.span[0]:e.span[1]]
        para = next((p for p in contexts.get(e.group, []) if e.second in p), None)
        if para is None or (extra_windows <= 0 and not drop_answer):
            continue
        base = para.index(e.second)
        a_s = base + e.span[0]
        spans = sentences(para)
        si = next((i for i, (s, t) in enumerate(spans) if s <= a_s < t), 0)
        if drop_answer:  # the neighbours of the answer's sentence, closed up over the gap it leaves
            rest = [sp for i, sp in enumerate(spans) if i != si]
            first = max(0, min(si - 1 - rng.randrange(2), len(rest) - WINDOW))
            text = " ".join(para[a:b].strip() for a, b in rest[first:first + WINDOW])
            if answer.lower() not in text.lower() and len(text.split()) >= 12:
                out.append(Example("qa", e.first, text, 0, None, e.source + "-drop", e.group))
        firsts = [si - k for k in range(WINDOW) if si - k >= 0]
        rng.shuffle(firsts)
        made = 0
        for first in firsts:
            text, off = window(para, spans, first)
            if text == e.second or not (off <= a_s and a_s + len(answer) <= off + len(text)):
                continue
            out.append(Example("qa", e.first, text, 1, (a_s - off, a_s - off + len(answer)), e.source, e.group))
            made += 1
            if made >= extra_windows:
                break
    return out


def augmented(sets: ExampleSets, squad_file: Path, seed: int = 0, extra_windows: int = 1,
              swaps: int = 1, negate: bool = False, drop_answer: bool = False) -> ExampleSets:
    """`sets` with the augmented pairs of the SQuAD training articles added to its training part (the held-out part
    is never augmented, so its figures compare with a reader trained without). Seeded with `seed + 2`, apart from the
    seeds examples.py uses, so the original pairs are the same with or without augmentation."""
    if not (extra_windows or swaps or drop_answer):
        return sets
    contexts: dict[str, list[str]] = {}
    for art in json.loads(Path(squad_file).read_text(encoding="utf-8"))["data"]:
        if art["title"] not in sets.heldout_articles:
            contexts[art["title"]] = [p["context"] for p in art["paragraphs"]]
    n = next((i for i, e in enumerate(sets.train) if e.source != "squad"), len(sets.train))  # SQuAD pairs come first
    more = augment(sets.train[:n], contexts, random.Random(seed + 2), extra_windows, swaps, negate, drop_answer)
    return replace(sets, train=sets.train[:n] + more + sets.train[n:])  # right after them: the order training saw
