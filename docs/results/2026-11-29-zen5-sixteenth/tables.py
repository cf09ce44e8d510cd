"""A/B table of any `bench pack` patterns: python tables.py "ab-*.jsonl" (files named
<prefix>-<before|after>-<round>.jsonl; GB/s are medians over the rounds, ratios medians of the
per-round ratios of two measurements taken in the same launch or alternated launches; memcpy:
the one copy of the packed bytes, measured with the pack)."""

import collections
import glob
import json
import statistics
import sys

Key = tuple[str, str, str, str]  # pattern, direction, method, build
rate: dict[Key, dict[str, float]] = collections.defaultdict(dict)
for path in sorted(glob.glob(sys.argv[1])):
    build, round_ = path.rsplit(".", 1)[0].split("-")[-2:]
    with open(path) as lines:
        for line in lines:
            r = json.loads(line)
            if r.get("kind") == "result":
                key = (r["pattern"], r["direction"], r["method"], build)
                rate[key][round_] = r["bytes"] / statistics.median(r["seconds"]) / 1e9


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
            f"{ratio((p, d, 'memcomm', 'after'), (p, 'pack', 'memcpy', 'after'))} |"
        )
    print(
        f"| {p} | unpack/pack | | | | | after "
        f"{ratio((p, 'unpack', 'memcomm', 'after'), (p, 'pack', 'memcomm', 'after'))}, before "
        f"{ratio((p, 'unpack', 'memcomm', 'before'), (p, 'pack', 'memcomm', 'before'))} |"
    )
