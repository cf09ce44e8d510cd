"""The results format: JSON lines, a meta record first, then every sample.

One format for every experiment (results.schema.json). A file is written a line at a time
and flushed, so a run that stops early leaves a valid file of what it measured. Reading
checks each line against the schema and refuses files from a newer memcomm.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import IO, Any

import jsonschema

from memcomm import __version__
from memcomm.runner import MemcommError, cpu_model, project_root

SCHEMA_VERSION = 1


def schema() -> dict[str, Any]:
    text = resources.files("memcomm").joinpath("results.schema.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


_VALIDATOR = jsonschema.Draft202012Validator(schema())


def validate(record: dict[str, Any]) -> None:
    """Raise MemcommError naming what is wrong with a record."""
    errors = sorted(_VALIDATOR.iter_errors(record), key=lambda e: list(e.path))
    if errors:
        raise MemcommError(f"record does not match the results schema: {errors[0].message}")


def git_revision() -> str:
    """The source revision this memcomm was built from, '+dirty' if it had local changes."""
    root = project_root()
    try:
        rev = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return rev + ("+dirty" if dirty else "")


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _swap_bytes(meminfo: Path) -> int | None:
    """SwapTotal from /proc/meminfo, in bytes (None where it cannot be read)."""
    for line in (_read(meminfo) or "").splitlines():
        if line.startswith("SwapTotal:"):
            fields = line.split()
            if len(fields) >= 2 and fields[1].isdigit():
                return int(fields[1]) * 1024
    return None


def memory_policy(
    mm: Path = Path("/sys/kernel/mm"), meminfo: Path = Path("/proc/meminfo")
) -> dict[str, Any]:
    """What the kernel may do to a run's memory behind its back (`mm` is /sys/kernel/mm):
    transparent huge pages (the mode in brackets), each running DAMON monitor with the
    actions of its schemes, and the swap space (SwapTotal). A `pageout` scheme reclaims
    regions it finds cold; a benchmark's arrays are anonymous memory, which only swap can
    take, so without swap it pages out nothing of theirs (file pages only: libraries and
    programs, paid again at the next launch). Empty where neither says anything."""
    policy: dict[str, Any] = {}
    thp = _read(mm / "transparent_hugepage" / "enabled")
    if thp and "[" in thp:
        policy["transparent_hugepage"] = thp.split("[", 1)[1].split("]", 1)[0]
    monitors = []
    for kdamond in sorted((mm / "damon" / "admin" / "kdamonds").glob("[0-9]*")):
        if _read(kdamond / "state") != "on":
            continue
        for context in sorted((kdamond / "contexts").glob("[0-9]*")):
            actions = [
                action
                for scheme in sorted((context / "schemes").glob("[0-9]*"))
                if (action := _read(scheme / "action"))
            ]
            monitors.append({"operations": _read(context / "operations") or "", "schemes": actions})
    if monitors:
        policy["damon"] = monitors
    swap = _swap_bytes(meminfo)
    if swap is not None:
        policy["swap_bytes"] = swap
    return policy


def policy_text(policy: dict[str, Any]) -> str:
    """The memory policy in a few words, for the report's table of runs."""
    parts = []
    if "transparent_hugepage" in policy:
        parts.append(f"THP {policy['transparent_hugepage']}")
    for monitor in policy.get("damon", []):
        schemes = ", ".join(monitor.get("schemes", [])) or "monitor only"
        parts.append(f"DAMON {monitor.get('operations', '')}: {schemes}".replace(" :", ":"))
    if "swap_bytes" in policy:
        swap = policy["swap_bytes"]
        parts.append(f"swap {swap / 2**30:.1f} GiB" if swap else "no swap")
    return "; ".join(parts)


def reclaim_note(policy: dict[str, Any]) -> str | None:
    """A line for the user when a DAMON scheme can page a run's arrays out: a pageout scheme
    runs and there is swap to take anonymous memory (or the swap is unknown)."""
    pageout = any("pageout" in m.get("schemes", []) for m in policy.get("damon", []))
    if pageout and policy.get("swap_bytes", 1) > 0:
        return (
            "note: during this run the kernel's DAMON could page out memory it found cold "
            "(/sys/kernel/mm/damon), and swap was there to take it: arrays idle long enough "
            "may come back through page faults; compare figures only with runs under the "
            "same policy (recorded in each run's meta record, memory_policy)"
        )
    return None


def meta_record(
    experiment: str,
    engine: str,
    mpi_name: str,
    mpi_library: str,
    machine: dict[str, Any],
    parameters: dict[str, Any],
    command: list[str],
) -> dict[str, Any]:
    return {
        "kind": "meta",
        "schema": SCHEMA_VERSION,
        "memcomm": __version__,
        "git": git_revision(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "host": socket.gethostname(),
        "cpu": cpu_model(),
        "experiment": experiment,
        "engine": engine,
        "mpi": {"name": mpi_name, "library": mpi_library},
        "machine": machine,
        "memory_policy": memory_policy(),
        "parameters": parameters,
        "command": command,
    }


class Writer:
    """Appends records to a results file, a flushed line at a time."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def write(self, record: dict[str, Any]) -> None:
        validate(record)
        self.stream.write(json.dumps(record) + "\n")
        self.stream.flush()


@dataclass
class Run:
    """The records of one run of one experiment (one meta record and what followed it)."""

    meta: dict[str, Any]
    results: list[dict[str, Any]] = field(default_factory=list)
    others: list[dict[str, Any]] = field(default_factory=list)  # counters, simulated

    def result(self, record: dict[str, Any]) -> dict[str, Any]:
        """A result with its run's context (MPI name, engine) filled in. A run over another
        transport than the MPI's default counts as another MPI ("openmpi over tcp"), and so
        does a pack run that flushed the caches before each call ("mpich caches flushed"),
        so that analyses keep them apart."""
        mpi = self.meta["mpi"]["name"]
        parameters = self.meta.get("parameters", {})
        transport = parameters.get("transport", "default")
        if transport != "default":
            mpi += f" over {transport}"
        if parameters.get("cache", "as-left") == "flushed":
            mpi += " caches flushed"
        return {"mpi": mpi, "engine": self.meta["engine"], **record}


def parse_lines(lines: Iterable[str], source: str) -> Iterator[Run]:
    """The runs in a results file; a clear error for a truncated, foreign or newer file."""
    run: Run | None = None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{source}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            cut = "truncated (the run was interrupted?)" if not line.endswith("\n") else "not JSON"
            raise MemcommError(f"{where}: line is {cut}: {error.msg}") from error
        if not isinstance(record, dict):
            raise MemcommError(f"{where}: not a results record")
        versioned = record.get("kind") == "meta" and isinstance(record.get("schema"), int)
        if versioned and record["schema"] > SCHEMA_VERSION:
            raise MemcommError(
                f"{where}: written by a newer memcomm (results schema {record['schema']}, "
                f"this one reads up to {SCHEMA_VERSION}): upgrade memcomm to read it"
            )
        try:
            validate(record)
        except MemcommError as error:
            raise MemcommError(f"{where}: {error}") from None
        if record["kind"] == "meta":
            if run is not None:
                yield run
            run = Run(record)
        elif run is None:
            raise MemcommError(f"{where}: records before the meta record: not a results file")
        elif record["kind"] == "result":
            run.results.append(record)
        else:
            run.others.append(record)
    if run is not None:
        yield run


def read(paths: Iterable[str | Path]) -> list[Run]:
    runs: list[Run] = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as stream:
                runs += list(parse_lines(stream, str(path)))
        except OSError as error:
            raise MemcommError(f"cannot read {path}: {error.strerror}") from error
        except UnicodeDecodeError:
            raise MemcommError(f"{path}: not a text file") from None
    if not runs:
        raise MemcommError("no results in the files given")
    return runs
