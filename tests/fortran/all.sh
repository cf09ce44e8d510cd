#!/usr/bin/env bash
# `make test-fortran`: on Debian's MPICH and Open MPI (installed by debian_mpis.sh when
# missing, else skipped with the reason), memcomm built against each (the build itself is a
# test: these are older MPIs than the wheels), its C tests and MPICH's own tests there, then
# the Fortran programs (run.sh), ScaLAPACK's BLACS tester (scalapack.sh) and parallel HDF5
# (tests/hdf5/run.sh, a C program over Debian's HDF5 for that MPI), and the Fortran programs
# again under memcomm's AddressSanitizer + UndefinedBehaviorSanitizer build (leak checks off:
# the Fortran runtime and these MPIs keep allocations until exit); last, the Fortran programs
# on Intel MPI's wheels where make test-impi built memcomm for it (impi.sh).
#
# usage: all.sh [JOBS]
set -u
jobs=${1:-2}
cd "$(dirname "$0")/../.." || exit 1
echo "== tests: Fortran programs, ScaLAPACK and HDF5 on Debian's MPICH and Open MPI, alone and under memcomm"
if ! why=$(tests/fortran/debian_mpis.sh); then
    echo "fortran: skipped: $why"
    exit 0
fi
mkdir -p build
build() { # directory, MPI, extra cmake options
    cmake -S . -B "build/$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMCOMM_DIFFTEST_TYPES=4000 \
        -DMPI_C_COMPILER="/usr/bin/mpicc.$2" -DMPIEXEC_EXECUTABLE="/usr/bin/mpiexec.$2" \
        "${@:3}" > "build/$1.configure.log" 2>&1 || { cat "build/$1.configure.log"; return 1; }
    cmake --build "build/$1" -j "$jobs" > "build/$1.build.log" 2>&1 \
        || { cat "build/$1.build.log"; return 1; }
}
# memcomm's C tests on each (a focused subset: the random-type counts cut down); the tests
# step around what dies inside the MPI alone (MPICH 4.0.2's MPI_Isendrecv, persistent
# collectives and the memory types its ROMIO cannot take: docs/errors.md)
for m in mpich openmpi; do
    lib=$PWD/build/debian-$m/libmemcomm.so
    build "debian-$m" "$m" || exit 1
    echo "== tests: memcomm's C tests on Debian's $m"
    (cd "build/debian-$m" && OMPI_MCA_rmaps_base_oversubscribe=1 \
        ctest --timeout 300 --output-on-failure) || exit 1
    # MPICH's own datatype tests, alone and under memcomm; on MPICH also the point-to-point
    # runs of its datatype generator (DTPools, which Open MPI 4's header cannot build). The
    # sources: Debian's (MPICH_SOURCES, a directory; the Makefile sets it). DTPools' counts:
    # DTP_COUNTS (the Makefile gives the three it runs on Intel MPI; unset: all).
    dtpools=pt2pt
    [ "$m" = openmpi ] && dtpools=
    echo "== tests: MPICH's own tests (datatype; DTPools: ${dtpools:-none}) on Debian's $m," \
         "alone and under memcomm"
    DTP_DIRS=$dtpools DTP_TYPES=MPI_FLOAT_INT tests/mpich_test_suite_logged.sh \
        "${MPICH_SOURCES:-.venv/mpich-sources}" "debian-$m" datatype || exit 1
    tests/fortran/run.sh "$m" "/usr/bin/mpicc.$m" "/usr/bin/mpif90.$m" "/usr/bin/mpiexec.$m" \
        "$lib" "build/debian-$m/fortran" || exit 1
    tests/fortran/scalapack.sh "$m" "/usr/bin/mpiexec.$m" "$lib" "build/debian-$m/scalapack" \
        || exit 1
    tests/hdf5/run.sh "$m" "/usr/bin/mpicc.$m" "/usr/bin/mpiexec.$m" "$lib" \
        "build/debian-$m/hdf5" || exit 1
    build "debian-$m-asan" "$m" -DMEMCOMM_SANITIZE=ON -DMEMCOMM_TESTS=OFF || exit 1
    ASAN_OPTIONS=abort_on_error=1:detect_leaks=0 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    MEMCOMM_PRELOAD_FIRST="$(cc -print-file-name=libasan.so) $(cc -print-file-name=libubsan.so)" \
        tests/fortran/run.sh "$m-asan" "/usr/bin/mpicc.$m" "/usr/bin/mpif90.$m" \
        "/usr/bin/mpiexec.$m" "$PWD/build/debian-$m-asan/libmemcomm.so" \
        "build/debian-$m-asan/fortran" || exit 1
done
# Intel MPI's Fortran bindings (its PyPI wheels; the build make test-impi made), mpif.h and
# `use mpi`
tests/fortran/impi.sh "$PWD/.venv/mpi/impi" "$PWD/build/impi/libmemcomm.so" \
    build/impi/fortran || exit 1
