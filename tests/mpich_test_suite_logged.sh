#!/bin/bash
# MPICH's own tests as make test runs them on one MPI: the sources fetched into SOURCES
# (tests/fetch_mpich_sources.sh; where they cannot be had, it says so and skips), then
# tests/mpich_test_suite.sh with every line in build/<mpi>-suite.log, and on the terminal
# only the lines of runs that did not end the same, and the summary.
#
#   tests/mpich_test_suite_logged.sh <sources-directory> <mpi> [dir ...]
#
# DTP_DIRS, DTP_TYPES and DTP_COUNTS pass through (tests/mpich_test_suite.sh).
set -u
sources=${1:?usage: $0 <sources-directory> <mpi> [dir ...]}
mpi=${2:?usage: $0 <sources-directory> <mpi> [dir ...]}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
if ! tarball=$("$here/fetch_mpich_sources.sh" "$sources"); then
    echo "MPICH's tests on $mpi: skipped: its sources could not be fetched"
    exit 0
fi
log=$here/../build/$mpi-suite.log
"$here/mpich_test_suite.sh" "$tarball" "$mpi" "$@" > "$log" 2>&1
rc=$?
grep -v ': same (' "$log"
exit $rc
