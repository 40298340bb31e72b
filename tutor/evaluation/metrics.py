"""Small counting helpers shared by the evaluation and the reader's training report.

Kept apart from evaluate.py so that the reader's training (which evaluate reads for its held-out split) can use them
without an import circle.
"""
from __future__ import annotations


def rate(num: float, den: int) -> float | None:
    """num / den to four places; None when there is nothing to count."""
    return round(num / den, 4) if den else None
