"""Pellegrini, Hoefler and Fahringer's (CLUSTER 2012) placement rules for communication
calls, with this machine's thresholds and evidence: where to put a send or receive relative
to the code that touches its buffer.

The paper splits message sizes into three ranges: up to the eager limit, from there up to half
the last-level cache, and beyond. For each it states a rule (RULE 1-3 of its sec. IV) drawn
from its cache-state (SCN1) and pollution (SCN2) measurements. Here the eager limit comes
from the `eager` probe, the last-level cache from the machine model, and the evidence for
each range from this machine's `cache-state` and `pollution` runs: the rule is kept where the
measurement agrees, and flagged where it contradicts it. Pure: records in, advice out.
"""

from __future__ import annotations

import math
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memcomm.report.analysis import Analysis, Result, Series, Table, group, size_text
from memcomm.stats import median

# a gain smaller than this (either way) is within what these VMs repeat to
NOISE = 0.05


@dataclass
class Range:
    name: str
    low: float  # bytes, exclusive
    high: float | None  # bytes, inclusive; None: no end
    rule: str  # the paper's rule for this range
    evidence: list[str] = field(default_factory=list)
    agrees: bool | None = None  # None: no measurement in this range
    contradicted: list[str] = field(default_factory=list)  # the paper's claims it measured false

    def holds(self, size: float) -> bool:
        return size > self.low and (self.high is None or size <= self.high)


@dataclass
class Advice:
    mpi: str
    eager_limit: tuple[float, float] | None  # (largest eager size, smallest that waited)
    llc_bytes: float | None
    ranges: list[Range]
    warm_gains: list[tuple[float, float]] = field(default_factory=list)  # MOD vs INV, by size

    def range_of(self, size: float) -> Range:
        return next(r for r in self.ranges if r.holds(size) or r.high is None)

    def warm_gain_near(self, size: float) -> tuple[float, float] | None:
        """The measured gain of a warm buffer at the measured size nearest `size` (in ratio),
        within the same range."""
        inside = [g for g in self.warm_gains if self.range_of(g[0]) is self.range_of(size)]
        if not inside:
            return None
        return min(inside, key=lambda g: abs(math.log(max(g[0], 1) / max(size, 1))))

    def as_json(self) -> dict[str, Any]:
        return {
            "mpi": self.mpi,
            "eager_limit": self.eager_limit,
            "llc_bytes": self.llc_bytes,
            "ranges": [
                {
                    "name": r.name,
                    "from_bytes": r.low,
                    "to_bytes": r.high,
                    "rule": r.rule,
                    "agrees": r.agrees,
                    "evidence": r.evidence,
                }
                for r in self.ranges
            ],
        }


RULES = (
    "communicate while the message data is in the cache (right after computing it), and "
    "read received data right after the receive (the paper's RULE 1)",
    "on shared memory: data already in the cache, compute on it before the send; data "
    "not in the cache, read it after the call, which brings it in (the paper's RULE 3). Between "
    "nodes: do not touch the buffer right after the call (the paper's RULE 2)",
    "placement does not matter; split the message into chunks interleaved with the "
    "computation (strip mining) to bring the cache back into play (the paper's sec. IV-C)",
)


def eager_limit(results: Sequence[Result]) -> tuple[float, float] | None:
    """(largest size whose send returned before the delayed receive, the next size tried)."""
    if not results:
        return None
    delay = float(results[0].get("delay", 0.0))
    points = sorted((float(r["bytes"]), median([float(x) for x in r["seconds"]])) for r in results)
    eager = [size for size, t in points if t < delay / 2]
    if not eager:
        return (0.0, points[0][0])
    limit = max(eager)
    after = next((size for size, _ in points if size > limit), float("inf"))
    return (limit, after)


def _series(results: Sequence[Result], method: str, role: str | None = None) -> Series | None:
    chosen = [r for r in results if r["method"] == method and (role is None or r["role"] == role)]
    found = group(chosen, lambda r: method)
    return found[0] if found else None


def _gains(faster: Series | None, slower: Series | None) -> list[tuple[float, float]]:
    """(size, fraction of time saved by `faster` against `slower`)."""
    if faster is None or slower is None:
        return []
    out = []
    for p in faster.points:
        q = slower.at(p.x)
        if q is not None and q.summary.median > 0:
            out.append((p.x, 1 - p.summary.median / q.summary.median))
    return out


def _say(what: str, gains: Sequence[tuple[float, float]]) -> str:
    return f"{what}: " + ", ".join(f"{size_text(x)} {g * 100:+.0f}%" for x, g in gains)


def advise(
    mpi: str,
    eager_results: Sequence[Result],
    cache_state: Sequence[Result],
    pollution: Sequence[Result],
    llc_bytes: float | None,
) -> Advice:
    """The three ranges with this machine's thresholds, each rule, and the evidence."""
    limit = eager_limit(eager_results)
    eager_top = limit[0] if limit else 0.0
    half_llc = llc_bytes / 2 if llc_bytes else None
    second_top = half_llc if half_llc and half_llc > eager_top else None
    ranges = [
        Range("up to the eager limit", 0.0, eager_top, RULES[0]),
        Range("eager limit to LLC/2", eager_top, second_top, RULES[1]),
        Range("beyond LLC/2", second_top or float("inf"), None, RULES[2]),
    ]
    cached = _gains(_series(cache_state, "MOD"), _series(cache_state, "INV"))
    read = _gains(_series(cache_state, "EXCL"), _series(cache_state, "INV"))
    received = _gains(
        _series(pollution, "INV", "receiver"), _series(pollution, "BASE_INV", "receiver")
    )
    sources = (
        ("ping-pong with the data just written (MOD) against flushed (INV)", cached),
        ("... just read (EXCL) against flushed", read),
        ("reading the buffer after a receive against reading it uncached", received),
    )
    for r in ranges:
        inside = [(what, [g for g in gains if r.holds(g[0])]) for what, gains in sources]
        r.evidence = [_say(what, gains) for what, gains in inside if gains]
        warm = [g for _, gains in inside[:2] for _, g in gains]
        after = [g for _, g in inside[2][1]]
        # each claim: (what the paper says, the gains measuring it, whether it must be a gain)
        claims: list[tuple[str, list[float], bool]] = (
            [("the cache state no longer matters", warm, False)]
            if r is ranges[2]
            else [
                ("data in the cache speeds the transfer", warm, True),
                ("a receive leaves the data in the cache", after, True),
            ]
        )
        measured = [
            (claim, median(gains) > NOISE if gain else abs(median(gains)) <= NOISE)
            for claim, gains, gain in claims
            if gains
        ]
        r.contradicted = [claim for claim, held in measured if not held]
        r.agrees = not r.contradicted if measured else None
    return Advice(mpi, limit, llc_bytes, ranges, cached)


def text(advice: Advice) -> str:
    limit = advice.eager_limit
    lines = [
        f"Placement of communication calls, {advice.mpi} (Pellegrini et al., sec. IV)",
        "eager limit: "
        + (f"between {size_text(limit[0])} and {size_text(limit[1])} (the `eager` probe)"
           if limit else "not measured")
        + "; last-level cache: "
        + (size_text(advice.llc_bytes) if advice.llc_bytes else "unknown"),
    ]  # fmt: skip
    for r in advice.ranges:
        span = f"{size_text(r.low)} < message" + (f" <= {size_text(r.high)}" if r.high else "")
        verdict = {
            True: "this machine agrees",
            False: "THIS MACHINE CONTRADICTS THE PAPER here: not so that "
            + "; nor that ".join(r.contradicted),
            None: "no measurement in this range",
        }[r.agrees]
        lines.append(f"\n{r.name} ({span}): {verdict}")
        lines.append(f"  rule: {r.rule}")
        lines += [f"  evidence, {e}" for e in r.evidence]
    return "\n".join(lines)


# the paper's stencil variant for each range (sec. V): OPT2 uses the received row at once and
# sends a row just computed (RULE 1); OPT1 sends a fresh row and reads the received one last
# (RULES 2-3); beyond LLC/2 no placement helps, and strip mining is the paper's way out
RECOMMENDED = ("OPT2", "OPT1", "strip")


@dataclass
class StencilCheck:
    size: float
    range_name: str
    recommended: str  # the variant (the best strip chunk for "strip")
    fastest: str
    slower: float  # recommended's time over the fastest's, - 1
    agrees: bool  # the recommended variant is the fastest or within the noise of it


def stencil_check(advice: Advice, stencil: Sequence[Result]) -> list[StencilCheck]:
    """For each message size of a `stencil` run: the variant the rules recommend against the
    one measured fastest (row variants and strips; the column variants are another layout)."""
    times: dict[float, dict[str, float]] = {}
    for r in stencil:
        if not str(r["method"]).startswith("column"):
            times.setdefault(float(r["bytes"]), {})[str(r["method"])] = median(
                [float(x) for x in r["seconds"]]
            )
    out = []
    for size, variants in sorted(times.items()):
        which = next(i for i, r in enumerate(advice.ranges) if r.holds(size) or r.high is None)
        want = RECOMMENDED[which]
        candidates = [v for v in variants if v.startswith(want)]
        if not candidates:  # no strip smaller than the message: any placement
            candidates = list(variants)
        recommended = min(candidates, key=lambda v: variants[v])
        fastest = min(variants, key=lambda v: variants[v])
        slower = variants[recommended] / variants[fastest] - 1
        out.append(
            StencilCheck(size, advice.ranges[which].name, recommended, fastest, slower,
                         slower <= NOISE)
        )  # fmt: skip
    return out


def stencil_text(checks: Sequence[StencilCheck]) -> str:
    lines = ["\n\nThe rules on the 3-point stencil (Pellegrini et al., sec. V):"]
    for c in checks:
        lines.append(
            f"  {size_text(c.size):>8}  {c.range_name:<22} recommended {c.recommended:<13} "
            f"fastest {c.fastest:<13} "
            + ("agree" if c.agrees else f"recommended {c.slower * 100:.0f}% slower")
        )
    agreed = sum(c.agrees for c in checks)
    lines.append(
        f"  the rules pick the fastest variant (or one within {NOISE * 100:.0f}% of it) at "
        f"{agreed} of {len(checks)} sizes"
    )
    return "\n".join(lines)


# ---- program advice: the call sites of one run, under the rules ----

# what a call site should do, by range (the rules, as one line for a table)
SITE_RULES = (
    "call it while the buffer is warm (right after computing it); read received data at once",
    "compute on a cached buffer before sending; read received data after other work",
    "placement does not matter: split it into chunks interleaved with the computation",
)


@dataclass
class Site:
    rank: int
    call: str
    where: str  # function (file:line), or module+offset when it has no debug information
    bytes: int
    derived: bool
    calls: int
    seconds: float
    range_name: str
    rule: str
    expected: str  # the measured effect the rule relies on, at the nearest measured size
    explain: str
    caution: str  # the rule's claims this machine contradicts, if any


def symbolize(records: Sequence[dict[str, Any]], cwd: str) -> dict[tuple[str, str], str]:
    """(module, offset) -> "function (file:line)" by addr2line (binutils), one run per module.
    The offset of a return address minus one names the call's own line. A position-dependent
    executable (ELF type EXEC) is given the absolute address instead."""
    names: dict[tuple[str, str], str] = {}
    for module in sorted({str(r["module"]) for r in records}):
        path = module if module.startswith("/") else f"{cwd}/{module}"
        try:
            with open(path, "rb") as elf:
                header = elf.read(18)
            absolute = header[:4] == b"\x7fELF" and header[16] == 2
        except OSError:
            continue
        wanted = [r for r in records if str(r["module"]) == module]
        addresses = [hex(int(str(r["address" if absolute else "offset"]), 16) - 1) for r in wanted]
        try:
            out = subprocess.run(
                ["addr2line", "-f", "-C", "-e", path, *addresses],
                capture_output=True, text=True, check=False,
            ).stdout.splitlines()  # fmt: skip
        except OSError:  # no binutils: the sites stay module+offset
            return names
        for i, r in enumerate(wanted):
            function, line = [*out[2 * i : 2 * i + 2], "??", "??:0"][:2]
            if line.startswith("??"):
                continue
            where = line.split(" (discriminator")[0].rsplit("/", 1)[-1]
            names[(module, str(r["offset"]))] = f"{function} ({where})"
    return names


def program_sites(
    advice: Advice, records: Sequence[dict[str, Any]], names: dict[tuple[str, str], str]
) -> list[Site]:
    """Each recorded call site with the rule of its message size's range, slowest first."""
    sites = []
    for r in records:
        if "call" not in r:
            continue
        size = float(r["bytes"])
        which = advice.range_of(size)
        index = advice.ranges.index(which)
        near = advice.warm_gain_near(size)
        expected = (
            f"a warm buffer {near[1] * 100:+.0f}% at {size_text(near[0])} (cache-state)"
            if near else "not measured in this range"
        )  # fmt: skip
        where = names.get((str(r["module"]), str(r["offset"])))
        sites.append(
            Site(
                int(r["rank"]), str(r["call"]),
                where or f"{r['module'].rsplit('/', 1)[-1]}+{r['offset']}",
                int(r["bytes"]), bool(r["derived"]), int(r["calls"]), float(r["seconds"]),
                which.name, SITE_RULES[index], expected, str(r.get("explain", "")),
                "; ".join(which.contradicted),
            )
        )  # fmt: skip
    return sorted(sites, key=lambda s: (-s.seconds, s.rank, s.where))


def program_text(program: str, ranks: int, advice: Advice, sites: Sequence[Site]) -> str:
    limit = advice.eager_limit
    head = (
        f"Call sites of {program} on {ranks} ranks ({advice.mpi}), slowest first; eager limit "
        + (f"{size_text(limit[0])}-{size_text(limit[1])}" if limit else "not measured")
        + f", LLC/2 {size_text(advice.llc_bytes / 2) if advice.llc_bytes else 'unknown'}"
    )
    lines = [head]
    for s in sites:
        kind = "derived type" if s.derived else "basic type"
        lines.append(
            f"\n{s.where}: {s.call} on rank {s.rank}, {s.calls} calls of {size_text(s.bytes)} "
            f"({kind}), {s.seconds * 1e3:.3f} ms in the call"
        )
        lines.append(f"  range: {s.range_name}; {s.rule}")
        lines.append(f"  evidence: {s.expected}")
        if s.caution:
            lines.append(
                f"  caution: this machine contradicts the rule here: not so that {s.caution}"
            )
        for text_line in s.explain.splitlines()[:4]:
            lines.append(f"  plan: {text_line}")
    return "\n".join(lines)


def as_analysis(found: Sequence[Advice], checks: dict[str, list[StencilCheck]]) -> Analysis:
    """The advice of each MPI for the report: a table of the ranges, and the stencil check."""
    rows, findings, tables = [], [], []
    for a in found:
        for r in a.ranges:
            verdict = {True: "agrees", False: "contradicts: " + "; ".join(r.contradicted),
                       None: "not measured"}[r.agrees]  # fmt: skip
            span = f"{size_text(r.low)} - " + (size_text(r.high) if r.high else "")
            rows.append([a.mpi, r.name, span, r.rule, verdict])
        mine = checks.get(a.mpi, [])
        if mine:
            agreed = sum(c.agrees for c in mine)
            findings.append(
                f"{a.mpi}: on the stencil the rules pick the fastest variant (or one within "
                f"{NOISE * 100:.0f}%) at {agreed} of {len(mine)} sizes"
            )
            tables.append(
                Table(
                    f"the rules on the stencil, {a.mpi}",
                    ["row", "range", "recommended", "fastest", "recommended vs fastest"],
                    [
                        [
                            size_text(c.size),
                            c.range_name,
                            c.recommended,
                            c.fastest,
                            "agree" if c.agrees else f"+{c.slower * 100:.0f}%",
                        ]
                        for c in mine
                    ],
                )
            )
    table = Table(
        "placement rules by message size", ["MPI", "range", "sizes", "rule", "here"], rows
    )
    return Analysis(
        "advice", "Where to place communication calls (Pellegrini et al.'s rules)", "004 sec. IV",
        findings, [], [table, *tables],
    )  # fmt: skip
