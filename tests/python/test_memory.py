"""Memory-LogP's pack model: what a layout does to the caches and the TLB, and the fit."""

import math

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


def counts(layout: Layout, engine: str = "mpi") -> dict[str, float]:
    return dict(zip(FEATURES, layout.features(MACHINE, engine), strict=True))


def test_a_naive_transpose_misses_everything_once_rows_are_pages() -> None:
    c = counts(Layout.parse("transpose:4096"))
    n2 = 4096 * 4096
    assert c["bytes"] == 8 * n2 and c["blocks"] == n2
    # a sweep's 4096 lines, 32 KiB apart, share the 1/64 of L2's sets their page offset
    # allows: each element's line comes from beyond L2, a jump each
    assert c["far lines"] == n2 and c["far jumps"] == n2 and c["L2 lines"] == 0
    assert c["page walks"] == n2  # 4096 pages per sweep: beyond the STLB's 1536
    small = counts(Layout.parse("transpose:128"))  # a sweep of 128 lines, 1 KiB apart
    assert small["L1 lines"] == 0 and small["L2 lines"] == 128 * 128  # 1/16 of L1's sets
    assert small["TLB misses"] == 32 and small["far jumps"] == 0  # 32 pages per sweep


def test_memcomm_transposes_in_strips_and_reads_each_line_once() -> None:
    n2 = 4096 * 4096
    c = counts(Layout.parse("transpose:4096"), "memcomm")
    # 128 MiB streamed: bands of 256 rows, strips 4 lines (32 doubles) wide; the rows are
    # prefetched two micro-tiles (16 rows) ahead, so only 16 of each strip's 256 row pieces
    # start a stream unannounced. A strip's 256 input pages and 32 output pages fit the STLB
    # but not the 91 first-level entries, so every line read or written misses those, and
    # each of the matrix's and the copy's 32768 pages is found once, by a page walk
    assert c["far lines"] == n2 / 8 and c["L1 lines"] == n2 * 7 / 8
    assert c["far jumps"] == n2 * 16 / (32 * 256)
    assert c["page walks"] == 2 * 32768 and c["TLB misses"] == 2 * n2 / 8 - 2 * 32768
    # cached stores (below the streaming threshold): strips one line wide, 4x the jumps
    cached = dict(
        zip(
            FEATURES,
            Layout.parse("transpose:4096").features(Machine(tlb=91, stream=1 << 30), "memcomm"),
            strict=True,
        )
    )
    assert cached["far jumps"] == 4 * c["far jumps"] and cached["page walks"] == 2 * 32768
    # a second-level TLB of 256 entries halves the band to 128 rows (160 pages a strip):
    # twice the strips' starts, the rest as before
    small = dict(
        zip(
            FEATURES,
            Layout.parse("transpose:4096").features(Machine(tlb=91, stlb=256), "memcomm"),
            strict=True,
        )
    )
    assert small["far jumps"] == 2 * c["far jumps"]
    assert {k: v for k, v in small.items() if k != "far jumps"} == {
        k: v for k, v in c.items() if k != "far jumps"
    }


def test_power_of_two_strides_use_fewer_cache_sets() -> None:
    # 8192 doubles 512 B apart: 512 KiB of lines, but on 1/8 of the sets: beyond L2
    assert counts(Layout.vector(8192, 8, 512))["far lines"] == 8192
    # 128 blocks of 512 B 8 KiB apart: 64 KiB of lines on 1/8 of the sets (a page
    # offset's worth: above a page, physical pages spread the sets): still L2
    assert counts(Layout.vector(128, 512, 8192))["L2 lines"] == 1024
    # a stride that is not a power of two spreads over all sets
    assert counts(Layout.vector(8192, 8, 520))["L2 lines"] == 8192


def test_only_blocks_that_leave_the_line_stream_are_jumps() -> None:
    dense = counts(Layout.vector(1 << 20, 8, 16))  # 16 MiB: beyond L2, every line used
    assert dense["far lines"] == (1 << 20) / 4 and dense["far jumps"] == 1  # the start
    sparse = counts(Layout.vector(1 << 18, 64, 256))  # one line in four
    assert sparse["far lines"] == 1 << 18 and sparse["far jumps"] == 1 << 18


def test_pages_touched_not_pages_spanned() -> None:
    # 128 blocks 32 KiB apart touch 128 pages, more than the TLB holds
    assert counts(Layout.vector(128, 512, 32768))["TLB misses"] == pytest.approx(
        128 * (1 + 512 / 4096)
    )
    assert counts(Layout.vector(64, 512, 32768))["TLB misses"] == 0  # 72 pages fit
    # 65536 pages touched: beyond the STLB, a page walk each
    walks = counts(Layout.vector(1 << 16, 64, 4096))
    assert walks["page walks"] == 1 << 16 and walks["TLB misses"] == 0


def test_a_halo_face_is_a_walk_in_memory_order() -> None:
    # the z face of a 90^3 array of doubles, as memcomm normalizes it
    face = Layout.parse("strided:8:90x64800,90x720")
    c = counts(face)
    assert face.bytes == 8 * 90 * 90 and c["blocks"] == 90 * 90
    # 8100 lines (506 KiB) and the 63 KiB copy fit L2; 1416 pages spanned miss the TLB
    assert c["L2 lines"] == 8100 and c["far jumps"] == 0
    assert c["TLB misses"] == math.ceil((89 * 64800 + 89 * 720 + 8) / 4096)
    assert counts(Layout.parse("strided:64800:1x64800"))["blocks"] == 1  # the x face


def test_a_walk_the_model_does_not_know_is_refused() -> None:
    # the innermost step shorter than the next, but an outer step between them
    odd = Layout.parse("strided:8:4x8,4x4096,4x64")
    with pytest.raises(ModelError, match="not this one"):
        odd.features(MACHINE)
    with pytest.raises(ModelError, match="engine must be"):
        Layout.parse("transpose:64").features(MACHINE, "hardware")


def test_fit_recovers_known_costs() -> None:
    layouts = (
        [
            Layout.vector(c, b, b * r)
            for c in (1024, 65536, 1 << 20)
            for b in (8, 64, 512)
            for r in (1, 2, 16)
        ]
        + [Layout.parse(f"transpose:{n}") for n in (128, 512, 2048)]
        + [Layout.vector(1 << 14, 64, 4096), Layout.vector(1 << 17, 8, 16)]
    )
    truth = (0.05e-9, 1e-9, 0.5e-9, 2e-9, 8e-9, 12e-9, 20e-9, 40e-9)
    observed = [
        Observation(x, sum(c * f for c, f in zip(truth, x.features(MACHINE), strict=True)))
        for x in layouts
    ]
    model = fit(observed, MACHINE)
    checks = validate(model, observed)
    assert median_abs_error(checks) < 1e-6
    assert all(abs(c.error) < 1e-6 for c in checks)
    assert model.costs == pytest.approx(truth, rel=1e-4)


def test_held_out_split_keeps_every_family_on_both_sides() -> None:
    vectors = [
        Layout.vector(s // b, b, b * r)
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
    assert held_out(Layout.parse("strided:8:90x64800,90x720"))  # a kind never fitted on


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("vector:1,2", "vector:COUNT,BLOCK,STRIDE"),
        ("matrix:4", "transpose:N"),
        ("vector:10,8,4", "stride >= block"),
        ("transpose:0", "side n >= 1"),
        ("strided:8:4x", "strided:BLOCK:COUNTxSTRIDE"),
        ("strided:0:4x8", "block >= 1"),
    ],
)
def test_bad_layouts_are_named(text: str, message: str) -> None:
    with pytest.raises(ModelError, match=message):
        Layout.parse(text)


def test_too_few_layouts_to_fit() -> None:
    with pytest.raises(ModelError, match="at least 8 layouts"):
        fit([Observation(Layout.parse("transpose:64"), 1e-5)], MACHINE)


def test_the_machine_model_of_a_results_file_gives_the_tlb_levels() -> None:
    model = {
        "TLB_ENTRIES": {"value": 91, "source": "probe"},
        "STLB_ENTRIES": {"value": 2048, "source": "cpuid"},
        "L2_SIZE": {"value": 2 << 20, "source": "sysfs"},
    }
    machine = Machine.of(model)
    assert (machine.tlb, machine.stlb, machine.l2) == (91, 2048, 2 << 20)
    assert Machine.of({}).stlb == 1536  # results written before the model carried it
