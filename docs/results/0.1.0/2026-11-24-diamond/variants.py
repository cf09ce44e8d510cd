"""The README's Diamond DAG figures that are not `memcomm model validate`'s own: eq. 15 with
free messages (L = o = G = 0) and with one task time for every b (that of b = 1), against the
measured makespans in this folder. Run from the repository: python
docs/results/0.1.0/2026-11-24-diamond/variants.py"""

from pathlib import Path
from statistics import median

from memcomm import results
from memcomm.models import logp, logpc
from memcomm.report.analysis import _diamond_runs, _of

HERE = Path(__file__).parent
FREE = logpc.LogGP(L=0, o_s=0, o_r=0)

for name in ("mpich", "openmpi", "mpich-tcp", "openmpi-tcp"):
    runs = results.read([HERE / f"diamond-{name}.jsonl", HERE / f"logp-{name}.jsonl"])
    records = [run.result(r) for run in runs for r in run.results]
    mpi = records[0]["mpi"]
    fit = logp.fit_pingpong(logp.prtt_points(_of(records, experiment="logp")))
    diamonds = [r for r in records if r["experiment"] == "diamond"]
    for (_, n, ranks), by_b in sorted(_diamond_runs(diamonds).items()):
        one_task = by_b[1]["compute"] * ranks / (n * n)
        errors: dict[str, list[float]] = {"fitted": [], "free messages": [], "one task time": []}
        best: dict[str, tuple[float, int]] = {}
        for b, m in sorted(by_b.items()):
            segment = fit.segment(m["bytes"])
            machine = logpc.LogGP(L=max(segment.L, 0.0), o_s=segment.o, o_r=segment.o,
                                  g=segment.g, G=segment.G)  # fmt: skip
            task = m["compute"] * ranks / (n * n)
            variants = {
                "fitted": logpc.Diamond(n=n, P=ranks, machine=machine, task=task),
                "free messages": logpc.Diamond(n=n, P=ranks, machine=FREE, task=task),
                "one task time": logpc.Diamond(n=n, P=ranks, machine=machine, task=one_task),
            }
            for label, dag in variants.items():
                predicted = dag.makespan(b)
                errors[label].append(abs(predicted / m["makespan"] - 1))
                best[label] = min(best.get(label, (predicted, b)), (predicted, b))
            best["measured"] = min(best.get("measured", (m["makespan"], b)), (m["makespan"], b))
        print(
            f"{mpi}, n = {n}: "
            + "; ".join(f"{k} median {median(v) * 100:.1f}% max {max(v) * 100:.0f}%, best b "
                        f"{best[k][1]}" for k, v in errors.items())  # fmt: skip
            + f"; measured best b {best['measured'][1]}, compute b=1 "
            f"{by_b[1]['compute'] * 1e3:.1f} ms, b=64 {by_b[64]['compute'] * 1e3:.1f} ms"
        )
