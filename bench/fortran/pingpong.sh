#!/usr/bin/env bash
# The Fortran ping-pong (pingpong.F90) with the MPI alone and under memcomm, ROUNDS times
# alternated, and a table: per layout, the median round trip of each method, and memcomm's
# typed send against the MPI's own (same program, no memcomm) and against the hand loops.
#
# usage: pingpong.sh MPIF90 MPIEXEC LIBMEMCOMM [ROUNDS [REPS]]
# e.g.   bench/fortran/pingpong.sh mpif90.mpich mpiexec.mpich build/debian-mpich/libmemcomm.so
set -eu
mpif90=$1 mpiexec=$2 lib=$(realpath "$3") rounds=${4:-3} reps=${5:-21}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$mpif90" -O2 -J "$work" -o "$work/pingpong" "$here/pingpong.F90"  # the module file too
for r in $(seq "$rounds"); do
    "$mpiexec" -n 2 "$work/pingpong" "$reps" | sed 's/^/alone /' >> "$work/times"
    "$mpiexec" -n 2 env LD_PRELOAD="$lib" "$work/pingpong" "$reps" | sed 's/^/memcomm /' \
        >> "$work/times"
done
python3 - "$work/times" "$rounds" <<'PY'
import statistics, sys
from collections import defaultdict
runs = defaultdict(list)
for line in open(sys.argv[1]):
    who, layout, method, nbytes, us = line.split()
    runs[(layout, method, who)].append(float(us))
print(f"Fortran ping-pong, {sys.argv[2]} rounds, median round trip (us) over the rounds' medians")
heads = ("MPI typed", "by hand", "memcomm")
print(f"{'layout':10} " + " ".join(f"{h:>10}" for h in heads) + f" {'vs MPI':>7} {'vs hand':>8}")
for layout in dict.fromkeys(k[0] for k in runs):
    mpi = statistics.median(runs[(layout, "typed", "alone")])
    hand = statistics.median(runs[(layout, "by-hand", "alone")])
    mc = statistics.median(runs[(layout, "typed", "memcomm")])
    print(f"{layout:10} {mpi:10.1f} {hand:10.1f} {mc:10.1f} {mpi / mc:6.2f}x {hand / mc:7.2f}x")
PY
