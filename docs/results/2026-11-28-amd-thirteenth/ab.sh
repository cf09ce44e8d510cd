#!/bin/sh
# Composed lines at any 4-byte pitch (window_avx2) against the 16-byte-quarter composing before
# them (the tree at 214e8e6, built in /tmp/before/mpich), alternated launch by launch, caches flushed:
#   [SIZES=...] [PREFIX=ab] [MPI=mpich] [AFTER=build] sh ab.sh ROUNDS   (from the repository
#   root; writes <PREFIX>-<build>-<round>.jsonl here; AFTER: the build folder holding <MPI>/)
set -e
here=$(dirname "$0")
rounds=${1:-3}
sizes=${SIZES:-1000,1001,1002,1003,1004,1008,2001}
for round in $(seq 1 "$rounds"); do
  for build in before after; do
    dir=/tmp/before
    [ "$build" = after ] && dir=$(realpath "${AFTER:-build}")
    MEMCOMM_BUILD_DIR=$dir .venv/bin/memcomm bench pack --mpi "${MPI:-mpich}" --sizes $sizes \
      --only transpose --methods memcpy,mpi,memcomm --cache flushed --reps 7 \
      --json "$here/${PREFIX:-ab}-$build-$round.jsonl" --quiet
  done
done
