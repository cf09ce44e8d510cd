#!/usr/bin/env bash
# The Fortran face programs (faces_f08.f90, faces_f77.F90 as `use mpi` and mpif.h, with
# faces_c.c) on one MPI, each run with the MPI alone and under memcomm (LD_PRELOAD, every
# message packed): the outputs must be the same, and memcomm must have carried the calls it
# can see. A run that differs, or a case that should be carried and was not, fails.
#
# usage: run.sh NAME MPICC MPIF90 MPIEXEC LIBMEMCOMM WORKDIR
#   NAME: mpich or openmpi (Open MPI's Fortran sends reach PMPI_ calls, which memcomm does
#   not carry yet: there only the requests posted from C are carried)
set -u
name=$1 mpicc=$2 mpif90=$3 mpiexec=$4 lib=$5 work=$6
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
cd "$work" || exit 1

"$mpicc" -O1 -c -o faces_c.o "$here/faces_c.c" || exit 1
"$mpif90" -O1 -o faces_f08 "$here/faces_f08.f90" faces_c.o || exit 1
"$mpif90" -O1 -o faces_use_mpi "$here/faces_f77.F90" faces_c.o || exit 1
"$mpif90" -O1 -DMPIFH -o faces_mpifh "$here/faces_f77.F90" faces_c.o || exit 1

# the Fortran library the programs use, for the case with it ahead of memcomm
fortran_lib=$(ldd ./faces_f08 | awk '/libmpichfort|libmpi_usempif08/ {print $3; exit}')

passed=0 failed=0
run() { # label, carried (yes/no), preload, program, argument
    local label=$1 carried=$2 preload=$3 prog=$4 arg=$5
    local alone under calls
    alone=$(timeout 120 "$mpiexec" -n 2 "./$prog" $arg 2>/dev/null | sort)
    under=$(MEMCOMM_STATS=1 MEMCOMM_SEND_PATH=packed timeout 120 "$mpiexec" -n 2 \
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
        local wrong
        wrong=$(echo "$alone" | grep -c WRONG)
        echo "fortran $name $prog $label: same as the MPI alone (rank 1: ${calls:-no stats} calls" \
             "carried; ${wrong} forms wrong with the MPI alone too)"
        passed=$((passed + 1))
    fi
}

fortran_sends=yes
[ "$name" = openmpi ] && fortran_sends=no
run f08 "$fortran_sends" "$lib" faces_f08 ""
run f08-mixed "$fortran_sends" "$lib" faces_f08 mixed
run f08-from-c yes "$lib" faces_f08 c
run use-mpi "$fortran_sends" "$lib" faces_use_mpi ""
run use-mpi-from-c yes "$lib" faces_use_mpi c
run mpifh "$fortran_sends" "$lib" faces_mpifh ""
run mpifh-from-c yes "$lib" faces_mpifh c
# the Fortran library ahead of memcomm: memcomm must leave its requests to the MPI
if [ -n "$fortran_lib" ]; then
    run f08-mixed-binding-ahead no "$fortran_lib $lib" faces_f08 mixed
    run f08-from-c-binding-ahead no "$fortran_lib $lib" faces_f08 c
fi
echo "fortran $name: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
