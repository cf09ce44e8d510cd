#!/usr/bin/env bash
# The Fortran face programs (faces_f08.f90, faces_f77.F90 as `use mpi` and mpif.h, with
# faces_data.f90 and faces_c.c), the random-type programs (random_types.F90 and
# collectives.F90), bottom.F90 and io.F90 (MPI-IO) in every binding, on one MPI, each run
# with the MPI alone and under memcomm (LD_PRELOAD, every message and file access packed):
# the outputs must be the same, and memcomm
# must have carried the calls it can see. A run that differs, or a case that should be
# carried and was not, fails.
#
# usage: run.sh NAME MPICC MPIF90 MPIEXEC LIBMEMCOMM WORKDIR   (NAME: for the lines printed)
# BINDINGS: the bindings to test (default "F08 MPIFH USE_MPI"; an MPI whose mpi_f08 module
# this gfortran cannot read, Intel MPI's, is tested without F08).
# With MEMCOMM_PRELOAD_FIRST set (the sanitizer runtimes, for a sanitizer build of memcomm),
# that is preloaded ahead of everything else.
set -u
bindings=${BINDINGS:-F08 MPIFH USE_MPI}
has_f08() { [[ " $bindings " == *" F08 "* ]]; }
name=$1 mpicc=$2 mpif90=$3 mpiexec=$4 lib=$5 work=$6
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
cd "$work" || exit 1

"$mpicc" -O1 -c -o faces_c.o "$here/faces_c.c" || exit 1
"$mpif90" -O1 -c -o faces_data.o "$here/faces_data.f90" || exit 1
if has_f08; then
    "$mpif90" -O1 -o faces_f08 "$here/faces_f08.f90" faces_data.o faces_c.o || exit 1
fi
# an MPI of 4.1 or later: the face programs complete through the array forms of
# MPI_Request_get_status too
status_arrays=
version_test='#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)\nMPI_4_1\n#endif'
if printf "#include <mpi.h>\n$version_test\n" | "$mpicc" -E -x c - 2>/dev/null \
        | grep -qx MPI_4_1; then
    status_arrays=-DSTATUS_ARRAYS
fi
if ! "$mpif90" -O1 $status_arrays -o faces_use_mpi "$here/faces_f77.F90" faces_data.o \
        faces_c.o 2>faces_use_mpi.log; then
    # Intel MPI 2021's mpi module declares their `flag` INTEGER, where the standard has LOGICAL
    [ -n "$status_arrays" ] || { cat faces_use_mpi.log; exit 1; }
    echo "fortran $name: its mpi module rejects MPI_Request_get_status_any/_all as the" \
         "standard writes them (faces_use_mpi.log); faces_use_mpi is built without them"
    "$mpif90" -O1 -o faces_use_mpi "$here/faces_f77.F90" faces_data.o faces_c.o || exit 1
fi
"$mpif90" -O1 -DMPIFH $status_arrays -o faces_mpifh "$here/faces_f77.F90" faces_data.o \
    faces_c.o || exit 1
"$mpicc" -O1 -c -I"$here/../mpi" -o random_types_c.o "$here/random_types.c" || exit 1
"$mpicc" -O1 -c -o recipe.o "$here/../mpi/recipe.c" || exit 1
for binding in $bindings; do
    "$mpif90" -O1 -cpp -D$binding -o random_$binding "$here/random_types.F90" random_types_c.o \
        recipe.o || exit 1
    "$mpif90" -O1 -cpp -D$binding -o collectives_$binding "$here/collectives.F90" \
        random_types_c.o recipe.o || exit 1
    # mpif.h has no interfaces: gfortran 10 and later want this flag for one routine called
    # with arguments of several types (MPI_Get_address of doubles and integers), as real
    # mpif.h codes build
    mismatch=$([ "$binding" = MPIFH ] && echo -fallow-argument-mismatch)
    "$mpif90" -O1 -cpp -D$binding $mismatch -o bottom_$binding "$here/bottom.F90" || exit 1
    "$mpif90" -O1 -cpp -D$binding $mismatch -o io_$binding "$here/io.F90" || exit 1
done

# the Fortran library the programs use, for the case with it ahead of memcomm
fortran_lib=$(has_f08 && ldd ./faces_f08 | awk '/libmpichfort|libmpi_usempif08/ {print $3; exit}')

passed=0 failed=0
run() { # label, carried (yes/no), preload, program, argument[, ranks]
    local label=$1 carried=$2 preload="${MEMCOMM_PRELOAD_FIRST:+$MEMCOMM_PRELOAD_FIRST }$3"
    local prog=$4 arg=$5 ranks=${6:-2}
    local alone under calls
    alone=$(timeout 120 "$mpiexec" -n "$ranks" "./$prog" $arg 2>/dev/null | sort)
    under=$(MEMCOMM_STATS=1 MEMCOMM_SEND_PATH=packed timeout 120 "$mpiexec" -n "$ranks" \
            env LD_PRELOAD="$preload" "./$prog" $arg 2>"$prog.$label.err" | sort)
    calls=$(sed -n 's/.*rank 1 handled \([0-9]*\) calls.*/\1/p' "$prog.$label.err" | head -1)
    if [ -z "$alone" ]; then
        echo "fortran $name $prog $label: FAILED (no output from the MPI alone)"
        failed=$((failed + 1))
    elif [ "$alone" != "$under" ]; then
        echo "fortran $name $prog $label: DIFFERENT from the MPI alone"
        diff <(echo "$alone") <(echo "$under") | head -20
        failed=$((failed + 1))
    elif [ "$carried" = yes ] && [ "${calls:-0}" -eq 0 ]; then
        echo "fortran $name $prog $label: same as the MPI alone, but memcomm carried nothing"
        cat "$prog.$label.err"
        failed=$((failed + 1))
    else
        local wrong note=""
        wrong=$(echo "$alone" | grep -c WRONG)
        [ "$wrong" -gt 0 ] && note="; $wrong forms wrong with the MPI alone too"
        echo "fortran $name $prog $label: same as the MPI alone (rank 1: ${calls:-no stats}" \
             "calls carried$note)"
        passed=$((passed + 1))
    fi
}

if has_f08; then
    run f08 yes "$lib" faces_f08 ""
    run f08-mixed yes "$lib" faces_f08 mixed
    run f08-from-c yes "$lib" faces_f08 c
fi
run use-mpi yes "$lib" faces_use_mpi ""
run use-mpi-from-c yes "$lib" faces_use_mpi c
run mpifh yes "$lib" faces_mpifh ""
run mpifh-from-c yes "$lib" faces_mpifh c
# random types through every binding: point-to-point (random_types.F90, 2000 types of seed
# 1) and collectives on 3 ranks (collectives.F90, 600 types)
for binding in $bindings; do
    run random-types yes "$lib" random_$binding "2000 1"
    run random-collectives yes "$lib" collectives_$binding 600 3
    run bottom yes "$lib" bottom_$binding ""
    run io yes "$lib" io_$binding io_$binding.dat
done
# the Fortran library ahead of memcomm: memcomm must leave its requests to the MPI
if [ -n "$fortran_lib" ]; then
    run f08-mixed-binding-ahead no "$fortran_lib $lib" faces_f08 mixed
    run f08-from-c-binding-ahead no "$fortran_lib $lib" faces_f08 c
fi
echo "fortran $name: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
