#!/bin/sh
# Run one stage of `make test` (the command after NAME), and record its name, run time and
# exit code in build/test-stages.tsv for the summary that `make test` ends with.
# usage: stage.sh NAME COMMAND [ARGS...]
name=$1
shift
stages=$(cd "$(dirname "$0")/.." && pwd)/build/test-stages.tsv
start=$(date +%s)
"$@"
rc=$?
printf '%s\t%s\t%s\n' "$name" "$(($(date +%s) - start))" "$rc" >> "$stages"
exit "$rc"
