"""Labelled question sets (schema: ../shared/data/README.md): loading them, the held-out split, a stratified sample
and the deterministic misspelt or reworded variants the evaluation asks."""
from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    expect: str
    klass: str
    subject: str
    library: str
    gold_file: str | None
    gold_pages: tuple[int, ...] | None
    answers: tuple[str, ...] | None
    origin: str
    # the same chapter in the other language (`gold_file_en` / `gold_file_hi`): citing it also counts as covered
    gold_alternatives: tuple[str, ...] = ()
    # a file written with its own split says which half each question is in ("tuning" or "heldout")
    split: str | None = None


def json_rows(path: str | Path) -> Iterator[dict]:
    """The rows of a JSON-lines file (blank lines skipped): every question and conversation set here is one."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def question_from_dict(d: dict) -> Question:
    """One row of a question set (schema: ../shared/data/README.md) as a Question."""
    return Question(
        d["id"], d["question"], d["expect"], str(d["class"]), d["subject"], d["library"], d.get("gold_file"),
        tuple(d["gold_pages"]) if d.get("gold_pages") else None,
        tuple(d["answers"]) if d.get("answers") else None, d.get("origin", ""),
        tuple(d[k] for k in ("gold_file_en", "gold_file_hi") if d.get(k)), d.get("split"),
    )


def load_questions(path: str | Path, limit: int | None = None) -> list[Question]:
    out = [question_from_dict(d) for d in json_rows(path)]
    return out[:limit] if limit else out


SPLITS = ("all", "tuning", "heldout")


def split_questions(questions: list[Question], split: str, training_json: str | Path | None = None) -> list[Question]:
    """The part of a question set held out of all tuning ("heldout"), the rest ("tuning"), or all ("all").

    Held out by article and by chapter, as the reader's training was (tutor/reader/examples.py): a SQuAD question
    of a held-out article (its gold file, or for an unanswerable one its article in the SQuAD training JSON), an
    NCERT question whose gold chapter is held out; a question with neither (off-topic, general knowledge) by the
    SHA-1 of its id, one in four. A question whose file names its half (`split`) is in that half ("test" is held
    out)."""
    import hashlib

    from tutor.reader.examples import heldout_articles, heldout_chapter

    if split == "all":
        return list(questions)
    titles: dict[str, str] = {}
    held: set[str] = set()
    if training_json and Path(training_json).exists():
        data = json.loads(Path(training_json).read_text(encoding="utf-8"))["data"]
        held = {t.lower() for t in heldout_articles(a["title"] for a in data)}
        titles = {qa["id"]: a["title"].lower() for a in data for p in a["paragraphs"] for qa in p["qas"]}

    def is_held(q: Question) -> bool:
        if q.split is not None:  # "test": a file nobody tunes on (short-answers-fresh.jsonl) is held out whole
            return q.split in ("heldout", "test")
        if q.gold_file:
            stem = Path(q.gold_file).stem.lower()
            return stem in held if q.library == "squad2" else heldout_chapter(stem)
        title = titles.get(q.id.removeprefix("squad2-"))
        if title is not None:
            return title in held
        return int(hashlib.sha1(q.id.encode()).hexdigest(), 16) % 4 == 0

    if split not in ("heldout", "tuning"):
        raise ValueError(f"unknown split {split!r}: use all, tuning or heldout")
    return [q for q in questions if is_held(q) == (split == "heldout")]


def sample_questions(questions: list[Question], n: int | None, seed: int = 0) -> list[Question]:
    """A deterministic sample of `n` questions, stratified by `expect` (each label keeps its share, at least one),
    in the file's order. None or n >= len gives every question."""
    import random

    if not n or n >= len(questions):
        return list(questions)
    groups: dict[str, list[int]] = defaultdict(list)
    for i, q in enumerate(questions):
        groups[q.expect].append(i)
    rng = random.Random(seed)
    keep: set[int] = set()
    labels = sorted(groups)
    quotas = {k: max(1, round(n * len(groups[k]) / len(questions))) for k in labels}
    while sum(quotas.values()) > n:  # rounding up every label can overshoot
        quotas[max(labels, key=lambda k: quotas[k])] -= 1
    for k in labels:
        keep |= set(rng.sample(groups[k], min(quotas[k], len(groups[k]))))
    return [questions[i] for i in sorted(keep)]


PERTURBATIONS = ("none", "typos", "reorder")
_REWORD = [(r"^what is meant by\b", "define"), (r"^what do you mean by\b", "define"), (r"^why\b", "for what reason"),
           (r"^explain\b", "describe"), (r"^list\b", "name"), (r"^describe\b", "explain"), (r"^how\b", "in what way"),
           (r"\bdifference\b", "distinction"), (r"\bimportant\b", "significant"), (r"\bcalled\b", "termed"),
           (r"\bexample\b", "instance"), (r"\buses\b", "applications"), (r"\bproperties\b", "characteristics")]


def perturb(question: str, kind: str, seed: str = "") -> str:
    """A deterministic variant of a question (same `seed`, same variant): "typos" puts one slip (a dropped, doubled,
    swapped or replaced letter) in about half of the words of five letters or more; "reorder" rewords the opening
    and a few common words and moves the first clause behind the rest ("Why is X used in Y?" -> "Y for what reason
    is X used in?" reads badly but keeps every content word). "none" returns the question."""
    import random
    import re

    if kind == "none":
        return question
    rng = random.Random(f"{seed}|{kind}|{question}")
    if kind == "typos":
        out = []
        for w in question.split():
            core = re.match(r"^([A-Za-z]+)(.*)$", w)
            if core and len(core.group(1)) >= 5 and rng.random() < 0.5:
                letters, rest = list(core.group(1)), core.group(2)
                i = rng.randrange(1, len(letters) - 1)  # keep the first letter, as people's typos mostly do
                op = rng.choice(("drop", "double", "swap", "replace"))
                if op == "drop":
                    del letters[i]
                elif op == "double":
                    letters.insert(i, letters[i])
                elif op == "swap":
                    letters[i], letters[i + 1] = letters[i + 1], letters[i]
                else:
                    letters[i] = rng.choice([c for c in "aeiounrst" if c != letters[i].lower()])
                w = "".join(letters) + rest
            out.append(w)
        return " ".join(out)
    if kind == "reorder":
        q = question.strip().rstrip("?.").strip()
        for pat, rep in _REWORD:
            q = re.sub(pat, rep, q, count=1, flags=re.I)
        parts = re.split(r",\s*|\s+(?=(?:in|of|for|from|when|during|with)\s)", q, maxsplit=1)
        if len(parts) == 2 and parts[1]:
            q = f"{parts[1]} {parts[0]}"
        return q[:1].upper() + q[1:] + "?"
    raise ValueError(f"unknown perturbation {kind!r}: use one of {', '.join(PERTURBATIONS)}")


def perturbed(questions: list[Question], kind: str, seed: str = "") -> list[Question]:
    """The questions with their text perturbed (ids, labels and gold pages kept)."""
    from dataclasses import replace

    return [replace(q, question=perturb(q.question, kind, seed or q.id)) for q in questions]
