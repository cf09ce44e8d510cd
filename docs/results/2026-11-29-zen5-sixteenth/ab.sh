#!/bin/sh
# One pattern group of `bench pack` under two builds, alternated launch by launch, caches
# flushed:
#   ONLY=<pattern words> [PREFIX=ab] [MPI=mpich] [BEFORE=dir] [AFTER=build] [OUT=dir] sh ab.sh ROUNDS
# (from the repository root; writes <OUT>/<PREFIX>-<before|after>-<round>.jsonl, OUT defaulting
# to this folder; BEFORE and AFTER: build folders holding <MPI>/, BEFORE built from a
# `git worktree` of the earlier commit)
set -e
here=$(dirname "$0")
out=${OUT:-$here}
rounds=${1:-3}
for round in $(seq 1 "$rounds"); do
  for build in before after; do
    dir=$(realpath "${BEFORE:-/tmp/before}")
    [ "$build" = after ] && dir=$(realpath "${AFTER:-build}")
    MEMCOMM_BUILD_DIR=$dir .venv/bin/memcomm bench pack --mpi "${MPI:-mpich}" --only "$ONLY" \
      --methods memcpy,mpi,manual,memcomm --cache flushed --reps 7 \
      --json "$out/${PREFIX:-ab}-$build-$round.jsonl" --quiet
  done
done
