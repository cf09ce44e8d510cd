#!/bin/sh
# The same unchanged program, run without memcomm, with LD_PRELOAD, and with MEMCOMM_DISABLE,
# must print the same thing; MEMCOMM_STATS=1 must show the calls were handled by memcomm.
# usage: preload_check.sh LIBMEMCOMM PROGRAM MPIEXEC NPFLAG [MPIEXEC_PREFLAGS...]
set -eu
lib=$1 prog=$2 mpiexec=$3 npflag=$4
shift 4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# run ARGS...: stdout sorted (ranks print in any order), stderr kept; fails if mpiexec fails
run() {
  "$mpiexec" "$npflag" 2 "$@" >"$tmp/out" 2>"$tmp/err" || { echo "FAIL: mpiexec $*"; cat "$tmp/err"; exit 1; }
  sort "$tmp/out"
}

run "$@" "$prog" >"$tmp/plain"
run "$@" env LD_PRELOAD="$lib" MEMCOMM_STATS=1 "$prog" >"$tmp/preload"
grep '^memcomm:' "$tmp/err" | sort >"$tmp/stats"
run "$@" env LD_PRELOAD="$lib" MEMCOMM_STATS=1 MEMCOMM_DISABLE=1 "$prog" >"$tmp/disabled"
grep '^memcomm:' "$tmp/err" | sort >"$tmp/stats_disabled"

status=0
if [ ! -s "$tmp/plain" ]; then echo "FAIL: the program printed nothing"; status=1; fi
if cmp -s "$tmp/plain" "$tmp/preload"; then echo "ok: output identical with LD_PRELOAD"
else echo "FAIL: output differs with LD_PRELOAD"; diff "$tmp/plain" "$tmp/preload" || true; status=1; fi
if cmp -s "$tmp/plain" "$tmp/disabled"; then echo "ok: output identical with MEMCOMM_DISABLE=1"
else echo "FAIL: output differs with MEMCOMM_DISABLE=1"; status=1; fi
cat "$tmp/stats"
# two ranks, each handled calls and passed none to the MPI
if [ "$(grep -c 'handled [1-9][0-9]* calls.*passed 0 calls' "$tmp/stats")" = 2 ]; then
  echo "ok: MEMCOMM_STATS shows every pack/unpack handled by memcomm"
else echo "FAIL: MEMCOMM_STATS does not show the calls handled by memcomm"; status=1; fi
if [ "$(grep -c 'handled 0 calls' "$tmp/stats_disabled")" = 2 ]; then
  echo "ok: MEMCOMM_DISABLE=1 handles nothing"
else echo "FAIL: MEMCOMM_DISABLE=1 still handled calls"; cat "$tmp/stats_disabled"; status=1; fi
exit $status
