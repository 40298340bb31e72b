"""Training the answerability reader (tutor/reader/model.py): the examples, the held-out split, the loop and the export.

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
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

from tutor.text.sentences import sentence_spans
from tutor.text.terms import content_terms, term_set

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
_OPP = {a: b for a, b in _OPPOSITES} | {b: a for a, b in _OPPOSITES}
_NAME = re.compile(r"(?<=[a-z,;] )[A-Z][a-z]{2,}(?: [A-Z][a-z]{2,})*")
_NUM = re.compile(r"\b\d{2,4}\b")


def corrupt(sentence: str, pool: str, rng: random.Random) -> str | None:
    """The sentence with one name, number or key word replaced so that it no longer says what the text says:
    a name or number from elsewhere in `pool`, or a word's opposite. None when nothing can be swapped."""
    moves = []
    names = [m for m in _NAME.finditer(sentence)]
    pool_names = sorted({m.group(0) for m in _NAME.finditer(pool)} - {m.group(0) for m in names})
    if names and pool_names:
        moves.append("name")
    nums = list(_NUM.finditer(sentence))
    pool_nums = sorted({m.group(0) for m in _NUM.finditer(pool)} - {m.group(0) for m in nums})
    if nums and pool_nums:
        moves.append("number")
    opp = [m for m in re.finditer(r"[A-Za-z]+", sentence) if m.group(0).lower() in _OPP]
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
        w = _OPP[m.group(0).lower()]
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


def ncert_examples(library, rng: random.Random, keep: str = "train", max_questions: int = 700,
                   min_cosine: float = 0.55) -> tuple[list[Example], list[tuple[str, str]]]:
    """Questions printed in the NCERT chapters with windows of their own chapter (positive) and of another chapter
    (negative); also the evidence windows of the kept chapters as (chapter, text) for claim examples."""
    from tutor.safety.gate import rank_sentences, term_weights
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
            cands = rank_sentences(q, pool[:2], weights) if pool else []
            if cands:
                c0 = cands[0]
                spans = [(s, e) for s, e, _ in c0.hit.chunk.sentences]
                text, _ = window(c0.hit.chunk.text, spans, c0.index - 1)
                out.append(Example("qa", q, text, label, None, "ncert", c0.hit.chunk.chapter_code))
    return out, passages


# ---------------------------------------------------------------------------------------------- the loop
def class_weights(examples: Sequence[Example]) -> dict[tuple[str, int], float]:
    """Per (task, label), the weight that makes positives and negatives of a task count equally in the loss."""
    counts: dict[tuple[str, int], int] = {}
    for e in examples:
        counts[(e.task, e.label)] = counts.get((e.task, e.label), 0) + 1
    out = {}
    for (task, label), n in counts.items():
        total = counts.get((task, 0), 0) + counts.get((task, 1), 0)
        out[(task, label)] = total / (2 * n)
    return out


def _loss(net, batch: list[Example], tok, torch, weights: dict[tuple[str, int], float] | None = None):
    """Balanced BCE of the answer head (qa) and the support head (claims), plus SQuAD 2.0 style span cross-entropy:
    the answer's first and last tokens for positives with a span, the [CLS] token (no answer) for qa negatives."""
    from tutor.reader.model import collate, encode_pairs

    enc = encode_pairs(tok, [e.first for e in batch], [e.second for e in batch])
    ids, mask, types, passage = collate(enc)
    a, s, st, en = net(ids, mask, types)
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    y = torch.tensor([float(e.label) for e in batch])
    w = torch.tensor([(weights or {}).get((e.task, e.label), 1.0) for e in batch])
    is_qa = torch.tensor([e.task == "qa" for e in batch])
    loss = torch.zeros(())
    if is_qa.any():
        loss = loss + bce(a[is_qa], y[is_qa], weight=w[is_qa])
    if (~is_qa).any():
        loss = loss + bce(s[~is_qa], y[~is_qa], weight=w[~is_qa])
    # span: cross-entropy over [CLS] and the passage's tokens
    allowed = passage.clone()
    allowed[:, 0] = True
    neg = torch.finfo(st.dtype).min / 2
    st_m, en_m = st.masked_fill(~allowed, neg), en.masked_fill(~allowed, neg)
    rows, starts, ends = [], [], []
    for r, (e, (_, _, offs)) in enumerate(zip(batch, enc)):
        if e.task != "qa":
            continue
        if e.label == 0:
            rows.append(r)
            starts.append(0)
            ends.append(0)
            continue
        if e.span is None:
            continue
        cs, ce = e.span
        toks = [i for i, o in enumerate(offs) if o is not None and o[1] > cs and o[0] < ce]
        if toks:
            rows.append(r)
            starts.append(toks[0])
            ends.append(toks[-1])
    if rows:
        ce_loss = torch.nn.functional.cross_entropy
        r = torch.tensor(rows)
        loss = loss + 0.5 * (ce_loss(st_m[r], torch.tensor(starts)) + ce_loss(en_m[r], torch.tensor(ends)))
    return loss


def train(examples: list[Example], out_dir: Path, *, epochs: float = 1.0, batch_size: int = 16, lr: float = 5e-5,
          seed: int = 0, max_length: int = 160, threads: int | None = None, checkpoint_every: int = 50,
          log: Callable[[str], None] = print) -> dict:
    """Fine-tune the reader on `examples`; resumable from `out_dir/checkpoint.pt` (same examples and seed).

    Batches hold examples of similar length (less padding); the word embeddings stay frozen (they are not shipped)."""
    import resource

    import torch

    from tutor.reader.model import build_net, make_tokenizer

    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = random.Random(seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    tok = make_tokenizer(max_length)
    weights = class_weights(examples)
    net = build_net()
    net.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    params = [p for p in net.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    # length-bucketed batches in a seeded order, fixed for the whole run (so a resumed run sees the same batches)
    order = list(range(len(examples)))
    batches: list[list[int]] = []
    n_epochs = max(1, int(-(-epochs // 1)))
    for ep in range(n_epochs):
        rng.shuffle(order)
        chunked = [order[i : i + batch_size * 20] for i in range(0, len(order), batch_size * 20)]
        ep_batches = []
        for block in chunked:
            block = sorted(block, key=lambda i: len(examples[i].first) + len(examples[i].second))
            ep_batches += [block[i : i + batch_size] for i in range(0, len(block), batch_size)]
        rng.shuffle(ep_batches)
        batches += ep_batches
    total = int(len(batches) * epochs / n_epochs)
    batches = batches[:total]
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda step: min(1.0, (step + 1) / max(1, total // 10)) * max(0.0, (total - step) / total))
    ckpt = out_dir / "checkpoint.pt"
    step, seconds = 0, 0.0
    if ckpt.exists():
        state = torch.load(ckpt, weights_only=False)
        if state["n_examples"] == len(examples) and state["seed"] == seed and state["total"] == total:
            net.load_state_dict(state["net"])
            opt.load_state_dict(state["opt"])
            sched.load_state_dict(state["sched"])
            step, seconds = state["step"], state["seconds"]
            log(f"resumed at step {step}/{total}")
    net.train()
    t0 = time.perf_counter() - seconds
    running = 0.0
    while step < total:
        batch = [examples[i] for i in batches[step]]
        loss = _loss(net, batch, tok, torch, weights)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        step += 1
        running = 0.9 * running + 0.1 * loss.item() if step > 1 else loss.item()
        if step % 10 == 0 or step == total:
            el = time.perf_counter() - t0
            log(f"step {step}/{total}  loss {running:.3f}  {el / 60:.1f} min, about {el / step * (total - step) / 60:.1f} min left")
        if step % checkpoint_every == 0 and step < total:
            tmp = ckpt.with_suffix(".tmp")
            torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "step": step,
                        "seconds": time.perf_counter() - t0, "n_examples": len(examples), "seed": seed,
                        "total": total}, tmp)
            tmp.replace(ckpt)
    net.eval()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"net": net, "steps": total, "seconds": round(time.perf_counter() - t0, 1), "peak_rss_mb": round(peak_mb)}


def export(net, out_dir: Path, config: dict) -> dict:
    """Write the weights in fp16 (without the frozen word embeddings) and the config with their sha256."""
    from safetensors.torch import save_file

    from tutor.files import sha256_file
    from tutor.reader.model import CONFIG_FILE, WEIGHTS_FILE

    state = {k: v.detach().half().contiguous() for k, v in net.state_dict().items()
             if not k.startswith("bert.embeddings.word_embeddings")}
    out_dir.mkdir(parents=True, exist_ok=True)
    w = out_dir / WEIGHTS_FILE
    tmp = w.with_suffix(".tmp")
    save_file(state, str(tmp))
    tmp.replace(w)
    config = {**config, "sha256": sha256_file(w), "bytes": w.stat().st_size}
    (out_dir / CONFIG_FILE).write_text(json.dumps(config, indent=2) + "\n")
    return config


def reader_metrics(reader, examples: list[Example], batch: int = 32) -> dict:
    """Accuracy at 0.5 and ROC AUC of the answer head on qa examples (and of the support head on claims), with
    span exact match / token F1 on positives that have a span."""
    from tutor.evaluation.metrics import rate

    def auc(pos: list[float], neg: list[float]) -> float | None:
        if not pos or not neg:
            return None
        import numpy as np

        allv = np.array(pos + neg)
        ranks = allv.argsort().argsort() + 1
        return round(float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))), 4)

    out: dict = {}
    for task in ("qa", "claim"):
        ex = [e for e in examples if e.task == task]
        if not ex:
            continue
        probs: list[float] = []
        margins: list[float] = []  # best span score minus the no-answer score
        spans_ok, f1s = [], []
        for i in range(0, len(ex), batch):
            part = ex[i : i + batch]
            if task == "qa":
                readings = []
                for e in part:
                    readings += reader.read(e.first, [e.second])
                probs += [r.probability for r in readings]
                margins += [r.span_score - r.null_score for r in readings]
                for e, r in zip(part, readings):
                    if e.label == 1 and e.span:
                        gold = e.second[e.span[0]:e.span[1]]
                        spans_ok.append(r.span.strip(" .,").lower() == gold.strip(" .,").lower())
                        g, p = gold.lower().split(), r.span.lower().split()
                        common = sum(min(g.count(w), p.count(w)) for w in set(p))
                        f1s.append(0.0 if not common else 2 * common / (len(g) + len(p)))
            else:
                probs += reader.supports([e.first for e in part], [e.second for e in part])
        pos = [p for p, e in zip(probs, ex) if e.label == 1]
        neg = [p for p, e in zip(probs, ex) if e.label == 0]
        m = {"n": len(ex), "positives": len(pos), "negatives": len(neg),
             "accuracy": rate(sum((p >= 0.5) == (e.label == 1) for p, e in zip(probs, ex)), len(ex)),
             "accuracy_on_positives": rate(sum(p >= 0.5 for p in pos), len(pos)),
             "accuracy_on_negatives": rate(sum(p < 0.5 for p in neg), len(neg)), "auc": auc(pos, neg)}
        if margins:
            m["span_margin_auc"] = auc([v for v, e in zip(margins, ex) if e.label == 1],
                                       [v for v, e in zip(margins, ex) if e.label == 0])
        if spans_ok:
            m["span_exact_match"] = rate(sum(spans_ok), len(spans_ok))
            m["span_f1"] = round(sum(f1s) / len(f1s), 4)
        by_source: dict[str, list[tuple[float, int]]] = {}
        for p, e in zip(probs, ex):
            by_source.setdefault(e.source, []).append((p, e.label))
        m["by_source"] = {s: {"n": len(v), "accuracy": rate(sum((p >= 0.5) == (y == 1) for p, y in v), len(v)),
                              "auc": auc([p for p, y in v if y == 1], [p for p, y in v if y == 0])}
                          for s, v in by_source.items()}
        out[task] = m
    return out


def summary(examples: list[Example]) -> dict:
    """Counts of examples by source, task and label."""
    out: dict[str, int] = {}
    for e in examples:
        k = f"{e.source}/{e.task}/{'pos' if e.label else 'neg'}"
        out[k] = out.get(k, 0) + 1
    return dict(sorted(out.items()))


def save_examples(path: Path, examples: list[Example]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for e in examples:
            f.write(json.dumps(asdict(e), ensure_ascii=False) + "\n")


def load_examples(path: Path) -> list[Example]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            d["span"] = tuple(d["span"]) if d["span"] else None
            out.append(Example(**d))
    return out
