"""The README's ping-pong and collectives tables:
python readme_table.py <dir>/<experiment>-<mpi>[-<run>].jsonl ...

GB/s (bytes over the median of the samples: a ping-pong's half round trip, a collective's
slowest rank) of memcomm's carried call in the first run of each MPI; ratios for each run, in
file order: memcomm over the MPI's own datatype call, over the better of the hand-written
pack loops plus a contiguous call ("hand"), and over the contiguous call of the same bytes.
Run with the project's Python (.venv/bin/python): it reads the files with memcomm's own
results and report modules."""

import collections
import sys

from memcomm import results
from memcomm.report import tables

runs: dict[str, list[dict[str, tables.PackRow]]] = collections.defaultdict(list)  # mpi -> runs
for path in sys.argv[1:]:
    mpi = path.rsplit("/", 1)[-1].removesuffix(".jsonl").split("-")[1]
    (run,) = results.read([path])
    experiment = str(run.meta["experiment"])
    rows = tables.pack_rows((run.result(r) for r in run.results), experiment)
    runs[mpi].append({row.pattern: row for row in rows})


def ratios(mpi: str, pattern: str) -> list[str]:
    cells: dict[str, list[str]] = {"mpi": [], "hand": [], "contiguous": []}
    for run in runs[mpi]:
        row = run[pattern]
        hands = [m for m in ("manual", "manual-blocked") if row.has(m)]
        hand = max(hands, key=lambda m: row.gbps(m)) if hands else None
        cells["mpi"].append(f"{row.ratio('memcomm', 'mpi'):.2f}x")
        cells["hand"].append(f"{row.ratio('memcomm', hand):.2f}x" if hand else "-")
        cells["contiguous"].append(f"{row.ratio('memcomm', 'contiguous') * 100:.0f}%")
    return [", ".join(cells[k]) for k in ("mpi", "hand", "contiguous")]


mpis = list(runs)
header = ["pattern", "MB"]
for mpi in mpis:
    header += [f"{mpi} GB/s", "vs MPI", "vs hand", "of contiguous"]
print("| " + " | ".join(header) + " |")
print("|" + "---|" * len(header))
for pattern, first in runs[mpis[0]][0].items():
    row = [pattern, f"{first.bytes / 1e6:.2f}"]
    for mpi in mpis:
        row += [f"{runs[mpi][0][pattern].gbps('memcomm'):.2f}", *ratios(mpi, pattern)]
    print("| " + " | ".join(row) + " |")
