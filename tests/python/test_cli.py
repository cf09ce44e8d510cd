"""The command line: user mistakes give one line and a non-zero exit, and the commands run
end to end against every MPI build `make test` made (MEMCOMM_TEST_MPIS)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memcomm import cli

BUILT = os.environ.get("MEMCOMM_TEST_MPIS", "").split()
ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memcomm.cli", *args],
        cwd=ROOT,
        text=True,
        capture_output=True,
        check=False,
    )


def test_unknown_experiment_is_one_line_error() -> None:
    if not BUILT:
        pytest.skip("no MPI build")
    result = run_cli("bench", "nonsense", "--mpi", BUILT[0])
    assert result.returncode == 2
    assert result.stderr.strip() == "memcomm: error: unknown experiment 'nonsense': available: pack"
    assert "Traceback" not in result.stderr


def test_missing_build_is_one_line_error(tmp_path: Path) -> None:
    env = {**os.environ, "MEMCOMM_BUILD_DIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "memcomm.cli", "info", "--mpi", "mpich"],
        cwd=ROOT,
        text=True,
        capture_output=True,
        env=env,
        check=False,
    )
    assert result.returncode == 2
    assert "no memcomm build for mpich" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_option_value_is_rejected() -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.parser().parse_args(["info", "--mpi", "lam"])
    assert exit_info.value.code == 2


@pytest.mark.parametrize("mpi", BUILT)
def test_info_names_the_library(mpi: str) -> None:
    result = run_cli("info", "--mpi", mpi, "--json")
    assert result.returncode == 0, result.stderr
    details = json.loads(result.stdout)
    assert Path(details["library"]).exists()
    assert details["mpi"] == mpi


@pytest.mark.parametrize("mpi", BUILT)
def test_check_runs_the_differential_test(mpi: str) -> None:
    result = run_cli("check", "--mpi", mpi, "--types", "300", "--seed", "7")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "difftest: seed 7," in result.stdout
    assert " failed" in result.stdout and ", 0 failed" in result.stdout


@pytest.mark.parametrize("mpi", BUILT)
def test_bench_pack_writes_valid_records(mpi: str, tmp_path: Path) -> None:
    out = tmp_path / "pack.jsonl"
    result = run_cli("bench", "pack", "--mpi", mpi, "--reps", "3", "--n", "64", "--json", str(out))
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    methods = {r["method"] for r in records}
    assert methods == {"memcpy", "mpi", "manual", "memcomm"}
    for r in records:
        assert r["mpi"] == mpi and r["bytes"] > 0
        assert len(r["seconds"]) == 3 and all(s > 0 for s in r["seconds"])
    assert "memcomm/MPI" in result.stdout


@pytest.mark.parametrize("mpi", BUILT)
def test_machine_reports_the_model_and_its_sources(mpi: str) -> None:
    result = run_cli("machine", "--mpi", mpi, "--json")
    assert result.returncode == 0, result.stderr
    model = json.loads(result.stdout)
    assert model["PAGE_SIZE"] == {"value": os.sysconf("SC_PAGE_SIZE"), "source": "sysconf"}
    assert set(model) == {"PAGE_SIZE", "TLB_ENTRIES", "LINE_SIZE", "L1_SIZE", "L2_SIZE", "LLC_SIZE"}
    assert all(field["value"] > 0 for field in model.values())


@pytest.mark.parametrize("mpi", BUILT)
def test_machine_values_can_be_overridden(mpi: str) -> None:
    env = {**os.environ, "MEMCOMM_TLB_ENTRIES": "1536", "MEMCOMM_L2_SIZE": "2M"}
    result = subprocess.run(
        [sys.executable, "-m", "memcomm.cli", "machine", "--mpi", mpi, "--json"],
        cwd=ROOT,
        text=True,
        capture_output=True,
        env=env,
        check=False,
    )
    model = json.loads(result.stdout)
    assert model["TLB_ENTRIES"] == {"value": 1536, "source": "env"}
    assert model["L2_SIZE"] == {"value": 2 << 20, "source": "env"}
