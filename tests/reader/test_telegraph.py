"""Training questions written as the tutor's readings are (tutor/reader/telegraph.py)."""
from __future__ import annotations

import pytest

from tutor.reader.examples import Example
from tutor.reader.telegraph import telegraphed, telegraphic


@pytest.mark.parametrize(("question", "reading"), [
    ("What is the SI unit of electric current?", "what is si unit electric current"),
    ("How many chambers does the heart have?", "how many chambers heart"),
    ("Explain the rusting of iron.", "explain rusting iron"),
    ("Why do planets not twinkle?", "why planets not twinkle"),  # a negation is kept: it changes what is asked
    ("In what country is Normandy located?", "what is country normandy located"),
])
def test_a_question_is_written_as_a_reading_writes_it(question, reading):
    assert telegraphic(question) == reading


def test_a_share_of_the_qa_examples_gets_a_telegraphic_copy_with_the_same_passage_label_and_span():
    qa = [Example("qa", f"What is thing {i}?", f"Thing {i} is a thing.", i % 2, (0, 7) if i % 2 else None, "squad",
                  "A") for i in range(200)]
    claim = Example("claim", "Things are things.", "Thing 1 is a thing.", 1, None, "claim-squad", "A")
    out = telegraphed(qa + [claim], 0.5, seed=3)
    assert out[:201] == qa + [claim]  # the originals first, unchanged
    copies = out[201:]
    assert 60 < len(copies) < 140 and all(c.source == "squad-tele" and c.task == "qa" for c in copies)
    by_question = {e.first: e for e in qa}
    for c in copies:
        original = by_question[f"What is thing {c.first.split()[-1]}?"]
        assert c.first == f"what is thing {c.first.split()[-1]}"
        assert (c.second, c.label, c.span, c.group) == (original.second, original.label, original.span, original.group)
    assert telegraphed(qa, 0.5, seed=3) == qa + copies  # seeded: the same copies again
    assert telegraphed(qa, 0.0, seed=3) == qa
