#!/bin/sh
# Complex doubles' transposes two micro-tile rows deep (DEEP 2 in kernel/transpose.c) against
# the tree before (a0895cb built in BEFORE, default /tmp/wt-head/build: a `git worktree` of it),
# alternated launch by launch, caches flushed:
#   [SIZES=...] [PREFIX=ab] [MPI=mpich] [BEFORE=dir] [AFTER=build] sh ab.sh ROUNDS
# (from the repository root; writes <PREFIX>-<before|after>-<round>.jsonl here; BEFORE and
# AFTER: build folders holding <MPI>/)
set -e
here=$(dirname "$0")
rounds=${1:-3}
sizes=${SIZES:-1000,1008,1024,2048}
for round in $(seq 1 "$rounds"); do
  for build in before after; do
    dir=$(realpath "${BEFORE:-/tmp/wt-head/build}")
    [ "$build" = after ] && dir=$(realpath "${AFTER:-build}")
    MEMCOMM_BUILD_DIR=$dir .venv/bin/memcomm bench pack --mpi "${MPI:-mpich}" --sizes $sizes \
      --only transpose --methods memcpy,mpi,memcomm --cache flushed --reps 7 \
      --json "$here/${PREFIX:-ab}-$build-$round.jsonl" --quiet
  done
done
