#!/usr/bin/env bash
# Parallel HDF5 (Debian's libhdf5-mpich-dev / libhdf5-openmpi-dev, HDF5 1.10) writing and
# reading the interior of ghosted blocks (ghost.c) on 2 ranks, with the MPI alone and under
# memcomm: the output (checksums of every block read back, ghost cells included) and the
# files must be the same, and memcomm must have carried MPI-IO calls. Installs the package
# when missing (root, apt); otherwise says it skipped.
#
# usage: run.sh NAME MPICC MPIEXEC LIBMEMCOMM WORKDIR   (NAME: mpich or openmpi)
set -u
name=$1 mpicc=$2 mpiexec=$3 lib=$4 work=$5
src=$(cd "$(dirname "$0")" && pwd)/ghost.c
include=/usr/include/hdf5/$name libdir=/usr/lib/x86_64-linux-gnu/hdf5/$name
if [ ! -f "$include/hdf5.h" ] && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "libhdf5-$name-dev" \
        > /tmp/memcomm-hdf5-$name.log 2>&1
fi
if [ ! -f "$include/hdf5.h" ]; then
    echo "hdf5 $name: skipped: Debian's libhdf5-$name-dev is not installed and could not be"
    exit 0
fi
mkdir -p "$work" && cd "$work" || exit 1
"$mpicc" -O2 -I"$include" "$src" -o ghost -L"$libdir" -lhdf5 || exit 1
alone=$(timeout 300 "$mpiexec" -n 2 ./ghost alone.h5 2>&1)
under=$(MEMCOMM_STATS=1 timeout 300 "$mpiexec" -n 2 env LD_PRELOAD="$lib" ./ghost under.h5 \
            2> stats.txt)
calls=$(sed -n 's/.*rank 0 handled \([0-9]*\) calls.*/\1/p' stats.txt | head -1)
echo "$alone" | sed "s/^/hdf5 $name: alone:   /"
if [ -z "$alone" ] || [ "$alone" != "$under" ] || ! cmp -s alone.h5 under.h5 \
        || [ "${calls:-0}" -eq 0 ]; then
    echo "$under" | sed "s/^/hdf5 $name: memcomm: /"
    cmp alone.h5 under.h5 | sed "s/^/hdf5 $name: /"
    echo "hdf5 $name: FAILED (output or files differ, or nothing carried: ${calls:-no} calls)"
    exit 1
fi
echo "hdf5 $name: the same output and file under memcomm (rank 0: $calls calls carried)"
