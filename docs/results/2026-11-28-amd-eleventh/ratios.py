"""memcomm/MPI and interposed/MPI per launch: python ratios.py "interposed-*.jsonl"."""
import json, statistics, sys, glob, collections
d = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1])):
    for line in open(f):
        r = json.loads(line)
        if r.get('kind') != 'result': continue
        d[(r['pattern'], r['direction'], r['method'])].append(statistics.median(r['seconds']))
pats = list(dict.fromkeys(k[0] for k in d))
for direction in ('pack', 'unpack'):
    print(f"## {direction}: memcomm/MPI and interposed/MPI per launch")
    for p in pats:
        m, k, i = (d.get((p, direction, x), []) for x in ('mpi', 'memcomm', 'interposed'))
        if not m: continue
        print(f"{p:34s} kernel {' '.join(f'{a/b:.2f}' for a, b in zip(m, k)):12s} interposed {' '.join(f'{a/b:.2f}' for a, b in zip(m, i))}")
