"""Small counting helpers shared by the evaluation, the bench and the reader's training report: rates and percentiles.

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
