"""What memcomm costs a re-created type apart from its calls: from `memcomm bench lifecycle
--exchanges 1` records, per case, the MPI alone's median time per iteration and the median
over the repetitions of memcomm's time minus the MPI alone's in the same repetition, one
column per run. Only the cases where memcomm leaves the message to the MPI's own path in
both runs are printed (a faster memcomm shows as a negative cost otherwise).

    .venv/bin/python docs/results/0.1.0/2026-12-04-recreate/pertype.py [DIR]
"""

import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

here = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent
for mpi in ("mpich", "openmpi"):
    costs: dict[str, list[tuple[float, float]]] = defaultdict(list)
    runs = sorted(here.glob(f"lifecycle-{mpi}-exchanges1-run*.jsonl"))
    for run in runs:
        seconds = {}
        for line in run.read_text().splitlines():
            record = json.loads(line)
            if record.get("kind") == "result" and str(record.get("role")).startswith("iteration"):
                seconds[record["pattern"], record["method"]] = record["seconds"]
        for pattern in sorted({p for p, _ in seconds}):
            alone, memcomm = seconds[pattern, "mpi"], seconds[pattern, "memcomm"]
            extra = statistics.median(m - a for a, m in zip(alone, memcomm, strict=False))
            costs[pattern].append((statistics.median(alone) * 1e6, extra * 1e6))
    print(
        f"| {mpi} | MPI alone us | "
        + " | ".join(f"run {k + 1}: memcomm - MPI us" for k in range(len(runs)))
        + " |"
    )
    print("|---|---|" + "---|" * len(runs))
    for pattern, by_run in costs.items():
        if len(by_run) == len(runs) and all(extra > -0.05 * alone for alone, extra in by_run):
            print(
                f"| {pattern} | {by_run[0][0]:.1f} | "
                + " | ".join(f"{extra:.2f}" for _, extra in by_run)
                + " |"
            )
    print()
