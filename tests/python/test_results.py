"""The results format: records against the schema, and files a user might hand to the
report (interrupted, foreign, from a newer memcomm)."""

import json
from pathlib import Path

import pytest

from memcomm import results, runner
from memcomm.runner import MemcommError

META = results.meta_record(
    "noncontig",
    "mpi",
    "mpich",
    "MPICH Version: 5.0.2",
    {"PAGE_SIZE": {"value": 4096}},
    {},
    ["bench_suite", "noncontig"],
)
RESULT = {
    "kind": "result",
    "experiment": "noncontig",
    "method": "strided",
    "role": "sender",
    "bytes": 4096,
    "engine": "mpi",
    "inner": 4,
    "warmup": 2,
    "stopped": "rse",
    "seconds": [1e-6, 1.1e-6, 0.9e-6],
}


def lines(*records: dict[str, object]) -> list[str]:
    return [json.dumps(r) + "\n" for r in records]


def test_meta_record_names_version_revision_and_mpi() -> None:
    results.validate(META)
    assert META["schema"] == results.SCHEMA_VERSION
    assert META["git"] and META["date"] and META["mpi"]["library"].startswith("MPICH")


def test_good_file_parses_into_runs() -> None:
    runs = list(
        results.parse_lines(lines(META, RESULT, {**META, "engine": "memcomm"}, RESULT), "f")
    )
    assert len(runs) == 2 and runs[1].meta["engine"] == "memcomm"
    assert runs[0].result(runs[0].results[0])["mpi"] == "mpich"


def test_a_run_over_tcp_is_kept_apart_from_the_default_transport() -> None:
    over_tcp = {**META, "parameters": {"transport": "tcp"}}
    runs = list(results.parse_lines(lines(META, RESULT, over_tcp, RESULT), "f"))
    assert [run.result(run.results[0])["mpi"] for run in runs] == ["mpich", "mpich over tcp"]


@pytest.mark.parametrize(
    "change",
    [
        {"seconds": []},
        {"seconds": [-1.0]},
        {"bytes": -1},
        {"stopped": "whenever"},
        {"kind": "resultz"},
    ],
)
def test_bad_records_are_refused(change: dict[str, object]) -> None:
    with pytest.raises(MemcommError, match="schema"):
        results.validate({**RESULT, **change})


def test_missing_field_is_refused() -> None:
    record = dict(RESULT)
    del record["seconds"]
    with pytest.raises(MemcommError, match="schema"):
        results.validate(record)


def test_interrupted_file_keeps_what_was_written(tmp_path: Path) -> None:
    path = tmp_path / "partial.jsonl"
    with path.open("w") as stream:
        writer = results.Writer(stream)
        writer.write(META)
        writer.write(RESULT)
    # the process died here: what is on disk is a complete, valid file
    runs = results.read([path])
    assert len(runs[0].results) == 1


def test_line_cut_short_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    path.write_text("".join(lines(META)) + json.dumps(RESULT)[:40])
    with pytest.raises(MemcommError, match=r"cut.jsonl:2: line is truncated"):
        results.read([path])


def test_newer_schema_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "new.jsonl"
    path.write_text(
        "".join(lines({**META, "schema": results.SCHEMA_VERSION + 1, "something": "new"}, RESULT))
    )
    with pytest.raises(MemcommError, match="newer memcomm"):
        results.read([path])


def test_records_without_meta_are_not_a_results_file(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text("".join(lines(RESULT)))
    with pytest.raises(MemcommError, match="before the meta record"):
        results.read([path])


def test_missing_or_binary_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(MemcommError, match="cannot read"):
        results.read([tmp_path / "absent.jsonl"])
    binary = tmp_path / "b.jsonl"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(MemcommError):
        results.read([binary])


def fake_mm(root: Path, thp: str, kdamonds: list[tuple[str, str, list[str]]]) -> Path:
    """A /sys/kernel/mm with `thp` as transparent_hugepage/enabled and one kdamond per
    (state, operations, scheme actions)."""
    (root / "transparent_hugepage").mkdir(parents=True)
    (root / "transparent_hugepage" / "enabled").write_text(thp + "\n")
    for k, (state, operations, actions) in enumerate(kdamonds):
        kdamond = root / "damon" / "admin" / "kdamonds" / str(k)
        context = kdamond / "contexts" / "0"
        (context / "schemes").mkdir(parents=True)
        (kdamond / "state").write_text(state + "\n")
        (context / "operations").write_text(operations + "\n")
        for s, action in enumerate(actions):
            (context / "schemes" / str(s)).mkdir()
            (context / "schemes" / str(s) / "action").write_text(action + "\n")
    return root


def fake_meminfo(root: Path, swap_kib: int) -> Path:
    path = root / "meminfo"
    path.write_text(f"MemTotal:       24684544 kB\nSwapTotal:      {swap_kib:8d} kB\n")
    return path


def test_memory_policy_reads_huge_pages_running_damon_schemes_and_swap(tmp_path: Path) -> None:
    mm = fake_mm(
        tmp_path,
        "always [madvise] never",
        [("on", "paddr", ["pageout", "lru_prio"]), ("off", "vaddr", ["pageout"])],
    )
    policy = results.memory_policy(mm, fake_meminfo(tmp_path, 2 * 1024 * 1024))
    assert policy == {
        "transparent_hugepage": "madvise",
        "damon": [{"operations": "paddr", "schemes": ["pageout", "lru_prio"]}],
        "swap_bytes": 2 * 2**30,
    }
    note = results.reclaim_note(policy)
    assert note is not None and "page out" in note
    results.validate({**META, "memory_policy": policy})
    assert results.policy_text(policy) == (
        "THP madvise; DAMON paddr: pageout, lru_prio; swap 2.0 GiB"
    )
    # without swap a pageout scheme cannot take a run's (anonymous) arrays: no note
    unswapped = results.memory_policy(mm, fake_meminfo(tmp_path, 0))
    assert unswapped["swap_bytes"] == 0 and results.reclaim_note(unswapped) is None
    assert results.policy_text(unswapped).endswith("; no swap")
    assert results.policy_text({"damon": [{"operations": "vaddr", "schemes": []}]}) == (
        "DAMON vaddr: monitor only"
    )
    assert results.policy_text({}) == ""


def test_memory_policy_without_reclaim_says_nothing(tmp_path: Path) -> None:
    mm = fake_mm(tmp_path, "[always] madvise never", [("on", "paddr", ["stat"])])
    policy = results.memory_policy(mm, fake_meminfo(tmp_path, 1024))
    assert policy["transparent_hugepage"] == "always"
    assert results.reclaim_note(policy) is None
    assert results.memory_policy(tmp_path / "absent", tmp_path / "absent") == {}
    assert results.reclaim_note({}) is None


def test_meta_record_carries_the_cpu_and_the_memory_policy() -> None:
    assert META["cpu"] == runner.cpu_model()
    assert isinstance(META["memory_policy"], dict)
    with pytest.raises(MemcommError):
        results.validate({**META, "memory_policy": {"damon": [{"schemes": []}]}})
