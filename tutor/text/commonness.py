"""How common a Hindi word is, as a number a typed word's Devanagari spellings are ranked by.

Dakshina (data/lexicons/) lists, for a word typed in Latin letters, the Devanagari words its annotators typed so, with
how many of them did: a measure of how consistently a word is typed, not of how often it is used. "taar" is ताड़
(palm) and तार (wire) once each, "sahi" साही (porcupine) and सही (right) three times each, "khata" खता (fault) three
times and खाता (eats, account) twice. So the first listed is often the rarer word.

Multilingual e5's tokenizer is XLM-R's unigram SentencePiece model, learnt on CommonCrawl text in a hundred languages:
each piece carries its log-probability, so the probability it gives a word (the sum of its pieces' scores) says how
common the word is in written Hindi. A common word is one piece ("▁तार" -13.7, "▁सही" -12.6), a rare one several
("▁ता" "ड़" -23.8, "▁सा" "ही" -21.4). The tokenizer is read from the file the e5 judge already loads (tutor/reader/
e5_base.py), so it costs nothing more where Hindi questions are read; where it cannot be read, the spellings keep
Dakshina's order.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from functools import lru_cache

log = logging.getLogger(__name__)

_LOCK = threading.Lock()
_TOKENIZER: list = []  # [(tokenizer, scores)] once read; [None] where it cannot be


def _model():
    with _LOCK:
        if not _TOKENIZER:
            try:
                from tutor.reader.e5_base import e5_tokenizer, read_e5_file

                _TOKENIZER.append((e5_tokenizer(), read_e5_file().scores))
            except Exception as e:  # noqa: BLE001 - a reading never fails for want of it: Dakshina's order stands
                log.warning("could not read e5's tokenizer (%s: %s): spellings keep Dakshina's order",
                            type(e).__name__, e)
                _TOKENIZER.append(None)
        return _TOKENIZER[0]


@lru_cache(maxsize=65536)
def log_probability(word: str) -> float | None:
    """The log-probability XLM-R's unigram model gives `word` (the sum of its pieces' scores): higher is commoner.
    None where the tokenizer cannot be read."""
    model = _model()
    if model is None:
        return None
    tokenizer, scores = model
    return float(sum(scores[i] for i in tokenizer.encode(word, add_special_tokens=False).ids))


def commonest_first(words: Sequence[str]) -> tuple[str, ...]:
    """`words` ordered by `log_probability`, commonest first; ties and words it cannot score keep their order, and
    so do all of them where the tokenizer cannot be read."""
    if len(words) < 2:
        return tuple(words)
    probs = [log_probability(w) for w in words]
    if any(p is None for p in probs):
        return tuple(words)
    return tuple(w for _, w in sorted(zip(probs, words), key=lambda pw: -pw[0]))
