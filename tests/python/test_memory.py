"""Memory-LogP's pack model: what a layout does to the caches and the TLB, and the fit."""

import pytest

from memcomm.models.logpc import ModelError
from memcomm.models.memory import (
    FEATURES,
    Layout,
    Machine,
    Observation,
    fit,
    held_out,
    validate,
)
from memcomm.models.validation import median_abs_error

MACHINE = Machine(line=64, page=4096, tlb=91, l1=48 << 10, l2=2 << 20)


def counts(layout: Layout) -> dict[str, float]:
    return dict(zip(FEATURES, layout.features(MACHINE), strict=True))


def test_a_naive_transpose_misses_everything_once_rows_are_pages() -> None:
    c = counts(Layout.parse("transpose:4096"))
    n2 = 4096 * 4096
    assert c["bytes"] == 8 * n2 and c["blocks"] == n2
    # a sweep's 4096 lines (256 KiB) outgrow L1 but fit L2: each line comes from beyond L2
    # once (the 128 MiB matrix) and from L2 for its other 7 elements
    assert c["far lines"] == n2 / 8 and c["L2 lines"] == n2 * 7 / 8
    assert c["TLB misses"] == n2  # 4096 pages per sweep, 91 entries
    small = counts(Layout.parse("transpose:128"))  # a sweep of 128 lines fits L1
    assert small["L1 lines"] == 128 * 128 * 7 / 8 and small["TLB misses"] == 32


def test_power_of_two_strides_use_fewer_cache_sets() -> None:
    # 8192 doubles 512 B apart: 512 KiB of lines, but on 1/8 of the sets: beyond L2
    assert counts(Layout("vector", 8192, 8, 512))["far lines"] == 8192
    # 128 blocks of 512 B 8 KiB apart: 64 KiB of lines on 1/16 of the sets: still L2
    assert counts(Layout("vector", 128, 512, 8192))["L2 lines"] == 1024
    # a stride that is not a power of two spreads over all sets
    assert counts(Layout("vector", 8192, 8, 520))["L2 lines"] == 8192


def test_pages_touched_not_pages_spanned() -> None:
    # 128 blocks 32 KiB apart touch 128 pages, more than the TLB holds
    assert counts(Layout("vector", 128, 512, 32768))["TLB misses"] == pytest.approx(
        128 * (1 + 512 / 4096)
    )
    assert counts(Layout("vector", 64, 512, 32768))["TLB misses"] == 0  # 72 pages fit


def test_fit_recovers_known_costs() -> None:
    layouts = [
        Layout("vector", c, b, b * r)
        for c in (1024, 65536, 1 << 20)
        for b in (8, 64, 512)
        for r in (2, 16)
    ] + [Layout.parse(f"transpose:{n}") for n in (128, 512, 2048)]
    truth = (0.05e-9, 1e-9, 0.5e-9, 2e-9, 8e-9, 20e-9)
    observed = [
        Observation(x, sum(c * f for c, f in zip(truth, x.features(MACHINE), strict=True)))
        for x in layouts
    ]
    model = fit(observed, MACHINE)
    checks = validate(model, observed)
    assert median_abs_error(checks) < 1e-6
    assert all(abs(c.error) < 1e-6 for c in checks)


def test_held_out_split_keeps_every_family_on_both_sides() -> None:
    vectors = [
        Layout("vector", s // b, b, b * r)
        for s in (1 << 16, 1 << 20, 1 << 24)
        for b in (8, 16, 64, 512)
        for r in (2, 4, 16, 64)
    ]
    out = [x for x in vectors if held_out(x)]
    assert 0.3 < len(out) / len(vectors) < 0.7
    for b in (8, 16, 64, 512):
        sides = {held_out(x) for x in vectors if x.block == b}
        assert sides == {True, False}
    assert [held_out(Layout.parse(f"transpose:{n}")) for n in (128, 256, 512, 1024)] == [
        False,
        True,
        False,
        True,
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("vector:1,2", "vector:COUNT,BLOCK,STRIDE"),
        ("matrix:4", "transpose:N"),
        ("vector:10,8,4", "stride >= block"),
        ("transpose:0", "count >= 1"),
    ],
)
def test_bad_layouts_are_named(text: str, message: str) -> None:
    with pytest.raises(ModelError, match=message):
        Layout.parse(text)


def test_too_few_layouts_to_fit() -> None:
    with pytest.raises(ModelError, match="at least 6 layouts"):
        fit([Observation(Layout.parse("transpose:64"), 1e-5)], MACHINE)
