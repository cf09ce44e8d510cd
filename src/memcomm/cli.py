"""`memcomm` on the command line.

Each subcommand is a plain function taking the parsed arguments and returning an exit code;
they share one parent parser for the options every command has (--mpi, --json).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from memcomm import __version__, experiments, references, report, results, runner
from memcomm.models import em3d, logp, logpc, memory
from memcomm.report import advice, analysis, html
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
    print(
        "(override any of them but residency_ticks, which is calibrated in each process,\n"
        " with MEMCOMM_<PARAMETER>, e.g. MEMCOMM_TLB_ENTRIES=64)"
    )
    return 0


@command("run", "run an unchanged MPI program with memcomm preloaded on every rank")
def run(args: argparse.Namespace) -> int:
    program = [a for a in args.program if a != "--"]
    if not program:
        raise MemcommError("give the program to run: memcomm run [-n N] -- PROGRAM [ARGS]")
    build = runner.build_for_program(program[0], args.mpi)
    return runner.launch_preloaded(build, args.np, program[0], program[1:]).returncode


@command(
    "preload",
    "print the environment that preloads the program's build of memcomm, for a launcher's env",
)
def preload(args: argparse.Namespace) -> int:
    """`srun -n 64 env $(memcomm preload -- ./prog) ./prog`: the same choice as `memcomm run`,
    for launchers memcomm does not start itself."""
    program = [a for a in args.program if a != "--"]
    if not program:
        raise MemcommError("give the program: memcomm preload -- PROGRAM")
    build = runner.build_for_program(program[0], args.mpi)
    settings = {"LD_PRELOAD": str(build.library)}
    if runner.python_interpreter(shutil.which(program[0]) or program[0]) is not None:
        settings.update(runner.python_settings(build))
    if args.json:
        print(json.dumps({"mpi": build.mpi, "environment": settings}, indent=2))
    else:
        print(" ".join(f"{key}={shlex.quote(value)}" for key, value in settings.items()))
    return 0


@command("explain", "run an MPI program under memcomm and say what it decided for each type")
def explain(args: argparse.Namespace) -> int:
    if not args.program:
        raise MemcommError("give the program to run: memcomm explain [--np N] -- PROGRAM [ARGS]")
    program, *program_args = [a for a in args.program if a != "--"] or [""]
    build = runner.build_for_program(program, args.mpi)
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


# transpose sides the pack and ping-pong benchmarks use when --sizes is not given
DEFAULT_SIZES = {
    "pack": "512,1024,2048,4096,8192",
    "pingpong": "256,512,1024,2048,4096",
    "collectives": "1024,2048,4096",
    "diamond": "2048,4096",
    "io": "1M,16M,128M",
    "em3d": "10,20,40,60,80,100",
    "stencil": "64,256,1K,4K,16K,64K,256K,1M,4M,16M,64M",
}
# --quick: small sizes and few samples, for a first look (and the tests)
QUICK_SIZES = {
    "noncontig": "64,4K,256K",
    "blocking": "4K,256K",
    "ddt-vs-pack": "4K,64K",
    "decompose": "256,512",
    "cache-state": "4K,256K,4M",
    "pollution": "4K,256K,4M",
    "eager": "1K,16K,64K,256K",
    "latency": "16K,1M,32M",
    "copy": "64K,16M",
    "pack": "256",
    "pingpong": "256,512",
    "collectives": "256",
    "diamond": "256",
    "io": "1M",
    "em3d": "10,50",
    "stencil": "64,4K,256K",
    "logp": "8,1K,64K,1M,4M",
    "tlb": "16,64,256,1K",
    "layouts": "64K",
}


def counters_note(run: results.Run) -> str:
    """What the run said about hardware counters, in one line."""
    for record in run.others:
        if record.get("kind") == "counters":
            if record.get("available"):
                return f"hardware counters: {', '.join(record['available'])}"
            return f"hardware counters unavailable: {record.get('reason', 'no reason given')}"
    return ""


def program_arguments(
    args: argparse.Namespace, experiment: experiments.Experiment
) -> tuple[list[str], dict[str, Any]]:
    """The benchmark program's options, and the parameters recorded in the meta record."""
    sizes = args.sizes or (QUICK_SIZES.get(experiment.name) if args.quick else None)
    if not experiment.suite:
        reps = args.reps or (3 if args.quick else 7)
        program = ["--reps", str(reps)]
        parameters: dict[str, Any] = {"reps": reps, "only": args.only}
        if experiment.name in DEFAULT_SIZES:
            parameters["sizes"] = sizes or DEFAULT_SIZES[experiment.name]
            program += ["--sizes", parameters["sizes"]]
        if experiment.name == "pack":
            program += ["--scale", str(args.scale if not args.quick else 64)]
        if experiment.name == "collectives":
            parameters["slabs"] = args.slabs or ("64" if args.quick else "128,256,512")
            parameters["halos"] = args.halos or ("32" if args.quick else "64,128,256")
            program += ["--slabs", parameters["slabs"], "--halos", parameters["halos"]]
            # short patterns take more turns, up to a second of calls (none when quick)
            parameters["seconds"] = 0 if args.quick else 1
            program += ["--seconds", str(parameters["seconds"])]
        if args.only:
            program += ["--only", args.only]
        if experiment.name == "pack" and args.methods:
            parameters["methods"] = args.methods
            program += ["--methods", args.methods]
        if experiment.name == "pack":
            parameters["cache"] = args.cache
            program += ["--cache", args.cache]
        if experiment.name in ("io", "lifecycle"):
            # at least --reps turns, more for short calls (up to a second of them; none when
            # quick)
            parameters["seconds"] = 0 if args.quick else 1
            program += ["--seconds", str(parameters["seconds"])]
        if experiment.name == "io":
            # the file in a file system in memory unless --dir says otherwise
            if args.dir:
                parameters["dir"] = args.dir
                program += ["--dir", args.dir]
            parameters["files"] = args.files
            program += ["--files", args.files]
        if experiment.name == "em3d" and args.span:
            parameters["span"] = args.span
            program += ["--span", str(args.span)]
        if experiment.name == "lifecycle" and args.exchanges:
            parameters["exchanges"] = args.exchanges
            program += ["--exchanges", str(args.exchanges)]
        return program, parameters
    options: dict[str, Any] = {
        "sizes": sizes,
        "min_reps": args.min_reps,
        "max_reps": args.max_reps or args.reps,
        "rse": args.rse,
        "cap": args.cap,
        "warmup": args.warmup,
    }
    if args.quick:
        options = {
            "min_reps": 5,
            "max_reps": 15,
            "cap": 0.5,
            **{k: v for k, v in options.items() if v is not None},
        }
    program = experiments.suite_arguments(options)
    if experiment.name == "eager" and args.delay is not None:
        program += ["--delay", str(args.delay)]
    return program, {k: v for k, v in options.items() if v is not None}


def run_planned(
    args: argparse.Namespace,
    build: runner.Build,
    experiment: experiments.Experiment,
    engine: str,
    program_args: list[str],
    parameters: dict[str, Any],
    writer: results.Writer,
) -> None:
    """One planned run of `memcomm bench`: counted by a simulator, or measured."""
    if args.simulate:
        experiments.simulate(build, experiment, engine, parameters, writer)
        return
    experiments.run(
        build,
        experiment,
        engine,
        program_args,
        parameters,
        writer,
        show_progress=not args.quiet,
        transport=args.transport,
        ranks=args.np,
    )


@command("bench", "run an experiment of the measurement suite (`memcomm bench list`)")
def bench(args: argparse.Namespace) -> int:
    if args.experiment == "list":
        rows = [
            [e.name, str(e.ranks), references.cite(e.source), e.summary]
            for e in experiments.EXPERIMENTS.values()
        ]
        rows.append(["probes", "-", "", "eager, latency, tlb and copy in turn"])
        print(report.format_table(["experiment", "ranks", "source", "what"], rows))
        return 0
    chosen = experiments.lookup(args.experiment)
    build = runner.find_build(args.mpi)
    planned = []  # everything checked before a file is opened or a program started
    for experiment in chosen:
        engines = experiment.default_engines
        if args.engine and experiment.suite:
            engines = ("mpi", "memcomm") if args.engine == "both" else (args.engine,)
        elif args.engine and args.engine not in experiment.default_engines:
            raise MemcommError(
                f"{experiment.name} measures the MPI's own calls and memcomm's in one run "
                f"(its mpi and memcomm columns): --engine {args.engine} applies to the "
                "suite's experiments (memcomm bench list)"
            )
        program_args, parameters = program_arguments(args, experiment)
        if args.transport != "default":
            if args.simulate:
                raise MemcommError("--simulate counts one process: it takes no --transport")
            parameters["transport"] = args.transport
        experiments.check_memory(experiment, parameters.get("sizes"))
        experiments.check_ranks(experiment, args.np)
        if args.simulate:
            experiments.check_simulation(experiment)
        planned += [(experiment, engine, program_args, parameters) for engine in engines]
    to_stdout = args.json == "-"
    path = None if to_stdout else experiments.output_path(args.json, args.experiment, build.mpi)
    if path is None:
        stream = sys.stdout
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        stream = open(path, "w", encoding="utf-8")  # noqa: SIM115
    try:
        writer = results.Writer(stream)
        with contextlib.ExitStack() as stack:
            if args.noisy_neighbour is not None:
                seed = args.noisy_neighbour or time.time_ns() % 1_000_000
                busy = stack.enter_context(runner.noisy_neighbour(seed))
                print(f"a busy neighbour on core {busy['core']}: {busy['busy']}")
            for experiment, engine, program_args, parameters in planned:
                if args.noisy_neighbour is not None:
                    parameters["noisy_neighbour"] = busy
                run_planned(args, build, experiment, engine, program_args, parameters, writer)
    finally:
        if stream is not sys.stdout:
            stream.close()
    if path is None:
        return 0
    written = results.read([path])
    for note in run_notes(written):
        print(note)
    for a in analyse_runs(written):
        print_analysis(a)
    print(f"\nresults: {path}  (memcomm report {path} -o report/ for plots)")
    return 0


def run_notes(runs: list[results.Run]) -> list[str]:
    """What the runs said of hardware counters, then of memory the kernel could page out
    during them (results.reclaim_note), each line once."""
    counters = {n for run in runs if (n := counters_note(run))}
    reclaims = {r for run in runs if (r := results.reclaim_note(run.meta.get("memory_policy", {})))}
    return sorted(counters) + sorted(reclaims)


def print_analysis(a: analysis.Analysis) -> None:
    print(f"\n== {a.title} ({references.cite(a.source)})")
    for t in a.tables:
        print(f"{t.title}\n{report.format_table(t.header, t.rows)}\n")
    for finding in a.findings:
        print(f"- {finding}")


def analyse_runs(runs: list[results.Run]) -> list[analysis.Analysis]:
    """Each experiment's analysis over all the runs given (any MPIs and engines)."""
    machine = runs[0].meta.get("machine", {})
    by_experiment: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        for record in run.results:
            by_experiment.setdefault(run.meta["experiment"], []).append(run.result(record))
    analyses = [analysis.analyse(name, found, machine) for name, found in by_experiment.items()]
    if "diamond" in by_experiment and "logp" in by_experiment:  # eq. 15 with this LogGP
        analyses.append(analysis.diamond_model(by_experiment["diamond"], by_experiment["logp"]))
    if "em3d" in by_experiment and "logp" in by_experiment:  # sec. 5.3 with this LogGP
        analyses.append(analysis.em3d_model(by_experiment["em3d"], by_experiment["logp"]))
    if "decompose" in by_experiment and "layouts" in by_experiment:  # Memory-LogP's send cost
        analyses.append(
            analysis.memory_send(by_experiment["decompose"], by_experiment["layouts"], machine)
        )
    analyses += advice_analysis(by_experiment, machine)
    simulated = [r for run in runs for r in run.others if r["kind"] == "simulated"]
    return analyses + ([analysis.simulated(simulated)] if simulated else [])


def advice_analysis(
    by_experiment: dict[str, list[dict[str, Any]]], machine: dict[str, Any]
) -> list[analysis.Analysis]:
    """Pellegrini, Hoefler and Fahringer's (CLUSTER 2012) rules for each MPI whose eager,
    cache-state and pollution runs are given."""
    needed = ("eager", "cache-state", "pollution")
    if not all(name in by_experiment for name in needed):
        return []
    llc = machine.get("LLC_SIZE", {}).get("value")
    found, checks = [], {}
    for mpi in sorted({str(r["mpi"]) for r in by_experiment["cache-state"]}):
        mine = {n: [r for r in by_experiment.get(n, []) if r["mpi"] == mpi] for n in needed}
        rules = advice.advise(
            mpi, mine["eager"], mine["cache-state"], mine["pollution"], float(llc) if llc else None
        )
        found.append(rules)
        stencil = [r for r in by_experiment.get("stencil", []) if r["mpi"] == mpi]
        checks[mpi] = advice.stencil_check(rules, stencil)
    return [advice.as_analysis(found, checks)]


def write_report(runs: list[results.Run], analyses: list[analysis.Analysis], out: str) -> None:
    page = html.write(analyses, [run.meta for run in runs], run_notes(runs), Path(out))
    print(f"\nreport: {page}")


@command("report", "summaries, tables and an HTML page with plots from results files")
def report_command(args: argparse.Namespace) -> int:
    runs = results.read(args.files)
    if args.markdown:
        pack = [
            run.result(r) for run in runs if run.meta["experiment"] == "pack" for r in run.results
        ]
        if not pack:
            raise MemcommError("--markdown makes the README's pack table: no pack results given")
        print(report.across_mpis(pack, markdown=True))
        return 0
    analyses = analyse_runs(runs)
    for a in analyses if not args.quiet else []:
        print_analysis(a)
    if args.output:
        write_report(runs, analyses, args.output)
    return 0


def logpc_text(k_d: float | None) -> str:
    """The LoGPC paper's numbers, recomputed from its own parameters (Tables 1-2)."""
    mesh, short = logpc.ALEWIFE_MESH, logpc.ALEWIFE_SHORT
    net = logpc.Contention.of(mesh) if k_d is None else logpc.Contention(2, k_d)
    F = net.bound_factor(logpc.ALEWIFE_LONG.G)
    rows = [
        [
            "average distance, random destinations (eq. 11)",
            f"{mesh.average_distance():.4g}",
            "3.875",
        ],
        [
            "average distance, i -> i+-1, row-major, wrap (eq. 12)",
            f"{mesh.neighbour_distance():.4g}",
            "1.875",
        ],
        ["synchronous remap, LogP (cycles)", f"{logpc.remap_synchronous(short, 0, 0):.0f}", "316"],
        [
            "synchronous remap, LoPC (C_r = o_s + o_r)",
            f"{logpc.remap_synchronous(short, 0, short.o_s + short.o_r):.0f}",
            "453",
        ],
        [
            "synchronous remap, LoGPC (paper's C_n = 23)",
            f"{logpc.remap_synchronous(short, 23, short.o_s + short.o_r):.0f}",
            "499",
        ],
        ["asynchronous remap", f"{logpc.remap_asynchronous(short):.0f}", "137"],
        [f"long-message remap, cycles per message / B (k_d = {net.k_d:.4g})", f"{F:.3f}", "2.22"],
        ["contention upper bound T_c/T (eq. 14)", f"{F / (2 * logpc.ALEWIFE_LONG.G):.3f}", "2.2"],
    ]
    return report.format_table(["quantity", "computed", "paper"], rows)


DIAMOND_MAPPINGS = ("snake", "row-major", "random")


def diamond_mappings() -> dict[str, logpc.Contention | None]:
    """The contention of each mapping of stripes to Alewife's 4 x 8 mesh (sec. 5.2.2):
    consecutive stripes on neighbours (snake), in node-number order (row-major, our reading
    of the default numbering), and on random nodes (eq. 11's average distance)."""
    mesh = logpc.ALEWIFE_MESH
    return {
        "snake": logpc.mapping_contention(
            mesh, logpc.stripe_distance(mesh, logpc.snake_order(mesh))
        ),
        "row-major": logpc.mapping_contention(
            mesh, logpc.stripe_distance(mesh, range(math.prod(mesh.radix)))
        ),
        "random": logpc.mapping_contention(mesh, mesh.average_distance()),
    }


def diamond_model(args: argparse.Namespace) -> dict[str, Any]:
    """Eq. 15 on the Alewife parameters (Table 2, cycles): the makespan by block count for
    LogP, LogGP and LoGPC on each mapping, and the paper's Fig. 9 sweep of bytes per block."""

    def dag(value_bytes: float) -> logpc.Diamond:
        return logpc.Diamond(
            n=args.n, P=args.procs, machine=logpc.ALEWIFE_LONG, alpha=args.alpha,
            value_bytes=value_bytes, task=args.task,
        )  # fmt: skip

    if not 1 <= args.blocks <= args.n:
        raise MemcommError(f"--blocks must be between 1 and n = {args.n}: got {args.blocks}")
    mappings = diamond_mappings()
    base = dag(args.value_bytes)
    blocks = [b for b in (2**i for i in range(args.n.bit_length())) if b <= args.n]
    columns = ["logp", "loggp", *(f"logpc {m}" for m in DIAMOND_MAPPINGS)]

    def predict(d: logpc.Diamond, b: int, column: str) -> float:
        if column.startswith("logpc "):
            return d.predict(b, "logpc", mappings[column.split()[1]])
        return d.predict(b, column)

    by_blocks = [{"b": b, **{c: predict(base, b, c) for c in columns}} for b in blocks]
    best = {c: min(by_blocks, key=lambda row: row[c])["b"] for c in columns}
    sweep = []
    for block_bytes in (16_000, 32_000, 64_000, 128_000, 320_000):
        d = dag(block_bytes * args.blocks / args.n)
        O_s, O_r, _ = d.overheads(args.blocks)
        row: dict[str, Any] = {"bytes per block": block_bytes}
        row["communication / computation"] = (O_s + O_r) / d.work(args.blocks)
        row.update({c: predict(d, args.blocks, c) for c in columns[1:]})
        sweep.append(row)
    return {
        "parameters": {
            "n": args.n,
            "P": args.procs,
            "task cycles": args.task,
            "alpha": args.alpha,
            "value bytes": args.value_bytes,
            "sweep blocks": args.blocks,
            "machine": "Alewife, Table 2 (cycles)",
        },
        "mappings": {
            m: (None if c is None else {"n": c.dimensions, "k_d": c.k_d})
            for m, c in mappings.items()
        },
        "by_blocks": by_blocks,
        "best_blocks": best,
        "sweep": sweep,
    }


def diamond_text(found: dict[str, Any]) -> str:
    p = found["parameters"]
    head = (
        f"Diamond DAG (LoGPC eq. 15), n = {p['n']}, P = {p['P']}, {p['task cycles']:g}-cycle "
        f"tasks, {p['value bytes']:g}-byte values, alpha = {p['alpha']:g}; {p['machine']}; "
        "makespans in million cycles. LoGPC adds the paper's upper bound on contention.\n"
    )
    columns = list(found["best_blocks"])
    rows = [[str(r["b"]), *(f"{r[c] / 1e6:.3f}" for c in columns)] for r in found["by_blocks"]]
    rows.append(["best b", *(str(found["best_blocks"][c]) for c in columns)])
    table = report.format_table(["b", *columns], rows)
    sweep_columns = ["loggp", *(c for c in columns if c.startswith("logpc"))]
    sweep_rows = [
        [
            f"{r['bytes per block']:,}",
            f"{r['communication / computation']:.3f}",
            *(f"{r[c] / 1e6:.2f}" for c in sweep_columns),
            f"{r['logpc random'] / r['logpc snake']:.2f}x",
        ]
        for r in found["sweep"]
    ]
    sweep = report.format_table(
        ["bytes per block", "comm/comp", *sweep_columns, "random / snake"], sweep_rows
    )
    distances = ", ".join(
        f"{m}: " + ("no shared channel" if c is None else f"k_d = {c['k_d']:.4g}")
        for m, c in found["mappings"].items()
    )
    notes = (
        f"mappings on the 4 x 8 mesh: {distances}\n"
        "The paper (Fig. 9, b = 64): no contention measured up to 16,000 bytes per block; "
        "contention from 32,000 (comm/comp 0.625) on the random mapping; at 320,000 the "
        "random mapping 56% slower than the perfect one, the default numbering up to 31%. "
        "The bound above is an upper bound; tests/python/test_logpc.py says which of these "
        "figures follow from the published parameters."
    )
    return (
        f"{head}\n{table}\n\nFig. 9's sweep: b = {p['sweep blocks']}, bytes per block "
        f"varied through the value size\n{sweep}\n\n{notes}"
    )


def em3d_model(args: argparse.Namespace) -> dict[str, Any]:
    """EM3D's communication phase on Alewife (Table 1's short messages, the 4 x 8 mesh) by
    span: LogP, and the simulated phase with each sending order, with LoGPC's C_n."""
    machine, mesh = logpc.ALEWIFE_SHORT, logpc.ALEWIFE_MESH
    try:
        spans = [int(x) for x in args.spans.split(",")]
    except ValueError as error:
        raise MemcommError(f"--spans takes integers separated by commas: {args.spans!r}") from error
    size = em3d.VALUE_BYTES * 10 + em3d.HEADER_BYTES
    rows = []
    for span in spans:
        graph = em3d.Graph(nodes=args.nodes, degree=args.degree, P=32, span=span)
        contention = em3d.message_contention(mesh, span, machine, size)
        row: dict[str, Any] = {
            "span": span,
            "hops": em3d.ring_distance(mesh, span),
            "C_n": contention,
            "messages": max(len(m) for m in graph.messages()),
        }
        for order in em3d.ORDERS:
            messages = graph.messages(order)
            row["logp"] = em3d.logp_phase(messages, machine)
            phase = em3d.simulate_phase(messages, machine, args.queue, contention)
            row[order] = {"phase": phase.time, "stall per processor": phase.stall / graph.P}
        rows.append(row)
    return {
        "parameters": {
            "nodes": args.nodes,
            "degree": args.degree,
            "P": 32,
            "values per message": 10,
            "message bytes": size,
            "queue": args.queue,
            "machine": "Alewife, Table 1 (cycles): o_s 15, o_r 122, L 21",
        },
        "spans": rows,
    }


def em3d_text(found: dict[str, Any]) -> str:
    p = found["parameters"]
    head = (
        f"EM3D's communication phase (LoGPC sec. 5.3): {p['nodes']} nodes of degree "
        f"{p['degree']} on {p['P']} processors, 100% non-local edges, {p['values per message']} "
        f"values per message, receivers hold {p['queue']} messages; {p['machine']}; cycles "
        "per half-step.\n"
    )
    body = []
    for r in found["spans"]:
        hot, fixed = r["by destination"], r["random"]
        body.append([
            str(r["span"]), f"{r['hops']:.2f}", f"{r['C_n']:.0f}", str(r["messages"]),
            f"{r['logp']:.0f}", f"{hot['phase']:.0f}", f"{hot['stall per processor']:.0f}",
            f"{fixed['phase']:.0f}", f"{fixed['stall per processor']:.0f}",
            f"{(1 - fixed['stall per processor'] / hot['stall per processor']) * 100:.0f}%"
            if hot["stall per processor"] > 0 else "-",
            f"{(1 - fixed['phase'] / hot['phase']) * 100:.0f}%",
        ])  # fmt: skip
    table = report.format_table(
        ["span", "hops", "C_n", "messages", "LogP", "by destination", "stall", "random",
         "stall", "stall saved", "phase saved"],
        body,
    )  # fmt: skip
    notes = (
        "LogP is the busiest processor's S o_s + R o_r. The simulated phases send in order of "
        "destination (the hot spot) or at random (the paper's fix), with LoGPC's C_n added to "
        "each message's latency; stall: time per processor with a message to send and its "
        "receiver's queue full. The paper measured 70% less stall and 20% less runtime with "
        "random order (Fig. 11); its runtime includes the computation, which it does not give."
    )
    return f"{head}\n{table}\n\n{notes}"


# what `memcomm advise` measures when no results are given: sizes that span the three ranges
ADVISE_SIZES = {
    "eager": "256,1K,4K,16K,64K,256K,1M",
    "cache-state": "64,256,1K,16K,256K,4M,64M",
    "pollution": "64,256,1K,16K,256K,4M,64M",
}


@command(
    "advise",
    "where to place communication calls: this machine's rules (Pellegrini et al.), a program's "
    "sites",
)
def advise_command(args: argparse.Namespace) -> int:
    build = runner.find_build(args.mpi)
    program = [a for a in args.program if a != "--"]
    if program and not (shutil.which(program[0]) or Path(program[0]).is_file()):
        raise MemcommError(f"cannot run {program[0]}: no such program")
    runs = results.read(args.results) if args.results else []

    def collected(name: str) -> list[dict[str, Any]]:
        return [
            run.result(r)
            for run in runs
            if run.meta["experiment"] == name and run.meta["mpi"]["name"] == build.mpi
            for r in run.results
        ]

    missing = [name for name in ADVISE_SIZES if not collected(name)]
    if missing:
        path = experiments.output_path(None, "advise", build.mpi)
        path.parent.mkdir(parents=True, exist_ok=True)
        print(f"measuring {', '.join(missing)} (quick; results in {path})", file=sys.stderr)
        with open(path, "w", encoding="utf-8") as stream:
            writer = results.Writer(stream)
            for name in missing:
                options = {"sizes": ADVISE_SIZES[name], "min_reps": 5, "max_reps": 15, "cap": 0.5}
                experiments.run(
                    build, experiments.EXPERIMENTS[name], "mpi",
                    experiments.suite_arguments(options), options, writer,
                    show_progress=not args.quiet,
                )  # fmt: skip
        runs += results.read([path])
    llc = runner.machine_model(build).get("LLC_SIZE", {}).get("value")
    found = advice.advise(
        build.mpi,
        collected("eager"),
        collected("cache-state"),
        collected("pollution"),
        float(llc) if llc else None,
    )
    if program:
        return advise_program(args, build, found, program)
    checks = advice.stencil_check(found, collected("stencil"))
    if args.json:
        out = found.as_json()
        out["stencil"] = [vars(c) for c in checks]
        print(json.dumps(out, indent=2))
    else:
        print(advice.text(found) + (advice.stencil_text(checks) if checks else ""))
    return 0


def advise_program(
    args: argparse.Namespace, build: runner.Build, rules: advice.Advice, program: list[str]
) -> int:
    """Run `program` under memcomm with the call-site recorder, then each site's advice."""
    if not build.recorder.exists():
        raise MemcommError(f"{build.recorder} is missing: run `make` first")
    with tempfile.TemporaryDirectory(prefix="memcomm-advise-") as directory:
        done = runner.launch_preloaded(
            build, args.np, program[0], program[1:], capture=True,
            extra_env={"MEMCOMM_RECORD_DIR": directory}, before=[build.recorder],
        )  # fmt: skip
        print(done.stdout, file=sys.stderr, end="")  # the program's own output, apart
        if done.returncode != 0:
            said = [line for line in done.stderr.splitlines() if line.strip()]
            raise MemcommError(
                f"{program[0]} failed (exit {done.returncode})"
                + (f": {said[-1].strip()[:300]}" if said else "")
            )
        records = [
            json.loads(line)
            for path in sorted(Path(directory).glob("sites.*.jsonl"))
            for line in path.read_text().splitlines()
            if line.strip()
        ]
    calls = [r for r in records if "call" in r]
    if not calls:
        raise MemcommError(
            f"{program[0]} made no communication call memcomm advise records (point-to-point "
            f"and the common collectives, int counts) on its {args.np} ranks"
        )
    names = advice.symbolize(calls, str(Path.cwd()))
    sites = advice.program_sites(rules, calls, names)
    if args.json:
        print(json.dumps({"machine": rules.as_json(), "sites": [vars(s) for s in sites]}, indent=2))
    else:
        print(advice.program_text(" ".join(program), args.np, rules, sites))
    return 0


@command("model", "fit and check the models (fit, validate FILES), or show LoGPC's numbers")
def model(args: argparse.Namespace) -> int:
    applications = {"em3d": (em3d_model, em3d_text), "diamond": (diamond_model, diamond_text)}
    if args.action in applications:
        compute, as_text = applications[args.action]
        found = compute(args)  # bad parameters fail before anything is printed
        if args.json and args.json != "-":
            Path(args.json).write_text(json.dumps(found, indent=2) + "\n")
        print(json.dumps(found, indent=2) if args.json == "-" else as_text(found))
        return 0
    if args.action == "logpc":
        text = logpc_text(args.k_d)  # bad parameters fail before anything is printed
        print("LoGPC on the MIT Alewife, from its Tables 1-2:")
        print(text)
        return 0
    if not args.files:
        raise MemcommError(
            f"memcomm model {args.action} needs results files (of `memcomm bench logp` or "
            "`layouts`)"
        )
    runs = results.read(args.files)
    if args.action == "predict":
        return predict(runs, args.layout)
    analyses = [a for a in analyse_runs(runs) if a.experiment in MODEL_EXPERIMENTS]
    if not analyses:
        raise MemcommError(
            "no results the models use in the files given (run `memcomm bench logp`)"
        )
    if args.action == "fit":  # the parameters alone
        for a in analyses:
            for t in a.tables:
                if "parameters" in t.title:
                    print(f"{t.title}\n{report.format_table(t.header, t.rows)}\n")
        return 0
    for a in analyses:
        print_analysis(a)
    if args.output:
        write_report(runs, analyses, args.output)
    return 0


MODEL_EXPERIMENTS = ("logp", "layouts", "memory-send", "diamond-model", "em3d-model")


def predict(runs: list[results.Run], layouts: list[str] | None) -> int:
    """Memory-LogP's pack time of each layout given, fitted on all of a `layouts` run, with
    where the time goes: each feature's count times its cost. Given a `logp` run of the same
    MPI too, the send cost o + l_p + L: the pack, then the packed bytes as a contiguous
    message at LogGP's ping-pong time (fitted on the ping-pong)."""
    if not layouts:
        raise MemcommError(
            "give the layouts: --layout vector:COUNT,BLOCK,STRIDE, --layout transpose:N or "
            "--layout strided:BLOCK:COUNTxSTRIDE,... (repeatable)"
        )
    wanted = [memory.Layout.parse(text) for text in layouts]
    loggp = {}
    for mpi in {str(run.meta["mpi"]["name"]) for run in runs if run.meta["experiment"] == "logp"}:
        points = logp.prtt_points(
            [r for run in runs if run.meta["mpi"]["name"] == mpi for r in run.results]
        )
        loggp[mpi] = logp.fit_pingpong(points)
    tables = []  # everything computed before anything is printed: a bad layout prints nothing
    for run in runs:
        if run.meta["experiment"] != "layouts":
            continue
        machine = memory.Machine.of(run.meta.get("machine", {}))
        model = memory.fit(memory.observations(run.results), machine, run.meta["engine"])
        mpi = str(run.meta["mpi"]["name"])
        where = f"{mpi}{' +memcomm' if run.meta['engine'] == 'memcomm' else ''}"
        send = loggp.get(mpi)
        rows = []
        for layout in wanted:
            parts = [c * f for c, f in zip(model.costs, model.features(layout), strict=True)]
            total = sum(parts)
            rows.append(
                [
                    layout.describe(),
                    f"{total * 1e6:.1f}",
                    f"{layout.bytes / total / 1e9:.2f}" if total > 0 else "-",
                    *([f"{(total + send.pingpong(layout.bytes)) * 1e6:.1f}"] if send else []),
                    *[f"{p / total * 100:.0f}%" if total > 0 else "-" for p in parts],
                ]
            )
        header = ["layout", "pack (us)", "GB/s", *(["send (us)"] if send else []), *memory.FEATURES]
        tables.append((where, len(run.results), header, rows, send is not None))
    if not tables:
        raise MemcommError("memcomm model predict needs a `memcomm bench layouts` results file")
    for where, fitted_on, header, rows, with_send in tables:
        print(f"Memory-LogP pack time, {where} (fitted on {fitted_on} layouts):")
        print(report.format_table(header, rows))
        if with_send:
            print(
                "send: the pack plus the packed bytes' ping-pong time from LogGP (o + l_p + L)"
                + ("" if "+memcomm" in where else "; the MPI's own path adds l_m, not modelled")
            )
        print()
    return 0


@command("demo", "the main job: differential check, pack and ping-pong comparisons, a report")
def demo(args: argparse.Namespace) -> int:
    """Each step is the command a user would type (`--quick`: small sizes, for the tests)."""
    mpi = ["--mpi", args.mpi]
    quick = ["--quick"] if args.quick else []
    steps = [
        (f"memcomm {__version__} on {args.mpi}: differential check against the MPI's pack",
         ["check", *mpi, "--np", "2", "--types", "300" if args.quick else "10000"]),
        (f"pack comparison on {args.mpi}",
         ["bench", "pack", *mpi, *quick, "--reps", "7", "--json", "results/demo-pack.jsonl",
          *([] if args.quick else ["--sizes", "1024,4096"])]),
        (f"transpose ping-pong on {args.mpi}",
         ["bench", "pingpong", *mpi, *quick, "--only", "transpose", "--reps", "7",
          "--json", "results/demo-pingpong.jsonl"]),
        ("report", ["report", "results/demo-pack.jsonl", "results/demo-pingpong.jsonl",
                    "-o", "report", "--quiet"]),
    ]  # fmt: skip
    for title, argv in steps:
        print(f"\n== {title}")
        step = parser().parse_args(argv)
        code = COMMANDS[step.command][0](step)
        if code != 0:
            return code
    return 0


def common_options(name: str) -> argparse.ArgumentParser:
    """The options every command has. A new parser per command: argparse shares a parent's
    option objects among its children, so one command's default would become every one's."""
    common = argparse.ArgumentParser(add_help=False)
    from_program = name in ("run", "explain", "preload")
    common.add_argument(
        "--mpi",
        default=None if from_program else "mpich",
        choices=runner.MPIS,
        help="which build to use (default: "
        + ("the one whose MPI library the program loads)" if from_program else "mpich)"),
    )
    common.add_argument(
        "--json", metavar="FILE", nargs="?", const="-", help="machine-readable output"
    )
    return common


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="memcomm", description=__doc__)
    top.add_argument("--version", action="version", version=f"memcomm {__version__}")
    sub = top.add_subparsers(dest="command", required=True)
    for name, (_, help_text) in COMMANDS.items():
        p = sub.add_parser(
            name, parents=[common_options(name)], help=help_text, description=help_text
        )
        if name == "check":
            p.add_argument("--types", type=int, default=10000, help="random types per rank")
            p.add_argument("--seed", type=int, help="reproduce a run (default: from the clock)")
            p.add_argument("--np", type=int, default=1, help="MPI ranks")
        if name == "report":
            p.add_argument("files", nargs="+", help="results files (JSON lines) of memcomm bench")
            p.add_argument("-o", "--output", metavar="DIR", help="write DIR/index.html and plots")
            p.add_argument("--markdown", action="store_true", help="the README's pack table")
            p.add_argument("--quiet", action="store_true", help="only write the page (-o)")
        if name == "advise":
            p.add_argument(
                "--results", nargs="+", default=[], metavar="FILE",
                help="results of eager, cache-state and pollution runs (the missing ones are "
                "measured, quick), and of stencil to check the rules on",
            )  # fmt: skip
            p.add_argument("--quiet", action="store_true", help="no progress lines")
            p.add_argument("--np", type=int, default=2, help="ranks for the program")
            p.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM [ARGS...]")
        if name == "demo":
            p.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
        if name == "model":
            p.add_argument(
                "action", choices=("fit", "validate", "predict", "logpc", "diamond", "em3d")
            )
            p.add_argument("files", nargs="*", help="results files (fit, validate)")
            p.add_argument("-o", "--output", metavar="DIR", help="validate: plots into DIR")
            p.add_argument("--k-d", type=float, help="logpc: average distance per dimension")
            p.add_argument("--n", type=int, default=1024, help="diamond: the DAG is n x n tasks")
            p.add_argument("--procs", type=int, default=32, help="diamond: processors (stripes)")
            p.add_argument("--blocks", type=int, default=64, help="diamond: b of the Fig. 9 sweep")
            p.add_argument("--task", type=float, default=100, help="diamond: cycles per task")
            p.add_argument("--value-bytes", type=float, default=8, help="diamond: bytes per value")
            p.add_argument(
                "--alpha", type=float, default=0, help="diamond: aggregation cycles per value"
            )
            p.add_argument("--nodes", type=int, default=3200, help="em3d: graph nodes")
            p.add_argument("--degree", type=int, default=32, help="em3d: edges per node")
            p.add_argument("--queue", type=int, default=4, help="em3d: messages a receiver holds")
            p.add_argument("--spans", default="1,2,3,5,8,11,15", help="em3d: spans to model")
            p.add_argument(
                "--layout",
                action="append",
                help="predict: vector:COUNT,BLOCK,STRIDE (bytes), transpose:N, or "
                "strided:BLOCK:COUNTxSTRIDE,... (outermost step first, as `memcomm explain` "
                "prints a normalized type); repeatable",
            )
        if name == "run":
            p.add_argument("-n", "--np", type=int, default=1, help="MPI ranks")
            p.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM [ARGS...]")
        if name == "preload":
            p.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM")
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
            p.add_argument("experiment", help="an experiment, `probes`, or `list`")
            p.add_argument("--quick", action="store_true", help="small sizes, few samples")
            p.add_argument(
                "--sizes",
                help="comma-separated sizes (K/M/G suffixes; transpose "
                "sides for pack, pingpong and decompose; FFT2 sides for collectives; bytes per "
                "rank for io)",
            )
            p.add_argument("--slabs", help="collectives: sides of the slab redistributions")
            p.add_argument("--halos", help="collectives: sides of the halo exchanges")
            p.add_argument(
                "--dir",
                help="io: the directory of the file every rank writes its part of "
                "(default /dev/shm: a file system in memory, so that the memory side is what "
                "is measured)",
            )
            p.add_argument(
                "--files",
                choices=("shared", "per-rank"),
                default="shared",
                help="io: one file all ranks write their parts of (as parallel HDF5 does), or "
                "a file per rank",
            )
            p.add_argument(
                "--engine",
                choices=("mpi", "memcomm", "both"),
                help="the MPI alone, with memcomm preloaded, or both (default: "
                "both for decompose, the MPI alone otherwise)",
            )
            p.add_argument(
                "--reps",
                type=int,
                help="repetitions (pack, pingpong: exactly; collectives: at least, more for "
                "short calls; io: the same, but fewer, at least 3, where calls take seconds; "
                "others: at most)",
            )
            p.add_argument("--min-reps", type=int, help="at least this many samples")
            p.add_argument("--max-reps", type=int, help="at most this many samples")
            p.add_argument(
                "--rse",
                type=float,
                help="stop at this relative standard error of the median (default 0.02)",
            )
            p.add_argument("--cap", type=float, help="seconds per measurement at most (5)")
            p.add_argument("--warmup", type=int, help="discarded samples after calibration (2)")
            p.add_argument("--delay", type=float, help="eager: receive delay in seconds")
            p.add_argument(
                "--np", type=int, help="diamond, em3d: ranks (default 2; they run on any number)"
            )
            p.add_argument(
                "--span", type=int, help="em3d: non-local edges reach ranks 1..span away (1)"
            )
            p.add_argument(
                "--exchanges",
                type=int,
                help="lifecycle: round trips per re-created type (20; 1 shows what a type "
                "costs apart from its calls)",
            )
            p.add_argument(
                "--scale", type=int, default=1, help="pack: divide the other patterns' sizes (1-64)"
            )
            p.add_argument(
                "--only",
                default="",
                help="pack, pingpong, collectives, io: patterns containing this",
            )
            p.add_argument(
                "--methods",
                default="",
                help="pack: only these methods, comma-separated (memcpy, lines, mpi, manual, "
                "manual-blocked, memcomm, interposed; default all): each leaves its arrays in "
                "the caches the next one finds",
            )
            p.add_argument(
                "--cache",
                choices=("as-left", "flushed"),
                default="as-left",
                help="pack: the caches each timed call starts from: as the method before left "
                "them, or with the pattern's arrays flushed (the paper's INV state)",
            )
            p.add_argument("--quiet", action="store_true", help="no progress lines")
            p.add_argument(
                "--noisy-neighbour",
                nargs="?",
                type=int,
                const=0,
                metavar="SEED",
                help="run a busy process on the last core (rank 1's) in bursts of 0.2-1 s, "
                "0.5-2.5 s apart, for the whole run: decisions under a disturbed machine "
                "(SEED: the bursts' pattern, recorded in the results; default: from the clock)",
            )
            p.add_argument(
                "--transport",
                choices=runner.TRANSPORTS,
                default="default",
                help="how the ranks talk: the MPI's default (shared memory on one node) or "
                "its TCP path over the loopback, the stand-in for two nodes",
            )
            p.add_argument(
                "--simulate",
                action="store_true",
                help="instead of timing, count: cache events of the single-process "
                "part under cachegrind (ddt-vs-pack, decompose), for machines without "
                "hardware counters; pingpong: instructions per send, with and without "
                "memcomm, under callgrind: sends memcomm passes (an 8-byte MPI_DOUBLE, a "
                "contiguous derived type) and sends it carries on the MPI's own path (a struct "
                "at MPI_BOTTOM, a NAS LU face)",
            )
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    handler, _ = COMMANDS[args.command]
    try:
        return handler(args)
    except (MemcommError, logpc.ModelError) as error:
        print(f"memcomm: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
