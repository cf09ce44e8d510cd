"""Per launch, memcomm against memcpy and MPI by how the packed rows meet the lines: python of_memcpy.py."""
import json, statistics, glob, collections
d = collections.defaultdict(list)
for f in sorted(glob.glob("docs/results/2026-11-28-amd-eleventh/ab*-after-*.jsonl")):
    runs = {}
    for line in open(f):
        r = json.loads(line)
        if r.get('kind') != 'result': continue
        runs[(r['pattern'], r['direction'], r['method'])] = statistics.median(r['seconds'])
    for (p, dr, m), s in runs.items():
        if m == 'memcomm' and (p, 'pack', 'memcpy') in runs:
            n = int(p.split()[1].split('x')[0]); e = {'double': 8, 'float': 4, 'complex': 16}[p.split()[2]]
            kind = 'whole' if n*e % 64 == 0 else 'composed' if n*e % 16 == 0 else 'cached'
            d[(kind, p.split()[2])].append(runs[(p, 'pack', 'memcpy')] / s)
            if (p, dr, 'mpi') in runs: d[(kind, p.split()[2], 'vsmpi')].append(runs[(p, dr, 'mpi')] / s)
for k, v in sorted(d.items()): print(k, f"{min(v):.2f}-{max(v):.2f}", len(v))
