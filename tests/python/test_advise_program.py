"""`memcomm advise -- PROG`: a program's communication call sites, symbolized, with their
sizes and the rule for each; and a clear one-line error for a program that cannot be
advised. The program is tests/mpi/advise_program.c, whose sites are marked."""

import json
import re
from pathlib import Path

import pytest
from clirun import BUILT, ROOT, memcomm

SOURCE = ROOT / "tests" / "mpi" / "advise_program.c"


def marked_lines() -> dict[str, int]:
    lines = SOURCE.read_text().splitlines()
    return {m[1]: n for n, line in enumerate(lines, 1) if (m := re.search(r"site: (\w+)", line))}


@pytest.fixture(scope="module", params=BUILT)
def rules(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, str]:
    """(MPI, the quick eager/cache-state/pollution results advise measured once)."""
    directory = tmp_path_factory.mktemp(f"advise-{request.param}")
    done = memcomm("advise", "--mpi", request.param, "--quiet", cwd=directory)
    assert done.returncode == 0, done.stderr
    (found,) = (directory / "results").glob("advise-*.jsonl")
    return request.param, str(found)


def test_the_sites_of_a_program_are_named_with_their_sizes(rules: tuple[str, str]) -> None:
    mpi, results = rules
    program = ROOT / "build" / mpi / "tests" / "advise_program"
    done = memcomm("advise", "--mpi", mpi, "--results", results, "--json", "--", str(program))
    assert done.returncode == 0, done.stderr
    sites = json.loads(done.stdout)["sites"]
    line = marked_lines()
    got = {(s["call"], s["where"], s["rank"], s["bytes"], s["calls"], s["derived"]) for s in sites}
    assert got == {
        ("MPI_Send", f"main (advise_program.c:{line['send']})", 0, 8000, 5, False),
        ("MPI_Recv", f"main (advise_program.c:{line['recv']})", 1, 8000, 5, False),
        ("MPI_Sendrecv", f"main (advise_program.c:{line['halo']})", 0, 512, 3, True),
        ("MPI_Sendrecv", f"main (advise_program.c:{line['halo']})", 1, 512, 3, True),
        ("MPI_Allreduce", f"main (advise_program.c:{line['allreduce']})", 0, 4, 1, False),
        ("MPI_Allreduce", f"main (advise_program.c:{line['allreduce']})", 1, 4, 1, False),
    }
    for s in sites:  # the range follows from the size and this machine's thresholds
        assert s["range_name"] in ("up to the eager limit", "eager limit to LLC/2")
        assert ("loop(64,+512)" in s["explain"]) == s["derived"]  # the plan of derived types
    text = memcomm("advise", "--mpi", mpi, "--results", results, "--", str(program))
    assert text.returncode == 0, text.stderr
    assert f"main (advise_program.c:{line['halo']}): MPI_Sendrecv" in text.stdout
    assert "advise_program: 2 ranks" in text.stderr  # the program's own output, apart


@pytest.mark.parametrize(
    ("program", "message"),
    [
        (["/no/such/program"], "cannot run /no/such/program: no such program"),
        (["true"], "made no communication call memcomm advise records"),
        (["sh", "-c", "kill -SEGV $$"], "sh failed (exit"),
    ],
)
def test_a_program_that_cannot_be_advised_is_one_line(
    rules: tuple[str, str], program: list[str], message: str, tmp_path: Path
) -> None:
    mpi, results = rules
    done = memcomm("advise", "--mpi", mpi, "--results", results, "--", *program, cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stderr.count("memcomm: error:") == 1 and "Traceback" not in done.stderr
    assert done.stdout == "" and not list(tmp_path.iterdir())  # nothing half-written
