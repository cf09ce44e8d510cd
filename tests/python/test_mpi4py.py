"""mpi4py's own test suite, unchanged, on 2 ranks of every MPI build `make test` made: with
memcomm preloaded (as `memcomm run` does) it must end exactly as it does with the MPI alone,
and memcomm must have carried messages itself (mpi4py calls the large-count `_c` forms where
the MPI has them, so this fails if those are not intercepted)."""

import os
import re
import sys
from pathlib import Path

import pytest
from clirun import BUILT, ROOT, handled_calls

from memcomm import runner

SUITE = Path(os.environ.get("MEMCOMM_MPI4PY_TESTS", str(ROOT / ".venv" / "mpi4py-tests")))
# point-to-point, collectives, datatypes and what they rest on
MODULES = [
    "test_p2p_buf",
    "test_p2p_buf_matched",
    "test_p2p_obj",
    "test_p2p_obj_matched",
    "test_request",
    "test_status",
    "test_datatype",
    "test_pack",
    "test_msgspec",
    "test_msgzero",
    "test_buffer",
    "test_cco_buf",
    "test_cco_nb_buf",
    "test_cco_vec",
    "test_cco_nb_vec",
    "test_cco_obj",
    "test_cco_ngh_buf",
    "test_cco_pr_buf",
    "test_cco_pr_vec",
    "test_cco_pr_ngh_buf",
]
OUTCOME = re.compile(r"^(Ran \d+ tests?|OK\b.*|FAILED\b.*)", re.MULTILINE)
# a rank that has not ended by then prints its Python stack and exits, so that a hang fails the
# test (the suite takes under a minute here)
RANK_TIMEOUT_SECONDS = 600


# Each rank writes its unittest output to a file of its own (both ranks' stderr would mix).
RANK_OUTPUT = """
import faulthandler, os, runpy, sys, warnings
# the file below stays open until exit, on purpose: not worth a warning on the shared stderr
warnings.simplefilter("ignore", ResourceWarning)
out, timeout, main, *args = sys.argv[1:]
rank = os.environ.get("PMI_RANK") or os.environ.get("OMPI_COMM_WORLD_RANK") or "x"
sys.stderr = open(os.path.join(out, f"rank{rank}.txt"), "w")
faulthandler.dump_traceback_later(int(timeout), exit=True, file=sys.stderr)
sys.argv = [main, *args]
runpy.run_path(main, run_name="__main__")
"""


def run_suite(
    mpi: str,
    preload: bool,
    out: Path,
    env: dict[str, str] | None = None,
    modules: list[str] = MODULES,
) -> tuple[list[list[str]], str]:
    """Each rank's unittest summary lines, and everything the run printed."""
    build = runner.find_build(mpi)
    out.mkdir()
    args = ["-c", RANK_OUTPUT, str(out), str(RANK_TIMEOUT_SECONDS), str(SUITE / "main.py")]
    args += ["-q", *modules]
    if preload:
        done = runner.launch_preloaded(
            build,
            2,
            sys.executable,
            args,
            capture=True,
            extra_env={"MEMCOMM_STATS": "1", **(env or {})},
        )
    else:
        done = runner.launch(
            build,
            2,
            sys.executable,
            args,
            capture=True,
            extra_env={**runner.python_settings(build), **(env or {})},
        )
    texts = [
        (out / f"rank{rank}.txt").read_text() if (out / f"rank{rank}.txt").exists() else ""
        for rank in range(2)
    ]
    return [OUTCOME.findall(text) for text in texts], done.stdout + done.stderr + "".join(texts)


@pytest.mark.skipif(not (SUITE / "main.py").exists(), reason=f"no mpi4py test suite in {SUITE}")
@pytest.mark.parametrize("mpi", BUILT)
def test_mpi4py_suite_same_with_memcomm(mpi: str, tmp_path: Path) -> None:
    alone, alone_text = run_suite(mpi, False, tmp_path / "alone")
    assert all(len(lines) == 2 for lines in alone), alone_text[-3000:]  # "Ran N tests", "OK"
    carried, text = run_suite(mpi, True, tmp_path / "memcomm")
    assert carried == alone, text[-3000:]
    handled = handled_calls(text)
    assert set(handled) == {0, 1}, text[-3000:]
    assert all(calls > 0 for calls in handled.values()), handled


# mpi4py in its MPI-5 standard-ABI mode (built by `make test-python` with MPICH's mpicc_abi),
# on memcomm's build against the standard ABI
ABI_MPI4PY = os.environ.get("MEMCOMM_MPI4PY_ABI", "")


@pytest.mark.skipif(not (SUITE / "main.py").exists(), reason=f"no mpi4py test suite in {SUITE}")
@pytest.mark.skipif(
    not (Path(ABI_MPI4PY) / "mpi4py").is_dir(), reason="no mpi4py built for the standard ABI"
)
def test_mpi4py_suite_in_abi_mode_same_with_memcomm(tmp_path: Path) -> None:
    env = {"PYTHONPATH": ABI_MPI4PY}
    alone, alone_text = run_suite("mpich-abi", False, tmp_path / "alone", env)
    assert all(len(lines) == 2 for lines in alone), alone_text[-3000:]
    carried, text = run_suite("mpich-abi", True, tmp_path / "memcomm", env)
    assert carried == alone, text[-3000:]
    handled = handled_calls(text)
    assert set(handled) == {0, 1} and all(calls > 0 for calls in handled.values()), handled


# Intel MPI (its PyPI wheels; `make test-impi` builds memcomm for it where its libfabric can be
# loaded), on one node through shared memory. Not the persistent collectives: memcomm passes
# them to Intel MPI 2021, which alone fails their checks and hangs in some runs, and as often
# with memcomm preloaded but disabled (docs/errors.md).
IMPI_MODULES = [module for module in MODULES if not module.startswith("test_cco_pr_")]


@pytest.mark.skipif(not (SUITE / "main.py").exists(), reason=f"no mpi4py test suite in {SUITE}")
@pytest.mark.skipif(
    not (ROOT / "build" / "impi" / "libmemcomm.so").exists(),
    reason="no memcomm build for Intel MPI (make test-impi makes one where libfabric loads)",
)
def test_mpi4py_suite_on_intel_mpi_same_with_memcomm(tmp_path: Path) -> None:
    env = {"I_MPI_FABRICS": "shm"}
    alone, alone_text = run_suite("impi", False, tmp_path / "alone", env, IMPI_MODULES)
    assert all(len(lines) == 2 for lines in alone), alone_text[-3000:]
    carried, text = run_suite("impi", True, tmp_path / "memcomm", env, IMPI_MODULES)
    assert carried == alone, text[-3000:]
    handled = handled_calls(text)
    assert set(handled) == {0, 1} and all(calls > 0 for calls in handled.values()), handled
