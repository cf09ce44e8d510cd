"""A/B table of any `bench pack` patterns: python tables.py "ab-*.jsonl" (files named
<prefix>-<before|after>-<round>.jsonl; GB/s are medians over the rounds, ratios medians of the
per-round ratios of two measurements taken in the same launch or alternated launches; memcpy:
the one copy of the packed bytes, measured with the pack). Run with the project's Python
(.venv/bin/python): it reads the files with memcomm's own results and report modules."""

import collections
import glob
import statistics
import sys

from memcomm import results
from memcomm.report import tables

Key = tuple[str, str, str, str]  # pattern, direction, method, build
rate: dict[Key, dict[str, float]] = collections.defaultdict(dict)
for path in sorted(glob.glob(sys.argv[1])):
    build, round_ = path.rsplit(".", 1)[0].split("-")[-2:]
    runs = results.read([path])
    for row in tables.pack_rows(run.result(r) for run in runs for r in run.results):
        for direction in ("pack", "unpack"):
            for method in (*row.pack_s, *row.unpack_s):
                if row.has(method, direction):
                    rate[(row.pattern, direction, method, build)][round_] = row.gbps(
                        method, direction
                    )


def median(pattern: str, direction: str, method: str, build: str) -> float:
    return statistics.median(rate[(pattern, direction, method, build)].values())


def ratio(a: Key, b: Key) -> str:
    """Median over rounds of a / b, and their range."""
    ra, rb = rate[a], rate[b]
    values = sorted(ra[k] / rb[k] for k in ra.keys() & rb.keys())
    return f"{statistics.median(values):.2f} ({values[0]:.2f}-{values[-1]:.2f})"


patterns = sorted({k[0] for k in rate})
COLUMNS = "pattern direction before_GB/s after_GB/s after/before after/manual after/memcpy"
print("| " + " | ".join(c.replace("_", " ") for c in COLUMNS.split()) + " |")
print("|---|---|---|---|---|---|---|")
for p in patterns:
    for d in ("pack", "unpack"):
        print(
            f"| {p} | {d} | {median(p, d, 'memcomm', 'before'):.2f} | "
            f"{median(p, d, 'memcomm', 'after'):.2f} | "
            f"{ratio((p, d, 'memcomm', 'after'), (p, d, 'memcomm', 'before'))} | "
            f"{ratio((p, d, 'memcomm', 'after'), (p, d, 'manual', 'after'))} | "
            f"{ratio((p, d, 'memcomm', 'after'), (p, d, 'memcpy', 'after'))} |"
        )
    print(
        f"| {p} | unpack/pack | | | | | after "
        f"{ratio((p, 'unpack', 'memcomm', 'after'), (p, 'pack', 'memcomm', 'after'))}, before "
        f"{ratio((p, 'unpack', 'memcomm', 'before'), (p, 'pack', 'memcomm', 'before'))} |"
    )
