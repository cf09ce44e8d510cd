"""The measurement suite's experiments: what each measures, which program runs it, and how.

Every experiment runs a C program of the build (bench/) under the build's MPI with ranks
pinned, and its records are written, a line at a time, to one results file after a meta
record (memcomm.results). The papers the experiments come from: docs/references.md.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memcomm import results, runner
from memcomm.runner import MemcommError

# a suite program under memcomm warms up for this many calls of each measurement: memcomm
# times up to 32 calls of a message by both paths before it keeps one (lib/core/sendpath.c)
MEMCOMM_WARMUP_CALLS = 32


@dataclass(frozen=True)
class Experiment:
    name: str
    program: str  # relative to the build directory
    ranks: int
    summary: str
    source: str  # where in the papers (docs/references.md) it comes from
    default_engines: tuple[str, ...] = ("mpi",)
    suite: bool = True  # takes the suite's timing options (bench/harness.h)
    any_ranks: bool = False  # runs on any number of ranks from `ranks` on (`--np`)
    # bytes all ranks together allocate for a size of the --sizes list (for a transpose side
    # n, of the n x n matrix): checked against the free memory before starting
    footprint: Callable[[int], int] = lambda size: 0


EXPERIMENTS: dict[str, Experiment] = {
    e.name: e
    for e in [
        Experiment(
            "noncontig",
            "bench/bench_suite",
            2,
            "contiguous vs strided (stride 16) messages, 64 B to 4 MiB, sender and receiver time",
            "000 sec. 6.1",
            footprint=lambda b: 2 * 17 * b,
        ),
        Experiment(
            "blocking",
            "bench/bench_suite",
            2,
            "MPI_Send vs MPI_Isend (the call, and with MPI_Wait), contiguous and strided",
            "000 sec. 6.2",
            footprint=lambda b: 2 * 17 * b,
        ),
        Experiment(
            "ddt-vs-pack",
            "bench/bench_suite",
            2,
            "a vector datatype vs a user pack/unpack loop, strides 16, 32, 64",
            "000 sec. 6.3",
            footprint=lambda b: 2 * 65 * b,
        ),
        Experiment(
            "decompose",
            "bench/bench_suite",
            2,
            "Memory-LogP's o + l_p + l_m + L for the matrix transpose, 256^2 to 4096^2",
            "001 sec. 4, Fig. 2",
            ("mpi", "memcomm"),
            footprint=lambda n: 2 * 2 * 8 * n * n,
        ),
        Experiment(
            "cache-state",
            "bench/bench_suite",
            2,
            "ping-pong with the buffers flushed (INV), read (EXCL) or written (MOD) before",
            "004 SCN1",
            footprint=lambda b: 2 * 2 * b,
        ),
        Experiment(
            "pollution",
            "bench/bench_suite",
            2,
            "reading the message buffer after a transfer (INV, PRE) vs without one "
            "(BASE_INV, BASE_PRE)",
            "004 SCN2",
            footprint=lambda b: 2 * 2 * b,
        ),
        Experiment(
            "eager",
            "bench/bench_suite",
            2,
            "the eager limit, by delaying the receive",
            "004 (eager limit)",
            footprint=lambda b: 2 * b,
        ),
        Experiment(
            "latency",
            "bench/bench_suite",
            1,
            "load latency of a pointer chase over working sets: the cache sizes",
            "probe",
            footprint=lambda b: b + b // 8,
        ),
        Experiment(
            "copy",
            "bench/bench_suite",
            1,
            "memcpy bandwidth over buffer sizes",
            "probe",
            footprint=lambda b: 2 * b,
        ),
        Experiment(
            "tlb",
            "bench/bench_suite",
            1,
            "a chase over one line in each of N pages: the TLB's entries",
            "probe (001 sec. 5: T_p)",
            footprint=lambda pages: pages * 4096,
        ),
        Experiment(
            "layouts",
            "bench/bench_suite",
            1,
            "MPI_Pack of vectors, transposes and halo faces (62 layouts), for Memory-LogP",
            "001 sec. 4; 000 eq. 1",
            ("mpi", "memcomm"),
            footprint=lambda b: 64 * b + (512 << 20),
        ),
        Experiment(
            "logp",
            "bench/bench_suite",
            2,
            "parameterized round trips PRTT(n, d, s), 8 B to 16 MiB, for LogGP",
            "003 sec. 2; Hoefler et al. 2007",
            footprint=lambda b: 2 * b,
        ),
        Experiment(
            "pack",
            "bench/bench_pack",
            1,
            "pack/unpack bandwidth of 20 layouts: memcpy, the MPI, loops, memcomm",
            "001 sec. 5-6",
            ("memcomm",),
            suite=False,
        ),
        Experiment(
            "pingpong",
            "bench/bench_pingpong",
            2,
            "the paper's transpose ping-pong and ddtbench-like layouts, every method",
            "001 sec. 6",
            ("memcomm",),
            suite=False,
        ),
        Experiment(
            "collectives",
            "bench/bench_collectives",
            2,
            "FFT redistributions as Alltoall/Alltoallw of derived types (FFT2 transpose, "
            "blocks, x- to y-slabs), every method",
            "ddtbench FFT2 (EuroMPI 2012); slab FFTs",
            ("memcomm",),
            suite=False,
        ),
        Experiment(
            "io",
            "bench/bench_io",
            2,
            "MPI-IO of ghost-cell interiors, columns and subarrays from derived memory types, "
            "collective and independent, every method (--sizes: bytes per rank)",
            "parallel HDF5's and PnetCDF's hyperslabs",
            ("memcomm",),
            suite=False,
            # each rank: the layout's array (up to 4x its data for the subarray), a copy to
            # read into, the contiguous bytes, memcomm's staging and its part of the file
            footprint=lambda b: 2 * (4 + 4 + 1 + 1 + 1) * b,
        ),
        Experiment(
            "lifecycle",
            "bench/bench_lifecycle",
            2,
            "what a type's life costs: commit of a type never moved; ddtbench's micro-apps "
            "re-creating their type every 20 exchanges",
            "ddtbench (EuroMPI 2012)",
            ("memcomm",),
            suite=False,
        ),
        Experiment(
            "stencil",
            "bench/bench_stencil",
            2,
            "Pellegrini et al.'s 3-point stencil: the halo exchange placed as Listings 1-3, strip "
            "mined, and as a column datatype with and without memcomm (--sizes: row bytes)",
            "004 sec. V",
            ("memcomm",),
            suite=False,
            footprint=lambda b: 2 * 2 * 2 * min(max((512 << 20) // b, 8), 64) * b,
        ),
        Experiment(
            "diamond",
            "bench/bench_diamond",
            2,
            "LoGPC's Diamond DAG: stripe-partitioned dynamic programming, makespan by "
            "block count b (n x n tasks; --sizes are n)",
            "003 sec. 5.2",
            suite=False,
            any_ranks=True,
        ),
        Experiment(
            "em3d",
            "bench/bench_em3d",
            2,
            "LoGPC's EM3D: the communication phase of a half-step by the share of non-local "
            "edges (--sizes: percent), 10 values per message",
            "003 sec. 5.3",
            suite=False,
            any_ranks=True,
        ),
    ]
}
# `probes` runs these in turn
PROBES = ("eager", "latency", "tlb", "copy")


def lookup(name: str) -> list[Experiment]:
    if name == "probes":
        return [EXPERIMENTS[p] for p in PROBES]
    if name not in EXPERIMENTS:
        known = ", ".join([*EXPERIMENTS, "probes"])
        raise MemcommError(f"unknown experiment {name!r}: available: {known}")
    return [EXPERIMENTS[name]]


class Progress:
    """One line on stderr, at most every `every` seconds: what is running and how far."""

    def __init__(self, label: str, every: float = 2.0, enabled: bool = True) -> None:
        self.label, self.every, self.enabled = label, every, enabled
        self.start = self.last = time.monotonic()
        self.count = 0
        self.current = ""

    def result(self, record: dict[str, Any]) -> None:
        self.count += 1
        self.current = f"{record.get('method', '')} {record.get('bytes', '')} B"
        self.tick()

    def tick(self) -> None:
        now = time.monotonic()
        if self.enabled and now - self.last >= self.every:
            self.last = now
            print(
                f"  {self.label}: {self.count} measurements, {now - self.start:.0f} s "
                f"(last: {self.current})",
                file=sys.stderr,
            )


def meta(
    build: runner.Build,
    experiment: Experiment,
    engine: str,
    parameters: dict[str, Any],
    command: list[str],
) -> dict[str, Any]:
    """The meta record that starts a run's records."""
    return results.meta_record(
        experiment.name,
        engine,
        build.mpi,
        runner.mpi_library_version(build),
        runner.machine_model(build),
        parameters,
        command,
    )


def check_ranks(experiment: Experiment, ranks: int | None) -> int:
    """The ranks to run `experiment` on: its own number unless it runs on any (`--np`)."""
    if ranks is None or ranks == experiment.ranks:
        return experiment.ranks
    if not (experiment.any_ranks and ranks > experiment.ranks):
        more = " or more" if experiment.any_ranks else ""
        rank_s = "rank" if experiment.ranks == 1 else "ranks"
        raise MemcommError(
            f"{experiment.name} runs on {experiment.ranks} {rank_s}{more}: got {ranks}"
        )
    return ranks


def run(
    build: runner.Build,
    experiment: Experiment,
    engine: str,
    program_args: Sequence[str],
    parameters: dict[str, Any],
    writer: results.Writer,
    show_progress: bool = True,
    transport: str = "default",
    ranks: int | None = None,
) -> None:
    """Run one experiment once (one engine) over `transport` on `ranks` (the experiment's own
    number unless it runs on any), writing its records."""
    ranks = check_ranks(experiment, ranks)
    program = build.program(experiment.program)
    preload = engine == "memcomm" and experiment.suite
    if preload:  # past memcomm's path trials (up to 32 calls of a message), as a program is
        program_args = ["--warmup-calls", str(MEMCOMM_WARMUP_CALLS), *program_args]
        parameters = {**parameters, "warmup_calls": MEMCOMM_WARMUP_CALLS}
    if experiment.suite:
        program_args = [experiment.name, *program_args]
    writer.write(
        meta(
            build,
            experiment,
            engine,
            {**parameters, "ranks": ranks, "pinned": True},
            [str(program), *program_args],
        )
    )
    over = "" if transport == "default" else f" over {transport}"
    progress = Progress(f"{experiment.name} ({engine}, {build.mpi}{over})", enabled=show_progress)

    said: list[str] = []  # the program's own messages: shown once it succeeded (a failure
    # raises MemcommError carrying them, as one line)

    def on_stderr(line: str) -> None:
        if line.startswith("progress:"):
            progress.tick()
        elif line.strip():
            said.append(line)

    lines = runner.stream(build, ranks, program, program_args, preload, on_stderr, transport)
    for line in lines:
        if not line.startswith("{"):
            if line.strip():
                print(line.rstrip("\n"), file=sys.stderr)
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise MemcommError(f"{program.name} wrote a malformed record: {line[:80]!r}") from error
        record.setdefault("engine", engine)
        writer.write(record)
        if record.get("kind") == "result":
            progress.result(record)
    for line in said:
        print(line, file=sys.stderr)


SIZE = re.compile(r"^(\d+)([KMG]?)$")


def parse_sizes(text: str) -> list[int]:
    """A --sizes list as the benchmark programs read it: "64,4K,1M"."""
    sizes = []
    for item in text.split(","):
        match = SIZE.match(item.strip())
        if not match:
            raise MemcommError(
                f"malformed size {item!r} in --sizes: use numbers with an "
                "optional K, M or G, comma-separated"
            )
        sizes.append(int(match[1]) << {"": 0, "K": 10, "M": 20, "G": 30}[match[2]])
    return sizes


def available_memory() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def check_memory(experiment: Experiment, sizes: str | None) -> None:
    """Refuse sizes whose buffers would not fit in the free memory, before starting."""
    if not sizes:
        return
    free = available_memory()
    if free is None:
        return
    for size in parse_sizes(sizes):
        need = experiment.footprint(size)
        if need > free:
            raise MemcommError(
                f"{experiment.name} at size {size} needs about {need / 2**30:.1f} GiB, more than "
                f"the {free / 2**30:.1f} GiB of free memory: choose smaller --sizes"
            )


def output_path(given: str | None, experiment: str, mpi: str) -> Path:
    """Where results go: the file given, or results/<experiment>-<mpi>-<date>.jsonl."""
    if given:
        return Path(given)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path("results") / f"{experiment}-{mpi}-{stamp}.jsonl"


def suite_arguments(options: dict[str, Any]) -> list[str]:
    """The suite program's timing and size options from the runner's."""
    names = {
        "sizes": "--sizes",
        "min_reps": "--min-reps",
        "max_reps": "--max-reps",
        "rse": "--rse",
        "cap": "--cap",
        "warmup": "--warmup",
        "min_sample": "--min-sample",
    }
    out: list[str] = []
    for key, flag in names.items():
        if options.get(key) is not None:
            out += [flag, str(options[key])]
    return out


# ---- simulated cache counts (cachegrind), where the machine has no hardware counters ----

# experiment -> (layouts, message size -> the program's --size, default --sizes: modest,
# since cachegrind runs some 50 times slower) for its single-process part
SIMULATED: dict[str, tuple[tuple[str, ...], Callable[[int], int], str]] = {
    "ddt-vs-pack": (("stride16", "stride32", "stride64"), lambda size: size // 8, "4K,64K,1M"),
    "decompose": (("transpose",), lambda side: side, "256,512"),
}


def cachegrind_counts(command: list[str], preload: Path | None) -> tuple[dict[str, int], str]:
    """Run `command` under cachegrind; the event totals and the simulated caches."""
    with tempfile.TemporaryDirectory() as directory:
        out = Path(directory) / "cachegrind.out"
        env = {**runner.mpi_environment(), **({"LD_PRELOAD": str(preload)} if preload else {})}
        try:
            done = subprocess.run(
                ["valgrind", "--tool=cachegrind", "--cache-sim=yes",
                 f"--cachegrind-out-file={out}", *command],
                env=env, capture_output=True, text=True, check=False,
            )  # fmt: skip
        except OSError as error:
            raise MemcommError(f"cannot run valgrind: {error.strerror}") from error
        if done.returncode != 0 or not out.exists():
            said = " / ".join(line for line in done.stderr.splitlines() if "==" not in line)
            raise MemcommError(f"the simulated run failed (exit {done.returncode}): {said[-300:]}")
        events: list[str] = []
        totals: list[int] = []
        caches = []
        for line in out.read_text().splitlines():
            if line.startswith("desc:") and "cache:" in line:
                caches.append(line[5:].strip())
            elif line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("summary:"):
                totals = [int(v) for v in line.split()[1:]]
    return dict(zip(events, totals, strict=False)), "; ".join(caches)


def check_simulation(experiment: Experiment) -> None:
    """Whether --simulate can run for this experiment here; checked before anything starts."""
    if experiment.name not in SIMULATED and experiment.name != "pingpong":
        known = ", ".join(SIMULATED)
        raise MemcommError(
            f"--simulate covers the single-process parts of {known}, and pingpong's latency"
        )
    if shutil.which("valgrind") is None:
        raise MemcommError("--simulate needs valgrind (cachegrind): apt install valgrind")


def simulate(
    build: runner.Build,
    experiment: Experiment,
    engine: str,
    parameters: dict[str, Any],
    writer: results.Writer,
) -> None:
    """Simulated cache events per pack of each layout and method, labelled as simulated.

    Each count is (run with the packs - the same run without them) / repeat; the MPI's
    start-up varies by some 1e5 instructions from run to run, so every run packs about 4M
    elements in all, leaving that noise at a few instructions per pack."""
    if experiment.name == "pingpong":
        simulate_calls(build, experiment, parameters, writer)
        return
    layouts, size_of, default_sizes = SIMULATED[experiment.name]
    sizes = parameters.get("sizes") or default_sizes
    program = build.program("bench/bench_suite")
    writer.write(
        meta(
            build,
            experiment,
            engine,
            {**parameters, "simulate": "cachegrind"},
            ["valgrind", "--tool=cachegrind", str(program), "simulate"],
        )
    )
    version = subprocess.run(
        ["valgrind", "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    for size in parse_sizes(sizes):
        for layout in layouts:
            elements = size_of(size) ** 2 if layout == "transpose" else size_of(size)
            repeat = max(4, (1 << 22) // max(elements, 1))
            base = [str(program), "simulate", "--layout", layout, "--size",
                    str(size_of(size)), "--repeat", str(repeat)]  # fmt: skip
            preload = build.library if engine == "memcomm" else None
            floor, _ = cachegrind_counts([*base, "--method", "none"], preload)
            for method in ("datatype", "user"):
                if engine == "memcomm" and method == "user":
                    continue  # the user's loop does not change with memcomm
                counts, caches = cachegrind_counts([*base, "--method", method], preload)
                writer.write({
                    "kind": "simulated", "experiment": experiment.name,
                    "method": "datatype" if method == "datatype" else "user pack",
                    "layout": layout, "bytes": size if experiment.name != "decompose"
                    else 8 * size * size, "engine": engine,
                    "tool": f"{version} cachegrind, simulated caches: {caches}",
                    "events": {k: (v - floor.get(k, 0)) / repeat for k, v in counts.items()},
                })  # fmt: skip


# ---- instructions memcomm adds to a call it does not carry (callgrind) ----

CALLS_REPEATS = (2000, 4000)


# the sends counted (bench/exp_calls.c): one MPI_DOUBLE and a derived type of one run of
# memory, which memcomm hands to the MPI; a struct of absolute addresses sent from MPI_BOTTOM
# and a NAS LU face, which memcomm carries, counted on the MPI's own path (what a layout that
# memcomm measured slower packed costs): (layout, bytes, bench_suite's --layout, environment)
CALLS_LAYOUTS = (
    ("1 MPI_DOUBLE", 8, "double", ()),
    ("contiguous(64, MPI_DOUBLE), a derived type", 64 * 8, "contiguous", ()),
    (
        "struct of 8 + 56 doubles at MPI_BOTTOM, carried on the MPI's own path",
        64 * 8,
        "bottom",
        ("MEMCOMM_SEND_PATH=mpi",),
    ),
    (
        "vector(144, 5, 60) of doubles, carried on the MPI's own path",
        144 * 5 * 8,
        "vector",
        ("MEMCOMM_SEND_PATH=mpi",),
    ),
)


def callgrind_instructions(
    build: runner.Build,
    repeat: int,
    preload: bool,
    layout: str = "double",
    environment: Sequence[str] = (),
) -> int:
    """Instructions executed inside rank 0's `repeat` sends (bench_suite calls, of one of
    CALLS_LAYOUTS), counted by callgrind."""
    with tempfile.TemporaryDirectory() as directory:
        command = [
            *(["env", f"LD_PRELOAD={build.library}", *environment] if preload else []),
            "valgrind", "-q", "--tool=callgrind", "--collect-atstart=no",
            "--toggle-collect=counted_send", f"--callgrind-out-file={directory}/callgrind.%p",
            str(build.program("bench/bench_suite")), "calls", "--repeat", str(repeat),
            "--layout", layout,
        ]  # fmt: skip
        done = runner.launch(build, 2, command[0], command[1:], capture=True)
        counts = [
            int(line.split()[1])
            for out in Path(directory).glob("callgrind.*")
            for line in out.read_text().splitlines()
            if line.startswith("summary:")
        ]
        if done.returncode != 0 or len(counts) != 2:
            said = " / ".join(line for line in done.stderr.splitlines() if "==" not in line)
            raise MemcommError(f"the callgrind run failed (exit {done.returncode}): {said[-300:]}")
    return sum(counts)


def simulate_calls(
    build: runner.Build, experiment: Experiment, parameters: dict[str, Any], writer: results.Writer
) -> None:
    """Instructions per send of each of CALLS_LAYOUTS, with and without memcomm: the
    difference of two runs' counts over the difference of their sends, so that what happens
    once (MPI's first send to a peer, memcomm's first look at a type) cancels out."""
    version = subprocess.run(
        ["valgrind", "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    writer.write(
        meta(
            build,
            experiment,
            "memcomm",
            {**parameters, "simulate": "callgrind", "repeats": list(CALLS_REPEATS)},
            ["valgrind", "--tool=callgrind", "--toggle-collect=counted_send",
             str(build.program("bench/bench_suite")), "calls"],
        )
    )  # fmt: skip
    for (layout, size, flag, environment), engine in itertools.product(
        CALLS_LAYOUTS, ("mpi", "memcomm")
    ):
        preload = engine == "memcomm"
        for _attempt in range(CALLS_ATTEMPTS):
            counts = [
                callgrind_instructions(build, r, preload, flag, environment) for r in CALLS_REPEATS
            ]
            if counts[1] > counts[0]:
                break
        writer.write({
            "kind": "simulated", "experiment": experiment.name, "method": "MPI_Send",
            "layout": layout, "bytes": size, "engine": engine,
            "tool": f"{version} callgrind, instructions in rank 0's sends",
            **send_instructions(counts),
            "totals": dict(zip([str(r) for r in CALLS_REPEATS], counts, strict=True)),
        })  # fmt: skip


# An MPI that polls while its peer is descheduled (Open MPI on a loaded machine) counts
# instructions that follow the time: the more sends can then count fewer. Such a pair of
# runs is counted again, this many times at most, before it is reported as not countable.
CALLS_ATTEMPTS = 3


def send_instructions(counts: Sequence[int]) -> dict[str, Any]:
    """The events of one send from the counts of CALLS_REPEATS sends, or a note where the
    counts did not grow with the sends."""
    few, many = CALLS_REPEATS
    if counts[1] > counts[0]:
        return {"events": {"Ir": (counts[1] - counts[0]) / (many - few)}}
    return {
        "events": {},
        "note": f"{many} sends counted no more instructions than {few} "
        f"({counts[1]:,} against {counts[0]:,}): the MPI polled while its peer waited for a "
        "core, so the counts followed the time; count again on a quieter machine",
    }
