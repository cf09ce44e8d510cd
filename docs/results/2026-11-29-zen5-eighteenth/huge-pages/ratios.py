"""memcomm's carried send over the hand-written pack loops plus a contiguous send, per launch,
from this folder's ping-pongs (MEMCOMM_SEND_PATH=packed; 2 MiB or 4 KiB staging pages).
Reads the records with memcomm's own results and report modules:

    ../../../../.venv/bin/python ratios.py
"""

import glob
import re

from memcomm import results
from memcomm.report import tables

groups: dict[str, list[str]] = {}
for path in sorted(glob.glob("*.jsonl")):
    runs = results.read([path])
    (row,) = tables.pack_rows((r for run in runs for r in run.results), "pingpong")
    key = re.sub(r"-\d+\.jsonl$", "", path)
    groups.setdefault(key, []).append(f"{row.ratio('memcomm', 'manual'):.2f}")
for key, ratios in groups.items():
    print(f"{key:22s} memcomm / hand: {', '.join(ratios)}")
