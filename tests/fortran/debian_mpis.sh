#!/usr/bin/env bash
# Debian's MPICH and Open MPI with their Fortran bindings, and gfortran: there already, or
# installed with apt-get when run as root. Exit 0 when all are there; otherwise say why on
# stdout and exit 3 (the Fortran tests are then skipped, and say so).
need() { command -v mpif90.mpich && command -v mpif90.openmpi && command -v gfortran; }
need > /dev/null && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get > /dev/null; then
    echo "Debian's mpich, openmpi-bin and gfortran are not installed, and this is not root" \
         "with apt-get to install them"
    exit 3
fi
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -q && apt-get install -y -q mpich libmpich-dev openmpi-bin \
          libopenmpi-dev gfortran; } > /tmp/memcomm-debian-mpis.log 2>&1; then
    echo "apt-get could not install Debian's MPIs (see /tmp/memcomm-debian-mpis.log)"
    exit 3
fi
if ! need > /dev/null; then
    echo "Debian's MPIs installed, but mpif90.mpich or mpif90.openmpi is missing"
    exit 3
fi
