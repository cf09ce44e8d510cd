#!/usr/bin/env bash
# ScaLAPACK's BLACS tester (xFbtest, Debian's scalapack-mpi-test: a Fortran program over the
# BLACS, which send submatrices as MPI derived types), on 4 ranks with the MPI alone and under
# memcomm: its point-to-point and broadcast tests in double and double complex must end the
# same, and memcomm must have carried calls. Installs the package when missing (root, apt).
#
# usage: scalapack.sh NAME MPIEXEC LIBMEMCOMM WORKDIR   (NAME: mpich or openmpi)
set -u
name=$1 mpiexec=$2 lib=$3 work=$4
tester=/usr/lib/x86_64-linux-gnu/scalapack/$name-tests/xFbtest
if [ ! -x "$tester" ] && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q scalapack-mpi-test \
        > /tmp/memcomm-scalapack.log 2>&1
fi
if [ ! -x "$tester" ]; then
    echo "scalapack $name: skipped: Debian's scalapack-mpi-test is not installed and could not be"
    exit 0
fi
mkdir -p "$work" && cd "$work" || exit 1
cat > bt.dat <<'DAT'
'BLACS tester, with and without memcomm'  Comment line
6                               device out
'blacstest.out'                 output fname
'T'                             Run SDRV?
'T'                             Run BSBR?
'F'                             Run COMB?
'F'                             Run AUX?
2                               Number of precisions
'D' 'Z'                         Values for precision
0                               Verbosity level
DAT
cp /usr/share/scalapack/BLACS/sdrv.dat /usr/share/scalapack/BLACS/bsbr.dat . || exit 1
results() { grep 'TESTS:' | grep -v BEGIN | sort; }
alone=$(timeout 300 "$mpiexec" -n 4 "$tester" 2>&1 | results)
under=$(MEMCOMM_STATS=1 timeout 300 "$mpiexec" -n 4 env LD_PRELOAD="$lib" "$tester" \
            2> stats.txt | results)
calls=$(sed -n 's/.*rank 0 handled \([0-9]*\) calls.*/\1/p' stats.txt | head -1)
echo "$alone" | sed "s/^/scalapack $name: alone:   /"
if [ -z "$alone" ] || [ "$alone" != "$under" ] || [ "${calls:-0}" -eq 0 ]; then
    echo "$under" | sed "s/^/scalapack $name: memcomm: /"
    echo "scalapack $name: FAILED (results differ, none, or nothing carried: ${calls:-no} calls)"
    exit 1
fi
echo "scalapack $name: the same under memcomm (rank 0: $calls calls carried)"
