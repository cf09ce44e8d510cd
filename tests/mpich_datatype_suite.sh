#!/bin/bash
# MPICH's own datatype tests (test/mpi/datatype of the MPICH sources), each run with the MPI
# alone and under memcomm: the two runs must end the same (exit code, "No Errors").
#
#   tests/mpich_datatype_suite.sh <mpich-source-tarball> <mpi: mpich|openmpi>
#
# The tarball is MPICH's (mpich-X.Y.Z.tar.gz from mpich.org, or Debian's
# mpich_X.Y.Z.orig.tar.xz: `apt-get source --download-only mpich` with a deb-src line). Not
# part of `make test`: it needs the sources, which the build does not fetch. Uses the MPI and
# library of `make setup` (.venv/mpi/<mpi>, build/<mpi>). Prints one line per test run and
# exits 1 if any run differs.
set -euo pipefail

tarball=${1:?usage: $0 <mpich-source-tarball> <mpich|openmpi>}
mpi=${2:?usage: $0 <mpich-source-tarball> <mpich|openmpi>}
root=$(cd "$(dirname "$0")/.." && pwd)
mpicc=$root/.venv/mpi/$mpi/bin/mpicc
mpiexec=$root/.venv/mpi/$mpi/bin/mpiexec
library=$root/build/$mpi/libmemcomm.so
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xf "$tarball" -C "$work" --wildcards '*/test/mpi/datatype' '*/test/mpi/util' \
    '*/test/mpi/include'
tests=$(echo "$work"/*/test/mpi)

# what configure would write for this suite: POSIX threads, the C headers of any Linux
cat > "$tests/include/mpitestconf.h" <<'EOF'
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDARG_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define USE_STRICT_MPI 1
#define THREAD_PACKAGE_NAME 2 /* THREAD_PACKAGE_POSIX */
EOF

cd "$work"
"$mpicc" -c -w -I"$tests/include" "$tests/util/mtest.c" "$tests/util/mtest_common.c" \
    "$tests/util/mtest_thread.c"
# the plain C tests of testlist.in (lines without configure substitutions): name, ranks, args
grep -v '^#' "$tests/datatype/testlist.in" | grep -v '@' | awk 'NF' > list.txt
built=0 differ=0 handled=0
while read -r name ranks rest; do
    if ! "$mpicc" -O1 -w -I"$tests/include" -o "$name" "$tests/datatype/$name.c" mtest.o \
        mtest_common.o mtest_thread.o -lm -lpthread 2>/dev/null; then
        echo "$name: does not build against this MPI, skipped"
        continue
    fi
    built=$((built + 1))
    args=()
    for word in $rest; do
        case $word in arg=*) args+=("${word#arg=}") ;; esac
    done
    set +e
    alone=$(timeout 120 "$mpiexec" -n "$ranks" "./$name" "${args[@]}" 2>&1 < /dev/null)
    alone_rc=$?
    with=$(timeout 120 "$mpiexec" -n "$ranks" env LD_PRELOAD="$library" MEMCOMM_STATS=1 \
        "./$name" "${args[@]}" 2>&1 < /dev/null)
    with_rc=$?
    set -e
    alone_ok=$(grep -c "No Errors" <<< "$alone" || true)
    with_ok=$(grep -c "No Errors" <<< "$with" || true)
    calls=$(grep -o "handled [0-9]* calls" <<< "$with" | awk '{s += $2} END {print s + 0}')
    handled=$((handled + calls))
    verdict=same
    if [ "$alone_rc" != "$with_rc" ] || [ "$alone_ok" != "$with_ok" ]; then
        verdict=DIFFERENT
        differ=$((differ + 1))
    fi
    echo "$name (${ranks} ranks ${args[*]}): MPI alone exit $alone_rc, \"No Errors\" x$alone_ok;" \
        "memcomm exit $with_rc, x$with_ok, handled $calls calls: $verdict"
done < list.txt
echo "$mpi: $built test runs, $differ ended differently under memcomm; memcomm handled $handled calls"
[ "$differ" = 0 ]
