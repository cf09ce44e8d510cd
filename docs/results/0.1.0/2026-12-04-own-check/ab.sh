#!/bin/sh
# Open MPI's re-created-type cases of `bench_lifecycle`, the commit before the check of the
# MPI's own path (0c88d72) and this one alternated, six times each, then the table (ab.py).
# Run from the repository root after `make build/openmpi/libmemcomm.so`; the commit before is
# built in $BEFORE (default /tmp/memcomm-before).
set -eu
D=docs/results/0.1.0/2026-12-04-own-check
BEFORE=${BEFORE:-/tmp/memcomm-before}
M=.venv/mpi/openmpi/bin/mpiexec
[ -d "$BEFORE" ] || git clone -q . "$BEFORE"
git -C "$BEFORE" checkout -q 0c88d72
cmake -S "$BEFORE" -B "$BEFORE/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMPI_C_COMPILER=$PWD/.venv/mpi/openmpi/bin/mpicc -DMPIEXEC_EXECUTABLE=$PWD/$M > /dev/null
cmake --build "$BEFORE/build" -j 2 --target bench_lifecycle memcomm > /dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for k in 1 2 3 4 5 6; do
    $M -n 2 --bind-to core "$BEFORE/build/bench/bench_lifecycle" --reps 10 --only ": " \
        > $D/ab-openmpi-before-$k.jsonl
    $M -n 2 --bind-to core build/openmpi/bench/bench_lifecycle --reps 10 --only ": " \
        > $D/ab-openmpi-after-$k.jsonl
done
.venv/bin/python $D/ab.py
