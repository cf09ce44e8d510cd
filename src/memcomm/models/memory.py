"""Memory-LogP: the memory cost of a message layout (seeds 001 sec. 4 and 000 eq. 1).

The seeds split a non-contiguous send into o + l_p + l_m + L: the contiguous copy o, the
packing cost l_p = f(size, distribution), the middleware's own cost l_m and the network L
(the `decompose` experiment measures all four for the transpose). This module predicts the
pack time t_p = o + l_p of a layout from what the layout does to the memory hierarchy, with
costs fitted from the `layouts` experiment, separately for the MPI's pack and for memcomm's:

    t_p = c_byte * bytes + c_block * blocks + c_L1 * lines from L1 + c_L2 * lines from L2
          + c_far * lines from beyond L2 + c_tlb * TLB misses

The counts come from the machine model (cache sizes, line, page, TLB entries) and the walk a
naive pack makes. A vector is read once in address order; whether its lines come from L1, L2
or beyond depends on the cache its lines fit, where a power-of-two stride uses only a
fraction of the sets. A transpose is read column by column: each line is reused across the
columns it holds only while one sweep's lines (one per row) stay in a cache, and every page
of a sweep misses the TLB once a sweep touches more pages than the TLB holds. The costs are
non-negative and fitted to relative errors.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from memcomm.models.logpc import ModelError
from memcomm.models.validation import Check
from memcomm.stats import median

FEATURES = ("bytes", "blocks", "L1 lines", "L2 lines", "far lines", "TLB misses")


@dataclass(frozen=True)
class Machine:
    line: int = 64
    page: int = 4096
    tlb: int = 64
    l1: int = 32 << 10
    l2: int = 1 << 20

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
        )


@dataclass(frozen=True)
class Layout:
    """A vector of `count` blocks of `block` bytes every `stride` bytes, or (kind
    "transpose") an n x n matrix of 8-byte elements read column by column."""

    kind: str
    count: int
    block: int
    stride: int
    n: int = 0

    def __post_init__(self) -> None:
        if self.kind not in ("vector", "transpose"):
            raise ModelError(f"layout kind must be vector or transpose: got {self.kind!r}")
        if self.count < 1 or self.block < 1 or self.stride < self.block:
            raise ModelError(
                f"layout needs count >= 1, block >= 1 and stride >= block: got "
                f"count {self.count}, block {self.block}, stride {self.stride}"
            )
        if self.kind == "transpose" and self.n < 1:
            raise ModelError(f"a transpose needs its side n >= 1: got {self.n}")

    @classmethod
    def parse(cls, text: str) -> Layout:
        """ "vector:COUNT,BLOCK,STRIDE" (bytes) or "transpose:N"."""
        kind, _, numbers = text.partition(":")
        try:
            values = [int(v) for v in numbers.split(",")]
        except ValueError:
            values = []
        if kind == "transpose" and len(values) == 1:
            n = values[0]
            return cls("transpose", n * n, 8, 8 * n, n)
        if kind == "vector" and len(values) == 3:
            return cls("vector", *values)
        raise ModelError(f"layout {text!r}: write vector:COUNT,BLOCK,STRIDE or transpose:N")

    @property
    def bytes(self) -> int:
        return self.count * self.block

    def features(self, m: Machine) -> list[float]:
        """The counts of FEATURES for one pack of this layout on machine m."""
        if self.kind == "transpose":
            n = self.n
            elements, lines = n * n, n * n * 8 / m.line
            where = self._level(n * n * 8, m)
            sweep = n * m.line  # one line per row stays live across the columns it holds
            if sweep <= m.l1:
                reads = {"L1": elements - lines, where: lines}
            elif sweep <= m.l2:
                reads = {"L2": elements - lines, where: lines}
            else:
                reads = {"far": float(elements)}
            # a sweep down one column visits n rows: a page each once rows are a page long
            pages_per_sweep = n if 8 * n >= m.page else n * 8 * n / m.page
            tlb = n * pages_per_sweep if pages_per_sweep > m.tlb else n * n * 8 / m.page
            blocks = float(elements)
        else:
            if self.stride >= m.line:
                lines = self.count * math.ceil(self.block / m.line)
            else:
                lines = math.ceil(self.count * self.stride / m.line)
            where = self._level(lines * m.line * self._conflict(m), m)
            reads = {where: float(lines)}
            span_pages = self.count * self.stride / m.page
            pages = min(span_pages, self.count * (1 + self.block / m.page))
            tlb = pages if pages > m.tlb else 0.0
            blocks = float(self.count if self.stride > self.block else 1)
        return [
            float(self.bytes),
            blocks,
            reads.get("L1", 0.0),
            reads.get("L2", 0.0),
            reads.get("far", 0.0),
            float(tlb),
        ]

    def _conflict(self, m: Machine) -> int:
        """How many times fewer cache sets a strided walk uses than a dense one: the cache
        set comes from the address's low bits, so blocks a stride 2^k apart fall on the same
        few sets, and of each 2^k bytes of sets only the block's lines are used."""
        if self.stride < m.line or self.stride == self.block:
            return 1
        power = self.stride & -self.stride  # the largest power of two dividing the stride
        used = math.ceil(self.block / m.line) * m.line
        return max(power // used, 1)

    @staticmethod
    def _level(footprint: float, m: Machine) -> str:
        return "L1" if footprint <= m.l1 else "L2" if footprint <= m.l2 else "far"

    def describe(self) -> str:
        if self.kind == "transpose":
            return f"transpose {self.n}x{self.n} double"
        return f"vector {self.count} x {self.block} B every {self.stride} B"


@dataclass(frozen=True)
class Observation:
    layout: Layout
    seconds: float  # median pack time


@dataclass(frozen=True)
class PackModel:
    machine: Machine
    costs: tuple[float, ...]  # seconds per unit of each feature

    def predict(self, layout: Layout) -> float:
        return float(np.dot(self.costs, layout.features(self.machine)))


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


def fit(observations: Sequence[Observation], machine: Machine) -> PackModel:
    """Costs per feature, non-negative, minimizing the relative error of the pack times."""
    if len(observations) < len(FEATURES):
        raise ModelError(
            f"need at least {len(FEATURES)} layouts to fit Memory-LogP: got {len(observations)}"
        )
    a = np.array([o.layout.features(machine) for o in observations])
    t = np.array([o.seconds for o in observations])
    if (t <= 0).any():
        raise ModelError("pack times must be positive")
    weighted = a / t[:, None]  # relative errors: each row divided by its own time
    scale = np.maximum(weighted.max(axis=0), 1e-300)  # columns of comparable size
    costs = _nnls(weighted / scale, np.ones(len(t))) / scale
    return PackModel(machine, tuple(float(c) for c in costs))


def observations(results: Iterable[Mapping[str, object]]) -> list[Observation]:
    """Median pack times of `layouts` result records."""
    found = []
    for r in results:
        if r.get("experiment") != "layouts":
            continue
        layout = Layout(
            str(r["layout"]),
            int(str(r["count"])),
            int(str(r["block"])),
            int(str(r["stride"])),
            int(str(r.get("n", 0))),
        )
        samples = r["seconds"]
        assert isinstance(samples, list)
        found.append(Observation(layout, median([float(x) for x in samples])))
    return found


def held_out(layout: Layout) -> bool:
    """The layouts kept out of the fit, to check the model on: every other vector in a
    checkerboard over (block, stride ratio, size), and the transposes of 256, 1024 and 4096.
    Every family and every regime is on both sides."""
    if layout.kind == "transpose":
        return int(math.log2(layout.n)) % 2 == 0
    ratio = layout.stride // layout.block
    code = round(math.log2(layout.block)) + round(math.log2(ratio))
    code += round(math.log2(layout.bytes)) // 4  # 64 KiB, 1 MiB, 16 MiB: 4, 5, 6
    return code % 2 == 1


def validate(model: PackModel, observed: Sequence[Observation]) -> list[Check[Layout]]:
    return [Check(o.layout, model.predict(o.layout), o.seconds) for o in observed]
