"""`memcomm` on the command line.

Each subcommand is a plain function taking the parsed arguments and returning an exit code;
they share one parent parser for the options every command has (--mpi, --json).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from memcomm import __version__, report, runner
from memcomm.runner import MemcommError

Command = Callable[[argparse.Namespace], int]
COMMANDS: dict[str, tuple[Command, str]] = {}


def command(name: str, help_text: str) -> Callable[[Command], Command]:
    def register(fn: Command) -> Command:
        COMMANDS[name] = (fn, help_text)
        return fn

    return register


@command("info", "show the memcomm build and the MPI it uses")
def info(args: argparse.Namespace) -> int:
    build = runner.find_build(args.mpi)
    details = {
        "memcomm": __version__,
        "mpi": build.mpi,
        "build": str(build.directory),
        "library": str(build.library),
        "mpiexec": build.mpiexec,
        "preload": f"LD_PRELOAD={build.library}",
    }
    if args.json:
        print(json.dumps(details, indent=2))
    else:
        for key, value in details.items():
            print(f"{key:8} {value}")
    return 0


@command("machine", "show the machine model the planner uses, and where each value came from")
def machine(args: argparse.Namespace) -> int:
    build = runner.find_build(args.mpi)
    probe: dict[str, Any] | None = None
    if args.probe:  # before the model is read: the library reads the probe file once
        probe = runner.machine_probe(build)
        path = runner.machine_file()
        if path is not None:
            runner.save_probe(probe, path)
    model = runner.machine_model(build)
    if args.json:
        print(json.dumps({"model": model, "probe": probe} if probe else model, indent=2))
        return 0
    if probe:
        print(report.probe_text(probe))
        where = runner.machine_file()
        print(f"(kept in {where} for later runs on this CPU model)\n" if where else "")
        # this process read the model before the probe wrote its file: show a fresh one
        return subprocess.run(
            [sys.executable, "-m", "memcomm.cli", "machine", "--mpi", args.mpi], check=False
        ).returncode
    rows = [
        [name.lower(), str(field["value"]), str(field["source"])] for name, field in model.items()
    ]
    print(report.format_table(["parameter", "value", "from"], rows))
    print("(override any of them with MEMCOMM_<PARAMETER>, e.g. MEMCOMM_TLB_ENTRIES=1536)")
    return 0


@command("run", "run an unchanged MPI program with memcomm preloaded on every rank")
def run(args: argparse.Namespace) -> int:
    program = [a for a in args.program if a != "--"]
    if not program:
        raise MemcommError("give the program to run: memcomm run [-n N] -- PROGRAM [ARGS]")
    build = runner.find_build(args.mpi)
    return runner.launch_preloaded(build, args.np, program[0], program[1:]).returncode


@command("explain", "run an MPI program under memcomm and say what it decided for each type")
def explain(args: argparse.Namespace) -> int:
    if not args.program:
        raise MemcommError("give the program to run: memcomm explain [--np N] -- PROGRAM [ARGS]")
    build = runner.find_build(args.mpi)
    program, *program_args = [a for a in args.program if a != "--"] or [""]
    result = runner.launch_preloaded(
        build, args.np, program, program_args, capture=True, extra_env={"MEMCOMM_EXPLAIN": "1"}
    )
    found, other = runner.explanations(result.stderr)
    sys.stdout.write(result.stdout)
    for line in other:
        print(line, file=sys.stderr)
    if args.json:
        print(json.dumps([vars(e) for e in found], indent=2))
        return result.returncode
    # each distinct decision once, with the ranks that made it
    distinct: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    for e in found:
        distinct.setdefault((e.what, tuple(e.lines)), []).append(e.rank)
    print(f"\n== memcomm explain: {len(distinct)} distinct decisions in {args.np} rank(s)")
    for (what, lines), ranks in distinct.items():
        print(f"\n{what} (ranks {', '.join(map(str, sorted(set(ranks))))})")
        for line in lines:
            print(f"  {line}")
    return result.returncode


@command("check", "differential test: memcomm's pack/unpack against the MPI's own")
def check(args: argparse.Namespace) -> int:
    build = runner.find_build(args.mpi)
    extra = ["--types", str(args.types)]
    if args.seed is not None:
        extra += ["--seed", str(args.seed)]
    result = runner.launch(build, args.np, build.program("tests/difftest"), extra)
    return result.returncode


EXPERIMENTS = ("pack", "pingpong")
# transpose sides each experiment uses when --sizes is not given
DEFAULT_SIZES = {"pack": "512,1024,2048,4096,8192", "pingpong": "256,512,1024,2048,4096"}


def run_benchmark(
    args: argparse.Namespace, build: runner.Build, name: str, nprocs: int, bench_args: list[str]
) -> list[dict[str, Any]] | None:
    """Run bench/<name> and keep its records (--json FILE); None when they went to stdout."""
    if args.only:
        bench_args += ["--only", args.only]
    program = build.program(f"bench/{name}")
    result = runner.launch(build, nprocs, program, bench_args, capture=True)
    if result.returncode != 0:
        sys.stderr.write(result.stderr)
        raise MemcommError(f"{name} failed under {build.mpi} (exit {result.returncode})")
    records = [{**r, "mpi": build.mpi} for r in runner.json_records(result.stdout)]
    lines = "".join(json.dumps(r) + "\n" for r in records)
    if args.json == "-":
        sys.stdout.write(lines)
        return None
    if args.json:
        Path(args.json).write_text(lines)
    return records


@command("bench", "run a benchmark experiment (pack, pingpong)")
def bench(args: argparse.Namespace) -> int:
    if args.experiment not in EXPERIMENTS:
        raise MemcommError(
            f"unknown experiment {args.experiment!r}: available: {', '.join(EXPERIMENTS)}"
        )
    build = runner.find_build(args.mpi)
    sizes = args.sizes or DEFAULT_SIZES[args.experiment]
    if args.experiment == "pingpong":
        bench_args = ["--reps", str(args.reps), "--sizes", sizes]
        records = run_benchmark(args, build, "bench_pingpong", 2, bench_args)
        if records is not None:
            print(
                f"ping-pong between 2 ranks, {build.mpi}: half round trip, median of "
                f"{args.reps} (the sender's layout, received contiguously)"
            )
            print(report.pingpong_table(report.pack_rows(records, "pingpong")))
        return 0
    bench_args = ["--reps", str(args.reps), "--sizes", sizes, "--scale", str(args.scale)]
    records = run_benchmark(args, build, "bench_pack", 1, bench_args)
    if records is None:
        return 0
    rows = report.pack_rows(records)
    for direction in ("pack", "unpack"):
        print(
            f"\n{direction} bandwidth (GB/s of packed bytes), {build.mpi}, median of {args.reps} "
            f"repetitions (memcomm/MPI > 1 means memcomm is faster)"
        )
        print(report.pack_table(rows, direction))
    print()
    print(report.summary(rows))
    return 0


@command("report", "tables from benchmark records (JSON lines), e.g. of both MPIs together")
def report_command(args: argparse.Namespace) -> int:
    records = []
    for name in args.files:
        try:
            text = Path(name).read_text()
        except OSError as error:
            raise MemcommError(f"cannot read {name}: {error.strerror}") from error
        records += list(runner.json_records(text))
    if not any(r.get("experiment") == "pack" for r in records):
        raise MemcommError("no pack records in the files given")
    print(report.across_mpis(records, markdown=args.markdown))
    return 0


@command("demo", "the main job: differential check, then a pack comparison")
def demo(args: argparse.Namespace) -> int:
    print(f"== memcomm {__version__} on {args.mpi}: differential check against the MPI's pack")
    args.types, args.seed, args.np = 10000, None, 2
    if check(args) != 0:
        return 1
    print(f"\n== pack comparison on {args.mpi}")
    args.experiment, args.reps, args.sizes, args.scale, args.only = "pack", 7, "1024,4096", 1, ""
    if bench(args) != 0:
        return 1
    print(f"\n== transpose ping-pong on {args.mpi}")
    args.experiment, args.sizes, args.only = "pingpong", "256,512,1024,2048,4096", "transpose"
    return bench(args)


def parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--mpi", default="mpich", choices=runner.MPIS, help="which build to use (default: mpich)"
    )
    common.add_argument(
        "--json", metavar="FILE", nargs="?", const="-", help="machine-readable output"
    )
    top = argparse.ArgumentParser(prog="memcomm", description=__doc__)
    top.add_argument("--version", action="version", version=f"memcomm {__version__}")
    sub = top.add_subparsers(dest="command", required=True)
    for name, (_, help_text) in COMMANDS.items():
        p = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        if name == "check":
            p.add_argument("--types", type=int, default=10000, help="random types per rank")
            p.add_argument("--seed", type=int, help="reproduce a run (default: from the clock)")
            p.add_argument("--np", type=int, default=1, help="MPI ranks")
        if name == "report":
            p.add_argument("files", nargs="+", help="JSON-lines files from `memcomm bench --json`")
            p.add_argument("--markdown", action="store_true", help="a Markdown table")
        if name == "run":
            p.add_argument("-n", "--np", type=int, default=1, help="MPI ranks")
            p.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM [ARGS...]")
        if name == "explain":
            p.add_argument("--np", type=int, default=1, help="MPI ranks")
            p.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM [ARGS...]")
        if name == "machine":
            p.add_argument(
                "--probe",
                action="store_true",
                help="measure TLB entries, streaming threshold and copy bandwidth (~2 s), "
                "and keep them for later runs",
            )
        if name == "bench":
            p.add_argument("experiment", help=" or ".join(EXPERIMENTS))
            p.add_argument("--reps", type=int, default=7, help="timed repetitions (median)")
            p.add_argument(
                "--sizes",
                default=None,
                help="transpose sides, comma-separated (default: pack 512 to 8192, "
                "pingpong 256 to 4096)",
            )
            p.add_argument(
                "--scale", type=int, default=1, help="divide the other patterns' sizes (1-64)"
            )
            p.add_argument("--only", default="", help="only patterns whose name contains this")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    handler, _ = COMMANDS[args.command]
    try:
        return handler(args)
    except MemcommError as error:
        print(f"memcomm: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
