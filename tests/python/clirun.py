"""What the tests that run the command line share: the MPI builds `make test` made, and one
way to run `memcomm` as a user would."""

import os
import re
import subprocess
import sys
from pathlib import Path

BUILT = os.environ.get("MEMCOMM_TEST_MPIS", "").split()
ROOT = Path(__file__).resolve().parents[2]

# MEMCOMM_STATS=1's line per rank; anywhere in a line, since another write to the same
# stderr can land in front of it
HANDLED = re.compile(r"memcomm: rank (\d+) handled (\d+) calls")


def handled_calls(stderr: str) -> dict[int, int]:
    """Calls memcomm handled itself, per rank, from a run with MEMCOMM_STATS=1."""
    return {int(rank): int(calls) for rank, calls in HANDLED.findall(stderr)}


def memcomm(
    *args: str, env: dict[str, str] | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memcomm.cli", *args],
        cwd=cwd,
        text=True,
        capture_output=True,
        check=False,
        env=env,
    )
