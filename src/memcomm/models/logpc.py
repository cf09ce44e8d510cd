"""LoGPC: LogP/LogGP with network contention (Moritz and Frank, IEEE TPDS 2001).

Equation numbers are the paper's. Times are in the unit of the parameters (cycles for the
Alewife preset). The network is a k-ary n-cube with wormhole routing; Agarwal's open model
gives the contention per message from the injection rate (eq. 3-6), and LoGPC closes it by
feeding the contention back into the rate (eq. 7), solved here exactly as a quadratic.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass


class ModelError(ValueError):
    """A parameter outside the model's domain, or a network the closed model cannot carry."""


def _positive(name: str, value: float, allow_zero: bool = False) -> float:
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        raise ModelError(
            f"{name} must be {'non-negative' if allow_zero else 'positive'}: got {value}"
        )
    return value


@dataclass(frozen=True)
class LogGP:
    """Contention-free parameters: L latency, o_s/o_r short-message overheads, o_sl/o_rl
    long-message overheads, G gap per byte, g gap between messages, P processors."""

    L: float
    o_s: float
    o_r: float
    g: float = 0.0
    G: float = 0.0
    o_sl: float = 0.0
    o_rl: float = 0.0
    P: int = 2

    def __post_init__(self) -> None:
        for name in ("L", "o_s", "o_r", "g", "G", "o_sl", "o_rl"):
            _positive(name, getattr(self, name), allow_zero=True)
        if self.P < 1:
            raise ModelError(f"P must be at least 1: got {self.P}")

    def short_message(self) -> float:
        """o_s + L + o_r: one short message, end to end, without contention."""
        return self.o_s + self.L + self.o_r

    def long_message(self, size: float) -> float:
        """Eq. 1: o_sl + L + (B - 1) G, the pipelined DMA transfer of B bytes."""
        _positive("message size B", size)
        return self.o_sl + self.L + (size - 1) * self.G


@dataclass(frozen=True)
class Network:
    """A k-ary n-cube (mesh without end-around connections), one radix per dimension."""

    radix: tuple[int, ...]

    def __post_init__(self) -> None:
        if not self.radix or any(k < 1 for k in self.radix):
            raise ModelError(f"every network radix must be at least 1: got {self.radix}")

    @property
    def dimensions(self) -> int:
        return len(self.radix)

    def average_distance(self) -> float:
        """Eq. 11 generalized: sum over dimensions of (k^2 - 1) / 3k, for random
        destinations. This is n k_d (2 k_d on Alewife's 2-D mesh)."""
        return sum((k * k - 1) / (3 * k) for k in self.radix)

    def coordinates(self, p: int) -> tuple[int, ...]:
        """Processor p's position, the first dimension varying fastest."""
        out = []
        for k in self.radix:
            out.append(p % k)
            p //= k
        return tuple(out)

    def hops(self, a: int, b: int) -> int:
        return sum(
            abs(x - y) for x, y in zip(self.coordinates(a), self.coordinates(b), strict=True)
        )

    def neighbour_distance(self, wrap: bool = True) -> float:
        """Eq. 12: the average distance when processor p sends to p - 1 or p + 1 with equal
        probability (numbered first dimension fastest); with `wrap`, 0 and P - 1 are
        neighbours, otherwise the end processors send only to the one neighbour they have."""
        count = math.prod(self.radix)
        total = 0.0
        for p in range(count):
            peers = (
                [(p - 1) % count, (p + 1) % count]
                if wrap
                else [q for q in (p - 1, p + 1) if 0 <= q < count]
            )
            total += sum(self.hops(p, q) for q in peers) / max(len(peers), 1)
        return total / count


@dataclass(frozen=True)
class Contention:
    """Agarwal's model on a network with per-dimension distance k_d (eq. 3-6)."""

    dimensions: int  # n
    k_d: float  # average distance per dimension

    def __post_init__(self) -> None:
        if self.dimensions < 1:
            raise ModelError(f"network dimension n must be at least 1: got {self.dimensions}")
        if not math.isfinite(self.k_d) or self.k_d < 1:
            raise ModelError(
                f"average distance per dimension k_d must be at least 1: got {self.k_d}"
            )

    @classmethod
    def of(cls, network: Network, distance: float | None = None) -> Contention:
        """For `network`, with random destinations or a given total average distance."""
        total = network.average_distance() if distance is None else distance
        return cls(network.dimensions, total / network.dimensions)

    def utilization(self, rate: float, size: float) -> float:
        """Eq. 4: rho = B m k_d / 2, the probability a channel is busy."""
        return size * rate * self.k_d / 2

    def delay(self, rate: float, size: float) -> float:
        """Eq. 5-6: C_n = n k_d w_b, the contention delay of a B-byte message when each
        processor injects `rate` messages per unit time. Saturated (rho >= 1): error."""
        _positive("message injection rate m", rate, allow_zero=True)
        _positive("message size B", size)
        rho = self.utilization(rate, size)
        if rho >= 1:
            raise ModelError(
                f"network saturated: channel utilization rho = B m k_d / 2 = "
                f"{rho:.3g} >= 1 at injection rate m = {rate:.3g}"
            )
        n = self.dimensions
        return (n + 1) * (self.k_d - 1) * (rate * size * size / 2) / (1 - rho)

    def closed_rate(self, interval: float, size: float, delays: float = 1.0) -> float:
        """Eq. 7, solved exactly: the rate m_c with 1 / (T + k C_n(m_c)) = m_c, where T is the
        time between messages without contention and k = `delays` the contention delays in
        each interval (1 in eq. 7; 2 in the Diamond DAG's m_c = 1 / (v + 2 C_n)).
        C_n(m) = K m / (1 - c m) with K = (n+1)(k_d-1) B^2 / 2 and c = B k_d / 2 gives
        (kK - cT) m^2 + (T + c) m - 1 = 0; the root with 0 < m < 1/c (rho < 1) is the
        physical one."""
        _positive("time between messages T", interval, allow_zero=True)
        _positive("message size B", size)
        _positive("contention delays per interval", delays)
        K = delays * (self.dimensions + 1) * (self.k_d - 1) * size * size / 2
        c = size * self.k_d / 2
        a, b = K - c * interval, interval + c
        if abs(a) < 1e-12 * max(b * b, 1.0):
            roots = [1 / b]
        else:
            disc = b * b + 4 * a
            if disc < 0:
                raise ModelError(
                    "the closed contention model has no solution for these "
                    f"parameters (T = {interval}, B = {size})"
                )
            roots = [(-b + s * math.sqrt(disc)) / (2 * a) for s in (1, -1)]
        valid = [m for m in roots if 0 < m < 1 / c]
        if not valid:
            raise ModelError(
                f"network saturated: no injection rate below 1/c = {1 / c:.3g} "
                f"satisfies eq. 7 (T = {interval}, B = {size})"
            )
        return min(valid)

    def closed_delay(self, interval: float, size: float, delays: float = 1.0) -> float:
        """C_n at the closed rate: the contention each message sees."""
        return self.delay(self.closed_rate(interval, size, delays), size)

    def short_message(self, machine: LogGP, rate: float, size: float) -> float:
        """Eq. 8-9: o_s + L + C_n + o_r."""
        return machine.short_message() + self.delay(rate, size)

    def long_message(self, machine: LogGP, rate: float, size: float) -> float:
        """Eq. 10: o_sl + (B - 1) G + L + C_n."""
        return machine.long_message(size) + self.delay(rate, size)

    def bound_factor(self, G: float) -> float:
        """Eq. 13-14: at the maximal injection rate (T = 2GB) the closed rate is
        m_c = 1 / (F B), F = 2G + (n+1)(k_d-1) / (2F - k_d), independent of B; the
        inter-message time inflates by at most F / 2G."""
        _positive("gap per byte G", G)
        n, k = self.dimensions, self.k_d
        # (F - 2G)(2F - k) = (n+1)(k-1): 2F^2 - (k + 4G) F + 2Gk - (n+1)(k-1) = 0
        a, b, c = 2.0, -(k + 4 * G), 2 * G * k - (n + 1) * (k - 1)
        return (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a)


# ---- applications (section 5) ----


def remap_synchronous(machine: LogGP, C_n: float, C_r: float) -> float:
    """Sec. 5.1.1: one request-reply round trip, 2(o_s + L + C_n + o_r) + C_r; LoPC's C_r is
    about o_r + o_s (the cost of a handler that sends the reply)."""
    return 2 * (machine.short_message() + C_n) + C_r


def remap_asynchronous(machine: LogGP) -> float:
    """Sec. 5.1.2: one iteration of asynchronous all-to-all remap, o_s + o_r (insensitive to
    latency; the injection rate is 1 / (o_s + o_r))."""
    return machine.o_s + machine.o_r


def remap_long_interval(machine: LogGP, contention: Contention, size: float) -> float:
    """Sec. 5.1.3: time between message injections of asynchronous all-to-all remap with
    B-byte messages at the maximal rate, F B (eq. 13), against 2 G B without contention."""
    return contention.bound_factor(machine.G) * size


def em3d_message(machine: LogGP, C_n: float = 0.0) -> float:
    """Sec. 5.3: EM3D's per-message cost, o_s + o_r, plus the contention a send blocks for
    where hot spots make it block."""
    return machine.o_s + machine.o_r + C_n


DIAMOND_MODELS = ("logp", "loggp", "logpc")


@dataclass(frozen=True)
class Diamond:
    """Sec. 5.2: the n x n Diamond DAG on P processors in stripes of b blocks each, in the
    time unit of `machine`. `task` is the time of one task, `alpha` the aggregation cost per
    value sent, `a` the header bytes before the receiver is interrupted, `value_bytes` the
    bytes per value sent, `short_bytes` the payload of one short message (LogP sends a block
    as that many short messages)."""

    n: int
    P: int
    machine: LogGP
    alpha: float = 0.0
    a: float = 0.0
    value_bytes: float = 1.0
    task: float = 1.0
    short_bytes: float = 8.0

    def __post_init__(self) -> None:
        if self.n < 1 or self.P < 2:
            raise ModelError(f"the DAG needs n >= 1 and P >= 2: got n = {self.n}, P = {self.P}")
        for name in ("alpha", "a", "value_bytes", "task", "short_bytes"):
            _positive(name, getattr(self, name), allow_zero=name in ("alpha", "a"))

    def _check(self, b: int) -> None:
        if b < 1 or b > self.n:
            raise ModelError(f"block count b must be between 1 and n = {self.n}: got {b}")

    def message_bytes(self, b: int) -> float:
        """B: the n/b values along a block's top edge."""
        return self.n / b * self.value_bytes

    def work(self, b: int) -> float:
        """W = w_a + alpha n/b: a block's tasks and the aggregation of what it sends."""
        return self.task * self.n * self.n / (self.P * b) + self.alpha * self.n / b

    def overheads(self, b: int, model: str = "loggp") -> tuple[float, float, float]:
        """(O_s, O_r, d) of one block's message. LogGP (sec. 5.2): O_s = o_s + (B-1)G,
        O_r = (B-1-a)G, d = L + aG. LogP has no G: the block goes as ceil(B / short_bytes)
        short messages, the sender paying max(o_s, g) between them and the receiver o_r
        each; d = L."""
        self._check(b)
        m, B = self.machine, self.message_bytes(b)
        if model == "logp":
            k = math.ceil(B / self.short_bytes)
            return m.o_s + (k - 1) * max(m.o_s, m.g), k * m.o_r, m.L
        if model not in DIAMOND_MODELS:
            raise ModelError(f"unknown model {model!r}: choose one of {', '.join(DIAMOND_MODELS)}")
        return m.o_s + (B - 1) * m.G, max(B - 1 - self.a, 0.0) * m.G, m.L + self.a * m.G

    def block_period(self, b: int, model: str = "loggp") -> float:
        """v = O_s + W + O_r: a processor's time per block once its stripe runs."""
        O_s, O_r, _ = self.overheads(b, model)
        return O_s + self.work(b) + O_r

    def contention(self, b: int, network: Contention | None) -> float:
        """C_n per message from the closed model with m_c = 1 / (v + 2 C_n) (sec. 5.2.1);
        none on a mapping whose messages cross no shared channel (network None)."""
        if network is None:
            return 0.0
        return network.closed_delay(self.block_period(b), self.message_bytes(b), delays=2)

    def makespan(self, b: int, C_n: float = 0.0, model: str = "loggp") -> float:
        """Eq. 15: M = (W + d) + (P - 2) u + (b - 1) v + O_r + W, with u = O_r + W + d and
        v = O_s + W + O_r. The contention C_n is the paper's upper bound: it delays every
        communication on the critical path, the P - 1 first-block sends (in d) and the b - 1
        sends and receives of the final stripe (2 C_n in each v)."""
        O_s, O_r, d = self.overheads(b, model)
        W = self.work(b)
        d += C_n
        u = O_r + W + d
        v = O_s + W + O_r + 2 * C_n
        return (W + d) + (self.P - 2) * u + (b - 1) * v + O_r + W

    def predict(self, b: int, model: str, network: Contention | None = None) -> float:
        """The makespan by LogP, LogGP, or LoGPC (LogGP with the contention of `network`)."""
        if model == "logpc":
            return self.makespan(b, self.contention(b, network), "loggp")
        return self.makespan(b, 0.0, model)

    def best_blocks(
        self,
        contention: Callable[[int], float] | None = None,
        model: str = "loggp",
        candidates: Sequence[int] | None = None,
    ) -> int:
        """The b minimizing the makespan (the paper solves dM/db = 0; b is an integer here).
        `contention(b)` gives C_n for b blocks, if any."""
        chosen = candidates if candidates is not None else range(1, self.n + 1)
        return min(
            chosen, key=lambda b: self.makespan(b, contention(b) if contention else 0.0, model)
        )


def mapping_contention(network: Network, distance: float) -> Contention | None:
    """The contention model of messages that travel `distance` hops on average (eq. 11-12):
    None where that is at most one hop per dimension, since Agarwal's delay grows with
    k_d - 1 and such messages share no channel."""
    per_dimension = distance / network.dimensions
    return Contention(network.dimensions, per_dimension) if per_dimension > 1 else None


def stripe_distance(network: Network, order: Sequence[int]) -> float:
    """The average hops of the Diamond DAG's messages when stripe i runs on processor
    order[i] and sends to the processor of stripe i + 1."""
    if len(order) < 2:
        raise ModelError("a mapping needs at least two processors")
    hops = [network.hops(order[i], order[i + 1]) for i in range(len(order) - 1)]
    return sum(hops) / len(hops)


def snake_order(network: Network) -> list[int]:
    """Processors in boustrophedon order on a 2-D mesh: consecutive stripes are always
    neighbours (the paper's "perfect" mapping)."""
    if network.dimensions != 2:
        raise ModelError("the snake mapping is defined here for 2-D meshes")
    kx, ky = network.radix
    return [y * kx + (x if y % 2 == 0 else kx - 1 - x) for y in range(ky) for x in range(kx)]


# ---- the Alewife parameters (Tables 1-2) ----

ALEWIFE_SHORT = LogGP(L=21, o_s=15, o_r=122, g=15, P=32)  # Table 1, 2-argument messages
ALEWIFE_LONG = LogGP(L=8, o_s=15, o_r=122, g=15, G=0.5, o_sl=25, o_rl=129, P=32)  # Table 2
ALEWIFE_MESH = Network((8, 4))  # 4 x 8 mesh, no end-around connections, x (8) the lower one
