#!/usr/bin/env bash
# The Fortran ping-pong (bench/fortran/pingpong.F90) with the MPI alone and under two builds
# of memcomm (OLD, NEW: libmemcomm.so of each), ROUNDS times alternated, REPS round trips a
# run; every run's median round trip in OUT and, per layout, the speed-up of each build (the
# medians over the rounds) against the MPI's own typed send.
# usage: pingpong_ab.sh MPIF90 MPIEXEC OLD NEW ROUNDS REPS OUT
set -eu
mpif90=$1 mpiexec=$2 old=$(realpath "$3") new=$(realpath "$4") rounds=$5 reps=$6
out=$(realpath "$7")
source=$(cd "$(dirname "$0")/../../../../bench/fortran" && pwd)/pingpong.F90
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$mpif90" -O2 -J "$work" -o pp "$source"
: > "$out"
for r in $(seq "$rounds"); do
  "$mpiexec" -n 2 ./pp "$reps" | sed 's/^/alone /' >> "$out"
  "$mpiexec" -n 2 env LD_PRELOAD="$old" ./pp "$reps" | sed 's/^/old /' >> "$out"
  "$mpiexec" -n 2 env LD_PRELOAD="$new" ./pp "$reps" | sed 's/^/new /' >> "$out"
done
python3 - "$out" <<'PY'
import statistics, sys
from collections import defaultdict
runs = defaultdict(list)
for line in open(sys.argv[1]):
    who, layout, method, nbytes, us = line.split()
    if method == "typed": runs[(layout, who)].append(float(us))
for layout in dict.fromkeys(k[0] for k in runs):
    a = statistics.median(runs[(layout, "alone")])
    print(f"{layout:10} alone {a:10.1f}  old {a/statistics.median(runs[(layout,'old')]):.2f}x"
          f"  new {a/statistics.median(runs[(layout,'new')]):.2f}x  "
          f"per-round new: " + " ".join(f"{x:.0f}" for x in runs[(layout,'new')]) +
          " old: " + " ".join(f"{x:.0f}" for x in runs[(layout,'old')]) +
          " alone: " + " ".join(f"{x:.0f}" for x in runs[(layout,'alone')]))
PY
