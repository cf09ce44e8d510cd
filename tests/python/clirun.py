"""What the tests that run the command line share: the MPI builds `make test` made, and one
way to run `memcomm` as a user would."""

import os
import subprocess
import sys
from pathlib import Path

BUILT = os.environ.get("MEMCOMM_TEST_MPIS", "").split()
ROOT = Path(__file__).resolve().parents[2]


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
