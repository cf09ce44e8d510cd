"""docs/coverage.md stays true: every MPI function the library defines (for each MPI build
`make test` made) is named in its "Carried" or "Intercepted, never carried" table. The C
names only: the Fortran ones (MPI_WAIT, mpi_wait_, ...) are described by family in its
Fortran section (lib/base/fortran_names.h lists them)."""

import re
import subprocess

import pytest
from clirun import BUILT, ROOT

from memcomm import runner


def defined_mpi_functions(mpi: str) -> set[str]:
    library = runner.find_build(mpi).library
    text = subprocess.run(
        ["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True, check=True
    ).stdout
    # C names are mixed case (MPI_Send); the Fortran bindings' upper-case ones are left out
    return {m.group(1) for m in re.finditer(r"\sT\s(MPI_[A-Z][a-z0-9]\w*)$", text, re.MULTILINE)}


def collective_forms(name: str) -> set[str]:
    """MPI_Alltoall's non-blocking and persistent forms: MPI_Ialltoall, MPI_Alltoall_init."""
    call = name.removeprefix("MPI_")
    return {name, f"MPI_I{call[0].lower()}{call[1:]}", f"{name}_init"}


def documented() -> set[str]:
    """Names in the two tables, with the non-blocking and persistent forms where a row says
    "every collective form", and `_c` forms where it says "int and `_c`"."""
    text = (ROOT / "docs" / "coverage.md").read_text()
    tables = text.split("## Carried", 1)[1].split("## Passed to the MPI unchanged", 1)[0]
    names: set[str] = set()
    for row in tables.splitlines():
        if not row.startswith("| `MPI_"):
            continue
        first = row.split("|")[1]
        found = set(re.findall(r"`(MPI_\w+)`", first))
        if "_any`, `_all`, `_some`" in first:  # MPI_Request_get_status and its array forms
            found |= {f"MPI_Request_get_status{s}" for s in ("_any", "_all", "_some")}
        if "every collective form" in row.split("|")[2]:
            found = {form for name in found for form in collective_forms(name)}
        if "`_c`" in row.split("|")[2]:
            found |= {f"{name}_c" for name in found}
        names |= found
    return names


@pytest.mark.parametrize("mpi", BUILT)
def test_every_defined_function_is_documented(mpi: str) -> None:
    missing = defined_mpi_functions(mpi) - documented()
    assert not missing, f"not in docs/coverage.md: {sorted(missing)}"
