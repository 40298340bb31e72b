"""Small counting helpers shared by the evaluation, the bench and the reader's training report: rates, percentiles and
ROC AUC.

Kept apart from evaluate.py so that the reader's training (which evaluate reads for its held-out split) can use them
without an import circle.
"""
from __future__ import annotations

import math
from collections.abc import Iterable


def rate(num: float, den: int) -> float | None:
    """num / den to four places; None when there is nothing to count."""
    return round(num / den, 4) if den else None


def percentile(values: Iterable[float], p: float) -> float | None:
    """The p-th percentile (0..100), interpolating linearly between closest ranks as numpy does; None when empty."""
    s = sorted(float(v) for v in values)
    if not s:
        return None
    if not 0 <= p <= 100:
        raise ValueError(f"percentile {p} is outside [0, 100]")
    pos = (len(s) - 1) * p / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def roc_auc(pos: list[float], neg: list[float]) -> float | None:
    """ROC AUC of scores of positives against negatives by ranks (the Mann-Whitney U over both counts); None when either
    side is empty."""
    if not pos or not neg:
        return None
    import numpy as np

    ranks = np.array(pos + neg).argsort().argsort() + 1
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def squad_normalize(text: str) -> str:
    """SQuAD's official answer normalisation: lower case, punctuation and the articles a / an / the out, spaces
    collapsed (evaluate-v2.0.py's normalize_answer)."""
    import re
    import string

    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def squad_scores(prediction: str, golds: Iterable[str]) -> tuple[float, float]:
    """SQuAD's official exact match and token F1 of one prediction: the best over the gold answers."""
    pred = squad_normalize(prediction).split()
    em = f1 = 0.0
    for gold in golds:
        g = squad_normalize(gold).split()
        em = max(em, float(pred == g))
        common = sum(min(g.count(w), pred.count(w)) for w in set(pred))
        if common:
            f1 = max(f1, 2 * common / (len(g) + len(pred)))
        elif not g and not pred:
            f1 = max(f1, 1.0)
    return em, f1
