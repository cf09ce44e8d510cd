"""The command line: user mistakes give one line and a non-zero exit, and the commands run
end to end against every MPI build `make test` made (MEMCOMM_TEST_MPIS)."""

import json
import os
from pathlib import Path

import pytest
from clirun import BUILT, ROOT, memcomm

from memcomm import cli, experiments, results, runner


def test_unknown_experiment_is_one_line_error_naming_the_experiments() -> None:
    if not BUILT:
        pytest.skip("no MPI build")
    result = memcomm("bench", "nonsense", "--mpi", BUILT[0])
    assert result.returncode == 2
    assert result.stderr.startswith("memcomm: error: unknown experiment 'nonsense': available: ")
    for name in ("noncontig", "decompose", "cache-state", "pack", "pingpong", "probes"):
        assert name in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize("name", sorted(experiments.EXPERIMENTS))
def test_every_experiment_takes_quick(name: str) -> None:
    # the program's options for a quick run of each experiment, as `memcomm bench NAME --quick`
    # builds them (lifecycle's once raised a KeyError: it has no sizes to make quick)
    args = cli.parser().parse_args(["bench", name, "--quick"])
    program, parameters = cli.program_arguments(args, experiments.EXPERIMENTS[name])
    assert all(isinstance(word, str) for word in program)
    if experiments.EXPERIMENTS[name].suite:
        assert parameters["max_reps"] == 15
    else:
        assert parameters["reps"] == 3 and parameters.get("seconds", 0) == 0


def test_engine_of_an_every_method_experiment_is_refused_not_ignored() -> None:
    if not BUILT:
        pytest.skip("no MPI build")
    # collectives always measure both: --engine mpi would have run memcomm regardless
    result = memcomm("bench", "collectives", "--engine", "mpi", "--mpi", BUILT[0])
    assert result.returncode == 2
    assert result.stderr.startswith("memcomm: error: collectives measures the MPI's own calls")
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_missing_build_is_one_line_error(tmp_path: Path) -> None:
    env = {**os.environ, "MEMCOMM_BUILD_DIR": str(tmp_path)}
    result = memcomm("info", "--mpi", "mpich", env=env)
    assert result.returncode == 2
    assert "no memcomm build for mpich" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_option_value_is_rejected() -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.parser().parse_args(["info", "--mpi", "lam"])
    assert exit_info.value.code == 2


def test_each_command_has_its_own_mpi_default() -> None:
    # run, explain and preload find the build from the program; every other command defaults
    # to mpich (a default set on one command once leaked to all: argparse shares a parent's
    # options)
    from_program = ("run", "explain", "preload")
    required = {"report": ["x.jsonl"], "model": ["logpc"], "bench": ["list"]}
    for name in cli.COMMANDS:
        given = ["--", "prog"] if name in from_program else required.get(name, [])
        args = cli.parser().parse_args([name, *given])
        assert args.mpi == (None if name in from_program else "mpich"), name


@pytest.mark.parametrize("mpi", BUILT)
def test_info_names_the_library(mpi: str) -> None:
    result = memcomm("info", "--mpi", mpi, "--json")
    assert result.returncode == 0, result.stderr
    details = json.loads(result.stdout)
    assert Path(details["library"]).exists()
    assert details["mpi"] == mpi


@pytest.mark.parametrize("mpi", BUILT)
def test_check_runs_the_differential_test(mpi: str) -> None:
    result = memcomm("check", "--mpi", mpi, "--types", "300", "--seed", "7")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "difftest: seed 7," in result.stdout
    assert " failed" in result.stdout and ", 0 failed" in result.stdout


@pytest.mark.parametrize("mpi", BUILT)
def test_bench_pack_writes_valid_records(mpi: str, tmp_path: Path) -> None:
    out = tmp_path / "pack.jsonl"
    result = memcomm(
        "bench", "pack", "--mpi", mpi, "--reps", "3", "--sizes", "64", "--scale", "64",
        "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    runs = results.read([out])
    records = [runs[0].result(r) for r in runs[0].results]
    methods = {r["method"] for r in records}
    assert methods == {
        "memcpy",
        "lines",
        "mpi",
        "manual",
        "manual-blocked",
        "memcomm",
        "interposed",
    }
    assert {r["direction"] for r in records} == {"pack", "unpack"}
    patterns = {r["pattern"] for r in records}
    for kind in ("transpose", "column", "face", "struct", "particles", "FFT", "LU"):
        assert any(kind in p for p in patterns), kind
    for r in records:
        assert r["mpi"] == mpi and r["bytes"] > 0
        assert len(r["seconds"]) == 3 and all(s > 0 for s in r["seconds"])
    assert "memcomm/MPI geometric mean" in result.stdout
    assert "unpack/pack" in result.stdout


@pytest.mark.parametrize("mpi", BUILT)
def test_bench_pack_with_flushed_caches_says_so_in_its_records(mpi: str, tmp_path: Path) -> None:
    out = tmp_path / "pack.jsonl"
    result = memcomm(
        "bench", "pack", "--mpi", mpi, "--reps", "3", "--sizes", "64", "--only", "transpose",
        "--methods", "memcpy,memcomm", "--cache", "flushed", "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    runs = results.read([out])
    assert runs[0].meta["parameters"]["cache"] == "flushed"
    records = [runs[0].result(r) for r in runs[0].results]
    assert {r["method"] for r in records} == {"memcpy", "memcomm"}
    assert {r["mpi"] for r in records} == {f"{mpi} caches flushed"}
    bad = memcomm("bench", "pack", "--mpi", mpi, "--cache", "warm")
    assert bad.returncode != 0 and "--cache" in bad.stderr


@pytest.mark.parametrize("mpi", BUILT)
def test_machine_reports_the_model_and_its_sources(mpi: str) -> None:
    result = memcomm("machine", "--mpi", mpi, "--json")
    assert result.returncode == 0, result.stderr
    model = json.loads(result.stdout)
    assert model["PAGE_SIZE"] == {"value": os.sysconf("SC_PAGE_SIZE"), "source": "sysconf"}
    assert set(model) == {
        "PAGE_SIZE",
        "TLB_ENTRIES",
        "LINE_SIZE",
        "L1_SIZE",
        "L2_SIZE",
        "LLC_SIZE",
        "SIMD_BYTES",
        "STREAM_BYTES",
        "COPY_BYTES_PER_S",
        "STLB_ENTRIES",
        "TILE_BYTES",
        "SHUFFLE_BYTES",
        "RESIDENCY_TICKS",
    }
    # the residency probe's threshold, or 0 where it cannot tell L3 from memory: said either way
    residency = model.pop("RESIDENCY_TICKS")
    assert residency["value"] >= 0
    assert residency["source"].startswith("calibrated" if residency["value"] > 0 else "off")
    measured = {k: f for k, f in model.items() if f["source"] != "not probed"}
    assert all(field["value"] > 0 for field in measured.values())
    assert model["SIMD_BYTES"]["value"] in (8, 32, 64)
    assert model["SHUFFLE_BYTES"]["value"] in (8, 32, 64)
    assert model["SHUFFLE_BYTES"]["value"] <= model["SIMD_BYTES"]["value"]


@pytest.mark.parametrize("mpi", BUILT)
def test_machine_values_can_be_overridden(mpi: str) -> None:
    env = {
        **os.environ,
        "MEMCOMM_TLB_ENTRIES": "1536",
        "MEMCOMM_L2_SIZE": "2M",
        "MEMCOMM_SIMD_BYTES": "8",
        "MEMCOMM_STLB_ENTRIES": "2048",
    }
    model = json.loads(memcomm("machine", "--mpi", mpi, "--json", env=env).stdout)
    assert model["TLB_ENTRIES"] == {"value": 1536, "source": "env"}
    assert model["STLB_ENTRIES"] == {"value": 2048, "source": "env"}
    assert model["L2_SIZE"] == {"value": 2 << 20, "source": "env"}
    assert model["SIMD_BYTES"] == {"value": 8, "source": "env"}


@pytest.mark.parametrize("mpi", BUILT)
def test_simd_width_can_only_be_narrowed(mpi: str) -> None:
    """Asking for wider registers than the CPU has must not select instructions it lacks."""
    detected = json.loads(memcomm("machine", "--mpi", mpi, "--json").stdout)["SIMD_BYTES"]["value"]
    env = {**os.environ, "MEMCOMM_SIMD_BYTES": "4096"}
    result = memcomm("machine", "--mpi", mpi, "--json", env=env)
    assert json.loads(result.stdout)["SIMD_BYTES"]["value"] == detected
    # the transposes' registers follow a narrowed SIMD width, and cannot be widened either
    env = {**os.environ, "MEMCOMM_SIMD_BYTES": "32", "MEMCOMM_SHUFFLE_BYTES": "64"}
    model = json.loads(memcomm("machine", "--mpi", mpi, "--json", env=env).stdout)
    assert model["SHUFFLE_BYTES"]["value"] == min(32, detected)


def test_probe_is_kept_for_later_runs_on_the_same_cpu(tmp_path: Path) -> None:
    if not BUILT:
        pytest.skip("no MPI build")
    kept = tmp_path / "machine"
    env = {**os.environ, "MEMCOMM_MACHINE_FILE": str(kept)}
    result = memcomm("machine", "--mpi", BUILT[0], "--probe", "--json", env=env)
    assert result.returncode == 0, result.stderr
    probe = json.loads(result.stdout)["probe"]
    assert probe["COPY_BYTES_PER_S"] > 0 and len(probe["tlb"]) > 20
    assert probe["TILE_BYTES"] in [row for row, _, _ in probe["tile"]]
    if probe["shuffle"]:  # a CPU with SIMD transposes: the width kept is one measured
        assert probe["SHUFFLE_BYTES"] in [width for width, _ in probe["shuffle"]]
        assert f"SHUFFLE_BYTES={probe['SHUFFLE_BYTES']}" in kept.read_text()
    text = kept.read_text()
    assert text.splitlines()[1].startswith("cpu=")
    assert f"COPY_BYTES_PER_S={probe['COPY_BYTES_PER_S']}" in text
    assert f"TILE_BYTES={probe['TILE_BYTES']}" in text
    model = json.loads(memcomm("machine", "--mpi", BUILT[0], "--json", env=env).stdout)
    assert model["COPY_BYTES_PER_S"] == {"value": probe["COPY_BYTES_PER_S"], "source": "probe"}
    # the same file from another CPU model is not trusted
    kept.write_text(text.replace("cpu=", "cpu=another "))
    model = json.loads(memcomm("machine", "--mpi", BUILT[0], "--json", env=env).stdout)
    assert model["COPY_BYTES_PER_S"]["source"] == "not probed"


@pytest.mark.parametrize("mpi", BUILT)
def test_explain_runs_a_program_and_reports_each_decision_once(mpi: str) -> None:
    program = ROOT / "build" / mpi / "examples" / "halo_exchange"
    result = memcomm("explain", "--mpi", mpi, "--np", "2", "--", str(program))
    assert result.returncode == 0, result.stderr
    assert "rank 0 step 0 packed" in result.stdout  # the program's own output passes through
    assert "distinct decisions in 2 rank(s)" in result.stdout
    # the transposed tile is a type and a count: explained at the call, for both ranks
    call = result.stdout.split("MPI_Pack count 24 (ranks 0, 1)")[1]
    assert "dims [24 x +8 B, 24 x +192 B], block 8 B" in call
    assert "kernel: transpose" in call or "kernel: strided" in call


@pytest.mark.parametrize("command", ["explain", "run"])
def test_a_program_runner_without_a_program_is_an_error(command: str) -> None:
    if not BUILT:
        pytest.skip("no MPI build")
    result = memcomm(command, "--mpi", BUILT[0])
    assert result.returncode == 2
    assert "give the program to run" in result.stderr


@pytest.mark.parametrize("mpi", BUILT)
def test_run_preloads_memcomm_on_every_rank(mpi: str) -> None:
    program = ROOT / "build" / mpi / "examples" / "halo_exchange"
    env = {**os.environ, "MEMCOMM_STATS": "1"}
    result = memcomm("run", "-n", "2", "--mpi", mpi, "--", str(program), env=env)
    assert result.returncode == 0, result.stderr
    assert "rank 1 step 2 packed" in result.stdout
    for rank in (0, 1):  # the stats line comes from memcomm inside each rank
        assert f"memcomm: rank {rank} handled" in result.stderr


@pytest.mark.parametrize("mpi", BUILT)
def test_decisions_of_a_run_before_skip_the_trials(mpi: str, tmp_path: Path) -> None:
    """MEMCOMM_DECISIONS: the first run measures a path and rank 0 writes it down; the second
    takes it from the file on both ranks, with no trials."""
    decisions = tmp_path / "decisions.txt"
    env = {**os.environ, "MEMCOMM_STATS": "1", "MEMCOMM_DECISIONS": str(decisions)}
    program = ROOT / "build" / mpi / "bench" / "bench_pingpong"
    args = ("run", "-n", "2", "--mpi", mpi, "--", str(program), "--reps", "3")
    first = memcomm(*args, "--sizes", "64", "--only", "transpose", env=env)
    assert first.returncode == 0, first.stderr
    assert "took" not in first.stderr
    assert all(f"rank {r} " in first.stderr for r in (0, 1))
    assert "measured 0 paths" not in first.stderr
    lines = decisions.read_text().splitlines()
    assert lines[0] == "# memcomm send-path decisions, format 1"
    assert lines[1].startswith("# setting ") and len(lines) > 2
    second = memcomm(*args, "--sizes", "64", "--only", "transpose", env=env)
    assert second.returncode == 0, second.stderr
    for rank in (0, 1):
        assert f"memcomm: rank {rank} " in second.stderr
    assert second.stderr.count("measured 0 paths") == 2, second.stderr
    assert second.stderr.count("from runs before") == 2, second.stderr


@pytest.mark.parametrize("mpi", BUILT)
def test_bench_pingpong_writes_valid_records(mpi: str, tmp_path: Path) -> None:
    out = tmp_path / "pingpong.jsonl"
    result = memcomm(
        "bench", "pingpong", "--mpi", mpi, "--reps", "3", "--sizes", "64,128",
        "--only", "transpose", "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    runs = results.read([out])
    records = [runs[0].result(r) for r in runs[0].results]
    assert {r["method"] for r in records} == {
        "contiguous",
        "mpi",
        "manual",
        "manual-blocked",
        "memcomm",
    }
    assert {r["pattern"] for r in records} == {
        "transpose 64x64 double",
        "transpose 128x128 double",
    }
    assert all(r["experiment"] == "pingpong" and len(r["seconds"]) == 3 for r in records)
    # a turn of these short messages is many round trips, the same number for every method
    for pattern in {r["pattern"] for r in records}:
        turns = {r["inner"] for r in records if r["pattern"] == pattern}
        assert len(turns) == 1 and 1 < turns.pop() <= 256, pattern
    assert "of contiguous" in result.stdout
    # the warm-up covers memcomm's trials: each rank decided a path on each pattern
    paths = [r["paths"] for r in records if r["method"] == "memcomm"]
    assert len(paths) == 2 and all(len(p) == 2 for p in paths)
    assert all(d["packed"] + d["by_mpi"] >= 1 for p in paths for d in p)
    assert " on rank" in result.stdout


@pytest.mark.parametrize("mpi", BUILT)
def test_bench_pingpong_over_tcp_is_labelled_apart(mpi: str, tmp_path: Path) -> None:
    # Open MPI is given only its tcp and self transports, and MPICH no shared memory between
    # local ranks and libfabric's tcp provider: the run succeeds only if TCP carries it
    out = tmp_path / "pingpong.jsonl"
    result = memcomm(
        "bench", "pingpong", "--mpi", mpi, "--reps", "3", "--sizes", "64",
        "--only", "transpose", "--transport", "tcp", "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    runs = results.read([out])
    assert runs[0].meta["parameters"]["transport"] == "tcp"
    assert {runs[0].result(r)["mpi"] for r in runs[0].results} == {f"{mpi} over tcp"}
    assert f"ping-pong, {mpi} over tcp" in result.stdout


def test_transport_settings_in_each_launcher_dialect() -> None:
    openmpi = runner.Build("openmpi", ROOT, "mpiexec")
    mpich = runner.Build("mpich", ROOT, "mpiexec")
    assert runner.transport_settings(openmpi, "default") == ([], {})
    arguments, env = runner.transport_settings(openmpi, "tcp")
    assert " ".join(arguments).count("--mca") == 3 and "tcp,self" in arguments and not env
    arguments, env = runner.transport_settings(mpich, "tcp")
    assert not arguments and env["MPIR_CVAR_NOLOCAL"] == "1" and env["FI_PROVIDER"] == "tcp"
    with pytest.raises(runner.MemcommError, match="unknown transport 'ib'"):
        runner.transport_settings(mpich, "ib")


@pytest.mark.parametrize("mpi", BUILT)
def test_mpiexec_arguments_reach_the_ranks_of_memcomm_run(mpi: str) -> None:
    # the route for a real host list: MEMCOMM_MPIEXEC_ARGS goes to every mpiexec memcomm starts
    option = "-x MEMCOMM_SEEN=yes" if mpi == "openmpi" else "-genv MEMCOMM_SEEN yes"
    env = {**os.environ, "MEMCOMM_MPIEXEC_ARGS": option}
    env.pop("MEMCOMM_SEEN", None)
    result = memcomm("run", "-n", "2", "--mpi", mpi, "--", "printenv", "MEMCOMM_SEEN", env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["yes", "yes"]


@pytest.mark.parametrize("mpi", BUILT)
def test_bench_collectives_checks_every_method_against_the_mpi(mpi: str, tmp_path: Path) -> None:
    out = tmp_path / "collectives.jsonl"
    result = memcomm(
        "bench", "collectives", "--mpi", mpi, "--reps", "3", "--sizes", "64",
        "--slabs", "32", "--halos", "16", "--json", str(out),
    )  # fmt: skip
    # the program exits non-zero if a method delivers other bytes than the MPI's own call
    assert result.returncode == 0, result.stderr
    runs = results.read([out])
    records = [runs[0].result(r) for r in runs[0].results]
    assert {r["pattern"] for r in records} == {
        "fft2 64^2 complex, Alltoall",
        "fft2 64^2 complex, Ialltoall",
        "fft2 blocks 64^2 complex, Alltoall",
        "allgather transpose 64^2 complex, Allgather",
        "slabs xy 32^3 double, Alltoallw",
        "slabs xz 32^3 double, Alltoallw",
        "halo 16^3 double, Neighbor_alltoallw",
    }
    assert {r["method"] for r in records} == {"contiguous", "mpi", "manual", "memcomm"}
    assert all(r["experiment"] == "collectives" for r in records)
    # at least --reps turns; these calls are short, so as many as fill a second, at most 201,
    # the same number for every method of a pattern
    turns = {(r["pattern"], len(r["seconds"])) for r in records}
    assert len(turns) == 7 and all(3 < n <= 201 for _, n in turns)
    assert "memcomm/manual" in result.stdout and "geometric mean" in result.stdout
    # memcomm's records say what each rank's trials decided (too few calls here to decide)
    paths = [r["paths"] for r in records if r["method"] == "memcomm"]
    assert len(paths) == 7 and all(len(p) == 2 for p in paths)
    assert "on ranks 0, 1)" in result.stdout


@pytest.mark.parametrize("mpi", BUILT)
def test_bench_io_checks_every_method_against_the_mpi(mpi: str, tmp_path: Path) -> None:
    out = tmp_path / "io.jsonl"
    result = memcomm(
        "bench", "io", "--mpi", mpi, "--quick", "--sizes", "64K", "--dir", str(tmp_path),
        "--json", str(out),
    )  # fmt: skip
    # the program exits non-zero if a method writes or reads other bytes than the MPI's own
    assert result.returncode == 0, result.stderr
    runs = results.read([out])
    records = [runs[0].result(r) for r in runs[0].results]
    layouts = {r["layout"] for r in records}
    assert layouts == {"interior 2d", "interior 3d", "columns", "subarray"}
    forms = ("write_at_all", "read_at_all", "write_at", "read_at")
    assert {r["call"] for r in records} == {f"MPI_File_{c}" for c in forms}
    assert len({r["pattern"] for r in records}) == 16
    assert {r["method"] for r in records} == {"contiguous", "mpi", "manual", "memcomm"}
    # the data each rank moves is at most --sizes, and every method moves the same
    assert all(0 < r["bytes"] <= 64 * 1024 for r in records)
    assert len({(r["pattern"], r["bytes"]) for r in records}) == 16
    # the file went where --dir said (and was removed): the records say its file system
    assert not list(tmp_path.glob("memcomm-bench-io-*"))
    assert {r["file_system"] for r in records} <= {"tmpfs", "other"}
    assert all(len(r["paths"]) == 2 for r in records if r["method"] == "memcomm")
    assert "memcomm/manual" in result.stdout and "the MPI's own call" in result.stdout


@pytest.mark.parametrize("mpi", BUILT)
def test_bench_lifecycle_compares_with_the_mpi_alone(mpi: str, tmp_path: Path) -> None:
    out = tmp_path / "lifecycle.jsonl"
    result = memcomm(
        "bench", "lifecycle", "--mpi", mpi, "--quick", "--only", "NAS MG", "--exchanges", "1",
        "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    runs = results.read([out])
    records = [runs[0].result(r) for r in runs[0].results]
    patterns = {r["pattern"] for r in records}
    # "NAS MG" picks ddtbench's NAS MG faces at every size, and none of the commit shapes
    assert patterns == {
        f"NAS MG: {face} face of u({n},{n},{n})" for face in "ijk" for n in (18, 34, 66, 130)
    }
    # the MPI alone a second time, in the same turns: the run's noise
    assert {(r["pattern"], r["method"]) for r in records} == {
        (p, m) for p in patterns for m in ("mpi", "memcomm", "mpi-again")
    }
    # --quick: three repetitions, none added for short patterns
    assert runs[0].meta["parameters"]["seconds"] == 0
    assert all(len(r["seconds"]) == 3 for r in records)
    assert "memcomm speed-up" in result.stdout and "geometric mean" in result.stdout
    assert "MPI alone again" in result.stdout and "this run's noise" in result.stdout
    # --exchanges 1: one round trip per re-created type, said in the records and the findings
    assert runs[0].meta["parameters"]["exchanges"] == 1
    assert {r["role"] for r in records} == {"iteration of 1 round trip"}
    assert "re-creating their type every 1 exchange," in result.stdout


@pytest.mark.parametrize("mpi", BUILT)
def test_demo_runs_every_step_and_writes_the_report(mpi: str, tmp_path: Path) -> None:
    result = memcomm("demo", "--quick", "--mpi", mpi, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert ", 0 failed" in result.stdout and "of contiguous" in result.stdout
    page = (tmp_path / "report" / "index.html").read_text()
    assert "<code>pack</code>" in page and "<code>pingpong</code>" in page
    assert (tmp_path / "report" / "pack.png").exists()
