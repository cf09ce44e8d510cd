"""Pellegrini, Hoefler and Fahringer's (CLUSTER 2012) placement rules from records: the
ranges take this machine's eager limit and last-level cache, each range's evidence is the
measurements inside it, and a range where the measurement goes against the paper's rule
says so."""

from typing import Any

from memcomm.report import advice

LLC = 32 << 20


def eager(limit: int) -> list[dict[str, Any]]:
    # sends up to `limit` return at once; larger ones wait for the receive delayed 10 ms
    return [
        {"method": "MPI_Send", "bytes": b, "delay": 0.01, "seconds": [1e-6 if b <= limit else 0.01]}
        for b in (1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10)
    ]


def cache_state(gain: dict[int, float]) -> list[dict[str, Any]]:
    out = []
    for size, g in gain.items():
        out.append({"method": "INV", "role": "round trip/2", "bytes": size, "seconds": [1.0]})
        for method in ("EXCL", "MOD"):
            out.append({"method": method, "role": "round trip/2", "bytes": size,
                        "seconds": [1.0 - g]})  # fmt: skip
    return out


def pollution(gain: dict[int, float]) -> list[dict[str, Any]]:
    out = []
    for size, g in gain.items():
        out.append({"method": "BASE_INV", "role": "receiver", "bytes": size, "seconds": [1.0]})
        out.append({"method": "INV", "role": "receiver", "bytes": size, "seconds": [1.0 - g]})
    return out


SIZES = (1 << 10, 256 << 10, 64 << 20)  # one in each range with a 16 KiB eager limit


def test_ranges_take_the_eager_limit_and_half_the_llc() -> None:
    found = advice.advise("mpich", eager(16 << 10), [], [], LLC)
    assert found.eager_limit == (16 << 10, 64 << 10)
    assert [(r.low, r.high) for r in found.ranges] == [
        (0, 16 << 10), (16 << 10, 16 << 20), (16 << 20, None)
    ]  # fmt: skip
    assert all(r.agrees is None for r in found.ranges)  # nothing measured inside them
    assert "no measurement in this range" in advice.text(found)


def test_a_machine_like_the_papers_agrees_in_every_range() -> None:
    # cached data helps and received data is in the cache, up to LLC/2; beyond, no effect
    gains = {SIZES[0]: 0.2, SIZES[1]: 0.25, SIZES[2]: 0.01}
    found = advice.advise("mpich", eager(16 << 10), cache_state(gains), pollution(gains), LLC)
    assert [r.agrees for r in found.ranges] == [True, True, True]
    assert "1 KiB +20%" in found.ranges[0].evidence[0]
    assert "256 KiB +25%" in found.ranges[1].evidence[0]
    assert "CONTRADICTS" not in advice.text(found)


def test_a_range_where_the_measurement_goes_against_the_rule_is_flagged() -> None:
    # here a warm cache costs time up to the eager limit, and beyond LLC/2 it still helps
    gains = {SIZES[0]: -0.2, SIZES[1]: 0.25, SIZES[2]: 0.3}
    found = advice.advise("openmpi", eager(16 << 10), cache_state(gains), [], LLC)
    assert [r.agrees for r in found.ranges] == [False, True, False]
    text = advice.text(found)
    assert text.count("THIS MACHINE CONTRADICTS THE PAPER") == 2
    assert found.ranges[0].contradicted == ["data in the cache speeds the transfer"]
    assert found.ranges[2].contradicted == ["the cache state no longer matters"]
    assert found.as_json()["ranges"][0]["agrees"] is False


def test_each_claim_of_a_rule_is_judged_apart() -> None:
    # a warm cache helps, but what a receive leaves is not in the cache (a copy that bypasses
    # it): the range's rule is contradicted in that part only
    warm = {SIZES[1]: 0.3}
    found = advice.advise(
        "mpich", eager(16 << 10), cache_state(warm), pollution({SIZES[1]: 0.0}), LLC
    )
    assert found.ranges[1].contradicted == ["a receive leaves the data in the cache"]
    assert "not so that a receive leaves the data in the cache" in advice.text(found)


def test_no_eager_send_puts_the_limit_below_the_smallest_size() -> None:
    assert advice.eager_limit(eager(0)) == (0.0, 1 << 10)
    assert advice.eager_limit([]) is None


def stencil(size: int, times: dict[str, float]) -> list[dict[str, Any]]:
    return [{"method": m, "bytes": size, "seconds": [t] * 3} for m, t in times.items()]


def test_the_rules_are_checked_against_the_stencils_fastest_variant() -> None:
    found = advice.advise("mpich", eager(16 << 10), [], [], LLC)
    records = (
        stencil(1 << 10, {"baseline": 1.0, "OPT1": 1.2, "OPT2": 0.97})  # OPT2 recommended
        + stencil(1 << 20, {"baseline": 1.0, "OPT1": 1.3, "OPT2": 1.0, "strip 64 KiB": 0.9})
        + stencil(
            64 << 20,
            {
                "baseline": 1.0,
                "OPT1": 1.0,
                "strip 64 KiB": 1.04,
                "strip 1 MiB": 1.2,
                "column mpi": 0.1,
            },
        )
    )
    checks = advice.stencil_check(found, records)
    assert [(c.recommended, c.fastest, c.agrees) for c in checks] == [
        ("OPT2", "OPT2", True),
        ("OPT1", "strip 64 KiB", False),  # OPT1 recommended, 44% slower than the fastest
        ("strip 64 KiB", "baseline", True),  # the column variants are another layout
    ]
    assert checks[1].slower == 1.3 / 0.9 - 1
    assert "at 2 of 3 sizes" in advice.stencil_text(checks)


def test_the_reports_advice_page_tables_each_range_and_the_stencil_check() -> None:
    gains = {SIZES[0]: 0.2, SIZES[1]: 0.25, SIZES[2]: 0.01}
    found = advice.advise("mpich", eager(16 << 10), cache_state(gains), pollution(gains), LLC)
    checks = advice.stencil_check(found, stencil(1 << 10, {"baseline": 1.0, "OPT2": 0.9}))
    page = advice.as_analysis([found], {"mpich": checks})
    ranges, on_stencil = page.tables
    assert [row[1] for row in ranges.rows] == [r.name for r in found.ranges]
    assert [row[-1] for row in ranges.rows] == ["agrees"] * 3
    assert on_stencil.rows == [["1 KiB", "up to the eager limit", "OPT2", "OPT2", "agree"]]
    assert page.findings == [
        "mpich: on the stencil the rules pick the fastest variant (or one within 5%) at 1 of 1 "
        "sizes"
    ]
