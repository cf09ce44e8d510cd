"""The A/B tables of README.md: python tables.py "ab-*.jsonl" (GB/s ranges over the rounds)."""
import json, statistics, sys, glob, collections
d = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1])):
    build = 'before' if 'before' in f else 'after'
    for line in open(f):
        r = json.loads(line)
        if r.get('kind') != 'result': continue
        d[(r['pattern'], r['direction'], r['method'], build)].append(r['bytes'] / statistics.median(r['seconds']) / 1e9)
pats = sorted({k[0] for k in d}, key=lambda p: (int(p.split()[1].split('x')[0]), ['double','float','complex'].index(p.split()[2])))
def pitch_text(p):
    n = int(p.split()[1].split('x')[0]); e = {'double': 8, 'float': 4, 'complex': 16}[p.split()[2]]
    dp = n * e
    return f"{dp} B, " + ("whole lines" if dp % 64 == 0 else f"{dp % 64} B into a line" + ("" if dp % 16 == 0 else ", no 16 B multiple"))
r = lambda xs: f"{min(xs):.2f}-{max(xs):.2f}"
print("| transpose | packed row pitch | pack before | pack after | unpack before | unpack after | MPI pack | memcpy |")
print("|---|---|---|---|---|---|---|---|")
for p in pats:
    g = lambda dr, m, b: d.get((p, dr, m, b), [])
    mpi = g('pack', 'mpi', 'before') + g('pack', 'mpi', 'after')
    cp = g('pack', 'memcpy', 'before') + g('pack', 'memcpy', 'after')
    print(f"| {p.replace('transpose ', '').replace('x', '²', 1).split('²')[0]}² {p.split()[2]} | {pitch_text(p)} | {r(g('pack','memcomm','before'))} | {r(g('pack','memcomm','after'))} | {r(g('unpack','memcomm','before'))} | {r(g('unpack','memcomm','after'))} | {r(mpi)} | {r(cp)} |")
