"""The README's bullets under "Pack and unpack bandwidth", from this folder's final runs:
each transpose's and the particles' pack as a share of memcpy, unpack/pack where it is below
0.9, and, for the layouts that write part of each line, the line-touch baseline's
modify/read ratio beside memcomm's unpack/pack.

    ../../../.venv/bin/python ratios.py
"""

import glob
import json
import statistics

PARTIAL_LINES = (
    "column stride 16, 131072 doubles",
    "column stride 32, 131072 doubles",
    "z face of 256^3 double",
    "particles: 262144 random blocks of 3 doubles",
)


def rates(path: str) -> dict[tuple[str, str, str], float]:
    """GB/s of each (pattern, direction, method): bytes over the median time."""
    out = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if r.get("kind") == "result":
                key = (r["pattern"], r["direction"], r["method"])
                out[key] = r["bytes"] / statistics.median(r["seconds"]) / 1e9
    return out


for path in sorted(glob.glob("final/pack-*.jsonl")):
    d = rates(path)
    patterns = list(dict.fromkeys(p for p, _, _ in d))
    print(path)
    for p in patterns:
        pack, unpack = d.get((p, "pack", "memcomm")), d.get((p, "unpack", "memcomm"))
        if pack is None or unpack is None:
            continue
        share = pack / d[(p, "pack", "memcpy")]
        line = f"  {p:48s} of memcpy {share:6.1%}  unpack/pack {unpack / pack:.2f}"
        if p in PARTIAL_LINES:
            touch = d[(p, "unpack", "lines")] / d[(p, "pack", "lines")]
            line += f"  lines modify/read {touch:.2f}"
        if "transpose" in p or "particles" in p or unpack / pack < 0.9 or p in PARTIAL_LINES:
            print(line)
