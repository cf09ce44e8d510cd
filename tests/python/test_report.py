"""Medians, ratios and tables from known records."""

import math
from pathlib import Path
from typing import Any

import pytest

from memcomm import report
from memcomm.report import analysis, figures, tables


def record(
    method: str, seconds: list[float], pattern: str = "p", direction: str = "pack"
) -> dict[str, Any]:
    return {
        "experiment": "pack",
        "pattern": pattern,
        "direction": direction,
        "method": method,
        "bytes": 8_000_000,
        "seconds": seconds,
    }


def test_decided_paths_name_each_ranks_choice() -> None:
    said = analysis._decided_paths
    assert said([{"packed": 1, "by_mpi": 0}, {"packed": 0, "by_mpi": 1}]) == (
        "packed on rank 0; the MPI's own on rank 1"
    )
    assert said([{"packed": 0, "by_mpi": 1}] * 2) == "the MPI's own on ranks 0, 1"
    # trials run again after a decided path turned slow: two decisions
    assert said([{"packed": 0, "by_mpi": 0}, {"packed": 1, "by_mpi": 1}]) == (
        "no path trials on rank 0; packed and the MPI's own on rank 1"
    )
    assert said([{"packed": 2, "by_mpi": 0}] * 2) == "packed twice on ranks 0, 1"
    assert said([{"packed": 1, "by_mpi": 3}]) == "packed and the MPI's own 3 times on rank 0"


def test_pack_rows_take_the_median_per_method() -> None:
    rows = report.pack_rows(
        [
            record("memcpy", [0.001, 0.002, 0.100]),  # median 0.002, the outlier ignored
            record("mpi", [0.010, 0.008, 0.009]),
            record("manual", [0.004, 0.004, 0.005]),
            record("memcomm", [0.003, 0.002, 0.004]),
        ]
    )
    (row,) = rows
    assert row.pack_s == {"memcpy": 0.002, "mpi": 0.009, "manual": 0.004, "memcomm": 0.003}
    assert row.gbps("memcpy") == 8_000_000 / 0.002 / 1e9
    assert row.ratio("memcomm", "mpi") == pytest.approx(3.0)


def test_unpack_rows_borrow_the_undirected_baselines() -> None:
    (row,) = report.pack_rows(
        [
            record("memcpy", [0.002]),
            record("memcomm", [0.004]),
            record("mpi", [0.012], direction="unpack"),
            record("memcomm", [0.006], direction="unpack"),
        ]
    )
    assert row.ratio("memcomm", "mpi", "unpack") == pytest.approx(2.0)
    assert row.ratio("memcomm", "memcpy", "unpack") == pytest.approx(1 / 3)
    table = report.pack_table([row], "unpack")
    assert "0.67" in table.splitlines()[2]  # unpack/pack: 0.004 / 0.006


def test_unpack_rows_take_the_written_lines_and_old_records_the_read_ones() -> None:
    read, written = record("lines", [0.002]), record("lines", [0.005], direction="unpack")
    unpack = record("memcomm", [0.010], direction="unpack")
    (row,) = report.pack_rows([read, written, unpack])
    assert row.ratio("memcomm", "lines", "unpack") == pytest.approx(0.5)
    assert row.ratio("lines", "lines", "pack") == 1.0 and row.seconds("lines") == 0.002
    # records before lines had a direction: the unpack rows compare with the reads
    (old,) = report.pack_rows([read, unpack])
    assert old.has("lines", "unpack") and old.seconds("lines", "unpack") == 0.002
    assert not old.has("manual", "unpack")


def test_pack_table_leaves_out_the_ratios_to_methods_not_run() -> None:
    # bench pack --methods memcpy,memcomm: no MPI, no lines to compare with
    (row,) = report.pack_rows([record("memcpy", [0.002]), record("memcomm", [0.004])])
    cells = report.pack_table([row]).splitlines()[2].split()
    assert cells[-3:] == ["-", "50%", "-"]
    text = report.across_mpis([{**r, "mpi": "mpich"} for r in [record("memcomm", [0.004])]])
    assert text.splitlines()[3].split()[1:6] == ["8.00", "-", "2.00", "-", "-"]


def test_pack_table_shows_the_interposed_calls_only_where_timed() -> None:
    timed = [record("mpi", [0.004]), record("memcomm", [0.008]), record("interposed", [0.004])]
    header, body = tables.pack_columns(report.pack_rows(timed))
    assert "interposed GB/s" in header and header[-1] == "interposed/MPI"
    assert body[0][header.index("interposed GB/s")] == "2.00"
    assert body[0][-1] == "1.00x" and body[0][header.index("memcomm/MPI")] == "0.50x"
    header, _ = tables.pack_columns(report.pack_rows(timed[:2]))
    assert not any("interposed" in h for h in header)


def test_summary_gives_geomean_and_worst_pattern() -> None:
    rows = report.pack_rows(
        [
            record("mpi", [4.0], "a"),
            record("memcomm", [1.0], "a"),
            record("mpi", [1.0], "b"),
            record("memcomm", [1.0], "b"),
        ]
    )
    text = report.summary(rows)
    assert "geometric mean 2.00x over 2 patterns; lowest 1.00x (b)" in text


def test_pack_rows_keep_pattern_order_and_skip_other_experiments() -> None:
    records: list[dict[str, Any]] = [
        record("mpi", [1.0], "b"),
        {"experiment": "other"},
        record("mpi", [1.0], "a"),
    ]
    assert [r.pattern for r in report.pack_rows(records)] == ["b", "a"]


def test_table_aligns_columns() -> None:
    text = report.format_table(["name", "value"], [["a", "1"], ["longer", "22"]])
    lines = text.splitlines()
    assert lines[0] == "name    value"
    assert lines[2] == "a           1"
    assert lines[3] == "longer     22"


def test_across_mpis_puts_each_mpi_side_by_side() -> None:
    records = []
    for mpi, mpi_seconds in (("mpich", 4.0), ("openmpi", 2.0)):
        for method, seconds in (("memcpy", 0.5), ("lines", 0.5), ("mpi", mpi_seconds)):
            records.append({**record(method, [seconds]), "mpi": mpi})
        records.append({**record("memcomm", [1.0]), "mpi": mpi})
        records.append({**record("memcomm", [2.0], direction="unpack"), "mpi": mpi})
    text = report.across_mpis(records)
    row = text.splitlines()[3].split()
    assert row[0] == "p"
    assert "4.00x" in row and "2.00x" in row  # memcomm against each MPI's own pack
    assert row[-1] == "0.50/0.50"  # unpack/pack for each MPI
    assert "mpich: pack: memcomm/MPI geometric mean 4.00x" in text


def stencil_record(size: int, method: str, seconds: float) -> dict[str, Any]:
    return {"experiment": "stencil", "mpi": "mpich", "method": method, "bytes": size,
            "seconds": [seconds] * 3}  # fmt: skip


def test_stencil_names_the_fastest_variant_per_size_and_the_column_gain() -> None:
    records = [
        stencil_record(256, "baseline", 1.0), stencil_record(256, "OPT1", 1.1),
        stencil_record(256, "OPT2", 0.8), stencil_record(256, "column mpi", 2.0),
        stencil_record(256, "column memcomm", 1.0),
        stencil_record(1 << 20, "baseline", 1.0), stencil_record(1 << 20, "OPT1", 0.6),
        stencil_record(1 << 20, "OPT2", 0.9), stencil_record(1 << 20, "strip 64 KiB", 0.7),
        stencil_record(1 << 20, "column mpi", 3.0), stencil_record(1 << 20, "column memcomm", 1.0),
    ]  # fmt: skip
    found = analysis.stencil(records)
    assert found.findings[:2] == ["mpich: OPT2 fastest at 256 B", "mpich: OPT1 fastest at 1 MiB"]
    assert "2.00-3.00x as fast" in found.findings[2]
    (table,) = found.tables
    assert table.rows[1][1:5] == ["1000000.0", "0.60", "0.90", "0.70 (64 KiB)"]


def test_decompose_sets_the_datatype_send_against_both_bounds() -> None:
    def part(method: str, us: float) -> dict[str, Any]:
        return {"experiment": "decompose", "method": method, "n": 256, "mpi": "mpich",
                "engine": "memcomm", "seconds": [us * 1e-6]}  # fmt: skip

    parts = {"copy": 10, "pack": 20, "contiguous": 30, "datatype": 80, "pack-send": 60,
             "copy-send": 72}  # fmt: skip
    result = analysis.decompose([part(m, us) for m, us in parts.items()])
    (row,) = result.tables[0].rows
    assert row[-3:] == ["62%", "75%", "90%"]  # (20 + 30) / 80, 60 / 80 and 72 / 80
    assert "62% of the pack plus the contiguous send" in result.findings[0]
    assert "90% of a memcpy of the matrix then a send" in result.findings[0]
    # runs before pack-send and copy-send were measured: those bounds left out
    del parts["pack-send"], parts["copy-send"]
    (row,) = analysis.decompose([part(m, us) for m, us in parts.items()]).tables[0].rows
    assert row[-2:] == ["-", "-"] and row[-3] == "62%"


def test_pack_figure_puts_each_mpis_ratio_at_its_patterns_row(tmp_path: Path) -> None:
    # Open MPI lacks pattern "a": its bars must still sit on the rows of "b" and "c"
    rows = []
    for mpi, patterns in (("mpich", "abc"), ("openmpi", "bc")):
        for i, p in enumerate(patterns):
            for direction in ("pack", "unpack"):
                for method, s in (("mpi", 2.0 + i), ("memcomm", 1.0)):
                    rows.append(record(method, [s], p, direction) | {"mpi": mpi})
    (figure,) = analysis.pack(rows).figures
    assert figure.categories == ["a", "b", "c"]
    by_label = {s.label: s.points for s in figure.series}
    assert [p.x for p in by_label["pack (openmpi)"]] == [1.0, 2.0]
    assert [p.value for p in by_label["pack (openmpi)"]] == pytest.approx([2.0, 3.0])
    assert [p.value for p in by_label["unpack (mpich)"]] == pytest.approx([2.0, 3.0, 4.0])
    assert figures.draw(figure, tmp_path).stat().st_size > 0


def test_paired_speedup_is_not_moved_by_stalls_in_few_turns() -> None:
    # stalls of 4 ms in three of memcomm's ten turns and one of the MPI's
    mpi = [0.8, 0.8, 0.8, 4.8, 0.8, 0.8, 0.8, 0.8, 0.9, 0.8]
    memcomm = [0.8, 4.8, 0.8, 0.8, 0.8, 0.8, 4.8, 0.8, 4.8, 0.8]
    assert analysis.paired_speedup(mpi, memcomm) == pytest.approx(1.0)
    # a method slower in every turn
    assert analysis.paired_speedup([1.0, 1.2, 1.1], [2.0, 2.4, 2.2]) == pytest.approx(0.5)
    assert math.isnan(analysis.paired_speedup([1.0], []))
