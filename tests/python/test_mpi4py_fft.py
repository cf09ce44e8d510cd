"""mpi4py-fft, an FFT library nobody here wrote, unchanged, on every MPI build `make test` made.
Its redistributions are `MPI_Alltoallw` of subarray types, one type per peer and direction.

- examples/mpi4py_fft_transfers.py moves seeded data through every pencil-to-pencil transfer
  of odd shapes (uneven blocks on 3 ranks) and four element types: what each rank receives is
  byte-identical with memcomm (always packing, and choosing by measurement) and without it;
- mpi4py-fft's own tests of the same calls end as they do with the MPI alone."""

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from clirun import BUILT, ROOT, handled_calls

from memcomm import runner

LIBRARY = Path(os.environ.get("MEMCOMM_MPI4PY_FFT", str(ROOT / ".venv" / "mpi4py-fft")))
TRANSFERS = ROOT / "examples" / "mpi4py_fft_transfers.py"
# the redistributions (pencil), the distributed arrays on them, the parallel transforms
OWN_TESTS = ["test_pencil.py", "test_darray.py", "test_mpifft.py"]

needs_library = pytest.mark.skipif(
    not (LIBRARY / "site" / "mpi4py_fft").is_dir(),
    reason=f"no mpi4py-fft in {LIBRARY} (tests/fetch_mpi4py_fft.sh builds it)",
)


def run(mpi: str, nprocs: int, args: list[str], send_path: str | None) -> tuple[str, str]:
    """stdout and stderr of `python args` on `nprocs` ranks, with the MPI alone (send_path
    None) or under memcomm with that MEMCOMM_SEND_PATH."""
    build = runner.find_build(mpi)
    env = {"PYTHONPATH": str(LIBRARY / "site")}
    if send_path is None:
        env |= runner.python_settings(build)
        done = runner.launch(build, nprocs, sys.executable, args, True, env)
    else:
        env |= {"MEMCOMM_SEND_PATH": send_path, "MEMCOMM_STATS": "1"}
        done = runner.launch_preloaded(build, nprocs, sys.executable, args, True, env)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return done.stdout, done.stderr


def received(stdout: str) -> list[dict[str, Any]]:
    """The program's lines without their times: what every rank received, per transfer."""
    lines = [json.loads(line) for line in stdout.splitlines()]
    for line in lines:
        for timing in ("forward_s", "backward_s", "forward_total_s", "backward_total_s"):
            del line[timing]
    return lines


@needs_library
@pytest.mark.parametrize("mpi", BUILT)
@pytest.mark.parametrize("nprocs", [2, 3])
def test_transfers_byte_identical(mpi: str, nprocs: int) -> None:
    # 40 calls per direction: the trials decide paths under `measure`, and the decided paths
    # run too
    args = [str(TRANSFERS), "--warmup", "36", "--reps", "3"]
    alone = received(run(mpi, nprocs, args, None)[0])
    assert len(alone) == 56, alone  # 3 shapes, 4 types, each ordered pair of axes
    assert all(all(line["round_trip"]) for line in alone)
    for send_path in ("packed", "measure"):
        stdout, stderr = run(mpi, nprocs, args, send_path)
        assert received(stdout) == alone, send_path
        handled = handled_calls(stderr)
        assert set(handled) == set(range(nprocs)), stderr[-3000:]
        assert all(calls > 0 for calls in handled.values()), (send_path, handled)


# mpi4py-fft's own tests on each MPI, but its pencil and transform tests not on Open MPI, where
# they take 75-91 s each alone and as long again under memcomm (2 vCPUs): the redistributions
# they drive are compared byte for byte on both MPIs above
OWN_RUNS = [(t, m) for m in BUILT for t in OWN_TESTS if m != "openmpi" or t == "test_darray.py"]


@needs_library
@pytest.mark.parametrize(("test", "mpi"), OWN_RUNS)
def test_own_tests_pass_under_memcomm(mpi: str, test: str) -> None:
    # through mpi4py's runner, which aborts every rank when one fails (a failed assert would
    # otherwise leave the other rank waiting in a collective)
    args = ["-m", "mpi4py", str(LIBRARY / "tests" / test)]
    run(mpi, 2, args, None)
    _, stderr = run(mpi, 2, args, "measure")
    handled = handled_calls(stderr)
    assert set(handled) == {0, 1} and all(calls > 0 for calls in handled.values()), stderr
