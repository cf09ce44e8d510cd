#!/bin/bash
# usage: tileab.sh SIZE TYPE ROUNDS TILES...
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)" && source .venv/bin/activate
size=$1; ty=$2; rounds=$3; shift 3
for r in $(seq $rounds); do
  for t in "$@"; do
    MEMCOMM_TILE_BYTES=$t memcomm run --mpi mpich -n 1 -- build/mpich/bench/bench_pack --sizes $size --only "transpose ${size}x${size} $ty" --methods memcpy,memcomm --cache flushed --reps 7 2>/dev/null \
     | python3 -c "
import sys,json,statistics as st
out={}
for l in sys.stdin:
    try: d=json.loads(l)
    except: continue
    if d.get('kind')!='result': continue
    out[(d['method'],d['direction'])]=st.median(d['seconds'])*1e3
print('round $r tile $t', ' '.join(f'{m}/{dr}={v:.1f}ms' for (m,dr),v in sorted(out.items())))
"
  done
done
