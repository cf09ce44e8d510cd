#!/usr/bin/env bash
# The Fortran ping-pong (pingpong.F90) with the MPI alone and under memcomm, ROUNDS times
# alternated, and a table: per layout, the median round trip of each, and memcomm's typed send
# against the MPI's own (same program, no memcomm) and against the hand loops. memcomm runs
# three ways: measuring its paths (the default), with the MPI's own path fixed
# (MEMCOMM_SEND_PATH=mpi: what the binding costs without the trials) and with the decisions of
# a run before (MEMCOMM_DECISIONS, written by one untimed run first: no trials).
#
# usage: pingpong.sh MPIF90 MPIEXEC LIBMEMCOMM [ROUNDS [REPS]]
# e.g.   bench/fortran/pingpong.sh mpif90.mpich mpiexec.mpich build/debian-mpich/libmemcomm.so
set -eu
mpif90=$1 mpiexec=$2 lib=$(realpath "$3") rounds=${4:-3} reps=${5:-21}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" # the module file of one MPI must not be found by another's build
"$mpif90" -O2 -J "$work" -o "$work/pingpong" "$here/pingpong.F90"
under_memcomm() { "$mpiexec" -n 2 env LD_PRELOAD="$lib" "$@" "$work/pingpong" "$reps"; }
under_memcomm MEMCOMM_DECISIONS="$work/decisions" > /dev/null
for r in $(seq "$rounds"); do
    "$mpiexec" -n 2 "$work/pingpong" "$reps" | sed 's/^/alone /' >> "$work/times"
    under_memcomm MEMCOMM_SEND_PATH=measure | sed 's/^/memcomm /' >> "$work/times"
    under_memcomm MEMCOMM_SEND_PATH=mpi | sed 's/^/fixed /' >> "$work/times"
    under_memcomm MEMCOMM_DECISIONS="$work/decisions" | sed 's/^/decided /' >> "$work/times"
done
python3 - "$work/times" "$rounds" "$reps" <<'PY'
import statistics, sys
from collections import defaultdict
runs = defaultdict(list)
for line in open(sys.argv[1]):
    who, layout, method, nbytes, us = line.split()
    runs[(layout, method, who)].append(float(us))
print(f"Fortran ping-pong, {sys.argv[2]} rounds of {sys.argv[3]} round trips: the median over "
      "the rounds of each round's median round trip (us); speed-ups against the MPI's typed send")
heads = ("MPI typed", "by hand", "memcomm", "vs MPI", "vs hand", "path fixed", "decisions")
print(f"{'layout':10} " + " ".join(f"{h:>10}" for h in heads))
for layout in dict.fromkeys(k[0] for k in runs):
    def median(who: str, method: str = "typed") -> float:
        return statistics.median(runs[(layout, method, who)])
    mpi, hand, mc = median("alone"), median("alone", "by-hand"), median("memcomm")
    cells = [f"{mpi:10.1f}", f"{hand:10.1f}", f"{mc:10.1f}", f"{mpi / mc:9.2f}x",
             f"{hand / mc:9.2f}x", f"{mpi / median('fixed'):9.2f}x",
             f"{mpi / median('decided'):9.2f}x"]
    print(f"{layout:10} " + " ".join(cells))
PY
