#!/usr/bin/env bash
# The Fortran programs (run.sh) on Intel MPI from its PyPI wheels, in mpif.h and `use mpi`:
# the wheels carry gfortran modules for `use mpi` (include/mpi/gfortran/<version>), which
# its mpif90 does not find in the wheels' layout, and none for `use mpi_f08` (only the
# Intel compilers' module), so this gfortran cannot build an mpi_f08 program against it.
#
# usage: impi.sh IMPI_ROOT LIBMEMCOMM WORKDIR
set -u
root=$1 lib=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -f "$lib" ]; then
    echo "fortran impi: skipped: no memcomm build for Intel MPI ($lib; make test-impi makes it)"
    exit 0
fi
if ! command -v gfortran > /dev/null; then
    echo "fortran impi: skipped: no gfortran"
    exit 0
fi
# the modules of the newest gfortran release of this major version the wheels carry
major=$(gfortran -dumpversion | cut -d. -f1)
modules=$(ls -d "$root/include/mpi/gfortran/$major."* 2>/dev/null | sort -V | tail -1)
if [ -z "$modules" ]; then
    echo "fortran impi: skipped: Intel MPI has no modules for gfortran $major"
    exit 0
fi
mkdir -p "$work"
work=$(cd "$work" && pwd) # run.sh works in it: the wrapper's path must not be relative
cat > "$work/mpif90" <<WRAP
#!/bin/sh
exec "$root/bin/mpif90" -I"$modules" -Wno-missing-include-dirs "\$@"
WRAP
chmod +x "$work/mpif90"
export I_MPI_ROOT=$root I_MPI_CC=gcc I_MPI_F90=gfortran I_MPI_FABRICS=shm
BINDINGS="MPIFH USE_MPI" "$here/run.sh" impi "$root/bin/mpicc" "$work/mpif90" \
    "$root/bin/mpiexec" "$lib" "$work"
