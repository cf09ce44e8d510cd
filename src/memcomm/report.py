"""Turn benchmark records into what a person reads: medians, ratios, a text table."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PackRow:
    """One pattern of the pack benchmark: median seconds per method, bytes per call."""

    pattern: str
    bytes: int
    median_s: dict[str, float]

    def gbps(self, method: str) -> float:
        return self.bytes / self.median_s[method] / 1e9

    def ratio(self, method: str, baseline: str) -> float:
        """How many times faster `method` is than `baseline` (by median time)."""
        return self.median_s[baseline] / self.median_s[method]


def pack_rows(records: Iterable[dict[str, Any]]) -> list[PackRow]:
    """Group pack records by pattern, in the order the patterns first appear."""
    by_pattern: dict[str, dict[str, Any]] = {}
    for record in records:
        if record.get("experiment") != "pack":
            continue
        entry = by_pattern.setdefault(record["pattern"], {"bytes": record["bytes"], "m": {}})
        entry["m"][record["method"]] = statistics.median(record["seconds"])
    return [PackRow(name, e["bytes"], e["m"]) for name, e in by_pattern.items()]


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


def pack_table(rows: Sequence[PackRow]) -> str:
    header = [
        "pattern",
        "MB",
        "memcpy GB/s",
        "MPI GB/s",
        "manual GB/s",
        "memcomm GB/s",
        "memcomm/MPI",
        "memcomm/memcpy",
    ]
    body = [
        [
            r.pattern,
            f"{r.bytes / 1e6:.2f}",
            f"{r.gbps('memcpy'):.2f}",
            f"{r.gbps('mpi'):.2f}",
            f"{r.gbps('manual'):.2f}",
            f"{r.gbps('memcomm'):.2f}",
            f"{r.ratio('memcomm', 'mpi'):.2f}x",
            f"{r.ratio('memcomm', 'memcpy') * 100:.0f}%",
        ]
        for r in rows
    ]
    return format_table(header, body)
