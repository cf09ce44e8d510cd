"""The tables of docs/benchmarks.md#benchmark-the-life-of-a-datatype from the records beside
this file: `.venv/bin/python docs/results/0.1.0/2026-12-02-lifecycle/tables.py`, or from
another folder's records of the same names: `... tables.py <folder>`."""

import json
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[4] / "src"))
HERE = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent
from memcomm.report.analysis import paired_speedup  # noqa: E402

MPIS = {"mpich": "MPICH 5.0.2", "openmpi": "Open MPI 5.0.11"}
RUNS = {f"run{k}": f"quiet {k}" for k in (1, 2, 3)} | {
    f"noisy{k}": f"busy neighbour, seed {k}" for k in (1, 2, 3)
}


def load(mpi: str, run: str) -> tuple[dict[str, float], dict[str, str], dict[str, list[float]]]:
    """Each pattern's speed-up, role and the MPI alone's seconds, from one record."""
    text = (HERE / f"lifecycle-{mpi}-{run}.jsonl").read_text()
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    seconds = {(r["pattern"], r["method"]): r["seconds"] for r in records if "method" in r}
    roles = {r["pattern"]: r["role"] for r in records if "role" in r}
    speedups = {
        p: paired_speedup(seconds[p, "mpi"], seconds[p, "memcomm"])
        for p in roles
        if (p, "mpi") in seconds and (p, "memcomm") in seconds
    }
    return speedups, roles, {p: seconds[p, "mpi"] for p in speedups}


def main() -> None:
    data = {(m, r): load(m, r) for m in MPIS for r in RUNS}
    print("| MPI | run | geometric mean | lowest case | cases below 0.95x |")
    print("|---|---|---|---|---|")
    for m, name in MPIS.items():
        for r, label in RUNS.items():
            sp, roles, _ = data[m, r]
            apps = [p for p in sp if roles[p].startswith("iteration")]
            mean = math.exp(statistics.fmean(math.log(sp[p]) for p in apps))
            low = min(apps, key=lambda p: sp[p])
            below = sum(sp[p] < 0.95 for p in apps)
            print(f"| {name} | {label} | {mean:.2f}x | {sp[low]:.3f}x {low} | {below} |")
    print()
    _, roles, _ = data["mpich", "run1"]
    for role in ("iteration", "20 exchanges"):
        print(
            "| pattern | MPICH: MPI alone us | memcomm, quiet (median of 3) | lowest of 6 runs "
            "| Open MPI: MPI alone us | memcomm, quiet | lowest of 6 |"
        )
        print("|---|---|---|---|---|---|---|")
        for p in (p for p in roles if roles[p].startswith(role)):
            cells = [p]
            for m in MPIS:
                quiet = [data[m, r][0][p] for r in RUNS if r.startswith("run")]
                alone = statistics.median(
                    statistics.median(data[m, r][2][p]) for r in RUNS if r.startswith("run")
                )
                lowest = min(data[m, r][0][p] for r in RUNS)
                cells += [
                    f"{alone * 1e6:.0f}",
                    f"{statistics.median(quiet):.2f}x",
                    f"{lowest:.2f}x",
                ]
            print("| " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main()
