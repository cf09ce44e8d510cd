"""The README's ping-pong and collectives tables:
python readme_table.py <dir>/<experiment>-<mpi>[-<run>].jsonl ...

GB/s (bytes over the median of the samples: a ping-pong's half round trip, a collective's
slowest rank) of memcomm's carried call in the first run of each MPI; ratios for each run, in
file order: memcomm over the MPI's own datatype call, over the better of the hand-written
pack loops plus a contiguous call ("hand"), and over the contiguous call of the same bytes."""

import collections
import json
import statistics
import sys

Rates = dict[str, float]  # method -> GB/s
runs: dict[str, list[dict[str, Rates]]] = collections.defaultdict(list)  # mpi -> runs
megabytes: dict[str, float] = {}  # pattern -> MB of the message
for path in sys.argv[1:]:
    mpi = path.rsplit("/", 1)[-1].removesuffix(".jsonl").split("-")[1]
    run: dict[str, Rates] = collections.defaultdict(dict)
    with open(path) as lines:
        for line in lines:
            r = json.loads(line)
            if r.get("kind") == "result":
                gbps = r["bytes"] / statistics.median(r["seconds"]) / 1e9
                run[r["pattern"]][r["method"]] = gbps
                megabytes[r["pattern"]] = r["bytes"] / 1e6
    runs[mpi].append(run)


def ratios(mpi: str, pattern: str) -> list[str]:
    cells: dict[str, list[str]] = {"mpi": [], "hand": [], "contiguous": []}
    for run in runs[mpi]:
        g = run[pattern]
        hand = max((g[m] for m in ("manual", "manual-blocked") if m in g), default=0.0)
        cells["mpi"].append(f"{g['memcomm'] / g['mpi']:.2f}x")
        cells["hand"].append(f"{g['memcomm'] / hand:.2f}x" if hand else "-")
        cells["contiguous"].append(f"{g['memcomm'] / g['contiguous'] * 100:.0f}%")
    return [", ".join(cells[k]) for k in ("mpi", "hand", "contiguous")]


mpis = list(runs)
header = ["pattern", "MB"]
for mpi in mpis:
    header += [f"{mpi} GB/s", "vs MPI", "vs hand", "of contiguous"]
print("| " + " | ".join(header) + " |")
print("|" + "---|" * len(header))
first = runs[mpis[0]][0]
for pattern in first:
    row = [pattern, f"{megabytes[pattern]:.2f}"]
    for mpi in mpis:
        row += [f"{runs[mpi][0][pattern]['memcomm']:.2f}", *ratios(mpi, pattern)]
    print("| " + " | ".join(row) + " |")
