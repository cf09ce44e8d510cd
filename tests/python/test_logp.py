"""LogGP fitting from parameterized round trips, on round trips computed from known
parameters (with noise): the fit must give the parameters back, find protocol changes, and
tell a stream's gap per byte from a lone message's."""

import dataclasses
import random

import pytest

from memcomm.models.logp import PRTT, Segment, cross_validate, fit, fit_pingpong, validate
from memcomm.models.logpc import ModelError
from memcomm.models.validation import median_abs_error

EAGER = Segment(1, 65536, L=1.0e-6, o=0.5e-6, g=0.3e-6, G=1.0e-10)
RENDEZVOUS = Segment(65537, 1 << 24, L=4.0e-6, o=3.0e-6, g=2.0e-6, G=0.8e-10)
SIZES = [8 << k for k in range(22)]  # 8 B to 16 MiB


def synthetic(
    segments: list[Segment], noise: float, seed: int = 1, n: int = 16, copies: float = 1.0
) -> list[PRTT]:
    """PRTT as LogGP has them, with the sender's overhead o + (s-1)O; `copies` scales the
    per-byte time of a lone message against a stream's (2: shared memory, where a stream
    overlaps the two copies a lone message makes one after the other)."""
    rng = random.Random(seed)
    points = []
    for s in [s for s in SIZES if s <= segments[-1].largest]:
        seg = next(x for x in segments if s <= x.largest)

        def jitter(t: float) -> float:
            return t * (1 + rng.uniform(-noise, noise))

        one = 2 * (seg.L + 2 * seg.o + (s - 1) * seg.G * copies)
        gap = seg.g + (s - 1) * seg.G
        overhead = seg.o + (s - 1) * seg.O
        delay = 2 * max(gap, overhead)
        points.append(
            PRTT(
                s,
                jitter(one),
                jitter(one + (n - 1) * gap),
                jitter(one + (n - 1) * max(overhead + delay, gap)),
                n,
                delay,
            )
        )
    return points


def test_one_protocol_gives_one_segment_and_its_parameters() -> None:
    single = Segment(1, 1 << 24, L=1.0e-6, o=0.5e-6, g=0.3e-6, G=1.0e-10)
    model = fit(synthetic([single], noise=0.01))
    assert len(model.segments) == 1
    seg = model.segments[0]
    assert pytest.approx(single.G, rel=0.05) == seg.G
    assert seg.g == pytest.approx(single.g, rel=0.1)
    assert seg.o == pytest.approx(single.o, rel=0.1)


def test_a_protocol_change_splits_the_sizes_where_it_happens() -> None:
    points = synthetic([EAGER, RENDEZVOUS], noise=0.01)
    model = fit(points)
    assert len(model.segments) == 2
    first, second = model.segments
    assert first.largest == 65536 and second.smallest == 131072
    assert pytest.approx(RENDEZVOUS.G, rel=0.05) == second.G
    assert second.o == pytest.approx(RENDEZVOUS.o, rel=0.1)
    assert first.o == pytest.approx(EAGER.o, rel=0.1)
    checks = validate(model, points)
    assert len(checks) == len(SIZES) - 2  # the two anchors are left out
    assert median_abs_error(checks) < 0.03


def test_noise_alone_does_not_split() -> None:
    single = Segment(1, 1 << 24, L=1.0e-6, o=0.5e-6, g=0.3e-6, G=1.0e-10)
    for seed in range(5):
        assert len(fit(synthetic([single], noise=0.05, seed=seed)).segments) == 1


def test_too_few_sizes_and_bad_sizes_are_named() -> None:
    with pytest.raises(ModelError, match="at 4 message sizes"):
        fit(synthetic([EAGER, RENDEZVOUS], noise=0)[:3])
    model = fit(synthetic([EAGER, RENDEZVOUS], noise=0))
    with pytest.raises(ModelError, match="message size must be positive"):
        model.pingpong(-8)


def test_the_overhead_per_byte_is_fitted_apart_from_the_overhead() -> None:
    copying = Segment(1, 1 << 24, L=1.0e-6, o=0.5e-6, g=0.3e-6, G=1.0e-10, O=0.5e-10)
    seg = fit(synthetic([copying], noise=0.01)).segments[0]
    assert seg.o == pytest.approx(copying.o, rel=0.1)
    assert pytest.approx(copying.O, rel=0.05) == seg.O


def test_when_a_lone_message_copies_twice_only_the_pingpong_fit_predicts_it() -> None:
    points = synthetic([EAGER, RENDEZVOUS], noise=0.01, copies=2.0)
    streams, pingpong = fit(points), fit_pingpong(points)
    assert [s.largest for s in pingpong.segments] == [s.largest for s in streams.segments]
    assert median_abs_error(validate(streams, points)) > 0.15
    held_out = cross_validate(points)
    assert [c.subject for c in held_out] == SIZES  # every size predicted once
    assert median_abs_error(held_out) < 0.03
    assert pytest.approx(2 * RENDEZVOUS.G, rel=0.05) == pingpong.segments[1].G
    assert pingpong.segments[1].o == streams.segments[1].o  # o and g are the streams'


def test_a_held_out_size_is_predicted_without_its_own_round_trip() -> None:
    points = synthetic([EAGER, RENDEZVOUS], noise=0.01)
    before = {c.subject: c.predicted for c in cross_validate(points)}
    # a slower round trip at 4 KiB, the same gap and overhead (every round trip takes longer)
    slow = 2 * points[9].one
    odd = [
        dataclasses.replace(p, one=p.one + slow, many=p.many + slow, delayed=p.delayed + slow)
        if p.size == 4096
        else p
        for p in points
    ]
    after = {c.subject: c.predicted for c in cross_validate(odd)}
    assert after[4096] == pytest.approx(before[4096], rel=1e-9)
    assert after[2048] != pytest.approx(before[2048], rel=0.01)  # its neighbours use it


def test_an_overhead_beyond_half_the_round_trip_leaves_the_pingpong_line_alone() -> None:
    points = synthetic([EAGER], noise=0)[:8]  # 8 B to 1 KiB
    inflated = [dataclasses.replace(p, delayed=p.delayed + 15 * 1e-3) for p in points]
    seg = fit_pingpong(inflated).segments[0]
    assert seg.L == 0 and seg.o == pytest.approx(EAGER.L / 2 + EAGER.o, rel=0.01)
    assert fit_pingpong(inflated).pingpong(1024) == pytest.approx(points[7].one / 2, rel=0.01)


def test_an_eager_limit_only_a_lone_message_shows_splits_the_sizes() -> None:
    # the same streams on both sides of 64 KiB, but a lone message copies twice above it
    below = synthetic([EAGER], noise=0.01)
    above = synthetic([dataclasses.replace(EAGER, largest=1 << 24)], noise=0.01, copies=2.0)
    points = below + [p for p in above if p.size > EAGER.largest]
    model = fit_pingpong(points)
    assert EAGER.largest in [s.largest for s in model.segments]
    assert median_abs_error(cross_validate(points)) < 0.03
