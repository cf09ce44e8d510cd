#!/bin/sh
# tp2-head: tp2.c (as pow2.sh builds it) against a0895cb (git worktree, built as the Makefile does); tp2-deep: against a0895cb with deep.diff applied.
# sh deep.sh ROUNDS > deep.txt: the two alternated, the first of each pair switched every round.
# rounds alternate which build runs first
for round in $(seq 1 $1); do
  if [ $((round % 2)) = 1 ]; then order="head deep"; else order="deep head"; fi
  for cfg in "1000 16" "1001 16" "1008 16" "1024 16" "2048 16" "1008 8" "1024 8"; do
    set -- $cfg
    for b in $order; do echo "$round $b $(/tmp/cg/tp2-$b $1 $1 $2 15)"; done
  done
done
