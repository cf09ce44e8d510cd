"""Memory-LogP: the memory cost of a message layout (Byna et al. 2003 sec. 4; Byna, Cameron,
Sun eq. 1).

The papers split a non-contiguous send into o + l_p + l_m + L: the contiguous copy o, the
packing cost l_p = f(size, distribution), the middleware's own cost l_m and the network L
(the `decompose` experiment measures all four for the transpose). This module predicts the
pack time t_p = o + l_p of a layout from what the layout does to the memory hierarchy, with
costs fitted from the `layouts` experiment, separately for the MPI's pack and for memcomm's:

    t_p = c_byte * bytes + c_block * blocks + c_L1 * lines from L1 + c_L2 * lines from L2
          + c_far * lines from beyond L2 + c_jump * jumps beyond L2
          + c_tlb * first-level TLB misses + c_walk * page walks

A layout is what memcomm normalizes a datatype to (`memcomm explain` prints it): steps from
the outermost to the innermost, each a count and a stride, moving blocks of fixed size. The
counts come from the machine model (cache sizes, line, page, the two TLB levels) and the walk
the pack makes:
- A walk in memory order (each step no longer than the one outside it) reads each line once;
  whether from L1, L2 or beyond depends on the cache its lines fit, where a power-of-two
  stride uses only a fraction of the sets (up to a page: above it, physical pages land
  anywhere). A jump is a block that does not start on the line after the last one: beyond
  L2 each costs a latency the prefetchers could not hide, while a run of lines streams.
- A walk whose innermost step is longer than the next (a transpose) is read by the MPI in
  sweeps down the innermost step: each line is reused across the outer steps it holds only
  while one sweep's lines stay in a cache, and every page of a sweep misses the TLB once a
  sweep touches more pages than the TLB holds. memcomm transposes such walks in bands of
  rows walked in strips a few lines wide (plan.c's rule: bands of TILE_BYTES' worth of rows,
  a strip's pages within the STLB), so each line is read once and each page found once;
  when a strip's pages outnumber the first-level TLB, each line misses it again and finds
  its page in the STLB.
The pages a walk cycles through miss the first-level TLB once they outnumber its entries,
and need a page walk once they outnumber the second level's (STLB). Other walks are not
modelled. The costs are non-negative and fitted to relative errors.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from memcomm.models.logpc import ModelError
from memcomm.models.validation import Check
from memcomm.stats import median

FEATURES = (
    "bytes",
    "blocks",
    "L1 lines",
    "L2 lines",
    "far lines",  # from beyond L2
    "far jumps",  # blocks beyond L2 that do not continue the line stream
    "TLB misses",  # missing the first-level TLB, found in the second
    "page walks",  # missing both
)
ENGINES = ("mpi", "memcomm")
# The second-level TLB's entries when the machine model does not carry them (results
# written before it did): the machine model's own default (lib/plan/machine.c). The `tlb`
# probe on the VM we measured on shows page walks from 1,536-2,048 pages.
STLB_ENTRIES = 1536


@dataclass(frozen=True)
class Machine:
    line: int = 64
    page: int = 4096
    tlb: int = 64
    l1: int = 32 << 10
    l2: int = 1 << 20
    stlb: int = STLB_ENTRIES
    tile: int = 2048  # bytes of a transpose tile's row (MACHINE_TILE; default half a page)
    stream: int = 4 << 20  # copies of more bytes stream their stores (MACHINE_STREAM)

    @classmethod
    def of(cls, model: Mapping[str, object]) -> Machine:
        """From the machine model a results file's meta record carries."""

        def value(name: str, default: int) -> int:
            field = model.get(name)
            v = field.get("value") if isinstance(field, dict) else None
            return int(v) if isinstance(v, (int, float)) and v > 0 else default

        return cls(
            value("LINE_SIZE", 64),
            value("PAGE_SIZE", 4096),
            value("TLB_ENTRIES", 64),
            value("L1_SIZE", 32 << 10),
            value("L2_SIZE", 1 << 20),
            value("STLB_ENTRIES", STLB_ENTRIES),
            value("TILE_BYTES", value("PAGE_SIZE", 4096) // 2),
            value("STREAM_BYTES", 4 * value("L2_SIZE", 1 << 20)),
        )


@dataclass(frozen=True)
class Layout:
    """Blocks of `block` bytes placed by `dims`, (count, stride in bytes) from the outermost
    step to the innermost. `kind` is the family: vector, transpose (an n x n matrix of
    doubles read column by column) or strided (any other)."""

    kind: str
    dims: tuple[tuple[int, int], ...]
    block: int
    name: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("vector", "transpose", "strided"):
            raise ModelError(f"layout kind must be vector, transpose or strided: got {self.kind!r}")
        if self.block < 1 or not self.dims or any(c < 1 for c, _ in self.dims):
            raise ModelError(
                f"layout needs block >= 1 and steps of count >= 1: got block {self.block}, "
                f"steps {self.dims}"
            )

    @classmethod
    def vector(cls, count: int, block: int, stride: int) -> Layout:
        if count < 1 or block < 1 or stride < block:
            raise ModelError(
                f"layout needs count >= 1, block >= 1 and stride >= block: got "
                f"count {count}, block {block}, stride {stride}"
            )
        return cls(
            "vector", ((count, stride),), block, f"vector {count} x {block} B every {stride} B"
        )

    @classmethod
    def transpose(cls, n: int) -> Layout:
        if n < 1:
            raise ModelError(f"a transpose needs its side n >= 1: got {n}")
        return cls("transpose", ((n, 8), (n, 8 * n)), 8, f"transpose {n}x{n} double")

    @classmethod
    def parse(cls, text: str) -> Layout:
        """ "vector:COUNT,BLOCK,STRIDE" (bytes), "transpose:N", or
        "strided:BLOCK:COUNTxSTRIDE,..." (outermost step first, as `memcomm explain` prints)."""
        kind, _, rest = text.partition(":")
        try:
            if kind == "strided":
                block, _, steps = rest.partition(":")
                return cls.strided(steps, int(block))
            values = [int(v) for v in rest.split(",")]
            if kind == "transpose" and len(values) == 1:
                return cls.transpose(values[0])
            if kind == "vector" and len(values) == 3:
                return cls.vector(*values)
        except ModelError:
            raise
        except ValueError:
            pass  # not numbers where numbers go: the usage below
        raise ModelError(
            f"layout {text!r}: write vector:COUNT,BLOCK,STRIDE, transpose:N or "
            "strided:BLOCK:COUNTxSTRIDE,COUNTxSTRIDE,..."
        )

    @classmethod
    def strided(cls, steps: str, block: int, name: str = "") -> Layout:
        """From "COUNTxSTRIDE,..." (bytes, outermost first); ValueError if not that."""
        dims = []
        for step in steps.split(","):
            count, x, stride = step.partition("x")
            if not x:
                raise ValueError(f"step {step!r} is not COUNTxSTRIDE")
            dims.append((int(count), int(stride)))
        return cls("strided", tuple(dims), block, name)

    @property
    def count(self) -> int:
        """Blocks moved."""
        return math.prod(c for c, _ in self.dims)

    @property
    def bytes(self) -> int:
        return self.count * self.block

    def describe(self) -> str:
        steps = ", ".join(f"{c} x {s} B" for c, s in self.dims)
        return self.name or f"strided [{steps}], block {self.block} B"

    def features(self, m: Machine, engine: str = "mpi") -> list[float]:
        """The counts of FEATURES for one pack of this layout on machine m by `engine`."""
        if engine not in ENGINES:
            raise ModelError(f"engine must be one of {', '.join(ENGINES)}: got {engine!r}")
        steps = [(c, abs(s)) for c, s in self.dims if c > 1] or [(1, self.block)]
        if all(outer >= inner for (_, outer), (_, inner) in itertools.pairwise(steps)):
            walk = _stream(steps, self.block, m)
        elif len(steps) >= 2 and all(
            outer >= max(steps[-2][1], steps[-1][1]) for _, outer in steps[:-2]
        ):
            walk = _sweeps(steps, self.block, m, engine)
        else:
            raise ModelError(
                f"{self.describe()}: Memory-LogP models walks in memory order and transposes "
                "of the innermost two steps, not this one"
            )
        return [float(self.bytes), *walk]


def _stream(steps: list[tuple[int, int]], block: int, m: Machine) -> list[float]:
    """A walk in memory order: blocks, reads per level, far jumps, TLB misses, page walks."""
    count, stride = steps[-1]
    rows = math.prod(c for c, _ in steps[:-1])  # runs of the innermost step
    if stride < m.line:  # the innermost step's blocks share lines: a row is one run
        lines_per_row = math.ceil(((count - 1) * stride + block) / m.line)
        jumps_per_row = 1
        used = lines_per_row * m.line
        conflict = _conflict(steps[-2][1], used, m) if len(steps) > 1 else 1
    else:
        lines_per_block = math.ceil(block / m.line)
        lines_per_row = count * lines_per_block
        sparse = stride > lines_per_block * m.line
        jumps_per_row = count if sparse else 1
        conflict = _conflict(stride, block, m) if sparse else 1
    lines, jumps = rows * lines_per_row, rows * jumps_per_row
    nbytes = rows * count * block
    where = _level(lines * m.line * conflict + nbytes, m)  # the lines read and the copy
    span = sum((c - 1) * s for c, s in steps) + block
    pages = min(math.ceil(span / m.page), jumps + lines * m.line / m.page)
    gaps = len(steps) > 1 or stride > block
    return [
        float(rows * count if gaps else 1),
        *_reads({where: float(lines)}),
        float(jumps if where == "far" else 0),
        *_tlb(pages if pages > m.tlb else 0.0, pages, m),
    ]


def _sweeps(steps: list[tuple[int, int]], block: int, m: Machine, engine: str) -> list[float]:
    """A transpose: the innermost step (n_in, s_in) is longer than the next (n_out, s_out),
    repeated by the steps outside them."""
    (n_out, s_out), (n_in, s_in) = steps[-2], steps[-1]
    reps = math.prod(c for c, _ in steps[:-2])
    elements = reps * n_out * n_in
    lines_per_block = math.ceil(block / m.line)
    # each inner position holds a run of the n_out outer steps
    if s_out < m.line:
        run_lines = math.ceil(((n_out - 1) * s_out + block) / m.line)
    else:
        run_lines = n_out * lines_per_block
    distinct = reps * n_in * run_lines
    where = _level(distinct * m.line + elements * block, m)  # the matrix and the copy
    matrix_pages = reps * math.ceil(((n_in - 1) * s_in + (n_out - 1) * s_out + block) / m.page)
    tiled = engine == "memcomm" and s_out == block and s_in >= m.line and min(n_out, n_in) >= 16
    if tiled:
        return _bands(n_out, n_in, s_in, block, reps, distinct, where, matrix_pages, m)
    accesses = elements * lines_per_block
    sweep = n_in * lines_per_block * m.line * _conflict(s_in, block, m)
    if s_out < m.line and sweep <= m.l2:  # a line stays for the outer steps it holds
        reads: dict[str, float] = {("L1" if sweep <= m.l1 else "L2"): accesses - distinct}
        reads[where] = reads.get(where, 0.0) + distinct
    else:
        reads = {_level(max(sweep, distinct * m.line), m): float(accesses)}
    # a sweep visits n_in rows: a page each once rows are a page apart
    pages_per_sweep = n_in if s_in >= m.page else n_in * s_in / m.page
    misses = reps * n_out * pages_per_sweep if pages_per_sweep > m.tlb else matrix_pages
    return [
        float(elements),
        *_reads(reads),
        float(elements if "far" in reads else 0),
        *_tlb(misses, pages_per_sweep, m),
    ]


def _bands(n_out: int, n_in: int, s_in: int, block: int, reps: int, distinct: float,
           where: str, matrix_pages: float, m: Machine) -> list[float]:  # fmt: skip
    """memcomm's transpose (plan.c, kernel/transpose.c): bands of t rows, t the largest power
    of two from 16 up to the machine's tile row in elements, halved while one strip's input
    and output pages overflow the STLB, and no larger than the matrix needs. A band is walked
    in strips of input lines (one line wide with cached stores, 4 streamed), so each line is
    read once, from where the matrix sits. Each row's piece of a strip starts a new stream,
    but the kernel prefetches the rows two micro-tiles ahead: only those of the first two
    micro-tiles of each strip of a band are jumps. A strip cycles through its rows' pages and
    its output rows' pages: when they outnumber the first-level TLB, each line read or
    written misses it and finds its page in the STLB. Each page of the matrix and of the copy
    is first found by a page walk once the two outnumber the STLB."""

    def pages(rows: int, pitch: int, row_bytes: int) -> int:
        if pitch >= m.page:
            return rows * math.ceil(row_bytes / m.page)
        return math.ceil(((rows - 1) * pitch + row_bytes) / m.page)

    elements = reps * n_out * n_in
    streamed = elements * block > m.stream
    strip = max((4 if streamed else 1) * m.line // block, 1)

    def strip_pages(t: int) -> int:
        return pages(t, s_in, strip * block) + pages(strip, n_in * block, t * block)

    band = 16
    while band * 2 * block <= m.tile and band * 2 <= 1024:
        band *= 2
    while band > 16 and strip_pages(band) > m.stlb:
        band //= 2
    while band > 16 and band // 2 >= n_out and band // 2 >= n_in:
        band //= 2
    accesses = elements * math.ceil(block / m.line)
    # the input rows are prefetched two micro-tiles (of a line's elements each) down, so only
    # the first two micro-tiles of rows of each strip of a band start streams unannounced
    unannounced = min(band, 2 * max(m.line // block, 1))
    jumps = elements * unannounced / (strip * band)
    first = 2 * matrix_pages  # the matrix's pages and the copy's
    hits, walks = _tlb(first, first, m)
    lines = 2 * elements * block / m.line  # read and written
    again = max(lines - first, 0.0) if strip_pages(band) > m.tlb else 0.0
    reads: dict[str, float] = {"L1": accesses - distinct}
    reads[where] = reads.get(where, 0.0) + distinct
    return [
        float(elements),
        *_reads(reads),
        float(jumps if where == "far" else 0),
        hits + again,
        walks,
    ]


def _reads(reads: Mapping[str, float]) -> list[float]:
    return [float(reads.get(level, 0.0)) for level in ("L1", "L2", "far")]


def _level(footprint: float, m: Machine) -> str:
    return "L1" if footprint <= m.l1 else "L2" if footprint <= m.l2 else "far"


def _conflict(stride: int, block: int, m: Machine) -> int:
    """How many times fewer cache sets a strided walk uses than a dense one: the cache set
    comes from the address's low bits, so blocks a stride 2^k apart fall on the same few
    sets, and of each 2^k bytes of sets only the block's lines are used. Only the bits within
    a page are the program's: above them the physical page decides, so 2^k stops at a page."""
    if stride <= 0:
        return 1
    power = min(stride & -stride, m.page)  # the largest power of two dividing the stride
    used = math.ceil(block / m.line) * m.line
    return max(power // used, 1)


def _tlb(misses: float, live_pages: float, m: Machine) -> tuple[float, float]:
    """First-level TLB misses split into those the STLB holds (`live_pages`, the pages the
    walk cycles through, fit it) and page walks."""
    return (misses, 0.0) if live_pages <= m.stlb else (0.0, misses)


@dataclass(frozen=True)
class Observation:
    layout: Layout
    seconds: float  # median pack time


@dataclass(frozen=True)
class PackModel:
    machine: Machine
    engine: str  # whose pack: "mpi" or "memcomm"
    costs: tuple[float, ...]  # seconds per unit of each feature

    def features(self, layout: Layout) -> list[float]:
        return layout.features(self.machine, self.engine)

    def predict(self, layout: Layout) -> float:
        return float(np.dot(self.costs, self.features(layout)))


def _nnls(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Non-negative least squares by elimination: solve, drop the most negative cost, repeat
    (enough for six features)."""
    active = list(range(a.shape[1]))
    x = np.zeros(a.shape[1])
    while active:
        solution, *_ = np.linalg.lstsq(a[:, active], b, rcond=None)
        if (solution >= 0).all():
            x[:] = 0
            x[active] = solution
            return x
        active.pop(int(np.argmin(solution)))
    return x


def fit(observations: Sequence[Observation], machine: Machine, engine: str = "mpi") -> PackModel:
    """Costs per feature, non-negative, minimizing the relative error of the pack times. A
    feature no layout has (a zero column) costs 0."""
    if len(observations) < len(FEATURES):
        raise ModelError(
            f"need at least {len(FEATURES)} layouts to fit Memory-LogP: got {len(observations)}"
        )
    a = np.array([o.layout.features(machine, engine) for o in observations])
    t = np.array([o.seconds for o in observations])
    if (t <= 0).any():
        raise ModelError("pack times must be positive")
    weighted = a / t[:, None]  # relative errors: each row divided by its own time
    present = weighted.max(axis=0) > 0
    scale = weighted.max(axis=0)[present]  # columns of comparable size
    costs = np.zeros(a.shape[1])
    costs[present] = _nnls(weighted[:, present] / scale, np.ones(len(t))) / scale
    return PackModel(machine, engine, tuple(float(c) for c in costs))


def observations(results: Iterable[Mapping[str, object]]) -> list[Observation]:
    """Median pack times of `layouts` result records."""
    found = []
    for r in results:
        if r.get("experiment") != "layouts":
            continue
        kind = str(r["layout"])
        if kind == "transpose":
            layout = Layout.transpose(int(str(r["n"])))
        elif kind == "vector":
            layout = Layout.vector(
                int(str(r["count"])), int(str(r["block"])), int(str(r["stride"]))
            )
        else:
            layout = Layout.strided(str(r["dims"]), int(str(r["block"])), str(r.get("name", "")))
        samples = r["seconds"]
        assert isinstance(samples, list)
        found.append(Observation(layout, median([float(x) for x in samples])))
    return found


def held_out(layout: Layout) -> bool:
    """The layouts kept out of the fit, to check the model on: every other vector in a
    checkerboard over (block, stride ratio, size), the transposes of 256, 1024 and 4096, and
    every strided layout (the halo faces): a kind the fit never sees."""
    if layout.kind == "transpose":
        return int(math.log2(layout.dims[0][0])) % 2 == 0
    if layout.kind == "strided":
        return True
    ((_, stride),) = layout.dims
    ratio = stride // layout.block
    code = round(math.log2(layout.block)) + round(math.log2(ratio))
    code += round(math.log2(layout.bytes)) // 4  # 64 KiB, 1 MiB, 16 MiB: 4, 5, 6
    return code % 2 == 1


def validate(model: PackModel, observed: Sequence[Observation]) -> list[Check[Layout]]:
    return [Check(o.layout, model.predict(o.layout), o.seconds) for o in observed]
