"""memcomm's carried send over the hand-written pack loops plus a contiguous send, per launch,
from this folder's ping-pongs (MEMCOMM_SEND_PATH=packed; 2 MiB or 4 KiB staging pages):

    ../../../../.venv/bin/python ratios.py
"""

import glob
import json
import re
import statistics


def medians(path: str) -> dict[str, float]:
    """The median half round trip of each method in one launch."""
    out = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if r.get("kind") == "result":
                out[r["method"]] = statistics.median(r["seconds"])
    return out


groups: dict[str, list[str]] = {}
for path in sorted(glob.glob("*.jsonl")):
    t = medians(path)
    key = re.sub(r"-\d+\.jsonl$", "", path)
    groups.setdefault(key, []).append(f"{t['manual'] / t['memcomm']:.2f}")
for key, ratios in groups.items():
    print(f"{key:22s} memcomm / hand: {', '.join(ratios)}")
