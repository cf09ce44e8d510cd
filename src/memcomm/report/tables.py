"""Text tables of the pack and ping-pong benchmarks: medians, ratios, bandwidths."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

# Methods without a direction (bench_pack measures them once, with the pack records).
UNDIRECTED = ("memcpy",)


@dataclass(frozen=True)
class PackRow:
    """One pattern of the pack benchmark: median seconds per method and direction."""

    pattern: str
    bytes: int
    pack_s: dict[str, float] = field(default_factory=dict)
    unpack_s: dict[str, float] = field(default_factory=dict)

    def _table(self, method: str, direction: str) -> dict[str, float]:
        # records before 2026-11-27 measured "lines" once, reading: the unpack rows used that
        old_lines = method == "lines" and method not in self.unpack_s
        if direction == "pack" or method in UNDIRECTED or old_lines:
            return self.pack_s
        return self.unpack_s

    def seconds(self, method: str, direction: str = "pack") -> float:
        return self._table(method, direction)[method]

    def has(self, method: str, direction: str = "pack") -> bool:
        return method in self._table(method, direction)

    def gbps(self, method: str, direction: str = "pack") -> float:
        return self.bytes / self.seconds(method, direction) / 1e9

    def ratio(self, method: str, baseline: str, direction: str = "pack") -> float:
        """How many times faster `method` is than `baseline` (by median time)."""
        return self.seconds(baseline, direction) / self.seconds(method, direction)


def pack_rows(records: Iterable[dict[str, Any]], experiment: str = "pack") -> list[PackRow]:
    """Group one experiment's records by pattern, in the order the patterns first appear."""
    rows: dict[str, PackRow] = {}
    for record in records:
        if record.get("experiment") != experiment:
            continue
        row = rows.setdefault(record["pattern"], PackRow(record["pattern"], record["bytes"]))
        table = row.unpack_s if record.get("direction") == "unpack" else row.pack_s
        table[record["method"]] = statistics.median(record["seconds"])
    return list(rows.values())


def geomean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else math.nan


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """The same table for a Markdown document (the README's benchmark table)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain text table, columns right-aligned except the first."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, ["-" * w for w in widths], *rows]:
        cells = [
            str(c).ljust(widths[0]) if i == 0 else str(c).rjust(widths[i])
            for i, c in enumerate(row)
        ]
        lines.append("  ".join(cells))
    return "\n".join(lines)


def _gbps(row: PackRow, method: str, direction: str) -> str:
    return f"{row.gbps(method, direction):.2f}" if row.has(method, direction) else "-"


def pack_table(rows: Sequence[PackRow], direction: str = "pack") -> str:
    return format_table(*pack_columns(rows, direction))


def pack_columns(
    rows: Sequence[PackRow], direction: str = "pack"
) -> tuple[list[str], list[list[str]]]:
    """GB/s of every method (of the packed bytes) and memcomm's ratios to the baselines.

    `memcomm/lines` is memcomm's bandwidth as a share of reading the touched cache lines once:
    for sparse layouts that, not memcpy, is the ceiling. Where the run timed them, the
    interposed MPI_Pack/MPI_Unpack (memcomm's kernel or the MPI's own call, as its trials
    chose) get a column and their ratio to the MPI's.
    """
    interposed = any(r.has("interposed", direction) for r in rows)
    methods = ["mpi", "manual", "manual-blocked", "memcomm"] + ["interposed"] * interposed
    header = ["pattern", "MB", "memcpy", "lines", *methods]
    header = [h if h in ("pattern", "MB") else f"{h} GB/s" for h in header]
    header += ["memcomm/MPI", "memcomm/memcpy", "memcomm/lines"]
    header += ["interposed/MPI"] * interposed
    if direction == "unpack":
        header.append("unpack/pack")
    body = []
    for r in rows:
        if not r.has("memcomm", direction):
            continue
        cells = [r.pattern, f"{r.bytes / 1e6:.2f}"]
        cells += [_gbps(r, m, direction) for m in ["memcpy", "lines", *methods]]
        cells += [
            f"{r.ratio('memcomm', 'mpi', direction):.2f}x" if r.has("mpi", direction) else "-",
            f"{r.ratio('memcomm', 'memcpy', direction) * 100:.0f}%" if r.has("memcpy") else "-",
            f"{r.ratio('memcomm', 'lines', direction) * 100:.0f}%" if r.has("lines") else "-",
        ]
        if interposed:
            measured = r.has("interposed", direction) and r.has("mpi", direction)
            cells.append(f"{r.ratio('interposed', 'mpi', direction):.2f}x" if measured else "-")
        if direction == "unpack":
            cells.append(f"{r.seconds('memcomm', 'pack') / r.seconds('memcomm', 'unpack'):.2f}")
        body.append(cells)
    return header, body


def pingpong_columns(rows: Sequence[PackRow]) -> tuple[list[str], list[list[str]]]:
    """Half round-trip time and bandwidth of each method; memcomm against the MPI's datatype
    send and against sending the same bytes contiguously."""
    methods = ["contiguous", "mpi", "manual", "manual-blocked", "memcomm"]
    header = ["pattern", "MB", *[f"{m} GB/s" for m in methods], "memcomm us"]
    header += ["memcomm/MPI", "of contiguous"]
    body = []
    for r in rows:
        if not r.has("memcomm"):
            continue
        cells = [r.pattern, f"{r.bytes / 1e6:.2f}"]
        cells += [f"{r.gbps(m):.2f}" if r.has(m) else "-" for m in methods]
        cells += [
            f"{r.seconds('memcomm') * 1e6:.1f}",
            f"{r.ratio('memcomm', 'mpi'):.2f}x",
            f"{r.ratio('memcomm', 'contiguous') * 100:.0f}%",
        ]
        body.append(cells)
    return header, body


def collectives_columns(rows: Sequence[PackRow]) -> tuple[list[str], list[list[str]]]:
    """Time of the slowest rank and bandwidth (bytes each rank sends) of each method;
    memcomm against the MPI's own collective, the hand-written pack and the same bytes sent
    contiguously (the same collective on bytes)."""
    methods = ["contiguous", "mpi", "manual", "memcomm"]
    header = ["pattern", "MB/rank", *[f"{m} GB/s" for m in methods], "memcomm ms"]
    header += ["memcomm/MPI", "memcomm/manual", "of contiguous"]
    body = []
    for r in rows:
        if not (r.has("memcomm") and r.has("mpi")):
            continue
        cells = [r.pattern, f"{r.bytes / 1e6:.1f}"]
        cells += [f"{r.gbps(m):.2f}" if r.has(m) else "-" for m in methods]
        cells += [f"{r.seconds('memcomm') * 1e3:.2f}", f"{r.ratio('memcomm', 'mpi'):.2f}x"]
        cells += [f"{r.ratio('memcomm', 'manual'):.2f}x" if r.has("manual") else "-"]
        cells += [f"{r.ratio('memcomm', 'contiguous') * 100:.0f}%" if r.has("contiguous") else "-"]
        body.append(cells)
    return header, body


def summary(rows: Sequence[PackRow]) -> str:
    """memcomm against the MPI over all patterns: geometric mean and the worst case."""
    lines = []
    for direction in ("pack", "unpack"):
        ratios = [
            (r.ratio("memcomm", "mpi", direction), r.pattern)
            for r in rows
            if r.has("memcomm", direction) and r.has("mpi", direction)
        ]
        if not ratios:
            continue
        worst = min(ratios)
        lines.append(
            f"{direction}: memcomm/MPI geometric mean {geomean([x for x, _ in ratios]):.2f}x over "
            f"{len(ratios)} patterns; lowest {worst[0]:.2f}x ({worst[1]})"
        )
    return "\n".join(lines)


def across_mpis(records: Iterable[dict[str, Any]], markdown: bool = False) -> str:
    """One table of memcomm against each MPI's own pack (records carry their "mpi")."""
    by_mpi: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_mpi.setdefault(str(record.get("mpi", "?")), []).append(record)
    tables = {mpi: {r.pattern: r for r in pack_rows(rs)} for mpi, rs in by_mpi.items()}
    mpis = list(tables)
    patterns = list(dict.fromkeys(p for t in tables.values() for p in t))
    header = ["pattern", "MB"]
    for mpi in mpis:
        header += [f"{mpi} MPI", f"{mpi} memcomm", f"{mpi} vs MPI", "of memcpy", "of lines"]
    header.append("unpack/pack")
    body = []
    for pattern in patterns:
        rows = [tables[m].get(pattern) for m in mpis]
        first = next(r for r in rows if r is not None)
        cells = [pattern, f"{first.bytes / 1e6:.2f}"]
        for r in rows:
            if r is None or not r.has("memcomm"):
                cells += ["-"] * 5
                continue
            cells += [
                _gbps(r, "mpi", "pack"),
                f"{r.gbps('memcomm'):.2f}",
                f"{r.ratio('memcomm', 'mpi'):.2f}x" if r.has("mpi") else "-",
                f"{r.ratio('memcomm', 'memcpy') * 100:.0f}%" if r.has("memcpy") else "-",
                f"{r.ratio('memcomm', 'lines') * 100:.0f}%" if r.has("lines") else "-",
            ]
        unpack = [
            r.seconds("memcomm") / r.seconds("memcomm", "unpack")
            for r in rows
            if r is not None and r.has("memcomm", "unpack")
        ]
        cells.append("/".join(f"{u:.2f}" for u in unpack) or "-")
        body.append(cells)
    lines = ["pack bandwidth, GB/s of packed bytes (median); vs MPI: memcomm / the MPI's MPI_Pack"]
    lines.append((markdown_table if markdown else format_table)(header, body))
    for mpi in mpis:
        lines.append(f"{mpi}: " + summary(list(tables[mpi].values())).replace("\n", f"\n{mpi}: "))
    return "\n".join(lines)


def probe_text(probe: dict[str, Any]) -> str:
    """The probe's curves, short: where the TLB knee is and where streaming starts to win."""
    lines = ["TLB probe (one line in each of N pages, random order): ns per access"]
    tlb = probe.get("tlb", [])
    lines.append("  " + "  ".join(f"{pages}:{ns:.1f}" for pages, ns in tlb))
    entries = probe.get("TLB_ENTRIES", 0)
    lines.append(
        f"  -> first knee after {entries} pages: TLB_ENTRIES = {entries}"
        if entries
        else "  -> no knee found: TLB_ENTRIES keeps its default"
    )
    lines.append("transpose tiles, streamed, 32 MiB, GB/s: tile row  doubles  floats")
    tile = probe.get("TILE_BYTES", 0)
    for row, doubles, floats in probe.get("tile", []):
        mark = "  <- fastest: TILE_BYTES" if row == tile else ""
        lines.append(f"  {row:8d} B  {doubles:7.2f}  {floats:6.2f}{mark}")
    shuffles = probe.get("shuffle", [])
    if shuffles:
        lines.append("transposes of doubles, 1024^2-4096^2, cached stores: registers  GB/s")
        width = probe.get("SHUFFLE_BYTES", 0)
        for register, doubles in shuffles:
            mark = "  <- fastest: SHUFFLE_BYTES" if register == width else ""
            lines.append(f"  {register:8d} B  {doubles:7.2f}{mark}")
    lines.append("transpose into a just-written buffer, GB/s: size  plain  streaming")
    threshold, marked = probe.get("STREAM_BYTES", 0), False
    for size, plain, streaming in probe.get("transpose", []):
        mark = "  <- streaming wins from here on" if size > threshold and not marked else ""
        marked = marked or size > threshold
        lines.append(f"  {size / 2**20:9.2f} MiB  {plain:6.2f}  {streaming:6.2f}{mark}")
    copy = probe.get("COPY_BYTES_PER_S", 0)
    lines.append(f"copy bandwidth (128 MiB): {copy / 1e9:.2f} GB/s")
    return "\n".join(lines)
