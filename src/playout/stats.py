"""Small statistics shared by every match and benchmark report."""

from __future__ import annotations

import math


def wilson_interval(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a rate ``score / n`` (``score`` may count draws as 0.5).

    Wilson, "Probable inference, the law of succession, and statistical
    inference", JASA 22 (1927); ``z = 1.96`` gives the 95% interval.  ``n == 0``
    gives ``(0, 1)``.

    >>> lo, hi = wilson_interval(140, 200)
    >>> round(lo, 3), round(hi, 3)
    (0.633, 0.759)
    """
    if n == 0:
        return 0.0, 1.0
    p = score / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p)) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
