"""The MPI-IO table of docs/benchmarks.md from the printed output of `memcomm bench io` in
this folder (the collective calls; memcomm against the MPI's own call and against the
hand-written pack), and the before/after comparison of each MPI's run pair. Run from the
repository's root: `.venv/bin/python docs/results/0.1.0/2026-12-03-io/tables.py`."""

import math
import re
from pathlib import Path

HERE = Path(__file__).parent
ROW = re.compile(
    r"^(?P<pattern>.*?), (?P<call>(?:write|read)_at(?:_all)?)\s+(?P<mb>[\d.]+)\s+[\d.]+\s+"
    r"(?P<mpi>[\d.]+)\s+[\d.]+\s+(?P<memcomm>[\d.]+)\s+[\d.]+\s+(?P<vs_mpi>[\d.]+)x\s+"
    r"(?P<vs_hand>[\d.]+)x"
)


def rows(name: str) -> dict[tuple[str, str], dict[str, str]]:
    found = {}
    for line in (HERE / name).read_text().splitlines():
        m = ROW.match(line)
        if m:
            found[(m["pattern"], m["call"])] = m.groupdict()
    return found


def layout(pattern: str) -> str:
    return " ".join(pattern.split()[:2]) if pattern.startswith("interior") else pattern.split()[0]


def summary(label: str, found: dict[tuple[str, str], dict[str, str]]) -> str:
    ratios = [float(r["vs_mpi"]) for r in found.values()]
    geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    below = sum(r < 0.95 for r in ratios)
    return (
        f"{label}: {len(ratios)} calls, geometric mean {geomean:.2f}x, lowest {min(ratios):.2f}x,"
        f" {below} below 0.95x"
    )


def main() -> None:
    mpich, openmpi = rows("io-mpich.txt"), rows("io-openmpi.txt")
    print(
        "| layout | MiB/rank | call | MPICH GB/s | vs MPI | vs hand | Open MPI GB/s | vs MPI |"
        " vs hand |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for key, a in mpich.items():
        if not key[1].endswith("_all"):
            continue
        b = openmpi.get(key)  # Open MPI ran 1 and 16 MiB only
        other = (
            f"{b['mpi']} → {b['memcomm']} | {b['vs_mpi']}x | {b['vs_hand']}x" if b else "– | – | –"
        )
        mib = round(float(a["mb"]) / 1.048576)
        print(
            f"| {layout(key[0])} | {mib} | {key[1]} | {a['mpi']} → {a['memcomm']} |"
            f" {a['vs_mpi']}x | {a['vs_hand']}x | {other} |"
        )
    print()
    for mpi in ("mpich", "openmpi"):
        print(summary(f"{mpi}, before (b6a3484)", rows(f"before-{mpi}.txt")))
        print(summary(f"{mpi}, after (8ccd4e0)", rows(f"io-{mpi}.txt")))


if __name__ == "__main__":
    main()
