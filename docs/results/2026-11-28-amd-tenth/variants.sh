#!/bin/sh
# The throwaway kernel variants of the tenth session's float-transpose hunt (none kept), each
# built from the tree at f5c3252 with one change, copied to /tmp/<name>/mpich, and timed in
# alternation with the unchanged build (/tmp/before/mpich) by picking the build directory:
#   MEMCOMM_BUILD_DIR=/tmp/<name> memcomm bench pack --mpi mpich --sizes 1024,4096 \
#     --only float --methods memcpy,memcomm --cache flushed --reps 7
# Usage: sh variants.sh NAME  (from the repository root; restores the tree afterwards)
set -e
name=$1
case $name in
before) ;;
pf1) # input rows prefetched one micro-tile down instead of two
  sed -i 's/^#define PREFETCH_TILES 2/#define PREFETCH_TILES 1/' lib/kernel/transpose.c ;;
pf0) # no software prefetch of the input rows
  sed -i 's/        const bool fetch = mode != TRANSPOSE_WARM || (FETCH_WARM);  /        const bool fetch = false \&\& (mode != TRANSPOSE_WARM || (FETCH_WARM));/' lib/kernel/transpose.c ;;
s8|s4) # streamed strips 8 or 4 input lines wide where both sides are cold, not 16
  sed -i "s/TRANSPOSE_STREAM_COLD ? 16 :/TRANSPOSE_STREAM_COLD ? ${name#s} :/" lib/plan/plan.h ;;
nt32) # streamed stores wherever output rows are 32-byte aligned (AVX2 only: unsafe with AVX-512)
  sed -i 's/                        dp % 64 == 0 \&\& (uintptr_t)dst % (ELEM) == 0;  /                        dp % 32 == 0 \&\& (uintptr_t)dst % 32 == 0;/' lib/kernel/transpose.c ;;
f16|lanes|pf2|edgec|noedge)
  echo "$name: an edit by hand, described in README.md" >&2; exit 2 ;;
*) echo "unknown variant $name" >&2; exit 2 ;;
esac
make build/mpich/libmemcomm.so >/dev/null
rm -rf "/tmp/$name" && mkdir -p "/tmp/$name" && cp -a build/mpich "/tmp/$name/mpich"
git checkout -q lib/kernel/transpose.c lib/plan/plan.h
make build/mpich/libmemcomm.so >/dev/null
