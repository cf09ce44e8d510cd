"""The statistics of the timing method, on samples whose answers are known."""

import math

import pytest

from memcomm.stats import median, median_interval, summarize


def test_median_of_odd_and_even_counts() -> None:
    assert median([3.0, 1.0, 2.0]) == 2.0
    assert median([4.0, 1.0, 3.0, 2.0]) == 2.5


def test_median_interval_matches_binomial_tables() -> None:
    # published order-statistic intervals for the median at 95%: n=10 -> (x2, x9),
    # n=20 -> (x6, x15), n=100 -> (x40, x61) (1-based)
    assert median_interval(10) == (1, 8)
    assert median_interval(20) == (5, 14)
    assert median_interval(100) == (39, 60)


def test_too_few_samples_give_the_whole_range() -> None:
    assert median_interval(5) == (0, 4)
    assert median_interval(1) == (0, 0)


def test_summary_of_known_samples() -> None:
    samples = [float(x) for x in range(1, 11)]  # 1..10
    s = summarize(samples)
    assert s.n == 10 and s.median == 5.5 and s.minimum == 1.0
    assert (s.low, s.high) == (2.0, 9.0)
    assert s.rse == pytest.approx((9.0 - 2.0) / 2 / 1.96 / 5.5)


def test_one_outlier_does_not_move_the_median_or_its_interval_much() -> None:
    calm = [1.0 + 0.01 * (i % 5) for i in range(40)]
    s1, s2 = summarize(calm), summarize([*calm[:-1], 1000.0])
    assert s2.median == pytest.approx(s1.median, rel=0.01)
    assert s2.high <= 1.05


def test_bad_samples_are_refused() -> None:
    with pytest.raises(ValueError):
        summarize([])
    with pytest.raises(ValueError):
        summarize([1.0, -2.0])
    with pytest.raises(ValueError):
        summarize([1.0, math.nan])
