"""The alternated runs of ab.sh: per case, memcomm's speed-up over the MPI alone in each run
before (0c88d72) and after (this records' commit), and per run the geometric mean, the cases
below 0.95x and the lowest: `.venv/bin/python docs/results/0.1.0/2026-12-04-own-check/ab.py`."""

import json
import math
import statistics
from pathlib import Path

HERE = Path(__file__).parent
WHICH = ("before", "after")


def speedups(name: str) -> dict[str, float]:
    """Each re-created-type case's speed-up (median iterations), from one run."""
    seconds: dict[str, dict[str, list[float]]] = {}
    for line in (HERE / name).read_text().splitlines():
        record = json.loads(line) if line.startswith("{") else {}
        if record.get("kind") == "result" and "iteration of" in record.get("role", ""):
            seconds.setdefault(record["pattern"], {})[record["method"]] = record["seconds"]
    return {
        case: statistics.median(m["mpi"]) / statistics.median(m["memcomm"])
        for case, m in seconds.items()
    }


def main() -> None:
    rounds = len(list(HERE.glob("ab-openmpi-before-*.jsonl")))
    runs = {w: [speedups(f"ab-openmpi-{w}-{k}.jsonl") for k in range(1, rounds + 1)] for w in WHICH}
    for case in runs["before"][0]:
        cells = "  ".join(w + " " + " ".join(f"{run[case]:.2f}" for run in runs[w]) for w in WHICH)
        print(f"{case[:44]:44} {cells}")
    for w in WHICH:
        for k, run in enumerate(runs[w], 1):
            values = list(run.values())
            mean = math.exp(statistics.fmean(math.log(v) for v in values))
            low = min(run, key=run.__getitem__)
            below = sum(v < 0.95 for v in values)
            print(f"{w} {k}: {mean:.3f}x, {below} below 0.95x, lowest {run[low]:.3f}x {low}")


if __name__ == "__main__":
    main()
