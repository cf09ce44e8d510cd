"""Statistics of repeated timings: the median with a distribution-free confidence interval.

Timings on a shared machine have a floor and a long tail of interference, so the suite
reports medians, not means, and their 95% confidence interval from order statistics (no
assumption of normality): the interval [x_(l), x_(u)] of the sorted samples with
P(l <= B < u) >= 95% for B ~ Binomial(n, 1/2). docs/timing.md describes the whole method.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Summary:
    """One measurement's samples, summarized."""

    n: int
    median: float
    low: float  # 95% confidence interval of the median
    high: float
    minimum: float
    rse: float  # relative standard error of the median, from the interval


def median(values: Sequence[float]) -> float:
    if not values:
        raise ValueError("median of no samples")
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def _binomial_cdf(k: int, n: int) -> float:
    """P(B <= k) for B ~ Binomial(n, 1/2)."""
    if k < 0:
        return 0.0
    ways: int = sum(math.comb(n, i) for i in range(min(k, n) + 1))
    return ways / (1 << n)


def median_interval(n: int, confidence: float = 0.95) -> tuple[int, int]:
    """0-based ranks (l, u) of the order statistics bounding the median with `confidence`:
    the narrowest symmetric pair with P(l < B <= u) >= confidence, B ~ Binomial(n, 1/2).
    For very small n no pair reaches it: the full range is returned."""
    if n < 1:
        raise ValueError("no samples")
    best = (0, n - 1)
    for low in range(n // 2, -1, -1):
        high = n - 1 - low
        if _binomial_cdf(high, n) - _binomial_cdf(low, n) >= confidence:
            return (low, high)
    return best


def summarize(samples: Sequence[float], confidence: float = 0.95) -> Summary:
    if not samples:
        raise ValueError("no samples to summarize")
    if any(not math.isfinite(x) or x < 0 for x in samples):
        raise ValueError("samples must be finite and non-negative")
    s = sorted(samples)
    low, high = median_interval(len(s), confidence)
    m = median(s)
    rse = (s[high] - s[low]) / 2 / 1.96 / m if m > 0 else math.inf
    return Summary(len(s), m, s[low], s[high], s[0], rse)
