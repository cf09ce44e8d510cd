"""The tables of docs/benchmarks.md#benchmark-the-life-of-a-datatype from the records beside
this file: `.venv/bin/python docs/results/0.1.0/2026-12-02-lifecycle/tables.py`, or from
another folder's records of the same names: `... tables.py <folder>`. Where the records also
timed the MPI alone a second time ("mpi-again"), the first table gives what that makes of
the same cases: the run's noise."""

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


Speedups = dict[str, float]


def load(mpi: str, run: str) -> tuple[Speedups, dict[str, str], dict[str, list[float]], Speedups]:
    """Each pattern's speed-up, role, the MPI alone's seconds and, where timed, the MPI alone
    again's speed-up over the MPI alone, from one record."""
    text = (HERE / f"lifecycle-{mpi}-{run}.jsonl").read_text()
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    seconds = {(r["pattern"], r["method"]): r["seconds"] for r in records if "method" in r}
    roles = {r["pattern"]: r["role"] for r in records if "role" in r}
    speedups = {
        p: paired_speedup(seconds[p, "mpi"], seconds[p, "memcomm"])
        for p in roles
        if (p, "mpi") in seconds and (p, "memcomm") in seconds
    }
    noise = {
        p: paired_speedup(seconds[p, "mpi"], seconds[p, "mpi-again"])
        for p in speedups
        if (p, "mpi-again") in seconds
    }
    return speedups, roles, {p: seconds[p, "mpi"] for p in speedups}, noise


def summary(speedups: Speedups, cases: list[str]) -> list[str]:
    """Geometric mean, lowest case and cases below 0.95x, as table cells."""
    mean = math.exp(statistics.fmean(math.log(speedups[p]) for p in cases))
    low = min(cases, key=lambda p: speedups[p])
    below = sum(speedups[p] < 0.95 for p in cases)
    return [f"{mean:.2f}x", f"{speedups[low]:.3f}x {low}", str(below)]


def main() -> None:
    data = {(m, r): load(m, r) for m in MPIS for r in RUNS}
    again = all(data[key][3] for key in data)
    header = ["MPI", "run", "geometric mean", "lowest case", "cases below 0.95x"]
    if again:
        header += ["MPI alone again: geometric mean", "lowest", "below 0.95x"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for m, name in MPIS.items():
        for r, label in RUNS.items():
            sp, roles, _, noise = data[m, r]
            apps = [p for p in sp if roles[p].startswith("iteration")]
            cells = [name, label, *summary(sp, apps)]
            if again:
                cells += summary(noise, apps)
            print("| " + " | ".join(cells) + " |")
    print()
    _, roles, _, _ = data["mpich", "run1"]
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
