"""The answerability reader's training examples (tutor/reader/model.py; the loop and the export are in training.py)
and the held-out split.

Examples are (question, passage window) pairs labelled answers / does not answer, with the answer's character span
where there is one, plus (claim, passage window) pairs labelled supported / not supported for the support head:

- SQuAD 2.0 (`../shared/data/training/squad2-dev-articles.json`): an answerable question with the window of its
  paragraph around the answer (positive, span) and with a window that does not hold the answer (the same paragraph,
  or the nearest other paragraph of the article); an unanswerable question with the window around its plausible
  answer or the sentence that shares most words with it (negative).
- NCERT (the shared Class 10 library): questions printed in the chapters (exercises, in-text boxes) with the best
  evidence window of their own chapter when it scores high (positive, weakly labelled: no span), and with the best
  evidence window of another chapter of the same shelf (negative); never the chunk that prints the question.
- Claims: sentences of the training passages with their window (supported), and the same sentence with one name,
  number or key word swapped for another of the same text or its opposite (not supported).

Held out of training, by article and by chapter (never by question): the two SQuAD articles whose title has the
smallest SHA-1, and the NCERT chapters whose code's SHA-1 is 0 mod 4. `heldout_*` below say which.
"""
from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tutor.text.sentences import sentence_spans
from tutor.text.terms import content_terms, term_set

if TYPE_CHECKING:
    from tutor.retrieval.search import Library
    from tutor.types import Hit

WINDOW = 3  # sentences a window holds (the reader reads windows of this many sentences at inference too)


@dataclass(frozen=True)
class Example:
    """One training pair. task "qa": does `second` answer `first`; task "claim": does `second` support `first`."""

    task: str
    first: str
    second: str
    label: int
    span: tuple[int, int] | None  # the answer's characters in `second` (qa positives with a known span)
    source: str  # squad, ncert, claim-squad, claim-ncert
    group: str  # the article or chapter (the unit of holding out)
    answers: tuple[str, ...] = ()  # every gold answer text (SQuAD dev questions have several), for the official metric


def _sha(s: str) -> str:
    return hashlib.sha1(s.encode()).hexdigest()


def heldout_articles(titles: Iterable[str], n: int = 2) -> set[str]:
    """The SQuAD articles held out of training: the `n` whose title has the smallest SHA-1 (fixed, not chosen)."""
    return set(sorted(titles, key=_sha)[:n])


def heldout_chapter(code: str) -> bool:
    """NCERT chapters held out of training: those whose code's SHA-1 is 0 mod 4 (about a quarter)."""
    return int(_sha(code), 16) % 4 == 0


def sentences(text: str) -> list[tuple[int, int]]:
    return sentence_spans(text) or [(0, len(text))]


def window(text: str, spans: list[tuple[int, int]], first: int, size: int = WINDOW) -> tuple[str, int]:
    """The text of sentences first..first+size-1 and the character offset where it starts in `text`."""
    first = max(0, min(first, len(spans) - 1))
    last = min(len(spans), first + size) - 1
    s, e = spans[first][0], spans[last][1]
    return text[s:e], s


def ranked_window(question: str, hits: list[Hit], weights: dict[str, float]) -> tuple[str, str] | None:
    """The window the gate's reader reads for `question` among the best two of `hits`: around the sentence the gate's
    ranking puts first (safety/gate.py rank_sentences), as (text, chapter code); None where no sentence states
    anything."""
    from tutor.safety.gate import rank_sentences

    cands = rank_sentences(question, hits[:2], weights) if hits else []
    if not cands:
        return None
    c0 = cands[0]
    spans = [(s, e) for s, e, _ in c0.hit.chunk.sentences]
    return window(c0.hit.chunk.text, spans, c0.index - 1)[0], c0.hit.chunk.chapter_code


def _sentence_of(spans: list[tuple[int, int]], char: int) -> int:
    return next((i for i, (s, e) in enumerate(spans) if s <= char < e), len(spans) - 1)


def _overlap(question: str, text: str) -> float:
    q = set(content_terms(question))
    return len(q & term_set(text)) / len(q) if q else 0.0


def squad_examples(path: str | Path, rng: random.Random, heldout: set[str] | None = None,
                   keep: str = "train") -> tuple[list[Example], set[str]]:
    """Examples from the SQuAD 2.0 articles; `keep` "train" (articles not held out) or "heldout"."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))["data"]
    held = heldout if heldout is not None else heldout_articles(a["title"] for a in data)
    out: list[Example] = []
    for art in data:
        if (art["title"] in held) != (keep == "heldout"):
            continue
        paras = [(p["context"], sentences(p["context"])) for p in art["paragraphs"]]
        for pi, p in enumerate(art["paragraphs"]):
            ctx, spans = paras[pi]
            for qa in p["qas"]:
                q = qa["question"].strip()
                if not qa["is_impossible"] and qa["answers"]:
                    a = qa["answers"][0]
                    a_s, a_e = a["answer_start"], a["answer_start"] + len(a["text"])
                    si = _sentence_of(spans, a_s)
                    first = si - rng.randrange(WINDOW)
                    text, off = window(ctx, spans, first)
                    if off <= a_s and a_e <= off + len(text):
                        out.append(Example("qa", q, text, 1, (a_s - off, a_e - off), "squad", art["title"]))
                    # a window that does not hold the answer: elsewhere in the paragraph, or the nearest other paragraph
                    others = [window(ctx, spans, j) for j in range(len(spans)) if j + WINDOW <= si or j > si]
                    others = [(t, o) for t, o in others if a["text"] not in t]
                    if not others or rng.random() < 0.5:
                        cands = [(c, sp) for j, (c, sp) in enumerate(paras) if j != pi and a["text"] not in c]
                        if cands:
                            c, sp = max(cands, key=lambda x: _overlap(q, x[0]))
                            best = max(range(len(sp)), key=lambda j: _overlap(q, c[sp[j][0]:sp[j][1]]))
                            others = [window(c, sp, best - 1)]
                    if others:
                        t, _ = max(others, key=lambda x: _overlap(q, x[0]))
                        out.append(Example("qa", q, t, 0, None, "squad", art["title"]))
                else:
                    plaus = (qa.get("plausible_answers") or [{}])[0]
                    if plaus.get("text") and rng.random() < 0.6:
                        si = _sentence_of(spans, plaus["answer_start"])
                    else:
                        si = max(range(len(spans)), key=lambda j: _overlap(q, ctx[spans[j][0]:spans[j][1]]))
                    text, _ = window(ctx, spans, si - rng.randrange(WINDOW))
                    out.append(Example("qa", q, text, 0, None, "squad", art["title"]))
    return out, held


# ---------------------------------------------------------------------------------------------- claims
_OPPOSITES = [("increase", "decrease"), ("increases", "decreases"), ("more", "less"), ("higher", "lower"),
              ("larger", "smaller"), ("exothermic", "endothermic"), ("concave", "convex"), ("acid", "base"),
              ("acidic", "basic"), ("positive", "negative"), ("before", "after"), ("first", "last"),
              ("oxidation", "reduction"), ("oxidised", "reduced"), ("gain", "loss"), ("north", "south"),
              ("east", "west"), ("upper", "lower"), ("inside", "outside"), ("always", "never"), ("rich", "poor"),
              ("strong", "weak"), ("heavy", "light"), ("hot", "cold"), ("won", "lost"), ("accepted", "rejected"),
              ("allowed", "banned"), ("supported", "opposed"), ("maximum", "minimum"), ("absorbed", "released")]
OPPOSITE = {a: b for a, b in _OPPOSITES} | {b: a for a, b in _OPPOSITES}
NAME = re.compile(r"(?<=[a-z,;] )[A-Z][a-z]{2,}(?: [A-Z][a-z]{2,})*")
NUMBER = re.compile(r"\b\d{2,4}\b")


def corrupt(sentence: str, pool: str, rng: random.Random) -> str | None:
    """The sentence with one name, number or key word replaced so that it no longer says what the text says:
    a name or number from elsewhere in `pool`, or a word's opposite. None when nothing can be swapped."""
    moves = []
    names = [m for m in NAME.finditer(sentence)]
    pool_names = sorted({m.group(0) for m in NAME.finditer(pool)} - {m.group(0) for m in names})
    if names and pool_names:
        moves.append("name")
    nums = list(NUMBER.finditer(sentence))
    pool_nums = sorted({m.group(0) for m in NUMBER.finditer(pool)} - {m.group(0) for m in nums})
    if nums and pool_nums:
        moves.append("number")
    opp = [m for m in re.finditer(r"[A-Za-z]+", sentence) if m.group(0).lower() in OPPOSITE]
    if opp:
        moves.append("opposite")
    if not moves:
        return None
    move = rng.choice(moves)
    if move == "name":
        m = rng.choice(names)
        new = rng.choice(pool_names)
    elif move == "number":
        m = rng.choice(nums)
        new = rng.choice(pool_nums)
    else:
        m = rng.choice(opp)
        w = OPPOSITE[m.group(0).lower()]
        new = w.capitalize() if m.group(0)[0].isupper() else w
    return sentence[: m.start()] + new + sentence[m.end():]


def claim_examples(texts: Sequence[tuple[str, str]], rng: random.Random, per_text: int = 2,
                   source: str = "claim") -> list[Example]:
    """(claim, window) pairs from passages given as (group, text): a sentence of the window supports itself, and
    its corrupted copy (corrupt) and a sentence of another passage of the same group do not."""
    out: list[Example] = []
    by_group: dict[str, list[str]] = {}
    for g, t in texts:
        by_group.setdefault(g, []).append(t)
    for g, t in texts:
        spans = sentences(t)
        idx = [i for i, (s, e) in enumerate(spans) if 6 <= len(t[s:e].split()) <= 45]
        rng.shuffle(idx)
        for i in idx[:per_text]:
            sent = t[spans[i][0]:spans[i][1]].strip()
            win, _ = window(t, spans, i - rng.randrange(WINDOW))
            if sent not in win:
                win, _ = window(t, spans, i)
            bad = corrupt(sent, " ".join(by_group[g]), rng)
            if bad is None:
                continue
            out.append(Example("claim", sent, win, 1, None, source, g))
            out.append(Example("claim", bad, win, 0, None, source, g))
            others = [x for x in by_group[g] if x is not t]
            if others and rng.random() < 0.5:
                o = rng.choice(others)
                osp = sentences(o)
                j = rng.randrange(len(osp))
                other = o[osp[j][0]:osp[j][1]].strip()
                if len(other.split()) >= 6 and other not in win:
                    out.append(Example("claim", other, win, 0, None, source, g))
    return out


# ---------------------------------------------------------------------------------------------- NCERT
_PRINTED_Q = re.compile(r"[^?]{15,200}\?")


def ncert_examples(library: Library, rng: random.Random, keep: str = "train", max_questions: int = 700,
                   min_cosine: float = 0.55) -> tuple[list[Example], list[tuple[str, str]]]:
    """Questions printed in the NCERT chapters with windows of their own chapter (positive) and of another chapter
    (negative); also the evidence windows of the kept chapters as (chapter, text) for claim examples."""
    from tutor.safety.gate import term_weights
    from tutor.text.terms import TermStats

    out: list[Example] = []
    passages: list[tuple[str, str]] = []
    questions: list[tuple[str, str, object]] = []
    for key in library.keys():
        if key.subject == "mathematics":  # its printed questions are computations no passage states the answer to
            continue
        shelf = library.shelf(key.klass, key.subject)
        for c in shelf.chunks:
            if (heldout_chapter(c.chapter_code or c.file)) != (keep == "heldout"):
                continue
            if c.is_evidence:
                if len(c.text.split()) >= 40:
                    passages.append((c.chapter_code or c.file, c.text))
                continue
            for m in _PRINTED_Q.finditer(c.text):
                q = re.sub(r"^\W*(?:\d+\.|\([a-z0-9]+\)|[a-z0-9]\))\s*", "", m.group(0).strip())
                if 5 <= len(q.split()) <= 30 and q[0].isupper() and not re.search(r"\((?:b|ii|c)\)", q):
                    questions.append((q, c.file, shelf))
    rng.shuffle(questions)
    seen: set[str] = set()
    stats_cache: dict = {}
    for q, file, shelf in questions:
        if len(seen) >= max_questions or q.lower() in seen:
            continue
        seen.add(q.lower())
        qvec = library.embed_query(q, shelf)
        hits = [h for h in shelf.search(qvec, 40) if h.chunk.is_evidence]
        own = [h for h in hits if h.chunk.file == file]
        other = [h for h in hits if h.chunk.file != file]
        if shelf.key not in stats_cache:  # once per shelf (setdefault would build it again for every question)
            stats_cache[shelf.key] = TermStats([c.text for c in shelf.chunks])
        weights = term_weights(q, stats_cache[shelf.key])
        for label, pool in ((1, own if own and own[0].score >= min_cosine else []), (0, other)):
            found = ranked_window(q, pool, weights)
            if found:
                out.append(Example("qa", q, found[0], label, None, "ncert", found[1]))
    return out, passages


def summary(examples: list[Example]) -> dict:
    """Counts of examples by source, task and label."""
    out: dict[str, int] = {}
    for e in examples:
        k = f"{e.source}/{e.task}/{'pos' if e.label else 'neg'}"
        out[k] = out.get(k, 0) + 1
    return dict(sorted(out.items()))


def _open_text(path: Path, mode: str):
    """`path` opened as text; a name ending in .xz is read and written through lzma (examples carried to a lent
    machine travel compressed: the 164,358 of `--squad11 -1` are about 100 MB as text, 6.6 MB in xz)."""
    if path.suffix == ".xz":
        import lzma

        return lzma.open(path, mode + "t", encoding="utf-8", preset=9 if mode == "w" else None)
    return open(path, mode, encoding="utf-8")


def examples_file(d: Path, name: str) -> Path:
    """`name`.jsonl.xz in `d` if it is there, else `name`.jsonl (what `train-reader --examples-only` saved)."""
    xz = d / f"{name}.jsonl.xz"
    return xz if xz.exists() else d / f"{name}.jsonl"


def save_examples(path: Path, examples: list[Example]) -> None:
    with _open_text(path, "w") as f:
        for e in examples:
            f.write(json.dumps(asdict(e), ensure_ascii=False) + "\n")


def example_from_dict(d: dict) -> Example:
    """An Example back from its saved form (JSON lists made tuples again; examples saved before `answers` have none)."""
    return Example(**{**d, "span": tuple(d["span"]) if d["span"] else None, "answers": tuple(d.get("answers") or ())})


def load_examples(path: Path) -> list[Example]:
    with _open_text(path, "r") as f:
        text = f.read()
    return [example_from_dict(json.loads(line)) for line in text.splitlines() if line.strip()]


@dataclass(frozen=True)
class ExampleSets:
    """The training and held-out examples, and the SQuAD articles held out."""

    train: list[Example]
    heldout: list[Example]
    heldout_articles: set[str]


def build_examples(squad_file: Path, library: Library, seed: int = 0, ncert_questions: int = 700,
                   ncert_claim_passages: int = 500) -> ExampleSets:
    """Every example of `python -m tutor train-reader`: SQuAD, NCERT (the printed questions of `library`'s shelves) and
    claims of both, split by article and chapter; seeded (`seed` for training, `seed + 1` for the held-out part).
    augment.py adds more pairs made from these."""
    rng = random.Random(seed)
    sq_train, held = squad_examples(squad_file, rng, keep="train")
    sq_held, _ = squad_examples(squad_file, random.Random(seed + 1), held, keep="heldout")
    nc_train, nc_passages = ncert_examples(library, rng, "train", ncert_questions)
    nc_held, nc_held_passages = ncert_examples(library, random.Random(seed + 1), "heldout", ncert_questions // 3)
    squad_data = json.loads(squad_file.read_text(encoding="utf-8"))["data"]
    sq_passages = [(a["title"], p["context"]) for a in squad_data for p in a["paragraphs"]]
    nc_passages = rng.sample(nc_passages, min(len(nc_passages), ncert_claim_passages))
    cl_train = (claim_examples([x for x in sq_passages if x[0] not in held], rng, 1, "claim-squad")
                + claim_examples(nc_passages, rng, 1, "claim-ncert"))
    cl_held = (claim_examples([x for x in sq_passages if x[0] in held], random.Random(seed + 1), 1, "claim-squad")
               + claim_examples(nc_held_passages, random.Random(seed + 1), 1, "claim-ncert"))
    return ExampleSets(sq_train + nc_train + cl_train, sq_held + nc_held + cl_held, held)
