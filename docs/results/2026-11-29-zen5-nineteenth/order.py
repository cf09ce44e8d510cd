"""The table under "In `bench pack`" in this folder's README: for the 8192² floats pattern
alone, each method's median over the repetitions that ran in the forward order (0, 2, ...)
and over those in reverse (1, 3, ...), and over all. Reads the records with memcomm's own
results module:

    ../../../.venv/bin/python order.py
"""

import statistics

from memcomm import results

for mpi in ("mpich", "openmpi"):
    for run in results.read([f"order-{mpi}.jsonl"]):
        for record in run.results:
            if record["method"] not in ("memcpy", "memcomm", "interposed"):
                continue
            seconds = record["seconds"]
            forward, reverse = seconds[0::2], seconds[1::2]
            print(
                f"{mpi:8s} {record['direction']:6s} {record['method']:10s}"
                f" forward {statistics.median(forward) * 1e3:5.1f} ms"
                f" (samples {min(forward) * 1e3:.1f}-{max(forward) * 1e3:.1f})"
                f" reverse {statistics.median(reverse) * 1e3:5.1f} ms"
                f" (samples {min(reverse) * 1e3:.1f}-{max(reverse) * 1e3:.1f})"
                f" all {statistics.median(seconds) * 1e3:5.1f} ms"
            )
