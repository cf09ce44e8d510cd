"""`memcomm run` and `explain` pick the build of memcomm whose MPI library the program loads,
and say plainly what is wrong when none fits or the one asked for is another MPI's."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import BUILT, ROOT, handled_calls, memcomm

from memcomm import runner


def fake(mpi: str) -> runner.Build:
    return runner.Build(mpi=mpi, directory=Path("/nowhere") / mpi, mpiexec="mpiexec")


def test_the_same_file_wins_over_the_same_soname_and_another_mpi_never_fits() -> None:
    wheel = ("libmpi.so.12", "/wheel/lib/libmpi.so.12")
    intel = ("libmpi.so.12", "/intel/lib/libmpi.so.12")
    builds = [
        (fake("mpich"), wheel),
        (fake("impi"), intel),
        (fake("openmpi"), ("libmpi.so.40", "/ompi/lib/libmpi.so.40")),
        (fake("broken"), None),  # a build whose library ldd cannot read
    ]
    assert runner.match_build(intel, builds) == builds[1][0]
    assert runner.match_build(wheel, builds) == builds[0][0]
    # another install of the MPICH ABI: its soname, loaded once, serves a build of that ABI
    assert runner.match_build(("libmpi.so.12", "/site/libmpi.so.12"), builds) == builds[0][0]
    assert runner.match_build(("libmpi_abi.so.1", "/abi/libmpi_abi.so.1"), builds) is None
    assert runner.match_build(None, builds) is None


def example(mpi: str) -> Path:
    return ROOT / "build" / mpi / "examples" / "fft2_transpose"


@pytest.mark.parametrize("mpi", BUILT)
def test_a_program_gets_the_build_of_its_own_mpi(mpi: str) -> None:
    program = example(mpi)
    if not program.exists():
        pytest.skip(f"{program} was not built")
    assert runner.build_for_program(str(program), None).mpi == mpi


def test_the_build_asked_for_is_refused_for_another_mpis_program() -> None:
    if not {"mpich", "openmpi"} <= set(BUILT):
        pytest.skip("needs the MPICH and Open MPI builds")
    result = memcomm("run", "-n", "2", "--mpi", "mpich", "--", str(example("openmpi")))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == (
        f"memcomm: error: {example('openmpi')} loads libmpi.so.40 (Open MPI), the mpich build "
        "of memcomm is for libmpi.so.12: choose a build of that MPI (--mpi), or build one "
        "against it (docs/install.md)"
    )


def test_no_build_for_the_programs_mpi_is_one_line_naming_it(tmp_path: Path) -> None:
    if not {"mpich", "openmpi"} <= set(BUILT):
        pytest.skip("needs the MPICH and Open MPI builds")
    # memcomm's builds of MPICH alone: an Open MPI program has none
    (tmp_path / "mpich").symlink_to(ROOT / "build" / "mpich")
    env = {**runner.mpi_environment(), "MEMCOMM_BUILD_DIR": str(tmp_path)}
    result = memcomm("run", "-n", "2", "--", str(example("openmpi")), env=env)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    said = result.stderr.strip()
    assert said.startswith(f"memcomm: error: {example('openmpi')} loads libmpi.so.40 from ")
    assert "(Open MPI); memcomm's builds here (mpich) are for other MPIs" in said
    assert len(said.splitlines()) == 1


def test_a_python_script_is_known_by_its_interpreter(tmp_path: Path) -> None:
    script = tmp_path / "halo.py"
    script.write_text("#!/usr/bin/env python3\nfrom mpi4py import MPI\n")
    assert runner.python_interpreter(str(script)) == shutil.which("python3")
    script.write_text("#!/bin/sh\necho hi\n")
    assert runner.python_interpreter(str(script)) is None
    assert runner.python_interpreter("/opt/bin/python3.12") == "/opt/bin/python3.12"
    assert runner.python_interpreter(str(tmp_path / "missing")) is None


def test_mpi4pys_wheel_takes_the_build_asked_for_and_mpi4py_in_abi_mode_the_abi_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the wheel opens an MPI at import time (one module per MPI family): no library of its own
    monkeypatch.delenv("PYTHONPATH", raising=False)
    assert runner.mpi4py_linked_mpi(sys.executable) is None
    abi = os.environ.get("MEMCOMM_MPI4PY_ABI", "")
    if not (Path(abi) / "mpi4py").is_dir() or "mpich" not in BUILT:
        pytest.skip("needs mpi4py built for the standard ABI and the MPICH wheel's builds")
    monkeypatch.setenv("PYTHONPATH", abi)
    linked = runner.mpi4py_linked_mpi(sys.executable)
    assert linked is not None and linked[0] == "libmpi_abi.so.1"
    assert runner.build_for_program(sys.executable, None).mpi == "mpich-abi"
    with pytest.raises(
        runner.MemcommError, match=r"mpi4py loads libmpi_abi\.so\.1 .*the mpich build"
    ):
        runner.build_for_program(sys.executable, "mpich")


@pytest.mark.parametrize("mpi", BUILT)
def test_preload_prints_the_environment_of_the_programs_build(mpi: str) -> None:
    program = example(mpi)
    if not program.exists():
        pytest.skip(f"{program} was not built")
    result = memcomm("preload", "--", str(program))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [f"LD_PRELOAD={ROOT / 'build' / mpi / 'libmemcomm.so'}"]
    nothing = memcomm("preload")
    assert nothing.returncode == 2 and "give the program" in nothing.stderr


def test_builds_installed_beside_each_other_serve_their_own_mpis_programs(tmp_path: Path) -> None:
    if not {"mpich", "openmpi"} <= set(BUILT):
        pytest.skip("needs the MPICH and Open MPI builds")
    made = subprocess.run(
        ["make", "-C", str(ROOT), "install", f"PREFIX={tmp_path}"], capture_output=True, text=True
    )
    assert made.returncode == 0, made.stdout + made.stderr
    env = {**runner.mpi_environment(), "MEMCOMM_BUILD_DIR": str(tmp_path), "MEMCOMM_STATS": "1"}
    for mpi in ("mpich", "openmpi"):
        libdir = json.loads((tmp_path / mpi / runner.INSTALLED_BUILD).read_text())["libdir"]
        program = str(ROOT / "build" / mpi / "examples" / "halo_exchange")
        said = memcomm("preload", "--", program, env=env)
        assert said.stdout.split() == [f"LD_PRELOAD={tmp_path / mpi / libdir / 'libmemcomm.so'}"]
        ran = memcomm("run", "-n", "2", "--", program, env=env)
        assert ran.returncode == 0, ran.stderr
        handled = handled_calls(ran.stderr)
        assert set(handled) == {0, 1} and all(calls > 0 for calls in handled.values()), handled
