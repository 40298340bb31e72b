"""The second-generation reader's SQuAD examples: every SQuAD 1.1 train question can be read (87,599, sampled to what a
session can train), each with the window that answers it and a negative built for it.

A question's positive is a three-sentence window of its paragraph holding the answer (at a random place in it), with
the answer's span. Its negative is one of the kinds below, drawn in the proportions of `NEGATIVE_MIX`; each kind's
label holds by construction (the answer text is not in the window, or the question asks about something the window
does not contain):

- `other`: the window of another paragraph of the same article that the article's own BM25 ranks first for the
  question (on topic, the hardest no-answer the article has);
- `same`: a window of the question's own paragraph that does not hold the answer;
- `swap`: the question changed so its window no longer answers it, in SQuAD 2.0's categories (an entity or number of
  the article the window does not mention, an antonym, the verb negated: augment.swap_question), read against the
  window that answered the original;
- `drop`: the answering window with the answer's sentence taken out.

Held out of training, by article: the 10 articles of SQuAD 2.0 train that `squad2-train-10-articles.json` holds (their
348 real unanswerables measure whether built negatives teach what real ones ask), every SQuAD 2.0 dev article (the
`squad2-in-library.jsonl` questions are on them), and the SQuAD 1.1 train articles whose title's SHA-1 is 0 mod 25
(validation: the span head's exact match and F1 on articles never trained on).
"""
from __future__ import annotations

import hashlib
import json
import math
import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from tutor.reader.augment import _pool, swap_question
from tutor.reader.examples import WINDOW, Example, sentences, window
from tutor.text.terms import content_terms

NEGATIVE_MIX = {"other": 0.3, "same": 0.15, "swap": 0.35, "drop": 0.2}
FALLBACK = ("swap", "drop", "same", "other")  # when the drawn kind cannot be made: the nearest misses first


def norm_title(title: str) -> str:
    """SQuAD titles are written with underscores in one file and spaces in another."""
    return title.replace("_", " ").strip().lower()


def validation_article(title: str) -> bool:
    """SQuAD 1.1 train articles held out for validation: title's SHA-1 is 0 mod 25 (about 18 of 442, fixed)."""
    return int(hashlib.sha1(norm_title(title).encode()).hexdigest(), 16) % 25 == 0


class ArticleBM25:
    """BM25 over the three-sentence windows of one article's paragraphs (k1 1.2, b 0.75; higher is closer)."""

    def __init__(self, paragraphs: Sequence[str]):
        self.windows: list[tuple[int, str]] = []  # (paragraph index, window text)
        for pi, text in enumerate(paragraphs):
            spans = sentences(text)
            for first in range(max(1, len(spans) - WINDOW + 1)):
                self.windows.append((pi, window(text, spans, first)[0]))
        self.tf = [Counter(content_terms(t)) for _, t in self.windows]
        self.len = [sum(c.values()) for c in self.tf]
        self.avg = sum(self.len) / max(1, len(self.len))
        df: Counter = Counter()
        for c in self.tf:
            df.update(c.keys())
        n = len(self.tf)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def ranked(self, question: str) -> list[int]:
        """Window indexes, best first."""
        q = set(content_terms(question))
        scores = []
        for i, (c, n) in enumerate(zip(self.tf, self.len)):
            s = 0.0
            for t in q & c.keys():
                f = c[t]
                s += self.idf[t] * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * n / self.avg))
            scores.append((s, i))
        return [i for _, i in sorted(scores, reverse=True)]


def _answer_window(ctx: str, spans: list[tuple[int, int]], a_s: int, a_e: int,
                   rng: random.Random) -> tuple[str, int] | None:
    si = next((i for i, (s, e) in enumerate(spans) if s <= a_s < e), len(spans) - 1)
    firsts = [f for f in range(si - WINDOW + 1, si + 1) if 0 <= f]
    rng.shuffle(firsts)
    for first in firsts:
        text, off = window(ctx, spans, first)
        if off <= a_s and a_e <= off + len(text):
            return text, off
    return None


def _negative(kind: str, q: str, answer: str, ctx: str, spans: list[tuple[int, int]], pi: int, win: str,
              bm25: ArticleBM25, pool: tuple[list[str], list[str]], rng: random.Random) -> str | None:
    """One negative window (or the changed question's window, for `swap`) of the given kind; None if it cannot be
    made for this question."""
    low = answer.lower()
    if kind == "other":
        for i in bm25.ranked(q)[:12]:
            p, text = bm25.windows[i]
            if p != pi and low not in text.lower():
                return text
        return None
    if kind == "same":
        cands = [window(ctx, spans, f)[0] for f in range(max(1, len(spans) - WINDOW + 1))]
        cands = [t for t in cands if low not in t.lower() and len(t.split()) >= 12]
        return rng.choice(cands) if cands else None
    if kind == "drop":
        a_s = ctx.find(win)
        si = next((i for i, (s, e) in enumerate(spans) if s <= a_s + win.lower().find(low) < e), None)
        if si is None:
            return None
        rest = [sp for i, sp in enumerate(spans) if i != si]
        first = max(0, min(si - 1 - rng.randrange(2), len(rest) - WINDOW))
        text = " ".join(ctx[a:b].strip() for a, b in rest[first:first + WINDOW])
        return text if low not in text.lower() and len(text.split()) >= 12 else None
    raise ValueError(kind)


def squad11_examples(train_file: Path, rng: random.Random, *, questions: int | None = None,
                     exclude: set[str] = frozenset(), keep: str = "train",
                     negatives: float = 1.0, mix: dict[str, float] | None = None) -> list[Example]:
    """Examples of the SQuAD 1.1 train articles: `keep` "train" (not excluded, not validation) or "validation".
    `questions` samples that many questions (None: all); each gets its positive and, with probability `negatives`,
    one negative of a kind drawn from `mix` (another kind when that one cannot be made)."""
    mix = mix or NEGATIVE_MIX
    data = json.loads(Path(train_file).read_text(encoding="utf-8"))["data"]
    arts = [a for a in data if norm_title(a["title"]) not in exclude
            and validation_article(a["title"]) == (keep == "validation")]
    refs = [(ai, pi, qi) for ai, a in enumerate(arts) for pi, p in enumerate(a["paragraphs"])
            for qi in range(len(p["qas"]))]
    if questions is not None and questions < len(refs):
        refs = sorted(rng.sample(refs, questions))
    kinds, weights = list(mix), list(mix.values())
    out: list[Example] = []
    cache: dict[int, tuple[ArticleBM25, tuple[list[str], list[str]], list]] = {}
    for ai, pi, qi in refs:
        art = arts[ai]
        if ai not in cache:
            cache.clear()  # refs are sorted by article: one article's index at a time
            paras = [p["context"] for p in art["paragraphs"]]
            cache[ai] = (ArticleBM25(paras), _pool(paras), [sentences(c) for c in paras])
        bm25, pool, all_spans = cache[ai]
        ctx = art["paragraphs"][pi]["context"]
        spans = all_spans[pi]
        qa = art["paragraphs"][pi]["qas"][qi]
        q, a = qa["question"].strip(), qa["answers"][0]
        a_s, a_e = a["answer_start"], a["answer_start"] + len(a["text"])
        got = _answer_window(ctx, spans, a_s, a_e, rng)
        if got is None:
            continue
        win, off = got
        title = art["title"]
        out.append(Example("qa", q, win, 1, (a_s - off, a_e - off), "squad11", title))
        if rng.random() >= negatives:
            continue
        first = rng.choices(kinds, weights)[0]
        for kind in [first] + [k for k in FALLBACK if k != first]:
            if kind == "swap":
                bad = swap_question(q, win, *pool, rng, negate=True)
                if bad is not None and bad != q:
                    out.append(Example("qa", bad, win, 0, None, "squad11-swap", title))
                    break
                continue
            text = _negative(kind, q, a["text"], ctx, spans, pi, win, bm25, pool, rng)
            if text is not None:
                out.append(Example("qa", q, text, 0, None, f"squad11-{kind}", title))
                break
    return out


def real_unanswerables(squad2_file: Path, rng: random.Random, source: str) -> list[Example]:
    """SQuAD 2.0's own unanswerable questions, each with the window around its plausible answer (or the sentence
    sharing most words with it) as a negative, and its answerable questions with their answering window (positive,
    span): for measuring only."""
    from tutor.reader.examples import _overlap

    out: list[Example] = []
    for art in json.loads(Path(squad2_file).read_text(encoding="utf-8"))["data"]:
        for p in art["paragraphs"]:
            ctx = p["context"]
            spans = sentences(ctx)
            for qa in p["qas"]:
                q = qa["question"].strip()
                if qa.get("is_impossible"):
                    plaus = (qa.get("plausible_answers") or [{}])[0]
                    if plaus.get("text"):
                        si = next((i for i, (s, e) in enumerate(spans) if s <= plaus["answer_start"] < e), 0)
                    else:
                        si = max(range(len(spans)), key=lambda j: _overlap(q, ctx[spans[j][0]:spans[j][1]]))
                    text, _ = window(ctx, spans, max(0, min(si - 1, len(spans) - WINDOW)))
                    out.append(Example("qa", q, text, 0, None, f"{source}-real", art["title"]))
                elif qa["answers"]:
                    a = qa["answers"][0]
                    a_s, a_e = a["answer_start"], a["answer_start"] + len(a["text"])
                    got = _answer_window(ctx, spans, a_s, a_e, rng)
                    if got is not None:
                        golds = tuple(dict.fromkeys(g["text"] for g in qa["answers"]))
                        out.append(Example("qa", q, got[0], 1, (a_s - got[1], a_e - got[1]), source, art["title"],
                                           golds))
    return out


def titles(squad_file: Path) -> set[str]:
    return {norm_title(a["title"]) for a in json.loads(Path(squad_file).read_text(encoding="utf-8"))["data"]}


def build_examples_v2(training_dir: Path, library, seed: int = 0, questions: int | None = None,
                      ncert_questions: int = 700, claim_passages: int = 500, validation_questions: int = 1500,
                      real: bool = False, ncert_repeat: int = 1):
    """Every example of `train-reader --squad11 N`: the SQuAD 1.1 train questions (sampled to `questions`) with their
    built negatives, the NCERT printed-question pairs (each `ncert_repeat` times) and the claims (support head) of
    both, split by article and chapter. The held-out part: validation articles of SQuAD 1.1 train, the SQuAD 2.0 dev
    articles and the 10 SQuAD 2.0 train articles with their real unanswerables, the held-out NCERT chapters. With
    `real`, SQuAD 2.0's own questions, real unanswerables included, of the 10 train articles and of the dev articles
    not held out (examples.heldout_articles: the squad2-in-library questions of the others stay held out) are trained
    on too."""
    from tutor.reader.examples import ExampleSets, claim_examples, heldout_articles, ncert_examples

    train_file = training_dir / "squad11-train.json"
    dev_file = training_dir / "squad2-dev-articles.json"
    ten_file = training_dir / "squad2-train-10-articles.json"
    rng, held_rng = random.Random(seed), random.Random(seed + 1)
    exclude = titles(dev_file) | titles(ten_file)
    train = squad11_examples(train_file, rng, questions=questions, exclude=exclude)
    held = squad11_examples(train_file, held_rng, questions=validation_questions, exclude=exclude, keep="validation")
    dev_real = real_unanswerables(dev_file, held_rng, "squad-dev")
    ten_real = real_unanswerables(ten_file, held_rng, "squad2-ten")
    if real:
        dev_held = heldout_articles(a["title"] for a in json.loads(dev_file.read_text(encoding="utf-8"))["data"])
        train += [e for e in dev_real if e.group not in dev_held] + ten_real
        held += [e for e in dev_real if e.group in dev_held]
    else:
        held += dev_real + ten_real
    nc_train, nc_passages = ncert_examples(library, rng, "train", ncert_questions)
    nc_held, nc_held_passages = ncert_examples(library, held_rng, "heldout", ncert_questions // 3)
    data = json.loads(train_file.read_text(encoding="utf-8"))["data"]
    sq = [(a["title"], p["context"]) for a in data if norm_title(a["title"]) not in exclude for p in a["paragraphs"]]
    sq_train = [x for x in sq if not validation_article(x[0])]
    sq_val = [x for x in sq if validation_article(x[0])]
    claims = (claim_examples(rng.sample(sq_train, min(len(sq_train), 2 * claim_passages)), rng, 1, "claim-squad")
              + claim_examples(rng.sample(nc_passages, min(len(nc_passages), claim_passages)), rng, 1, "claim-ncert"))
    claims_held = (claim_examples(held_rng.sample(sq_val, min(len(sq_val), 300)), held_rng, 1, "claim-squad")
                   + claim_examples(nc_held_passages, held_rng, 1, "claim-ncert"))
    held_titles = {a["title"] for a in data if validation_article(a["title"])} | {
        a["title"] for f in (dev_file, ten_file) for a in json.loads(f.read_text(encoding="utf-8"))["data"]}
    if real:
        held_titles -= {a["title"] for a in json.loads(ten_file.read_text(encoding="utf-8"))["data"]}
        held_titles -= {a["title"] for a in json.loads(dev_file.read_text(encoding="utf-8"))["data"]} - dev_held
    return ExampleSets(train + nc_train * ncert_repeat + claims, held + nc_held + claims_held, held_titles)


# the held-out parts measured apart (sources of tutor.reader.examples.Example), for the config's figures
HELDOUT_PARTS = {
    "squad11-validation": ("squad11", "squad11-other", "squad11-same", "squad11-swap", "squad11-drop"),
    "squad-dev": ("squad-dev", "squad-dev-real"),
    "squad2-ten": ("squad2-ten", "squad2-ten-real"),
    "ncert": ("ncert",),
    "claims": ("claim-squad", "claim-ncert"),
}
