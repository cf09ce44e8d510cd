#!/bin/sh
# The summary `make test` ends with: each stage's result and run time (build/test-stages.tsv,
# written by tests/stage.sh; builds and downloads are not in the stages' times).
file=${1:-build/test-stages.tsv}
[ -s "$file" ] || exit 0
echo "== summary of make test (run time per stage; builds not included)"
awk -F '\t' '{ t += $2; printf "  %-28s %-6s %6d s\n", $1, ($3 == 0 ? "passed" : "FAILED"), $2 }
             END { printf "  %-28s %-6s %6d s\n", "all stages", "", t }' "$file"
