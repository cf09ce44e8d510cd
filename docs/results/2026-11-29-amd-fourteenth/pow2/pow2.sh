#!/bin/sh
# Why transposes at power-of-two pitches run at half speed (fourteenth session). From the
# repository's root after `make build` (MPICH):
#   sh docs/results/2026-11-29-amd-fourteenth/pow2/pow2.sh 2 > pow2.txt
# Builds the library twice in $WORK (the tree as is, and with isolate.diff: environment
# switches that take the loads or the stores out of the transposing walk), tp2.c (the eleventh
# session's flushed_transpose.c with tp2.diff: WARM and NOCHECK switches) against each,
# and stores.c; then runs every experiment ROUNDS times. tp2: median of 15 calls, 64 MiB written
# between calls; µs and GB/s of packed bytes.
set -e
ROUNDS=${1:-2}
M=$(pwd); R=$M/docs/results/2026-11-29-amd-fourteenth/pow2; W=${WORK:-/tmp/pow2}
CC=$M/.venv/mpi/mpich/bin/mpicc
rm -rf "$W" && mkdir -p "$W"
patch -s -o "$W/tp2.c" "$M/docs/results/2026-11-28-amd-eleventh/flushed_transpose.c" "$R/tp2.diff"
for v in plain isolate; do
    mkdir -p "$W/$v"
    tar cf - --exclude=./build --exclude=./.venv --exclude=./.git --exclude=./docs . | (cd "$W/$v" && tar xf -)
    [ $v = isolate ] && (cd "$W/$v" && patch -s -p1 < "$R/isolate.diff")
    (cd "$W/$v" && cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPI_C_COMPILER="$CC" > build.log 2>&1 &&
        cmake --build build --target memcomm -j 2 >> build.log 2>&1)
    $CC -O2 -I"$M/include" "$W/tp2.c" -o "$W/tp2-$v" -L"$W/$v/build" -lmemcomm -Wl,-rpath,"$W/$v/build"
done
gcc -O2 -mavx2 "$R/stores.c" -o "$W/stores"
tp2() { "$W/tp2-$1" "$2" "$3" "$4" 15 | grep median | sed "s/^/$1 $5: /"; }
for round in $(seq "$ROUNDS"); do
    echo "== round $round"
    echo "-- A: square transposes, memcomm and memcpy"
    for n in 1008 1024 1040 2048 2064; do
        for e in 4 8; do
            tp2 plain $n $n $e ""
            COPY=1 tp2 plain $n $n $e "memcpy"
        done
    done
    echo "-- B: one side a power of two (n columns of an n x pitch matrix: input rows pitch*elem apart, packed rows n*elem)"
    for e in 4 8; do
        tp2 plain 1024 1040 $e ""
        tp2 plain 1040 1024 $e ""
    done
    echo "-- C: loads or stores taken out (isolate.diff); SW: strip width in input lines"
    for n in 1008 1024; do
        for e in 4 8; do
            for sw in 16 4; do
                NOCHECK=1 SW=$sw tp2 isolate $n $n $e "SW=$sw as built"
                NOCHECK=1 SW=$sw NOSTORE=1 tp2 isolate $n $n $e "SW=$sw NOSTORE (loads, cached stores to 16 KiB)"
                NOCHECK=1 SW=$sw NOLOAD=1 tp2 isolate $n $n $e "SW=$sw NOLOAD (loads from 100 KiB, the real stores)"
                NOCHECK=1 SW=$sw NOLOAD=1 NOLOAD3=1 tp2 isolate $n $n $e "SW=$sw NOLOAD3 (those loads 2 KiB off the stores' low 12 bits)"
                NOCHECK=1 SW=$sw NOLOAD2=1 tp2 isolate $n $n $e "SW=$sw NOLOAD2 (stores only, no loads)"
            done
        done
    done
    echo "-- D: the walk's streamed stores alone (stores.c: 1024 rows of 8192 B; band 2048 B)"
    for p in 8192 8064; do
        for s in 128 32 8; do "$W/stores" 1024 8192 $p $s 2048; done
    done
done
