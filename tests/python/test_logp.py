"""LogGP fitting from parameterized round trips, on round trips computed from known
parameters (with noise): the fit must give the parameters back, and find protocol changes."""

import random

import pytest

from memcomm.models.logp import PRTT, Segment, fit, validate
from memcomm.models.logpc import ModelError
from memcomm.models.validation import median_abs_error

EAGER = Segment(1, 65536, L=1.0e-6, o=0.5e-6, g=0.3e-6, G=1.0e-10)
RENDEZVOUS = Segment(65537, 1 << 24, L=4.0e-6, o=3.0e-6, g=2.0e-6, G=0.8e-10)
SIZES = [8 << k for k in range(22)]  # 8 B to 16 MiB


def synthetic(segments: list[Segment], noise: float, seed: int = 1, n: int = 16) -> list[PRTT]:
    rng = random.Random(seed)
    points = []
    for s in SIZES:
        seg = next(x for x in segments if s <= x.largest)

        def jitter(t: float) -> float:
            return t * (1 + rng.uniform(-noise, noise))

        one = 2 * (seg.L + 2 * seg.o + (s - 1) * seg.G)
        gap = seg.g + (s - 1) * seg.G
        delay = 2 * gap
        points.append(
            PRTT(
                s,
                jitter(one),
                jitter(one + (n - 1) * gap),
                jitter(one + (n - 1) * max(seg.o + delay, gap)),
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
