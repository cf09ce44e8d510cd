"""The A/B table of README.md: python tables.py "ab-*.jsonl" (medians over the rounds, GB/s)."""

import collections
import glob
import json
import statistics
import sys

ELEM = {"double": 8, "float": 4, "complex": 16}
rate = collections.defaultdict(dict)  # (pattern, direction, method, build) -> {round: GB/s}
for path in sorted(glob.glob(sys.argv[1])):
    build, round_ = path.rsplit(".", 1)[0].split("-")[-2:]
    for line in open(path):
        r = json.loads(line)
        if r.get("kind") == "result":
            key = (r["pattern"], r["direction"], r["method"], build)
            rate[key][round_] = r["bytes"] / statistics.median(r["seconds"]) / 1e9


def median(pattern: str, direction: str, method: str, build: str) -> float:
    return statistics.median(rate[(pattern, direction, method, build)].values())


def ratio(pattern: str, direction: str, num: tuple, den: tuple) -> float:
    """Median over rounds of a ratio of two measurements taken in the same round."""
    a, b = rate[(pattern, direction) + num], rate[(pattern, direction) + den]
    return statistics.median(a[k] / b[k] for k in a.keys() & b.keys())


patterns = sorted({k[0] for k in rate}, key=lambda p: (int(p.split()[1].split("x")[0]), ELEM[p.split()[2]]))
print("| transpose | row pitch mod 64 | pack before | pack after | after/before | unpack after/before | after/MPI pack | after/memcpy |")
print("|---|---|---|---|---|---|---|---|")
for p in patterns:
    n, kind = int(p.split()[1].split("x")[0]), p.split()[2]
    mod = n * ELEM[kind] % 64
    print(
        f"| {n}² {kind} | {mod} B | {median(p, 'pack', 'memcomm', 'before'):.2f} | "
        f"{median(p, 'pack', 'memcomm', 'after'):.2f} | "
        f"{ratio(p, 'pack', ('memcomm', 'after'), ('memcomm', 'before')):.2f} | "
        f"{ratio(p, 'unpack', ('memcomm', 'after'), ('memcomm', 'before')):.2f} | "
        f"{ratio(p, 'pack', ('memcomm', 'after'), ('mpi', 'after')):.2f} | "
        f"{ratio(p, 'pack', ('memcomm', 'after'), ('memcpy', 'after')):.2f} |"
    )
