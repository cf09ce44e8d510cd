"""The measurement suite end to end at tiny sizes, on every MPI build `make test` made: each
experiment runs, writes records the schema accepts with the methods and roles it promises,
says what it knows of hardware counters, and the report renders its plots."""

import json
import os
import shutil
from pathlib import Path

import pytest
from clirun import BUILT, ROOT, memcomm

from memcomm import experiments, results
from memcomm.report import analysis

TINY = ["--quick", "--quiet", "--min-reps", "3", "--max-reps", "4", "--cap", "0.2"]

# experiment -> (sizes, methods, roles)
EXPECTED = {
    "noncontig": ("64,4K", {"contiguous", "strided"}, {"sender", "receiver"}),
    "blocking": ("4K", {"MPI_Send", "MPI_Isend", "MPI_Isend+MPI_Wait"}, {"sender", "receiver"}),
    "ddt-vs-pack": ("4K", {"contiguous", "datatype", "user pack"}, {"sender", "receiver"}),
    "decompose": (
        "64",
        {"copy", "pack", "contiguous", "datatype", "pack-send", "copy-send"},
        {"one way"},
    ),
    "cache-state": ("4K", {"INV", "EXCL", "MOD"}, {"round trip/2"}),
    "pollution": ("4K", {"INV", "PRE", "BASE_INV", "BASE_PRE"}, {"sender", "receiver"}),
    "eager": ("1K,256K", {"MPI_Send"}, {"sender"}),
    "latency": ("16K", {"pointer chase"}, {"chase"}),
    "copy": ("64K", {"memcpy"}, {"copy"}),
    "tlb": ("16,256", {"page chase"}, {"chase"}),
    "layouts": ("4K", {"MPI_Pack"}, {"pack"}),
    "logp": ("8,1K,64K,1M", {"PRTT(1,0,s)", "PRTT(n,0,s)", "PRTT(n,d,s)"}, {"round trip"}),
}


@pytest.fixture(scope="module", params=BUILT)
def suite_runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path, dict[str, str]]:
    """Every experiment once on one MPI: (mpi, results directory, each run's stdout)."""
    mpi = request.param
    directory = tmp_path_factory.mktemp(f"suite-{mpi}")
    outputs = {}
    for name, (sizes, _, _) in EXPECTED.items():
        done = memcomm(
            "bench",
            name,
            "--mpi",
            mpi,
            "--sizes",
            sizes,
            *TINY,
            "--json",
            str(directory / f"{name}.jsonl"),
        )
        assert done.returncode == 0, f"{name}: {done.stderr}"
        assert "Traceback" not in done.stderr
        outputs[name] = done.stdout
    return mpi, directory, outputs


@pytest.mark.parametrize("name", list(EXPECTED))
def test_experiment_records_what_it_promises(
    suite_runs: tuple[str, Path, dict[str, str]], name: str
) -> None:
    mpi, directory, _ = suite_runs
    _, methods, roles = EXPECTED[name]
    runs = results.read([directory / f"{name}.jsonl"])
    found = [run.result(r) for run in runs for r in run.results]
    assert {r["method"] for r in found} == methods
    assert {r["role"] for r in found} == roles
    assert {r["mpi"] for r in found} == {mpi}
    assert all(r["experiment"] == name and r["seconds"] and min(r["seconds"]) > 0 for r in found)
    assert all(3 <= len(r["seconds"]) <= 4 for r in found)
    meta = runs[0].meta
    assert meta["experiment"] == name and meta["mpi"]["library"] not in ("", "unknown")
    assert "PAGE_SIZE" in meta["machine"]


def test_decompose_runs_with_and_without_memcomm(
    suite_runs: tuple[str, Path, dict[str, str]],
) -> None:
    _, directory, _ = suite_runs
    runs = results.read([directory / "decompose.jsonl"])
    # "engine" in a result is what the program itself saw: memcomm loaded or not
    assert [r.meta["engine"] for r in runs] == ["mpi", "memcomm"]
    for run in runs:
        assert {r["engine"] for r in run.results} == {run.meta["engine"]}


def test_counters_are_reported_as_they_are(suite_runs: tuple[str, Path, dict[str, str]]) -> None:
    _, directory, outputs = suite_runs
    for name in EXPECTED:
        for run in results.read([directory / f"{name}.jsonl"]):
            counters = [o for o in run.others if o["kind"] == "counters"]
            assert len(counters) == 1
            if counters[0]["available"]:
                assert all("counters" in r for r in run.results)
            else:  # say so, and print no zeros
                assert counters[0]["reason"]
                assert not any("counters" in r for r in run.results)
                assert "hardware counters unavailable:" in outputs[name]


def test_report_renders_a_page_with_plots(
    suite_runs: tuple[str, Path, dict[str, str]], tmp_path: Path
) -> None:
    _, directory, _ = suite_runs
    files = sorted(str(p) for p in directory.glob("*.jsonl"))
    done = memcomm("report", *files, "-o", str(tmp_path / "report"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "report" / "index.html").read_text()
    for name in EXPECTED:
        assert f"<code>{name}</code>" in page
    assert "Where to place communication calls" in page  # eager, cache-state, pollution given
    images = list((tmp_path / "report").glob("*.png"))
    assert len(images) >= len(EXPECTED)
    for image in images:
        assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and image.stat().st_size > 5000
        assert image.name in page


def test_report_names_each_runs_memory_policy_and_the_reclaim(
    suite_runs: tuple[str, Path, dict[str, str]], tmp_path: Path
) -> None:
    _, directory, _ = suite_runs
    lines = (directory / "copy.jsonl").read_text().splitlines()
    meta = json.loads(lines[0])
    meta["memory_policy"] = {
        "transparent_hugepage": "never",
        "damon": [{"operations": "paddr", "schemes": ["pageout"]}],
        "swap_bytes": 2**30,
    }
    reclaimed = tmp_path / "reclaimed.jsonl"
    reclaimed.write_text("\n".join([json.dumps(meta), *lines[1:]]) + "\n")
    done = memcomm("report", str(reclaimed), "-o", str(tmp_path / "report"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "report" / "index.html").read_text()
    assert "<th>memory policy</th>" in page
    assert "THP never; DAMON paddr: pageout; swap 1.0 GiB" in page
    assert "could page out memory it found cold" in page


def test_models_fit_and_validate_loggp_from_the_logp_run(
    suite_runs: tuple[str, Path, dict[str, str]], tmp_path: Path
) -> None:
    mpi, directory, _ = suite_runs
    fitted = memcomm("model", "fit", str(directory / "logp.jsonl"))
    assert fitted.returncode == 0, fitted.stderr
    assert f"LogGP parameters, {mpi}" in fitted.stdout
    checked = memcomm("model", "validate", str(directory / "logp.jsonl"), "-o",
                      str(tmp_path / "models"))  # fmt: skip
    assert checked.returncode == 0, checked.stderr
    assert "median absolute error over" in checked.stdout
    assert f"round trips per size, {mpi}" in checked.stdout
    assert (tmp_path / "models" / f"logp-{mpi}.png").exists()
    layouts = memcomm("model", "validate", str(directory / "layouts.jsonl"))
    assert layouts.returncode == 0, layouts.stderr
    assert f"Memory-LogP parameters, {mpi} +memcomm" in layouts.stdout
    assert "held-out layouts predicted within" in layouts.stdout
    send = memcomm("model", "validate", str(directory / "layouts.jsonl"),
                   str(directory / "decompose.jsonl"))  # fmt: skip
    assert send.returncode == 0, send.stderr
    assert "Memory-LogP: send cost of the transpose" in send.stdout
    assert f"{mpi} +memcomm: predicted send within" in send.stdout
    predicted = memcomm("model", "predict", str(directory / "layouts.jsonl"), "--layout",
                        "transpose:64", "--layout", "vector:512,8,128")  # fmt: skip
    assert predicted.returncode == 0, predicted.stderr
    assert f"Memory-LogP pack time, {mpi} +memcomm" in predicted.stdout
    assert "transpose 64x64 double" in predicted.stdout and "TLB misses" in predicted.stdout
    bad = memcomm("model", "predict", str(directory / "layouts.jsonl"), "--layout", "cube:3")
    assert bad.returncode == 2 and "transpose:N" in bad.stderr
    # a halo face as `memcomm explain` prints it, sent: the pack plus LogGP's ping-pong
    face = memcomm("model", "predict", str(directory / "layouts.jsonl"),
                   str(directory / "logp.jsonl"),
                   "--layout", "strided:8:16x32768,16x2048")  # fmt: skip
    assert face.returncode == 0, face.stderr
    assert "send (us)" in face.stdout and "block 8 B" in face.stdout
    unknown = memcomm("model", "predict", str(directory / "layouts.jsonl"), "--layout",
                      "transpose:64", "--layout", "strided:8:4x8,4x4096,4x64")  # fmt: skip
    assert unknown.returncode == 2 and "not this one" in unknown.stderr
    assert unknown.stdout == ""  # nothing printed before the layout it cannot model


def test_diamond_mini_app_is_checked_against_eq15_with_the_fitted_loggp(
    suite_runs: tuple[str, Path, dict[str, str]],
) -> None:
    mpi, directory, _ = suite_runs
    out = directory / "diamond.jsonl"
    ran = memcomm("bench", "diamond", "--mpi", mpi, "--quick", "--reps", "3", "--quiet",
                  "--json", str(out))  # fmt: skip
    assert ran.returncode == 0, ran.stderr  # non-zero if the DAG's result were wrong
    records = [runs.result(r) for runs in results.read([out]) for r in runs.results]
    assert {(r["method"], r["blocks"]) for r in records} == {
        (m, b) for m in ("compute", "makespan") for b in (1, 4, 16, 64, 256)
    }
    assert f"Diamond DAG 256x256 on 2 ranks, {mpi}" in ran.stdout
    checked = memcomm("model", "validate", str(directory / "logp.jsonl"), str(out))
    assert checked.returncode == 0, checked.stderr
    assert f"eq. 15 against the Diamond DAG 256x256 on 2 ranks, {mpi}" in checked.stdout
    assert "median absolute error over 5 block counts; its best b = " in checked.stdout
    page = directory / "diamond-report"
    shown = memcomm("report", str(directory / "logp.jsonl"), str(out), "-o", str(page))
    assert shown.returncode == 0, shown.stderr
    assert (page / f"diamond-{mpi}-256.png").exists()


def test_em3d_mini_app_is_checked_against_the_phase_model_with_the_fitted_loggp(
    suite_runs: tuple[str, Path, dict[str, str]],
) -> None:
    mpi, directory, _ = suite_runs
    out = directory / "em3d.jsonl"
    ran = memcomm("bench", "em3d", "--mpi", mpi, "--quick", "--reps", "3", "--quiet",
                  "--json", str(out))  # fmt: skip
    assert ran.returncode == 0, ran.stderr  # non-zero if a ghost value were wrong
    records = [runs.result(r) for runs in results.read([out]) for r in runs.results]
    assert {(r["method"], r["remote_percent"]) for r in records} == {
        (m, p) for m in ("phase", "step") for p in (10, 50)
    }
    # 2 ranks, 2,000 nodes of degree 20: about R% of 40,000 values each way, 10 a message
    for r in records:
        sent = r["messages"]
        assert sent[0][0] == sent[1][1] == 0
        assert abs(sent[0][1] - 40 * r["remote_percent"]) < 4 * r["remote_percent"]
    assert f"EM3D on 2 ranks, span 1, by destination order, {mpi}" in ran.stdout
    checked = memcomm("model", "validate", str(directory / "logp.jsonl"), str(out))
    assert checked.returncode == 0, checked.stderr
    assert "LoGPC's EM3D phase against the mini-app on 2 ranks, span 1" in checked.stdout
    assert "median absolute error over 2 shares of non-local edges" in checked.stdout
    refused = memcomm("bench", "em3d", "--mpi", mpi, "--np", "1", "--json", str(out))
    assert refused.returncode != 0 and "em3d runs on 2 ranks or more: got 1" in refused.stderr


@pytest.mark.parametrize("mpi", BUILT)
def test_stencil_variants_compute_the_same_matrix_and_are_tabled(mpi: str, tmp_path: Path) -> None:
    out = tmp_path / "stencil.jsonl"
    ran = memcomm("bench", "stencil", "--mpi", mpi, "--quick", "--reps", "3", "--quiet",
                  "--json", str(out))  # fmt: skip
    assert ran.returncode == 0, ran.stderr  # non-zero if a variant's matrix differed
    records = [runs.result(r) for runs in results.read([out]) for r in runs.results]
    methods = {(r["bytes"], r["method"]) for r in records}
    rows = {"baseline", "OPT1", "OPT2", "column mpi", "column memcomm"}
    assert {m for b, m in methods if b == 64} == rows
    assert {m for b, m in methods if b == 256 << 10} == rows | {"strip 64 KiB"}
    assert f"stencil, {mpi}: time per iteration" in ran.stdout
    assert "fastest at" in ran.stdout and "column halo carried by memcomm" in ran.stdout


def test_advise_states_the_three_ranges_from_the_suites_runs(
    suite_runs: tuple[str, Path, dict[str, str]],
) -> None:
    mpi, directory, _ = suite_runs
    files = [str(directory / f"{name}.jsonl") for name in ("eager", "cache-state", "pollution")]
    done = memcomm("advise", "--mpi", mpi, "--results", *files)
    assert done.returncode == 0, done.stderr
    assert f"Placement of communication calls, {mpi}" in done.stdout
    assert "measuring" not in done.stderr  # everything it needs was given
    for name in ("up to the eager limit", "eager limit to LLC/2", "beyond LLC/2"):
        assert f"\n{name} (" in done.stdout
    as_json = json.loads(memcomm("advise", "--mpi", mpi, "--json", "--results", *files).stdout)
    assert as_json["ranges"][0]["name"] == "up to the eager limit"
    assert as_json["llc_bytes"] and as_json["eager_limit"]


def test_model_logpc_prints_the_papers_numbers_next_to_ours() -> None:
    done = memcomm("model", "logpc")
    assert done.returncode == 0, done.stderr
    lines = {line.split("  ")[0]: line.split() for line in done.stdout.splitlines()}
    assert lines["synchronous remap, LogP (cycles)"][-2:] == ["316", "316"]
    assert lines["synchronous remap, LoGPC (paper's C_n = 23)"][-2:] == ["499", "499"]


def test_model_diamond_prints_the_granularity_table_and_fig9_sweep() -> None:
    done = memcomm("model", "diamond")
    assert done.returncode == 0, done.stderr
    assert "best b" in done.stdout and "random / snake" in done.stdout
    sweep = [line.split() for line in done.stdout.splitlines() if line.startswith("32,000")]
    assert sweep and sweep[0][1] == "0.625"  # the paper's communication/computation ratio
    as_json = json.loads(memcomm("model", "diamond", "--json", "--blocks", "32").stdout)
    assert as_json["parameters"]["sweep blocks"] == 32
    assert [row["b"] for row in as_json["by_blocks"]][:3] == [1, 2, 4]
    assert as_json["mappings"]["snake"] is None and as_json["mappings"]["random"]["k_d"] > 1


def test_model_em3d_prints_each_span_with_both_orders() -> None:
    done = memcomm("model", "em3d", "--spans", "1,3")
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line[:2] in ("1 ", "3 ")]
    assert [row[0] for row in rows] == ["1", "3"]
    as_json = json.loads(memcomm("model", "em3d", "--spans", "2", "--json").stdout)
    (span,) = as_json["spans"]
    assert span["span"] == 2 and span["random"]["phase"] < span["by destination"]["phase"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bench", "nonsense"], "unknown experiment 'nonsense'"),
        (["model", "em3d", "--spans", "1,x"], "--spans takes integers"),
        (["model", "em3d", "--spans", "17"], "span must be between 1 and P / 2 = 16"),
        (["model", "diamond", "--procs", "1"], "P >= 2"),
        (["model", "diamond", "--blocks", "0"], "--blocks must be between 1 and n = 1024"),
        (["bench", "copy", "--sizes", "1X"], "malformed size '1X'"),
        (["bench", "copy", "--sizes", "4000G"], "free memory"),
        (["bench", "copy", "--sizes", "4K", "--rse", "0"], "--rse > 0"),
        (["bench", "eager", "--sizes", "4K", "--delay", "7"], "--delay must be"),
        (["model", "fit"], "needs results files"),
    ],
)
def test_user_mistakes_get_one_line(args: list[str], message: str) -> None:
    if not BUILT:
        pytest.skip("no MPI build")
    done = memcomm(*args, "--mpi", BUILT[0])
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_an_mpi_that_cannot_start_is_one_line(tmp_path: Path) -> None:
    if not BUILT:
        pytest.skip("no MPI build")
    build = tmp_path / "mpich"  # a real library and program, a launcher that is not there
    (build / "bench").mkdir(parents=True)
    (build / "CMakeCache.txt").write_text("MPIEXEC_EXECUTABLE:FILEPATH=/nonexistent/mpiexec\n")
    real = ROOT / "build" / BUILT[0]
    shutil.copy(real / "libmemcomm.so", build / "libmemcomm.so")
    shutil.copy(real / "bench" / "bench_suite", build / "bench" / "bench_suite")
    done = memcomm("bench", "copy", "--sizes", "4K", "--json", str(tmp_path / "out.jsonl"),
                   env={**os.environ, "MEMCOMM_BUILD_DIR": str(tmp_path)})  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("memcomm: error: cannot start /nonexistent/mpiexec")
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_report_of_a_truncated_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    path.write_text(json.dumps({"kind": "meta"})[:10])
    done = memcomm("report", str(path))
    assert done.returncode == 2 and "truncated" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_send_instructions_that_did_not_grow_are_a_note_not_a_number() -> None:
    few, many = experiments.CALLS_REPEATS
    assert experiments.send_instructions([1_000_000, 1_300_000]) == {
        "events": {"Ir": 300_000 / (many - few)}
    }
    # Open MPI beside two busy loops: 16.1 M for 2,000 sends, 6.7 M for 4,000
    said = experiments.send_instructions([16_100_000, 6_700_000])
    assert said["events"] == {} and "quieter machine" in said["note"]
    record = {"kind": "simulated", "experiment": "pingpong", "method": "MPI_Send",
              "layout": "1 double", "bytes": 8, "engine": "mpi", **said}  # fmt: skip
    found = analysis.simulated([record])
    assert any("quieter machine" in f for f in found.findings)
    assert not any("memcomm adds" in f for f in found.findings)


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_simulate_counts_cache_events_and_says_they_are_simulated(tmp_path: Path) -> None:
    if not BUILT:
        pytest.skip("no MPI build")
    out = tmp_path / "sim.jsonl"
    done = memcomm("bench", "ddt-vs-pack", "--simulate", "--sizes", "4K", "--mpi", BUILT[0],
                   "--json", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Simulated events per pack or call (not measured)" in done.stdout
    simulated = [r for run in results.read([out]) for r in run.others if r["kind"] == "simulated"]
    assert {(r["layout"], r["method"]) for r in simulated} == {
        (f"stride{s}", m) for s in (16, 32, 64) for m in ("datatype", "user pack")
    }
    for r in simulated:
        assert "cachegrind" in r["tool"] and "D1 cache" in r["tool"]
        # 512 doubles per pack: a load and a store each at least (less a few for the
        # start-up noise the subtraction leaves), and not absurdly many
        assert 0.95 * 2 * 512 <= r["events"]["Dr"] + r["events"]["Dw"] <= 100 * 512, r
        assert r["events"]["Ir"] >= 512


@pytest.mark.parametrize("mpi", BUILT)
def test_instructions_of_a_basic_send_are_counted_with_and_without_memcomm(
    mpi: str, tmp_path: Path
) -> None:
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind (callgrind) is not installed")
    out = tmp_path / "calls.jsonl"
    done = memcomm("bench", "pingpong", "--simulate", "--mpi", mpi, "--json", str(out))
    assert done.returncode == 0, done.stderr
    simulated = [r for run in results.read([out]) for r in run.others if r["kind"] == "simulated"]
    assert {r["engine"] for r in simulated} == {"mpi", "memcomm"}
    # passed at once (a double, one run of memory), carried on the MPI's own path (a struct at
    # MPI_BOTTOM, a vector)
    assert {r["layout"].split(" ")[0] for r in simulated} == {
        "1",
        "contiguous(64,",
        "struct",
        "vector(144,",
    }
    for r in simulated:
        assert r["method"] == "MPI_Send" and "callgrind" in r["tool"]
        few, many = r["totals"]["2000"], r["totals"]["4000"]
        # an MPI send is more than a function call: at least 50 instructions each. Not their
        # difference: an MPI that polls while its peer is descheduled counts what the time
        # took (Open MPI beside two busy loops: 16.1 M for 2,000 sends, 6.7 M for 4,000)
        assert few >= 50 * 2000 and many >= 50 * 4000, r
        if many > few:
            assert r["events"]["Ir"] == (many - few) / 2000
        else:  # counted three times, the counts followed the time: said, not a number
            assert "Ir" not in r["events"] and "quieter machine" in r["note"], r
    assert "memcomm adds" in done.stdout and "counted by callgrind" in done.stdout
