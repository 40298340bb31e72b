"""Training questions made part Hindi through the English-Hindi dictionary (tutor/reader/codemix.py), on a tiny
dictionary written in the test."""
from __future__ import annotations

import gzip
import random

from tutor.reader.codemix import code_mix, code_mixed, english_hindi
from tutor.reader.examples import Example

DICTD = """water /wˈɔːtə/ <N>
1. पानी, जल
river /ɹˈɪvə/ <N>
1. नदी
flow /flˈəʊ/ <V>
1. बहना
"""


def _dictionary(tmp_path):
    path = tmp_path / "eng-hin.dict.dz"
    path.write_bytes(gzip.compress(DICTD.encode("utf-8")))
    return path


def test_words_the_dictionary_has_become_hindi_question_words_lead_and_glue_words_go(tmp_path):
    table = english_hindi(str(_dictionary(tmp_path)))
    assert table == {"water": "पानी", "river": "नदी", "flow": "बहना"}
    mixed = code_mix("Why does the water of the rivers flow in 1995?", table, random.Random(0), rate=1.0)
    words = mixed.split()
    assert words[0] == "क्यों" and "पानी" in words and "नदी" in words and "बहना" in words and "1995?" in words
    assert "the" not in words and "does" not in words and "rivers" not in words
    assert code_mix("What is Ohm's law?", table, random.Random(0), rate=1.0).startswith("क्या")  # unknown: English
    assert "Ohm's" in code_mix("What is Ohm's law?", table, random.Random(0), rate=1.0)


def test_a_share_of_qa_questions_is_mixed_claims_and_labels_are_not(tmp_path):
    path = _dictionary(tmp_path)
    ex = [Example("qa", f"Where does the river {i} flow?", "The river flows east.", i % 2, None, "squad", "a")
          for i in range(200)] + [Example("claim", "The river flows east.", "The river flows east.", 1, None,
                                          "claim-squad", "a")]
    out = code_mixed(ex, path, 0.5, seed=0)
    mixed = [e for e in out if e.source.endswith("-hi")]
    assert 70 < len(mixed) < 130 and all(e.task == "qa" for e in mixed)
    assert [e.label for e in out] == [e.label for e in ex] and [e.second for e in out] == [e.second for e in ex]
    assert out[-1] == ex[-1] and code_mixed(ex, path, 0.5, seed=0) == out  # seeded
