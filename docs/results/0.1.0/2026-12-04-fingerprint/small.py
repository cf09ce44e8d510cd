"""The lowest speed-up among the small re-created types (the cases of 37-400 us an iteration
here, which fell below 0.95x before commit 4c6d8bd) in each lifecycle record of a folder, per
MPI and kind of run (quiet, busy neighbour, path fixed to the MPI's own); and, for one
case of one record, how many of each method's iterations took longer than a threshold (the
turns a busy neighbour's stall hit).

    .venv/bin/python docs/results/0.1.0/2026-12-04-fingerprint/small.py [DIR]
    .venv/bin/python docs/results/0.1.0/2026-12-04-fingerprint/small.py DIR RECORD CASE MS
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[4] / "src"))
from memcomm.report.analysis import paired_speedup

SMALL = (
    "WRF: y halo of 3 float arrays 8x16x16",
    "WRF: y halo of 3 float arrays 16x32x32",
    "WRF: x halo of 3 float arrays 8x16x16",
    "WRF: x halo of 3 float arrays 16x32x32",
    "MILC: x face of a 4^4",
    "NAS LU: i face of u(5,12,12,12)",
    "NAS LU: j face of u(5,12,12,12)",
    "NAS MG: i face of u(18,18,18)",
    "NAS MG: j face of u(18,18,18)",
    "NAS MG: k face of u(18,18,18)",
    "NAS MG: i face of u(34,34,34)",
    "NAS MG: j face of u(34,34,34)",
    "NAS MG: k face of u(34,34,34)",
    "SPECFEM3D: 170 ",
    "SPECFEM3D: 290 ",
    "LAMMPS: 128 ",
)


def iterations(record: Path) -> dict[tuple[str, str], list[float]]:
    """Each (pattern, method)'s seconds per iteration in one record."""
    seconds = {}
    for line in record.read_text().splitlines():
        result = json.loads(line)
        if result.get("kind") == "result" and str(result.get("role")).startswith("iteration"):
            seconds[result["pattern"], result["method"]] = result["seconds"]
    return seconds


def main() -> None:
    here = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent
    if len(sys.argv) == 5:
        threshold = float(sys.argv[4]) * 1e-3
        for (pattern, method), times in iterations(here / sys.argv[2]).items():
            if pattern.startswith(sys.argv[3]):
                slow = sum(t > threshold for t in times)
                print(f"{method}: {slow} of {len(times)} iterations over {sys.argv[4]} ms")
        return
    for mpi in ("mpich", "openmpi"):
        for kind in ("run", "noisy", "path-mpi"):
            lowest = []
            for record in sorted(here.glob(f"lifecycle-{mpi}-{kind}*.jsonl")):
                seconds = iterations(record)
                speedups = {
                    pattern: paired_speedup(seconds[pattern, "mpi"], seconds[pattern, "memcomm"])
                    for pattern, method in seconds
                    if method == "memcomm" and pattern.startswith(SMALL)
                }
                case = min(speedups, key=lambda p: speedups[p])
                lowest.append(f"{speedups[case]:.3f}x {case}")
            print(f"{mpi} {kind}: " + "; ".join(lowest))


if __name__ == "__main__":
    main()
