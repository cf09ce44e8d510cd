"""The Diamond DAG's analyses: the mini-app's records into a table, and eq. 15 with a LogGP
fitted from `logp` records set against them. Records made from known parameters must come
back with no error, and the best b where eq. 15 puts it."""

from typing import Any

from test_logp import EAGER, synthetic

from memcomm.models.logp import fit_pingpong
from memcomm.models.logpc import Diamond, LogGP
from memcomm.report import analysis

N, RANKS, TASK = 1024, 2, 2e-9  # seconds per task


def logp_records() -> list[dict[str, Any]]:
    records = []
    for p in synthetic([EAGER], noise=0.0):
        for method, seconds, extra in (
            ("PRTT(1,0,s)", p.one, {}),
            ("PRTT(n,0,s)", p.many, {"n": p.n}),
            ("PRTT(n,d,s)", p.delayed, {"n": p.n, "delay": p.delay}),
        ):
            records.append({"experiment": "logp", "mpi": "mpich", "method": method,
                            "bytes": p.size, "seconds": [seconds], **extra})  # fmt: skip
    return records


def expected_dag() -> Diamond:
    segment = fit_pingpong(synthetic([EAGER], noise=0.0)).segments[0]
    machine = LogGP(L=segment.L, o_s=segment.o, o_r=segment.o, g=segment.g, G=segment.G)
    return Diamond(n=N, P=RANKS, machine=machine, task=TASK, value_bytes=8)


def diamond_records(slowdown: dict[int, float] | None = None) -> list[dict[str, Any]]:
    dag, records = expected_dag(), []
    for b in (1, 4, 16, 64, 256, 1024):
        base = {"experiment": "diamond", "mpi": "mpich", "n": N, "ranks": RANKS, "blocks": b,
                "bytes": N // b * 8, "tasks": N * N}  # fmt: skip
        compute = TASK * N * N / RANKS
        makespan = dag.makespan(b) * (slowdown or {}).get(b, 1.0)
        records.append({**base, "method": "compute", "seconds": [compute] * 3})
        records.append({**base, "method": "makespan", "seconds": [makespan] * 3})
    return records


def test_the_mini_apps_table_names_the_fastest_block_count() -> None:
    found = analysis.diamond(diamond_records())
    assert len(found.tables[0].rows) == 6
    best = min((1, 4, 16, 64, 256, 1024), key=expected_dag().makespan)
    assert f"fastest at b = {best} " in found.findings[0]


def test_eq15_with_the_fitted_loggp_reproduces_makespans_made_from_it() -> None:
    found = analysis.diamond_model(diamond_records(), logp_records())
    assert "within 0% median absolute error over 6 block counts" in found.findings[0]
    assert "is the measured best" in found.findings[0]
    errors = [row[-1] for row in found.tables[0].rows]
    assert set(errors) <= {"+0%", "-0%"}
    (figure,) = found.figures  # measured and predicted makespan by b, for the report
    assert [s.label for s in figure.series] == [
        "measured",
        "eq. 15 (LogGP fitted here, W measured)",
    ]
    assert [p.x for p in figure.series[1].points] == [1, 4, 16, 64, 256, 1024]


def test_a_predicted_best_that_runs_slower_is_reported_with_its_gap() -> None:
    best = min((1, 4, 16, 64, 256, 1024), key=expected_dag().makespan)
    found = analysis.diamond_model(diamond_records({best: 1.5}), logp_records())
    assert f"its best b = {best} is " in found.findings[0]
    assert "slower than the measured best" in found.findings[0]


def test_without_logp_records_the_model_says_what_to_run() -> None:
    found = analysis.diamond_model(diamond_records(), [])
    assert found.findings == ["mpich: no LogGP fit (run `memcomm bench logp --mpi mpich`)"]
