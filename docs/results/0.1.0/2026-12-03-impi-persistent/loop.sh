#!/bin/bash
# mpi4py's suite (the modules tests/python/test_mpi4py.py runs) on Intel MPI, 2 ranks, N times
# each: alone, under memcomm, and with memcomm preloaded but MEMCOMM_DISABLE=1 (every call
# handed to the MPI unchanged). Each rank's unittest output goes to OUT/<variant>-<i>/rank<r>.txt
# (a rank still running after 150 s prints its stack and exits); one line per run in
# OUT/summary: the exit code, the failed tests.
# usage (from the source tree, after make test): loop.sh OUT [N]
set -u
out=$(realpath -m "$1") n=${2:-6}
mkdir -p "$out"
export I_MPI_FABRICS=shm I_MPI_ROOT=$PWD/.venv/mpi/impi
mods=$(.venv/bin/python -c "import sys; sys.path.insert(0, 'tests/python')
from test_mpi4py import MODULES; print(*MODULES)")
cat > "$out/rank.py" <<'PY'
import faulthandler, os, runpy, sys
out, main, *args = sys.argv[1:]
sys.stderr = open(os.path.join(out, f"rank{os.environ.get('PMI_RANK', 'x')}.txt"), "w")
faulthandler.dump_traceback_later(150, exit=True, file=sys.stderr)
sys.argv = [main, *args]
runpy.run_path(main, run_name="__main__")
PY
for i in $(seq "$n"); do
  for v in alone memcomm disabled; do
    d=$out/$v-$i; mkdir -p "$d"
    args=(.venv/bin/python "$out/rank.py" "$d" .venv/mpi4py-tests/main.py -v $mods)
    case $v in
      alone) timeout 200 .venv/mpi/impi/bin/mpiexec -n 2 \
               env MPI4PY_LIBMPI=$I_MPI_ROOT/lib/libmpi.so.12 "${args[@]}" ;;
      memcomm) timeout 200 .venv/bin/memcomm run -n 2 --mpi impi -- "${args[@]}" ;;
      disabled) MEMCOMM_DISABLE=1 timeout 200 .venv/bin/memcomm run -n 2 --mpi impi -- \
                  "${args[@]}" ;;
    esac </dev/null >"$d/out" 2>&1
    rc=$?
    failed=$(cat "$d"/rank*.txt | grep -h '\.\.\. FAIL\|\.\.\. ERROR' | awk '{print $2}' | sort -u)
    echo "$i $v rc=$rc failed: $(echo $failed)" >> "$out/summary"
  done
done
