"""Each experiment's results turned into findings, figures and a table.

An analysis groups an experiment's results into series (one line per method, per MPI and
engine), summarizes every point (median, 95% interval), and states what the numbers say next
to what the papers report. Nothing here measures or invents a number: a finding that
needs data the results do not have says so.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from memcomm.models import em3d as em3d_phases
from memcomm.models import logp as logp_model
from memcomm.models import logpc as logpc_model
from memcomm.models import memory as memory_model
from memcomm.models.logpc import ModelError
from memcomm.models.validation import Check, median_abs_error
from memcomm.references import cite
from memcomm.report import tables
from memcomm.stats import Summary, median, summarize


@dataclass(frozen=True)
class Point:
    x: float
    summary: Summary
    scale: float = 1.0  # the plotted value is summary * scale (e.g. seconds -> us)

    @property
    def value(self) -> float:
        return self.summary.median * self.scale


@dataclass
class Series:
    label: str
    points: list[Point] = field(default_factory=list)

    def at(self, x: float) -> Point | None:
        return next((p for p in self.points if p.x == x), None)


@dataclass
class Figure:
    name: str  # file stem
    title: str
    xlabel: str
    ylabel: str
    series: list[Series]
    xlog: bool = True
    ylog: bool = True
    bars: bool = False  # stacked bars: one series per part, x are categories
    # ratios to a baseline by named case: one horizontal bar per series and case, point x the
    # case's index here, on a log axis with the baseline (1) marked
    categories: list[str] = field(default_factory=list)


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]]


@dataclass
class Analysis:
    experiment: str
    title: str
    source: str
    findings: list[str]
    figures: list[Figure]
    tables: list[Table]


Result = dict[str, Any]


def _context(r: Result) -> str:
    """Which MPI and engine a result is from, for labels (only the parts that vary)."""
    engine = "" if r.get("engine", "mpi") == "mpi" else " +memcomm"
    return f"{r.get('mpi', '?')}{engine}"


def group(
    results: Iterable[Result],
    label: Callable[[Result], str],
    x: Callable[[Result], float] = lambda r: float(r["bytes"]),
    scale: float = 1.0,
    value: Callable[[Result], Sequence[float]] = lambda r: r["seconds"],
) -> list[Series]:
    """Series by label, points in x order."""
    found: dict[str, Series] = {}
    for r in results:
        s = found.setdefault(label(r), Series(label(r)))
        s.points.append(Point(x(r), summarize(value(r)), scale))
    for s in found.values():
        s.points.sort(key=lambda p: p.x)
    return list(found.values())


def size_text(n: float) -> str:
    for unit, factor in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= factor:
            v = n / factor
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{n:.0f} B"


def _ratios(num: Series, den: Series) -> list[tuple[float, float]]:
    out = []
    for p in num.points:
        q = den.at(p.x)
        if q is not None and q.summary.median > 0:
            out.append((p.x, p.summary.median / q.summary.median))
    return out


def _range(ratios: Sequence[tuple[float, float]]) -> str:
    if not ratios:
        return "no common sizes"
    values = [v for _, v in ratios]
    lo, hi = min(ratios, key=lambda t: t[1]), max(ratios, key=lambda t: t[1])
    return f"{min(values):.2f}x ({size_text(lo[0])}) to {max(values):.2f}x ({size_text(hi[0])})"


def _table(
    series: Sequence[Series], xname: str = "bytes", unit: str = "us"
) -> tuple[list[str], list[list[str]]]:
    xs = sorted({p.x for s in series for p in s.points})
    header = [xname, *[f"{s.label} ({unit})" for s in series]]
    rows = []
    for x in xs:
        row = [size_text(x) if xname == "bytes" else f"{x:g}"]
        for s in series:
            p = s.at(x)
            row.append(
                f"{p.value:.3g} [{p.summary.low * p.scale:.3g}, {p.summary.high * p.scale:.3g}]"
                if p
                else "-"
            )
        rows.append(row)
    return header, rows


def _of(results: Sequence[Result], **match: Any) -> list[Result]:
    return [r for r in results if all(r.get(k) == v for k, v in match.items())]


# ---- the experiments ----


def compared(
    results: Sequence[Result],
    experiment: str,
    panels: Sequence[tuple[str, str, dict[str, Any]]],
    label: Callable[[Result], str],
    pairs: Sequence[tuple[str, str]],
) -> tuple[list[str], list[Figure], list[Series]]:
    """The shape of the message experiments: one figure per panel (name suffix, title, which
    results), one line per method, and for each (numerator, denominator) pair of methods the
    range of their time ratio. Labels start with the method's name."""
    findings, figures, every = [], [], []
    for suffix, title, match in panels:
        series = group(_of(results, **match), label, scale=1e6)
        every += [Series(f"{s.label} {suffix}", s.points) for s in series]
        figures.append(
            Figure(f"{experiment}-{suffix}", title, "message size (bytes)", "time (us)", series)
        )
        for numerator, denominator in pairs:
            for s in series:
                if not s.label.startswith(numerator) or s.label[len(numerator)] not in " ,":
                    continue
                partner = s.label.replace(numerator, denominator, 1)
                other = next((c for c in series if c.label == partner), None)
                if other:
                    context = s.label[len(numerator) :].strip(" ,")
                    sep = " " if context.startswith("(") else ", "
                    findings.append(
                        f"{suffix}{sep}{context}: {numerator} / {denominator} "
                        f"{_range(_ratios(s, other))}."
                    )
    return findings, figures, every


def _method_label(r: Result) -> str:
    return f"{r['method']} ({_context(r)})"


def noncontig(results: Sequence[Result]) -> Analysis:
    findings, figures, every = compared(
        results, "noncontig",
        [(role, f"Time in the {role}'s call", {"role": role}) for role in ("sender", "receiver")],
        _method_label, [("strided", "contiguous")],
    )  # fmt: skip
    findings.append(
        f"{cite('000')} (sec. 6.1, 7): non-contiguous data (here stride 16) raises the "
        "overhead 4 to 10 times, more once the message exceeds the cache."
    )
    header, rows = _table(every)
    return Analysis(
        "noncontig",
        "Contiguous vs non-contiguous messages",
        "000 sec. 6.1",
        findings,
        figures,
        [Table("medians", header, rows)],
    )


def blocking(results: Sequence[Result]) -> Analysis:
    panels = [
        (f"stride{k}", f"Sender's time, {layout}", {"role": "sender", "stride": k})
        for k, layout in ((1, "contiguous"), (16, "strided (stride 16)"))
    ]
    findings, figures, every = compared(
        results, "blocking", panels, _method_label,
        [("MPI_Send", "MPI_Isend"), ("MPI_Send", "MPI_Isend+MPI_Wait")],
    )  # fmt: skip
    findings.append(
        f"{cite('000')} (sec. 6.2): equal below 64 KiB; for non-contiguous messages the "
        "blocking/non-blocking ratio is 3 at 256 KiB and 10 at 1 GB."
    )
    header, rows = _table(every)
    return Analysis(
        "blocking",
        "Blocking vs non-blocking sends",
        "000 sec. 6.2",
        findings,
        figures,
        [Table("medians", header, rows)],
    )


def ddt_vs_pack(results: Sequence[Result]) -> Analysis:
    findings, figures, every = compared(
        results, "ddt-vs-pack",
        [(role, f"Datatype vs user pack: {role}", {"role": role})
         for role in ("sender", "receiver")],
        lambda r: f"{r['method']}, stride {r.get('stride', 1)} ({_context(r)})",
        [("datatype", "user pack")],
    )  # fmt: skip
    findings.append(
        f"{cite('000')} (sec. 6.3, Tables 1-2): derived datatypes cost at least 4 times "
        "user packing, rising with the stride; 3 to 8 times in the conclusion."
    )
    header, rows = _table(every)
    return Analysis(
        "ddt-vs-pack",
        "Derived datatypes vs user pack/unpack",
        "000 sec. 6.3",
        findings,
        figures,
        [Table("medians", header, rows)],
    )


def decompose(results: Sequence[Result]) -> Analysis:
    """o = copy; l_p = pack - o; L = contiguous - o; l_m = datatype - (o + l_p + L).

    Where the run has it, the datatype send is also set against the pack and the send in
    sequence ("pack-send": MPI_Pack into the program's buffer, then that buffer sent), what
    a program packing by hand pays: pack + contiguous, measured apart, sends bytes nobody
    has just written and is not met by packing then sending on these machines. And against
    "copy-send" (memcpy into that buffer, then the buffer sent): the least any send of bytes
    just written costs, the peer's copy reading lines modified in the sender's cache."""
    parts: dict[tuple[str, float], dict[str, float]] = {}
    for r in results:
        key = (_context(r), float(r.get("n", 0)))
        parts.setdefault(key, {})[r["method"]] = summarize(r["seconds"]).median
    names = ("o", "l_p", "L", "l_m")
    bars = {name: Series(name) for name in names}
    header = [
        "configuration",
        "n",
        "o (us)",
        "l_p (us)",
        "L (us)",
        "l_m (us)",
        "total (us)",
        "l_p share",
        "of pack + contiguous",
        "of pack-send",
        "of copy-send",
    ]
    rows, findings = [], []
    categories: list[str] = []
    for (context, n), m in sorted(parts.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if not all(k in m for k in ("copy", "pack", "contiguous", "datatype")):
            continue
        o, lp = m["copy"], m["pack"] - m["copy"]
        big_l = m["contiguous"] - o
        lm = m["datatype"] - (o + lp + big_l)
        total = m["datatype"]
        values = {"o": o, "l_p": lp, "L": big_l, "l_m": lm}
        categories.append(f"{n:.0f}^2 {context}")
        for name in names:
            bars[name].points.append(
                Point(float(len(categories) - 1), summarize([max(values[name], 0.0)]), 1e6)
            )
        # the datatype send's speed against the two bounds (100%: as fast as the bound)
        apart = (m["pack"] + m["contiguous"]) / total
        in_sequence = m["pack-send"] / total if "pack-send" in m else None
        copied = m["copy-send"] / total if "copy-send" in m else None
        rows.append(
            [
                context,
                f"{n:.0f}",
                *[f"{values[k] * 1e6:.0f}" for k in names],
                f"{total * 1e6:.0f}",
                f"{lp / total * 100:.0f}%",
                f"{apart * 100:.0f}%",
                f"{in_sequence * 100:.0f}%" if in_sequence is not None else "-",
                f"{copied * 100:.0f}%" if copied is not None else "-",
            ]
        )
        findings.append(
            f"{n:.0f}^2, {context}: packing (l_p) is {lp / total * 100:.0f}% of the "
            f"datatype send, middleware (l_m) {lm / total * 100:.0f}%; the send runs at "
            f"{apart * 100:.0f}% of the pack plus the contiguous send measured apart"
            + (
                f", {in_sequence * 100:.0f}% of MPI_Pack then a send of the packed bytes"
                if in_sequence is not None
                else ""
            )
            + (
                f", {copied * 100:.0f}% of a memcpy of the matrix then a send of the copy."
                if copied is not None
                else "."
            )
        )
    findings.append(
        f"{cite('001')} (Fig. 2): o is about constant per byte; l_p grows past 2 MB "
        "(TLB and cache reuse break down) and dominates the transpose's cost. A "
        "negative part means that step beat what it is measured against: l_p < 0 when "
        "the pack is faster than the contiguous copy o (memcomm's streaming-store "
        "transpose beats memcpy for large matrices), l_m < 0 when the datatype send "
        "overlapped packing with the transfer."
    )
    figure = Figure(
        "decompose",
        "Memory-LogP parts of the transpose send",
        "",
        "time (us)",
        list(bars.values()),
        xlog=False,
        ylog=False,
        bars=True,
    )
    figure.xlabel = "; ".join(f"{i}: {c}" for i, c in enumerate(categories))
    return Analysis(
        "decompose",
        "Memory-LogP decomposition (o + l_p + l_m + L)",
        "001 sec. 4",
        findings,
        [figure],
        [Table("parts (medians)", header, rows)],
    )


def cache_state(results: Sequence[Result], llc_bytes: float | None) -> Analysis:
    series = group(results, lambda r: f"{r['method']} ({_context(r)})", scale=1e6)
    findings = []
    for s in series:
        if s.label.startswith("INV"):
            for state in ("EXCL", "MOD"):
                other = next((c for c in series if c.label == s.label.replace("INV", state)), None)
                if not other:
                    continue
                gains = [(x, (1 - v) * 100) for x, v in _ratios(other, s)]
                if not gains:
                    continue
                best = max(gains, key=lambda t: t[1])
                findings.append(
                    f"{state} vs INV ({s.label.split('(')[1][:-1]}): largest gain "
                    f"{best[1]:.0f}% at {size_text(best[0])}; "
                    + ", ".join(f"{size_text(x)} {g:+.0f}%" for x, g in gains)
                )
    llc = f" (LLC reported here: {size_text(llc_bytes)})" if llc_bytes else ""
    findings.append(
        f"{cite('004')} (SCN1): data already in the cache makes the ping-pong up to 25% "
        f"faster, peaking before the message outgrows the last-level cache{llc}."
    )
    header, rows = _table(series)
    return Analysis(
        "cache-state",
        "Cache state before a ping-pong (SCN1)",
        "004 SCN1",
        findings,
        [
            Figure(
                "cache-state",
                "Half round trip by cache state before it",
                "message size (bytes)",
                "time (us)",
                series,
            )
        ],
        [Table("medians", header, rows)],
    )


def pollution(results: Sequence[Result]) -> Analysis:
    findings, figures, every = compared(
        results, "pollution",
        [(role, f"Reading the buffer after the transfer: {role}", {"role": role})
         for role in ("sender", "receiver")],
        _method_label, [("INV", "BASE_INV"), ("PRE", "BASE_PRE")],
    )  # fmt: skip
    findings.append(
        f"{cite('004')} (SCN2): after a receive the data is in the receiver's cache "
        "(INV below BASE_INV); a transfer can evict preloaded data (PRE above "
        "BASE_PRE), depending on how the MPI moves the bytes."
    )
    header, rows = _table(every)
    return Analysis(
        "pollution",
        "Cache pollution by a transfer (SCN2)",
        "004 SCN2",
        findings,
        figures,
        [Table("medians", header, rows)],
    )


def eager(results: Sequence[Result]) -> Analysis:
    series = group(results, lambda r: f"MPI_Send ({_context(r)})", scale=1e6)
    findings = []
    for s in series:
        delay = next((float(r.get("delay", 0)) for r in results), 0.0)
        limit = None
        for p in s.points:
            if p.summary.median < delay / 2:
                limit = p.x
            else:
                break
        after = next((p.x for p in s.points if limit is None or p.x > limit), None)
        findings.append(
            f"{s.label}: sends return before the delayed receive up to "
            f"{size_text(limit) if limit else 'no size tried'}"
            + (f"; from {size_text(after)} they wait for it" if after else "")
            + f" (receive delayed {delay * 1e3:.1f} ms): eager limit in "
            f"({size_text(limit) if limit else '0'}, {size_text(after) if after else 'beyond'}]."
        )
    header, rows = _table(series)
    return Analysis(
        "eager",
        "Eager limit (delayed receive)",
        "004",
        findings,
        [
            Figure(
                "eager",
                "Send time with the receive delayed",
                "message size (bytes)",
                "time (us)",
                series,
            )
        ],
        [Table("medians", header, rows)],
    )


def latency(results: Sequence[Result], caches: dict[str, float]) -> Analysis:
    series = group(
        results,
        lambda r: f"pointer chase ({_context(r)})",
        value=lambda r: [t / float(r.get("loads", 1)) for t in r["seconds"]],
        scale=1e9,
    )
    findings = []
    for s in series:
        steps = [
            (b.x, a.value, b.value)
            for a, b in zip(s.points, s.points[1:], strict=False)
            if a.value > 0 and b.value / a.value > 1.3
        ]
        findings.append(
            f"{s.label}: " + ", ".join(f"{p.value:.1f} ns at {size_text(p.x)}" for p in s.points)
        )
        findings.append(
            "latency steps up at: "
            + (
                ", ".join(f"{size_text(x)} ({a:.1f} -> {c:.1f} ns)" for x, a, c in steps)
                or "no clear step"
            )
        )
    if caches:
        findings.append(
            "the machine model says: " + ", ".join(f"{k} {size_text(v)}" for k, v in caches.items())
        )
    header, rows = _table(series, unit="ns")
    return Analysis(
        "latency",
        "Load latency over working sets (cache sizes)",
        "probe",
        findings,
        [Figure("latency", "Dependent-load latency", "working set (bytes)", "ns per load", series)],
        [Table("medians", header, rows)],
    )


def tlb(results: Sequence[Result], entries: float | None) -> Analysis:
    """ns per access against pages touched; the knee is where it first rises 30% above the
    plateau of the smallest page counts."""
    series = group(
        results,
        lambda r: f"page chase ({_context(r)})",
        x=lambda r: float(r.get("pages", 0)),
        value=lambda r: [t / float(r.get("loads", 1)) for t in r["seconds"]],
        scale=1e9,
    )
    findings = []
    for s in series:
        if len(s.points) < 3:
            continue
        plateau = sorted(p.value for p in s.points[:3])[1]
        knee = next((i for i, p in enumerate(s.points) if p.value > 1.3 * plateau), None)
        if knee is None:
            findings.append(f"{s.label}: no knee up to {s.points[-1].x:.0f} pages")
        elif knee == 0:
            findings.append(f"{s.label}: already above the plateau at the smallest count")
        else:
            findings.append(
                f"{s.label}: {plateau:.1f} ns per access up to {s.points[knee - 1].x:.0f} "
                f"pages, {s.points[knee].value:.1f} ns at {s.points[knee].x:.0f}: the TLB "
                f"holds between {s.points[knee - 1].x:.0f} and {s.points[knee].x:.0f} pages"
            )
    if entries:
        findings.append(f"the machine model's TLB_ENTRIES: {entries:.0f}")
    header, rows = _table(series, xname="pages", unit="ns")
    return Analysis(
        "tlb",
        "TLB entries (one line per page)",
        "probe (001 sec. 5: T_p)",
        findings,
        [Figure("tlb", "Access latency over pages touched", "pages", "ns per access", series)],
        [Table("medians", header, rows)],
    )


def copy(results: Sequence[Result]) -> Analysis:
    series = group(
        results,
        lambda r: f"memcpy ({_context(r)})",
        value=lambda r: [r["bytes"] / t / 1e9 if t > 0 else math.inf for t in r["seconds"]],
    )
    findings = [
        f"{s.label}: peak {max(p.value for p in s.points):.1f} GB/s, "
        f"{s.points[-1].value:.1f} GB/s at {size_text(s.points[-1].x)}"
        for s in series
        if s.points
    ]
    header, rows = _table(series, unit="GB/s")
    return Analysis(
        "copy",
        "Copy bandwidth",
        "probe",
        findings,
        [Figure("copy", "memcpy bandwidth", "buffer size (bytes)", "GB/s", series, ylog=False)],
        [Table("medians", header, rows)],
    )


def _ratio_series(
    label: str,
    rows: Sequence[tables.PackRow],
    names: Sequence[str],
    method: str,
    baseline: str,
    direction: str = "pack",
) -> Series:
    """`method` over `baseline` for each row that has both, at its pattern's index in `names`."""
    return Series(
        label,
        [
            Point(
                float(names.index(row.pattern)), summarize([row.ratio(method, baseline, direction)])
            )
            for row in rows
            if row.has(method, direction) and row.has(baseline, direction)
        ],
    )


def pack(results: Sequence[Result]) -> Analysis:
    findings, figure_series, out = [], [], []
    names = list(dict.fromkeys(str(r["pattern"]) for r in results))
    for mpi in sorted({str(r.get("mpi", "?")) for r in results}):
        rows = tables.pack_rows(_of(results, mpi=mpi))
        for direction in ("pack", "unpack"):
            out.append(
                Table(
                    f"{direction} bandwidth, {mpi}: GB/s of packed bytes (median)",
                    *tables.pack_columns(rows, direction),
                )
            )
        findings += [f"{mpi}: {line}" for line in tables.summary(rows).splitlines()]
        for direction in ("pack", "unpack"):
            figure_series.append(
                _ratio_series(f"{direction} ({mpi})", rows, names, "memcomm", "mpi", direction)
            )
    figure = Figure(
        "pack",
        "memcomm's pack and unpack against the MPI's (ratio of medians)",
        "times the MPI's speed",
        "",
        figure_series,
        categories=names,
    )
    return Analysis(
        "pack",
        "Pack bandwidth of the layouts real codes send",
        "001 sec. 5-6",
        findings,
        [figure],
        out,
    )


def _decisions(results: Sequence[Result], mpi: str) -> dict[str, str]:
    """Per pattern, what memcomm's records say each rank's path trials decided."""
    return {
        str(r["pattern"]): _decided_paths(r["paths"])
        for r in _of(results, mpi=mpi, method="memcomm")
        if r.get("paths")
    }


def _decided_paths(paths: Sequence[dict[str, int]]) -> str:
    """Each rank's path decisions on a pattern, as a reader wants them: "packed on ranks 0, 1",
    "the MPI's own on rank 1". A rank without one ran no trials: its calls went to the MPI
    unchanged (one contiguous run, such as the x face of a C-order array, which the MPI sends
    from the user's buffer) or to the path untimed calls take. The decisions are counted over
    the method's calls, warm-up included: two mean the trials ran again after a decided path
    turned slow ("packed twice", "packed and the MPI's own", in no particular order)."""

    def times(kind: str, n: int) -> list[str]:
        if n == 0:
            return []
        return [kind if n == 1 else f"{kind} twice" if n == 2 else f"{kind} {n} times"]

    ranks: dict[str, list[str]] = {}
    for rank, decided in enumerate(paths):
        kinds = times("packed", decided["packed"]) + times("the MPI's own", decided["by_mpi"])
        ranks.setdefault(" and ".join(kinds) or "no path trials", []).append(str(rank))
    return "; ".join(
        f"{kind} on rank{'s' if len(who) > 1 else ''} {', '.join(who)}"
        for kind, who in ranks.items()
    )


def _against_the_mpi(
    results: Sequence[Result], experiment: str, call: str, moves: str
) -> tuple[list[str], list[Table], list[Series]]:
    """Per MPI, each pattern's methods (contiguous, mpi, manual, memcomm; the slowest rank's
    medians): a table, a finding per pattern and the worst and mean ratio, and the ratio
    series of memcomm's and the hand-written method against the MPI's own `call`."""
    findings: list[str] = []
    out: list[Table] = []
    series: list[Series] = []
    names = list(dict.fromkeys(str(r["pattern"]) for r in results))
    for mpi in sorted({str(r.get("mpi", "?")) for r in results}):
        rows = tables.pack_rows(_of(results, mpi=mpi), experiment)
        series += [
            _ratio_series(f"{method} ({mpi})", rows, names, method, "mpi")
            for method in ("memcomm", "manual")
        ]
        out.append(
            Table(
                f"{experiment}, {mpi}: slowest rank (median), bytes each rank {moves}",
                *tables.collectives_columns(rows),
            )
        )
        ratios = [row.ratio("memcomm", "mpi") for row in rows if row.has("memcomm")]
        decisions = _decisions(results, mpi)
        findings += [
            f"{mpi}, {row.pattern}: memcomm {row.ratio('memcomm', 'mpi'):.2f}x the MPI's own "
            f"{call}, {row.ratio('memcomm', 'contiguous') * 100:.0f}% of the same bytes "
            f"{moves} contiguously"
            + (f" ({decisions[row.pattern]})" if row.pattern in decisions else "")
            for row in rows
            if row.has("memcomm") and row.has("mpi") and row.has("contiguous")
        ]
        if ratios:
            findings.append(
                f"{mpi}: worst {min(ratios):.2f}x, geometric mean {tables.geomean(ratios):.2f}x"
            )
    return findings, out, series


def collectives(results: Sequence[Result]) -> Analysis:
    """FFT redistributions and a transposing gather as collectives: memcomm against the MPI's
    own call, a hand-written pack around an Alltoallv (or Allgather), and the same bytes sent
    contiguously."""
    findings, out, series = _against_the_mpi(results, "collectives", "collective", "sends")
    return Analysis(
        "collectives",
        "FFT redistributions and gathers as collectives with derived datatypes",
        "ddtbench FFT2 (EuroMPI 2012); slab FFTs",
        findings,
        [
            Figure(
                "collectives",
                "Collectives against the MPI's own call (ratio of medians)",
                "times the MPI's speed",
                "",
                series,
                categories=list(dict.fromkeys(str(r["pattern"]) for r in results)),
            )
        ],
        out,
    )


def io(results: Sequence[Result]) -> Analysis:
    """MPI-IO writes and reads of non-contiguous memory types: memcomm against the MPI's own
    call, a hand-written pack around a contiguous write (a contiguous read and a hand-written
    unpack), and the same bytes written or read contiguously."""
    findings, out, series = _against_the_mpi(results, "io", "call", "writes or reads")
    elsewhere = sorted({str(r.get("file_system")) for r in results} - {"tmpfs"})
    if elsewhere:
        findings.insert(
            0,
            "the file was not in a file system in memory (tmpfs): the file system's own time "
            "is in every figure and narrows the differences (--dir /dev/shm)",
        )
    return Analysis(
        "io",
        "MPI-IO with non-contiguous memory types (ghost-cell interiors, columns, subarrays)",
        "parallel HDF5's and PnetCDF's hyperslabs",
        findings,
        [
            Figure(
                "io",
                "MPI-IO calls against the MPI's own (ratio of medians)",
                "times the MPI's speed",
                "",
                series,
                categories=list(dict.fromkeys(str(r["pattern"]) for r in results)),
            )
        ],
        out,
    )


def pingpong(results: Sequence[Result]) -> Analysis:
    transposes = [r for r in results if str(r.get("pattern", "")).startswith("transpose")]
    series = group(
        transposes,
        lambda r: f"{r['method']} ({r.get('mpi', '?')})",
        value=lambda r: [r["bytes"] / t / 1e9 for t in r["seconds"]],
    )
    findings, out = [], []
    for mpi in sorted({str(r.get("mpi", "?")) for r in results}):
        rows = tables.pack_rows(_of(results, mpi=mpi), "pingpong")
        out.append(
            Table(f"ping-pong, {mpi}: half round trip (median)", *tables.pingpong_columns(rows))
        )
        decisions = _decisions(results, mpi)
        findings += [
            f"{mpi}, {row.pattern}: memcomm {row.ratio('memcomm', 'mpi'):.2f}x the MPI's "
            f"datatype send, {row.ratio('memcomm', 'contiguous') * 100:.0f}% of contiguous"
            + (f" ({decisions[row.pattern]})" if row.pattern in decisions else "")
            for row in rows
            if row.has("memcomm") and row.has("mpi") and row.has("contiguous")
        ]
    return Analysis(
        "pingpong",
        "Ping-pong of non-contiguous layouts",
        "001 sec. 6",
        findings,
        [
            Figure(
                "pingpong",
                "Transpose ping-pong bandwidth",
                "message size (bytes)",
                "GB/s (half round trip)",
                series,
                ylog=False,
            )
        ],
        out,
    )


def paired_speedup(mpi_seconds: Sequence[float], memcomm_seconds: Sequence[float]) -> float:
    """The median over repetitions of the MPI alone's time over memcomm's: a repetition runs
    both back to back, so a disturbance that lasts longer than a repetition (a busy
    neighbour's burst) slows both in it, where it would move either method's median alone.
    Stalls that hit one method's turns more than the other's move it (a busy process on a
    rank's core stalls whichever turn runs for a time slice, 3-5 ms); the records keep every
    repetition."""
    ratios = sorted(m / c for m, c in zip(mpi_seconds, memcomm_seconds, strict=False) if c > 0)
    return median(ratios) if ratios else math.nan


def lifecycle(results: Sequence[Result]) -> Analysis:
    """Commit cost of a type never moved, ddtbench's re-created types, and exchanges of many
    non-blocking messages, against the MPI alone measured in the same run; speed-ups are paired
    per repetition (paired_speedup). Where the run also timed the MPI alone a second time in the
    same turns ("mpi-again"), that one's speed-up over the first is the run's noise, shown
    beside memcomm's."""
    findings, out = [], []
    for mpi in sorted({str(r.get("mpi", "?")) for r in results}):
        rows = tables.pack_rows(_of(results, mpi=mpi), "lifecycle")
        roles = {str(r["pattern"]): str(r.get("role", "")) for r in _of(results, mpi=mpi)}
        seconds = {
            (str(r["pattern"]), str(r["method"])): r["seconds"] for r in _of(results, mpi=mpi)
        }
        measured = [r for r in rows if r.has("mpi") and r.has("memcomm")]
        speedup = {
            r.pattern: paired_speedup(seconds[r.pattern, "mpi"], seconds[r.pattern, "memcomm"])
            for r in measured
        }
        noise = {
            r.pattern: paired_speedup(seconds[r.pattern, "mpi"], seconds[r.pattern, "mpi-again"])
            for r in measured
            if r.has("mpi-again")
        }
        body = [
            [
                row.pattern,
                roles.get(row.pattern, ""),
                f"{row.seconds('mpi') * 1e6:.1f}",
                f"{row.seconds('memcomm') * 1e6:.1f}",
                f"{speedup[row.pattern]:.2f}x",
                f"{noise[row.pattern]:.2f}x" if row.pattern in noise else "-",
            ]
            for row in measured
        ]
        header = [
            "pattern",
            "timed",
            "MPI alone us",
            "memcomm us",
            "memcomm speed-up",
            "MPI alone again",
        ]
        out.append(Table(f"lifecycle, {mpi}: median per operation", header, body))
        commits = [r for r in measured if roles.get(r.pattern, "").startswith("create")]
        apps = [r for r in measured if roles.get(r.pattern, "").startswith("iteration")]
        waitalls = [r for r in measured if "Waitall" in roles.get(r.pattern, "")]
        if commits:
            worst = max(r.seconds("memcomm") / r.seconds("mpi") for r in commits)
            findings.append(
                f"{mpi}: create + commit + free of a type never moved costs up to {worst:.2f}x "
                "the MPI alone (target: within 3x)"
            )
        if apps:
            speedups = [speedup[r.pattern] for r in apps]
            slowest = min(apps, key=lambda r: speedup[r.pattern])
            below = sum(s < 0.95 for s in speedups)
            trips = re.search(r"\d+", roles.get(apps[0].pattern, ""))
            every = "exchange" if trips and trips.group() == "1" else "exchanges"
            findings.append(
                f"{mpi}: ddtbench's micro-apps re-creating their type every "
                f"{trips.group() if trips else '?'} {every}, "
                f"{len(apps)} cases: memcomm {tables.geomean(speedups):.2f}x the MPI's own path "
                f"in geometric mean, slowest {speedup[slowest.pattern]:.3f}x "
                f"({slowest.pattern}), {below} below 0.95x"
            )
            again = [noise[r.pattern] for r in apps if r.pattern in noise]
            if again:
                findings.append(
                    f"{mpi}: the same cases, the MPI alone timed again in the same turns (this "
                    f"run's noise): {tables.geomean(again):.2f}x in geometric mean, slowest "
                    f"{min(again):.3f}x, {sum(s < 0.95 for s in again)} below 0.95x"
                )
        for row in waitalls:
            findings.append(
                f"{mpi}: non-blocking exchanges of {row.pattern}: memcomm "
                f"{speedup[row.pattern]:.2f}x the MPI's own path (paired per repetition)"
            )
    return Analysis(
        "lifecycle", "The life of a datatype under memcomm", "ddtbench", findings, [], out
    )


def simulated(records: Sequence[Result]) -> Analysis:
    """Events per pack (cachegrind) or per call (callgrind) counted by a simulator: labelled
    so, never mixed with measurements; "-" where the tool does not count an event."""
    events = ["Ir", "Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw"]
    header = ["experiment", "layout", "bytes", "engine", "method", *[f"{e} each" for e in events]]
    rows, findings = [], []
    for r in records:
        rows.append(
            [
                r["experiment"],
                str(r.get("layout", "")),
                size_text(float(r.get("bytes", 0))),
                str(r.get("engine", "")),
                r["method"],
                *[f"{r['events'][e]:.0f}" if e in r["events"] else "-" for e in events],
            ]
        )
    sends: dict[str, dict[str, float]] = {}  # layout -> engine -> instructions per send
    for r in records:
        if r["method"] == "MPI_Send" and "Ir" in r["events"]:
            sends.setdefault(str(r.get("layout", "")), {})[r["engine"]] = r["events"]["Ir"]
        elif r.get("note"):
            findings.append(f"an MPI_Send of {r.get('layout', '')} ({r['engine']}): {r['note']}")
    for layout, by in sends.items():
        if "mpi" in by and "memcomm" in by:
            findings.append(
                f"an MPI_Send of {layout}: {by['memcomm']:.0f} instructions with memcomm, "
                f"{by['mpi']:.0f} without: memcomm adds {by['memcomm'] - by['mpi']:.0f} "
                "(counted by callgrind)"
            )
    for r in records:
        if r["method"] != "datatype":
            continue
        user = next(
            (
                u
                for u in records
                if u["method"] == "user pack"
                and u.get("layout") == r.get("layout")
                and u.get("bytes") == r.get("bytes")
            ),
            None,
        )
        if user:
            d1 = (r["events"].get("D1mr", 0) + r["events"].get("D1mw", 0)) / max(
                user["events"].get("D1mr", 0) + user["events"].get("D1mw", 0), 1
            )
            instructions = r["events"].get("Ir", 0) / max(user["events"].get("Ir", 0), 1)
            findings.append(
                f"{r.get('layout')}, {size_text(float(r.get('bytes', 0)))}, {r.get('engine')}: "
                f"the datatype pack executes {instructions:.1f}x the instructions of the user's "
                f"loop and has {d1:.1f}x its L1 misses (simulated)"
            )
    tools = sorted({str(r.get("tool", "")) for r in records})
    findings += [f"counted by {t}" for t in tools]
    return Analysis(
        "simulated",
        "Simulated events per pack or call (not measured)",
        "000 sec. 6.3 counters",
        findings,
        [],
        [Table("events per pack or call", header, rows)],
    )


def logp(results: Sequence[Result]) -> Analysis:
    """LogGP fitted per MPI from the parameterized round trips, two ways (logp_model), and
    each one's ping-pong against the measured one: the streams fit at the sizes that did not
    anchor its L, the ping-pong fit at sizes it was not fitted on (two-fold)."""
    findings, figures, tables_ = [], [], []
    for mpi in sorted({str(r.get("mpi", "?")) for r in results}):
        points = logp_model.prtt_points(_of(results, mpi=mpi))
        if len(points) < 4:
            findings.append(f"{mpi}: PRTT at {len(points)} sizes, too few to fit LogGP")
            continue
        fits = [logp_model.fit(points), logp_model.fit_pingpong(points)]
        tables_.append(
            Table(
                f"LogGP parameters, {mpi}",
                ["G and L from", "from", "to", "L (us)", "o (us)", "O (ps/B)", "g (us)",
                 "1/G (GB/s)"],
                [
                    [f.method, size_text(s.smallest), size_text(s.largest), f"{s.L * 1e6:.3f}",
                     f"{s.o * 1e6:.3f}", f"{s.O * 1e12:.1f}", f"{s.g * 1e6:.3f}",
                     f"{1 / s.G / 1e9:.2f}" if s.G > 0 else "inf"]
                    for f in fits
                    for s in f.segments
                ],
            )
        )  # fmt: skip
        tables_.append(
            Table(
                f"round trips per size, {mpi}: what the fit sees",
                ["bytes", "half round trip (us)", "gap G_all (us)", "o(s) (us)", "delay d (us)"],
                [
                    [size_text(p.size), f"{p.one / 2 * 1e6:.2f}", f"{p.gap * 1e6:.2f}",
                     f"{p.overhead * 1e6:.2f}", f"{p.delay * 1e6:.2f}"]
                    for p in points
                ],
            )
        )  # fmt: skip
        checked = {
            "streams": logp_model.validate(fits[0], points),
            "ping-pong": logp_model.cross_validate(points),
        }
        measured = {c.subject: c.measured for c in checked["ping-pong"]}
        by_size = {name: {c.subject: c for c in checks} for name, checks in checked.items()}
        tables_.append(
            Table(
                f"ping-pong: LogGP against measurement, {mpi}",
                ["bytes", "measured (us)", "streams fit (us)", "error",
                 "ping-pong fit, held out (us)", "error"],
                [
                    [size_text(size), f"{measured[size] * 1e6:.2f}",
                     *[cell for name in checked for cell in _check_cells(by_size[name].get(size))]]
                    for size in sorted(measured)
                ],
            )
        )  # fmt: skip
        for name, checks in checked.items():
            what = (
                "G from the streams, L from each segment's smallest round trip"
                if name == "streams"
                else "L and G from the ping-pong, each size predicted by a fit without it"
            )
            worst = max(checks, key=lambda c: abs(c.error)) if checks else None
            findings.append(
                f"{mpi}, {name} fit ({what}): {len(fits[0].segments)} protocol segment(s); "
                f"predicted ping-pong within {median_abs_error(checks) * 100:.1f}% median "
                f"absolute error over {len(checks)} sizes (target 10%)"
                + (f"; worst {worst.error * 100:+.0f}% at {size_text(worst.subject)}"
                   if worst else "")
            )  # fmt: skip
        figures.append(
            Figure(
                f"logp-{mpi}",
                f"Ping-pong: LogGP predictions and measurement ({mpi})",
                "message size (bytes)",
                "half round trip (us)",
                [
                    Series(
                        f"measured ({mpi})",
                        [Point(float(s), summarize([t]), 1e6) for s, t in sorted(measured.items())],
                    ),
                    *[
                        Series(
                            f"LogGP, {name} fit ({mpi})",
                            [
                                Point(float(c.subject), summarize([c.predicted]), 1e6)
                                for c in checks
                            ],
                        )
                        for name, checks in checked.items()
                    ],
                ],
            )
        )
    return Analysis(
        "logp",
        "LogGP from parameterized round trips",
        "003 sec. 2; PRTT method",
        findings,
        figures,
        tables_,
    )


def _check_cells(check: Check[int] | None) -> list[str]:
    if check is None:
        return ["-", "-"]
    return [f"{check.predicted * 1e6:.2f}", f"{check.error * 100:+.1f}%"]


def memory(results: Sequence[Result], machine_model: dict[str, Any]) -> Analysis:
    """Memory-LogP's pack model per MPI and engine: fitted on part of the layouts, checked on
    the others (memory_model.held_out)."""
    machine = memory_model.Machine.of(machine_model)
    findings, figures, out = [], [], []
    for mpi in sorted({str(r.get("mpi", "?")) for r in results}):
        for engine in ("mpi", "memcomm"):
            observed = memory_model.observations(_of(results, mpi=mpi, engine=engine))
            if not observed:
                continue
            where = f"{mpi}{' +memcomm' if engine == 'memcomm' else ''}"
            train = [o for o in observed if not memory_model.held_out(o.layout)]
            test = [o for o in observed if memory_model.held_out(o.layout)]
            try:
                model = memory_model.fit(train, machine, engine)
            except ModelError as failure:
                findings.append(f"{where}: {failure}")
                continue
            out.append(
                Table(
                    f"Memory-LogP parameters, {where} (fitted on {len(train)} layouts)",
                    ["feature", "cost"],
                    [
                        [name, f"{cost * 1e9:.4g} ns"]
                        for name, cost in zip(memory_model.FEATURES, model.costs, strict=True)
                    ],
                )
            )
            checks = memory_model.validate(model, test)
            error = median_abs_error(checks)
            bad = [c for c in checks if abs(c.error) > 0.2]
            findings.append(
                f"{where}: pack time of {len(checks)} held-out layouts predicted within "
                f"{error * 100:.0f}% median absolute error (target 20%); "
                f"{len(bad)} beyond 20%"
                + (
                    ": "
                    + "; ".join(
                        f"{c.subject.describe()} {c.error * 100:+.0f}%"
                        for c in sorted(bad, key=lambda c: -abs(c.error))[:5]
                    )
                    if bad
                    else ""
                )
            )
            families = {
                kind: [c for c in checks if c.subject.kind == kind]
                for kind in ("vector", "transpose", "strided")
            }
            findings.append(
                f"{where}, by family: "
                + "; ".join(
                    f"{kind} {median_abs_error(family) * 100:.0f}% over {len(family)}"
                    + (" (never fitted on)" if kind == "strided" else "")
                    for kind, family in families.items()
                    if family
                )
            )
            out.append(
                Table(
                    f"held-out layouts, {where}",
                    ["layout", "bytes", "predicted (us)", "measured (us)", "error"],
                    [
                        [
                            c.subject.describe(),
                            size_text(c.subject.bytes),
                            f"{c.predicted * 1e6:.1f}",
                            f"{c.measured * 1e6:.1f}",
                            f"{c.error * 100:+.0f}%",
                        ]
                        for c in checks
                    ],
                )
            )
            figures.append(
                Figure(
                    f"memory-{mpi}-{engine}",
                    f"Pack time: predicted against measured ({where})",
                    "measured (us)",
                    "predicted (us)",
                    [
                        Series(
                            "held-out layouts",
                            [
                                Point(c.measured * 1e6, summarize([c.predicted]), 1e6)
                                for c in sorted(checks, key=lambda c: c.measured)
                            ],
                        ),
                        Series(
                            "predicted = measured",
                            [
                                Point(c.measured * 1e6, summarize([c.measured]), 1e6)
                                for c in sorted(checks, key=lambda c: c.measured)
                            ],
                        ),
                    ],
                )
            )
    return Analysis(
        "layouts",
        "Memory-LogP: pack time of a layout",
        "001 sec. 4; 000 eq. 1",
        findings,
        figures,
        out,
    )


def memory_send(
    decomposed: Sequence[Result], layouts: Sequence[Result], machine_model: dict[str, Any]
) -> Analysis:
    """Memory-LogP's send cost of the transpose, o + l_p + l_m + L: the pack model's t_p
    (= o + l_p, fitted on the `layouts` run) plus the contiguous send of the same bytes
    (o + L, measured by `decompose`), against the measured datatype send. With memcomm the
    message is packed then sent, so l_m should be near 0; the MPI's own path adds its
    middleware cost l_m, which the model leaves out: the gap measures it."""
    machine = memory_model.Machine.of(machine_model)
    findings, rows = [], []
    for mpi in sorted({str(r.get("mpi", "?")) for r in decomposed}):
        for engine in ("mpi", "memcomm"):
            observed = memory_model.observations(_of(layouts, mpi=mpi, engine=engine))
            train = [o for o in observed if not memory_model.held_out(o.layout)]
            if len(train) < len(memory_model.FEATURES):
                continue
            model = memory_model.fit(train, machine, engine)
            parts: dict[float, dict[str, float]] = {}
            for r in _of(decomposed, mpi=mpi, engine=engine):
                parts.setdefault(float(r.get("n", 0)), {})[r["method"]] = summarize(
                    r["seconds"]
                ).median
            checks = []
            for n, m in sorted(parts.items()):
                if "contiguous" not in m or "datatype" not in m:
                    continue
                pack = model.predict(memory_model.Layout.transpose(int(n)))
                checks.append(Check(int(n), pack + m["contiguous"], m["datatype"]))
            where = f"{mpi}{' +memcomm' if engine == 'memcomm' else ''}"
            for c in checks:
                rows.append(
                    [
                        where,
                        f"{c.subject}^2",
                        f"{c.predicted * 1e3:.2f}",
                        f"{c.measured * 1e3:.2f}",
                        f"{c.error * 100:+.0f}%",
                    ]
                )
            if checks:
                findings.append(
                    f"{where}: predicted send within {median_abs_error(checks) * 100:.0f}% "
                    f"median absolute error over {len(checks)} transposes"
                    + (
                        ""
                        if engine == "memcomm"
                        else " (the MPI's datatype send adds its middleware cost l_m, not modelled)"
                    )
                )
    return Analysis(
        "memory-send",
        "Memory-LogP: send cost of the transpose (t_p + o + L)",
        "001 sec. 4",
        findings,
        [],
        [
            Table(
                "one-way time of the transpose's datatype send",
                ["configuration", "n", "predicted (ms)", "measured (ms)", "error"],
                rows,
            )
        ],
    )


STENCIL_ROWS = ("baseline", "OPT1", "OPT2")


def stencil(results: Sequence[Result]) -> Analysis:
    """Pellegrini, Hoefler and Fahringer's (CLUSTER 2012) stencil: time per iteration of
    Listings 1-3 and the strip-mined exchange by message size, and the column halo through
    the MPI's datatype path against memcomm."""
    findings: list[str] = []
    out: list[Table] = []
    figures: list[Figure] = []
    for mpi in sorted({str(r.get("mpi", "?")) for r in results}):
        by_size: dict[int, dict[str, Summary]] = {}
        for r in _of(results, mpi=mpi):
            by_size.setdefault(int(r["bytes"]), {})[str(r["method"])] = summarize(r["seconds"])
        rows, series = [], {m: Series(m) for m in STENCIL_ROWS}
        winners: dict[str, list[int]] = {}
        column_gains = []
        for size, m in sorted(by_size.items()):
            if "baseline" not in m:
                continue
            base = m["baseline"].median
            strips = {k: v for k, v in m.items() if k.startswith("strip")}
            best_strip = min(strips, key=lambda k: strips[k].median) if strips else None
            variants = {k: v.median for k, v in m.items() if not k.startswith("column")}
            winner = min(variants, key=lambda k: variants[k])
            winners.setdefault(winner, []).append(size)
            for name in STENCIL_ROWS:
                if name in m:
                    series[name].points.append(Point(size, m[name], 1e6))
            gain = None
            if "column mpi" in m and "column memcomm" in m:
                gain = m["column mpi"].median / m["column memcomm"].median
                column_gains.append(gain)
            rows.append([
                size_text(size), f"{base * 1e6:.1f}",
                *(f"{m[k].median / base:.2f}" if k in m else "-" for k in ("OPT1", "OPT2")),
                f"{strips[best_strip].median / base:.2f} ({best_strip[6:]})" if best_strip else "-",
                winner, f"{gain:.2f}x" if gain else "-",
            ])  # fmt: skip
        if not rows:
            continue
        out.append(
            Table(
                f"stencil, {mpi}: time per iteration (median); variants relative to Listing 1",
                [
                    "row (message)",
                    "baseline us",
                    "OPT1",
                    "OPT2",
                    "best strip",
                    "fastest",
                    "column: memcomm vs MPI",
                ],
                rows,
            )
        )
        figures.append(
            Figure(
                f"stencil-{mpi.replace(' ', '-')}",
                f"3-point stencil, {mpi}: time per iteration by message size",
                "message (row) bytes",
                "time per iteration (us)",
                [s for s in series.values() if s.points],
            )
        )
        for winner, sizes in sorted(winners.items(), key=lambda w: min(w[1])):
            findings.append(f"{mpi}: {winner} fastest at {', '.join(size_text(x) for x in sizes)}")
        if column_gains:
            findings.append(
                f"{mpi}: the column halo carried by memcomm runs the iteration "
                f"{min(column_gains):.2f}-{max(column_gains):.2f}x as fast as the MPI's datatype "
                "path (the paper: OPT2 about 20% faster at 256 B, OPT1 up to 40% for larger "
                "messages, on its LEO3 cluster)"
            )
    return Analysis(
        "stencil",
        "3-point stencil: where to place the halo exchange",
        "004 sec. V",
        findings,
        figures,
        out,
    )


def _diamond_runs(results: Sequence[Result]) -> dict[tuple[str, int, int], dict[int, Result]]:
    """(MPI, n, ranks) -> b -> {method: median seconds}, with the message bytes."""
    runs: dict[tuple[str, int, int], dict[int, Result]] = {}
    for r in results:
        key = (str(r.get("mpi", "?")), int(r["n"]), int(r["ranks"]))
        at = runs.setdefault(key, {}).setdefault(
            int(r["blocks"]), {"bytes": int(r["bytes"]), "summaries": {}}
        )
        summary = summarize(r["seconds"])
        at[str(r["method"])] = summary.median
        at["summaries"][str(r["method"])] = summary
    return runs


def diamond(results: Sequence[Result]) -> Analysis:
    """The Diamond DAG mini-application: makespan by block count b, against the same blocks
    computed without messages (eq. 15's W, summed over the stripe)."""
    findings: list[str] = []
    out: list[Table] = []
    figures: list[Figure] = []
    for (mpi, n, ranks), by_b in sorted(_diamond_runs(results).items()):
        timed = {b: m for b, m in sorted(by_b.items()) if "makespan" in m and "compute" in m}
        if not timed:
            continue
        rows = [
            [str(b), size_text(m["bytes"]), f"{m['compute'] * 1e3:.2f}",
             f"{m['makespan'] * 1e3:.2f}", f"{m['makespan'] / m['compute']:.2f}"]
            for b, m in timed.items()
        ]  # fmt: skip
        out.append(
            Table(
                f"Diamond DAG {n}x{n} on {ranks} ranks, {mpi} (medians)",
                ["b", "message", "compute (ms)", "makespan (ms)", "makespan / compute"],
                rows,
            )
        )
        best = min(timed, key=lambda b: timed[b]["makespan"])
        findings.append(
            f"{mpi}, n = {n}, {ranks} ranks: fastest at b = {best} "
            f"({timed[best]['makespan'] * 1e3:.2f} ms; b = 1 takes "
            f"{timed[min(timed)]['makespan'] / timed[best]['makespan']:.2f}x that)"
        )
    return Analysis(
        "diamond",
        "Diamond DAG: the makespan by communication granularity",
        "003 sec. 5.2",
        findings,
        figures,
        out,
    )


def _loggp_fit(logps: Sequence[Result], mpi: str, findings: list[str]) -> logp_model.Fit | None:
    """LogGP fitted to `mpi`'s ping-pong records (None, and a finding saying what to run,
    without enough of them)."""
    points = logp_model.prtt_points(_of(logps, mpi=mpi))
    if len(points) < 4:
        findings.append(f"{mpi}: no LogGP fit (run `memcomm bench logp --mpi {mpi}`)")
        return None
    return logp_model.fit_pingpong(points)


def diamond_model(diamonds: Sequence[Result], logps: Sequence[Result]) -> Analysis:
    """Eq. 15 with LogGP fitted from this machine's `logp` run (the ping-pong fit: the
    segment of each message's size) and W from the mini-app's own compute-only run, against
    the measured makespan; and whether the predicted best b is the measured best (or within
    10% of its time)."""
    findings: list[str] = []
    out: list[Table] = []
    figures: list[Figure] = []
    for (mpi, n, ranks), by_b in sorted(_diamond_runs(diamonds).items()):
        fit = _loggp_fit(logps, mpi, findings)
        if fit is None:
            continue
        checks: list[Check[int]] = []
        measured = Series("measured")
        for b, m in sorted(by_b.items()):
            if "makespan" not in m or "compute" not in m:
                continue
            measured.points.append(Point(b, m["summaries"]["makespan"], 1e3))
            segment = fit.segment(m["bytes"])
            machine = logpc_model.LogGP(
                L=max(segment.L, 0.0), o_s=segment.o, o_r=segment.o, g=segment.g, G=segment.G
            )
            task = m["compute"] * ranks / (n * n)  # W from the run without messages
            dag = logpc_model.Diamond(n=n, P=ranks, machine=machine, task=task, value_bytes=8)
            checks.append(Check(b, dag.makespan(b), m["makespan"]))
        if not checks:
            continue
        out.append(
            Table(
                f"eq. 15 against the Diamond DAG {n}x{n} on {ranks} ranks, {mpi}",
                ["b", "predicted (ms)", "measured (ms)", "error"],
                [
                    [
                        str(c.subject),
                        f"{c.predicted * 1e3:.2f}",
                        f"{c.measured * 1e3:.2f}",
                        f"{c.error * 100:+.0f}%",
                    ]
                    for c in checks
                ],
            )
        )
        predicted = Series(
            "eq. 15 (LogGP fitted here, W measured)",
            [Point(c.subject, summarize([c.predicted]), 1e3) for c in checks],
        )
        figures.append(
            Figure(
                f"diamond-{mpi.replace(' ', '-')}-{n}",
                f"Diamond DAG {n}x{n} on {ranks} ranks, {mpi}: makespan by block count",
                "blocks per stripe b",
                "makespan (ms)",
                [measured, predicted],
            )
        )
        predicted_best = min(checks, key=lambda c: c.predicted)
        measured_best = min(checks, key=lambda c: c.measured)
        slower = predicted_best.measured / measured_best.measured - 1
        verdict = (
            "the measured best"
            if predicted_best is measured_best
            else f"{slower * 100:.0f}% slower than the measured best b = {measured_best.subject}"
            + (" (within 10%)" if slower <= 0.10 else "")
        )
        findings.append(
            f"{mpi}, n = {n}, {ranks} ranks: eq. 15 within {median_abs_error(checks) * 100:.0f}% "
            f"median absolute error over {len(checks)} block counts; its best b = "
            f"{predicted_best.subject} is {verdict}"
        )
    return Analysis(
        "diamond-model",
        "Diamond DAG: eq. 15 with this machine's LogGP against the measured makespan",
        "003 sec. 5.2",
        findings,
        figures,
        out,
    )


def _em3d_runs(results: Sequence[Result]) -> dict[tuple[str, str, int, int], dict[int, Result]]:
    """(MPI, order, ranks, span) -> % non-local -> {method: median seconds, summaries,
    messages (the matrix), bytes per message}."""
    runs: dict[tuple[str, str, int, int], dict[int, Result]] = {}
    for r in results:
        key = (str(r.get("mpi", "?")), str(r["order"]), int(r["ranks"]), int(r["span"]))
        at = runs.setdefault(key, {}).setdefault(
            int(r["remote_percent"]),
            {"bytes": int(r["bytes"]), "messages": r["messages"], "summaries": {}},
        )
        summary = summarize(r["seconds"])
        at[str(r["method"])] = summary.median
        at["summaries"][str(r["method"])] = summary
    return runs


def _em3d_sequences(matrix: Sequence[Sequence[int]], order: str) -> list[list[int]]:
    """Each rank's message destinations in sending order, from the counts the run sent."""
    sequences = [[q for q, count in enumerate(row) for _ in range(count)] for row in matrix]
    if order == "random":  # the mini-app's shuffle is its own; only the mix matters here
        for p, sequence in enumerate(sequences):
            random.Random(p).shuffle(sequence)
    return sequences


def em3d(results: Sequence[Result]) -> Analysis:
    """The EM3D mini-application: the communication phase and the whole half-step by the
    share of non-local edges, per message."""
    findings: list[str] = []
    out: list[Table] = []
    for (mpi, order, ranks, span), by_share in sorted(_em3d_runs(results).items()):
        rows = []
        for share, m in sorted(by_share.items()):
            if "phase" not in m or "step" not in m:
                continue
            sent = max(sum(row) for row in m["messages"])
            rows.append(
                [f"{share}%", str(sent), f"{m['phase'] * 1e3:.3f}", f"{m['step'] * 1e3:.3f}",
                 f"{m['phase'] / max(sent, 1) * 1e6:.2f}"]
            )  # fmt: skip
        if not rows:
            continue
        out.append(
            Table(
                f"EM3D on {ranks} ranks, span {span}, {order} order, {mpi} (medians)",
                [
                    "non-local",
                    "messages (most per rank)",
                    "phase (ms)",
                    "half-step (ms)",
                    "us per message",
                ],
                rows,
            )
        )
        findings.append(
            f"{mpi}, {ranks} ranks, span {span}, {order} order: "
            f"{min(float(r[4]) for r in rows):.2f}-{max(float(r[4]) for r in rows):.2f} us "
            f"per message sent over {len(rows)} shares of non-local edges"
        )
    return Analysis(
        "em3d",
        "EM3D: the communication phase by the share of non-local edges",
        "003 sec. 5.3",
        findings,
        [],
        out,
    )


def em3d_model(em3ds: Sequence[Result], logps: Sequence[Result]) -> Analysis:
    """LoGPC's EM3D phase (models/em3d.py) with LogGP fitted from this machine's `logp` run,
    replaying the messages each rank of the mini-app sent, against its measured phase.

    Two readings of a message's cost: the paper's o_s + o_r, with o from the fit; and each
    end at least the gap g, since on one node no network interface takes the work off the
    CPU that sends and receives (LogP's g bounds consecutive sends and, separately,
    consecutive receptions; here one CPU does both). Each is the event simulation (handlers
    preempting sends, latency L, queues unbounded as MPI's are). With 2 ranks the span is 1
    and both orders send the same sequence."""
    findings: list[str] = []
    out: list[Table] = []
    figures: list[Figure] = []
    for (mpi, order, ranks, span), by_share in sorted(_em3d_runs(em3ds).items()):
        fit = _loggp_fit(logps, mpi, findings)
        if fit is None:
            continue
        with_o: list[Check[int]] = []
        with_g: list[Check[int]] = []
        measured = Series("measured")
        for share, m in sorted(by_share.items()):
            if "phase" not in m:
                continue
            segment = fit.segment(m["bytes"])
            sequences = _em3d_sequences(m["messages"], order)
            for checks, cost in ((with_o, segment.o), (with_g, max(segment.o, segment.g))):
                machine = logpc_model.LogGP(
                    L=max(segment.L, 0.0), o_s=cost, o_r=cost, g=segment.g, G=segment.G
                )
                phase = em3d_phases.simulate_phase(sequences, machine, queue=1 << 30)
                checks.append(Check(share, phase.time, m["phase"]))
            measured.points.append(Point(share, m["summaries"]["phase"], 1e3))
        if not with_o:
            continue
        out.append(
            Table(
                f"LoGPC's EM3D phase against the mini-app on {ranks} ranks, span {span}, "
                f"{order} order, {mpi}",
                [
                    "non-local",
                    "o_s + o_r (ms)",
                    "error",
                    "g at each end (ms)",
                    "error",
                    "measured (ms)",
                ],
                [
                    [
                        f"{a.subject}%",
                        f"{a.predicted * 1e3:.3f}",
                        f"{a.error * 100:+.0f}%",
                        f"{b.predicted * 1e3:.3f}",
                        f"{b.error * 100:+.0f}%",
                        f"{a.measured * 1e3:.3f}",
                    ]
                    for a, b in zip(with_o, with_g, strict=True)
                ],
            )
        )
        figures.append(
            Figure(
                f"em3d-{mpi.replace(' ', '-')}-{order.replace(' ', '-')}-{ranks}",
                f"EM3D on {ranks} ranks, span {span}, {order} order, {mpi}: the phase",
                "non-local edges (%)",
                "phase (ms)",
                [
                    measured,
                    Series(
                        "simulated, o_s + o_r per message",
                        [Point(c.subject, summarize([c.predicted]), 1e3) for c in with_o],
                    ),
                    Series(
                        "simulated, the gap g at each end",
                        [Point(c.subject, summarize([c.predicted]), 1e3) for c in with_g],
                    ),
                ],
            )
        )
        note = " (2 ranks: span 1 only, and both orders are one)" if ranks == 2 else ""
        segment = fit.segment(max(m["bytes"] for m in by_share.values()))
        findings.append(
            f"{mpi}, {ranks} ranks, span {span}, {order} order: with the fitted o = "
            f"{segment.o * 1e6:.2f} us per end the phase is predicted within "
            f"{median_abs_error(with_o) * 100:.0f}% median absolute error over {len(with_o)} "
            f"shares of non-local edges; with the gap g = {segment.g * 1e6:.2f} us at each end "
            f"within {median_abs_error(with_g) * 100:.0f}%{note}"
        )
    return Analysis(
        "em3d-model",
        "EM3D: LoGPC's phase with this machine's LogGP against the mini-app",
        "003 sec. 5.3",
        findings,
        figures,
        out,
    )


def analyse(experiment: str, results: Sequence[Result], machine: dict[str, Any]) -> Analysis:
    """The analysis of one experiment's results (from any number of runs and MPIs)."""

    def model(name: str) -> float | None:
        field_ = machine.get(name)
        value = field_.get("value") if isinstance(field_, dict) else None
        return float(value) if isinstance(value, (int, float)) and value > 0 else None

    if experiment == "cache-state":
        return cache_state(results, model("LLC_SIZE"))
    if experiment == "layouts":
        return memory(results, machine)
    if experiment == "tlb":
        return tlb(results, model("TLB_ENTRIES"))
    if experiment == "latency":
        caches = {k: v for k in ("L1_SIZE", "L2_SIZE", "LLC_SIZE") if (v := model(k))}
        return latency(results, caches)
    simple: dict[str, Callable[[Sequence[Result]], Analysis]] = {
        "noncontig": noncontig,
        "blocking": blocking,
        "ddt-vs-pack": ddt_vs_pack,
        "decompose": decompose,
        "pollution": pollution,
        "eager": eager,
        "copy": copy,
        "pack": pack,
        "pingpong": pingpong,
        "collectives": collectives,
        "io": io,
        "lifecycle": lifecycle,
        "logp": logp,
        "diamond": diamond,
        "em3d": em3d,
        "stencil": stencil,
    }
    if experiment not in simple:
        raise ValueError(f"no analysis for experiment {experiment!r}")
    return simple[experiment](results)
