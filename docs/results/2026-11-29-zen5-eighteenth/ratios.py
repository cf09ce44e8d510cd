"""The README's bullets under "Pack and unpack bandwidth", from this folder's final runs:
each transpose's and the particles' pack as a share of memcpy, unpack/pack where it is below
0.9, and, for the layouts that write part of each line, the line-touch baseline's
modify/read ratio beside memcomm's unpack/pack. Reads the records with memcomm's own results
and report modules:

    ../../../.venv/bin/python ratios.py
"""

import glob

from memcomm import results
from memcomm.report import tables

PARTIAL_LINES = (
    "column stride 16, 131072 doubles",
    "column stride 32, 131072 doubles",
    "z face of 256^3 double",
    "particles: 262144 random blocks of 3 doubles",
)

for path in sorted(glob.glob("final/pack-*.jsonl")):
    print(path)
    runs = results.read([path])
    for row in tables.pack_rows(r for run in runs for r in run.results):
        if not (row.has("memcomm") and row.has("memcomm", "unpack")):
            continue
        share = row.ratio("memcomm", "memcpy")
        unpack_over_pack = row.gbps("memcomm", "unpack") / row.gbps("memcomm")
        line = f"  {row.pattern:48s} of memcpy {share:6.1%}  unpack/pack {unpack_over_pack:.2f}"
        if row.pattern in PARTIAL_LINES:
            touch = row.gbps("lines", "unpack") / row.gbps("lines")
            line += f"  lines modify/read {touch:.2f}"
        p = row.pattern
        if "transpose" in p or "particles" in p or unpack_over_pack < 0.9 or p in PARTIAL_LINES:
            print(line)
