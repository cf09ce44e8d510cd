"""Find a memcomm build and run its MPI programs under the matching mpiexec.

A build lives in build/<mpi>/ (made by `make`); its CMake cache names the mpiexec it was
configured with, so a program always runs under the MPI it was compiled against.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MPIS = ("mpich", "openmpi", "system")


class MemcommError(Exception):
    """A user-facing error: printed as one line, no traceback."""


def project_root() -> Path:
    """The source tree this package was installed from (editable install), or the cwd."""
    env = os.environ.get("MEMCOMM_ROOT")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "CMakeLists.txt").exists() and (parent / "lib").is_dir():
            return parent
    return Path.cwd()


@dataclass(frozen=True)
class Build:
    """One configured C build of memcomm against one MPI."""

    mpi: str
    directory: Path
    mpiexec: str

    @property
    def library(self) -> Path:
        return self.directory / "libmemcomm.so"

    def program(self, relative: str) -> Path:
        path = self.directory / relative
        if not path.exists():
            raise MemcommError(f"{path} is missing: run `make` (or `make setup`) first")
        return path


def find_build(mpi: str) -> Build:
    if mpi not in MPIS:
        raise MemcommError(f"unknown MPI {mpi!r}: choose one of {', '.join(MPIS)}")
    directory = Path(os.environ.get("MEMCOMM_BUILD_DIR", project_root() / "build")) / mpi
    cache = directory / "CMakeCache.txt"
    if not cache.exists():
        raise MemcommError(f"no memcomm build for {mpi} in {directory}: run `make MPI={mpi}`")
    mpiexec = ""
    for line in cache.read_text().splitlines():
        if line.startswith("MPIEXEC_EXECUTABLE:"):
            mpiexec = line.split("=", 1)[1]
    if not mpiexec or mpiexec.endswith("NOTFOUND"):
        raise MemcommError(f"the {mpi} build in {directory} has no mpiexec configured")
    return Build(mpi=mpi, directory=directory, mpiexec=mpiexec)


def mpi_environment() -> dict[str, str]:
    """The environment for mpiexec: Open MPI refuses root without these (CI runs as root)."""
    env = dict(os.environ)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    env.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    env.setdefault("PRTE_MCA_rmaps_default_mapping_policy", ":oversubscribe")
    return env


def launch(
    build: Build,
    nprocs: int,
    program: Path | str,
    args: Sequence[str],
    capture: bool = False,
    extra_env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `program args` on `nprocs` ranks; stream its output unless `capture`."""
    command = [build.mpiexec, "-n", str(nprocs), str(program), *args]
    try:
        return subprocess.run(
            command,
            env={**mpi_environment(), **(extra_env or {})},
            text=True,
            stdout=subprocess.PIPE if capture else None,
            stderr=subprocess.PIPE if capture else None,
            check=False,
        )
    except OSError as error:
        raise MemcommError(f"cannot start {build.mpiexec}: {error.strerror}") from error


def json_records(text: str) -> Iterator[dict[str, Any]]:
    """The JSON objects of a program's output, one per line; other lines are passed through."""
    for line in text.splitlines():
        if line.startswith("{"):
            try:
                yield json.loads(line)
            except json.JSONDecodeError as error:
                raise MemcommError(f"malformed result line: {line[:80]!r}") from error
        elif line.strip():
            print(line, file=sys.stderr)


def _library(build: Build) -> ctypes.CDLL:
    try:
        return ctypes.CDLL(str(build.library))
    except OSError as error:
        raise MemcommError(f"cannot load {build.library}: {error}") from error


def machine_model(build: Build) -> dict[str, dict[str, Any]]:
    """The machine model the planner uses, read from the library itself (no MPI started)."""
    buffer = ctypes.create_string_buffer(4096)
    length = _library(build).memcomm_machine_json(buffer, ctypes.c_size_t(len(buffer)))
    if length < 0:
        raise MemcommError("the machine description did not fit its buffer")
    model: dict[str, dict[str, Any]] = json.loads(buffer.value.decode())
    return model


def machine_probe(build: Build) -> dict[str, Any]:
    """Run the library's probes (TLB entries, streaming threshold, copy bandwidth)."""
    buffer = ctypes.create_string_buffer(1 << 16)
    length = _library(build).memcomm_machine_probe(buffer, ctypes.c_size_t(len(buffer)))
    if length < 0:
        raise MemcommError("the machine probe failed (out of memory?)")
    result: dict[str, Any] = json.loads(buffer.value.decode())
    return result


def machine_file() -> Path | None:
    """Where probed values are kept for later processes (as the library looks for them)."""
    explicit = os.environ.get("MEMCOMM_MACHINE_FILE")
    if explicit is not None:
        return Path(explicit) if explicit else None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memcomm" / "machine"


def cpu_model() -> str:
    """The CPU's model name as /proc/cpuinfo gives it (the probe file is only valid for it)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name") and ":" in line:
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def save_probe(result: dict[str, Any], path: Path) -> None:
    """Write probed values as the library reads them: NAME=value lines after cpu=<model>."""
    lines = [
        f"# memcomm machine --probe, {time.strftime('%Y-%m-%d %H:%M:%S')}",
        f"cpu={cpu_model()}",
    ]
    for name in ("TLB_ENTRIES", "STREAM_BYTES", "COPY_BYTES_PER_S"):
        if result.get(name, 0) > 0:
            lines.append(f"{name}={result[name]}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def launch_preloaded(
    build: Build,
    nprocs: int,
    program: str,
    args: Sequence[str],
    capture: bool = False,
    extra_env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run an unchanged MPI program with memcomm preloaded on every rank.

    The preload is set by `env` on each rank's command line, not in mpiexec's environment:
    Open MPI does not forward LD_PRELOAD to ranks, and the launcher itself must not load an
    MPI library.
    """
    settings = [f"{k}={v}" for k, v in (extra_env or {}).items()]
    return launch(
        build, nprocs, "env", [*settings, f"LD_PRELOAD={build.library}", program, *args], capture
    )


EXPLAIN_LINE = re.compile(r"^memcomm explain \[rank (-?\d+)\] (.*?): (.*)$")


@dataclass
class Explanation:
    """One planner decision a program's run printed (MEMCOMM_EXPLAIN=1)."""

    rank: int
    what: str  # "MPI_Type_commit" or "MPI_Pack count N", ...
    lines: list[str]


def explanations(stderr: str) -> tuple[list[Explanation], list[str]]:
    """Split a run's stderr into the explanations and the program's own lines."""
    found: list[Explanation] = []
    other: list[str] = []
    current: dict[int, Explanation] = {}  # ranks' lines interleave; each rank's are in order
    for line in stderr.splitlines():
        match = EXPLAIN_LINE.match(line)
        if not match:
            other.append(line)
            continue
        rank, what, text = int(match[1]), match[2], match[3]
        block = current.get(rank)
        if block is None or text.startswith("size ") or block.what != what:
            block = current[rank] = Explanation(rank, what, [])
            found.append(block)
        block.lines.append(text)
    return found, other
