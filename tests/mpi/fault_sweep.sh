#!/bin/sh
# Fail each allocation memcomm makes in turn: run the story of test_faults once to count
# them, then once per allocation N with MEMCOMM_FAIL_ALLOC=N. Every run must pass (the MPI's
# answers, and in sanitizer builds no leak and no error). FAULT_SWEEP_STRIDE=K fails every
# Kth allocation only (1, 1+K, ...), for a second MPI over the same code paths.
# usage: fault_sweep.sh PROGRAM MPIEXEC NPFLAG [MPIEXEC_PREFLAGS...]
set -eu
prog=$1 mpiexec=$2 npflag=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$mpiexec" "$npflag" 2 "$@" "$prog" >"$tmp/out" 2>&1 || { echo "FAIL: the story fails without faults"; cat "$tmp/out"; exit 1; }
total=$(sed -n 's/^allocations: \([0-9]*\)$/\1/p' "$tmp/out")
[ -n "$total" ] && [ "$total" -gt 0 ] || { echo "FAIL: no allocation count"; cat "$tmp/out"; exit 1; }
stride=${FAULT_SWEEP_STRIDE:-1}
failed=0
runs=0
n=1
while [ "$n" -le "$total" ]; do
  if ! env MEMCOMM_FAIL_ALLOC="$n" "$mpiexec" "$npflag" 2 "$@" "$prog" >"$tmp/out" 2>&1; then
    echo "FAIL: with allocation $n of $total failed:"
    cat "$tmp/out"
    failed=$((failed + 1))
  fi
  runs=$((runs + 1))
  n=$((n + stride))
done
echo "fault sweep: $runs of $total allocations failed in turn (a stride of $stride), $failed runs failed"
[ "$failed" -eq 0 ]
