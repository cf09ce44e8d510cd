"""Open MPI: the cases where packing at both ends (`MEMCOMM_SEND_PATH=packed`, one run) beat
what the measured decisions gave (the median of the three quiet runs) by more than 5%, and the
geometric mean over the 40 cases had each taken the faster of the two:
`.venv/bin/python docs/results/0.1.0/2026-12-04-check/bestof.py [records folder]` (this
folder by default)."""

import json
import math
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).parent

Seconds = dict[str, dict[str, list[float]]]


def load(folder: Path, name: str) -> Seconds:
    """Each re-created-type case's seconds per method, from one record."""
    cases: Seconds = {}
    for line in (folder / name).read_text().splitlines():
        record = json.loads(line)
        if record.get("kind") == "result" and "iteration of" in record.get("role", ""):
            cases.setdefault(record["pattern"], {})[record["method"]] = record["seconds"]
    return cases


def speedup(methods: dict[str, list[float]]) -> float:
    return statistics.median(methods["mpi"]) / statistics.median(methods["memcomm"])


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    packed = load(folder, "lifecycle-openmpi-path-packed.jsonl")
    quiet = [load(folder, f"lifecycle-openmpi-run{k}.jsonl") for k in (1, 2, 3)]
    best = []
    for case, methods in packed.items():
        forced = speedup(methods)
        measured = statistics.median(speedup(run[case]) for run in quiet)
        best.append(max(forced, measured))
        if forced > 1.05 * measured:
            print(f"{case}: packed {forced:.2f}x, measured {measured:.2f}x")
    mean = math.exp(statistics.fmean(math.log(b) for b in best))
    print(f"geometric mean of the faster of the two over {len(best)} cases: {mean:.2f}x")


if __name__ == "__main__":
    main()
