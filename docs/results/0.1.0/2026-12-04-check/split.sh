#!/bin/sh
# One end of an exchange packing and the other on Open MPI's own path, against both on each:
# the ddtbench cases given, MEMCOMM_SEND_PATH set per rank (an MPMD launch), speed-up of the
# memcomm method over the MPI alone in the same run (medians of 10 iterations).
# Usage: sh docs/results/0.1.0/2026-12-04-check/split.sh [build]   (default build/openmpi)
B=${1:-build/openmpi}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for c in "LAMMPS: 16384" "SPECFEM3D: 65536"; do
  for pair in "packed packed" "mpi mpi" "packed mpi"; do
    set -- $pair
    .venv/mpi/openmpi/bin/mpiexec --bind-to core \
      -n 1 env MEMCOMM_SEND_PATH=$1 $B/bench/bench_lifecycle --reps 10 --only "$c" : \
      -n 1 env MEMCOMM_SEND_PATH=$2 $B/bench/bench_lifecycle --reps 10 --only "$c" 2>/dev/null |
      grep '^{' | .venv/bin/python -c "
import json, statistics, sys
m = {}
for line in sys.stdin:
    d = json.loads(line)
    m[d['method']] = statistics.median(d['seconds'])
print('$c: rank 0 $1, rank 1 $2: %.3fx the MPI alone' % (m['mpi'] / m['memcomm']))"
  done
done
