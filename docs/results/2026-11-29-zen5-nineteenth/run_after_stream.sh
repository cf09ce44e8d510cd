#!/bin/sh
# The launches behind after_stream.txt, from the repository's root after `make setup`:
#   sh docs/results/2026-11-29-zen5-nineteenth/run_after_stream.sh > after_stream.txt
set -e
here=docs/results/2026-11-29-zen5-nineteenth
.venv/mpi/mpich/bin/mpicc -O2 -Wall -Wextra -Iinclude -Ibench $here/after_stream.c bench/harness.c \
    -o /tmp/after_stream -lm -ldl -Lbuild/mpich -lmemcomm -Wl,-rpath,$PWD/build/mpich
git log -1 --format='library: commit %h' 
for round in 1 2 3 4; do
    /tmp/after_stream 8192 float 7 flush
    /tmp/after_stream 8192 double 7 flush
    /tmp/after_stream 4096 float 7 flush
    /tmp/after_stream 8192 float 7
done
