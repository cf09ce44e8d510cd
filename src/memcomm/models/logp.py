"""LogGP parameters fitted from parameterized round trips (the `logp` experiment).

The method is Hoefler, Lichei and Rehm's PRTT(n, d, s) (IPDPS 2007): rank 0 sends n messages
of s bytes, computing d between them, and rank 1 answers with one. With G_all = g + (s-1)G:

    PRTT(1, 0, s) = 2 (L + 2o + (s-1)G)
    PRTT(n, 0, s) = PRTT(1, 0, s) + (n-1) G_all          -> G_all(s)
    PRTT(n, d, s) = PRTT(1, 0, s) + (n-1) (o + d)        -> o(s), when o + d > G_all

g and G come from a least-squares line through G_all(s) (relative errors, since s spans six
orders of magnitude). A protocol change (the eager limit, a switch to single-copy) breaks
the line: the sizes are split into up to three segments where that fits much better, each
with its own o, g, G, and L from the round trip of its smallest message. The ping-pong time
the model predicts is PRTT(1, 0, s) / 2 = L + 2o + (s-1)G.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memcomm.models.logpc import ModelError
from memcomm.models.validation import Check
from memcomm.stats import median


@dataclass(frozen=True)
class PRTT:
    """The three round trips at one message size (median seconds)."""

    size: int
    one: float  # PRTT(1, 0, s)
    many: float  # PRTT(n, 0, s)
    delayed: float  # PRTT(n, d, s)
    n: int
    delay: float

    @property
    def gap(self) -> float:
        """G_all(s) = g + (s-1)G."""
        return (self.many - self.one) / (self.n - 1)

    @property
    def overhead(self) -> float:
        """o(s), valid when the delay exceeded the gap."""
        return (self.delayed - self.one) / (self.n - 1) - self.delay


@dataclass(frozen=True)
class Segment:
    """LogGP parameters for a range of message sizes (one protocol)."""

    smallest: int
    largest: int
    L: float
    o: float
    g: float
    G: float

    def pingpong(self, size: float) -> float:
        """Half a round trip: L + 2o + (s-1)G."""
        return self.L + 2 * self.o + (size - 1) * self.G


@dataclass(frozen=True)
class Fit:
    segments: tuple[Segment, ...]

    def segment(self, size: float) -> Segment:
        if size <= 0:
            raise ModelError(f"message size must be positive: got {size}")
        for s in self.segments:
            if size <= s.largest:
                return s
        return self.segments[-1]

    def pingpong(self, size: float) -> float:
        return self.segment(size).pingpong(size)


def prtt_points(results: Iterable[dict[str, object]]) -> list[PRTT]:
    """Median round trips per size from `logp` result records."""
    by_size: dict[int, dict[str, tuple[float, int, float]]] = {}
    for r in results:
        if r.get("experiment") != "logp":
            continue
        samples = r["seconds"]
        assert isinstance(samples, list)
        by_size.setdefault(int(str(r["bytes"])), {})[str(r["method"])] = (
            median([float(x) for x in samples]), int(str(r.get("n", 1))),
            float(str(r.get("delay", 0.0))))  # fmt: skip
    points = []
    for size, m in sorted(by_size.items()):
        if {"PRTT(1,0,s)", "PRTT(n,0,s)", "PRTT(n,d,s)"} <= m.keys():
            one, many, delayed = m["PRTT(1,0,s)"], m["PRTT(n,0,s)"], m["PRTT(n,d,s)"]
            points.append(PRTT(size, one[0], many[0], delayed[0], many[1], delayed[2]))
    return points


def _line(points: Sequence[PRTT]) -> tuple[float, float, float]:
    """Weighted least squares G_all = g + (s-1)G with weights 1/G_all^2 (relative errors);
    returns g, G and the weighted squared error."""
    xs = [p.size - 1.0 for p in points]
    ys = [max(p.gap, 1e-12) for p in points]
    ws = [1 / (y * y) for y in ys]
    sw = sum(ws)
    mx = sum(w * x for w, x in zip(ws, xs, strict=True)) / sw
    my = sum(w * y for w, y in zip(ws, ys, strict=True)) / sw
    sxx = sum(w * (x - mx) ** 2 for w, x in zip(ws, xs, strict=True))
    sxy = sum(w * (x - mx) * (y - my) for w, x, y in zip(ws, xs, ys, strict=True))
    G = max(sxy / sxx, 0.0) if sxx > 0 else 0.0
    g = max(my - G * mx, 0.0)
    error = sum(w * (y - (g + G * x)) ** 2 for w, x, y in zip(ws, xs, ys, strict=True))
    return g, G, error


def _splits(count: int, pieces: int, least: int) -> Iterable[tuple[int, ...]]:
    """Start indices of `pieces` consecutive segments of at least `least` points."""
    if pieces == 1:
        yield (0,)
        return
    for first in range(least, count - least * (pieces - 1) + 1):
        for rest in _splits(count - first, pieces - 1, least):
            yield (0, *[first + r for r in rest])


def fit(points: Sequence[PRTT], max_segments: int = 3, least: int = 4) -> Fit:
    """LogGP segments from PRTT points. A further segment is taken only if it divides the
    weighted error by more than 4: a protocol change multiplies the error of a single line by
    far more, while noise (which a short extra segment always absorbs some of) does not."""
    if len(points) < least:
        raise ModelError(
            f"need PRTT at {least} message sizes at least to fit LogGP: got {len(points)}"
        )
    points = sorted(points, key=lambda p: p.size)
    count = len(points)
    best: tuple[float, tuple[int, ...]] | None = None
    for pieces in range(1, max_segments + 1):
        candidates = [
            (
                sum(
                    _line(points[a:b])[2] for a, b in zip(starts, [*starts[1:], count], strict=True)
                ),
                starts,
            )
            for starts in _splits(count, pieces, least)
        ]
        if not candidates:
            break
        error, starts = min(candidates)
        if best is None or error < best[0] / 4:
            best = (error, starts)
    assert best is not None
    starts = best[1]
    segments = []
    for a, b in zip(starts, [*starts[1:], len(points)], strict=True):
        chunk = points[a:b]
        g, G, _ = _line(chunk)
        valid = [p.overhead for p in chunk if p.delay > p.gap]
        o = max(median(valid), 0.0) if valid else 0.0
        first = chunk[0]
        L = max(first.one / 2 - 2 * o - (first.size - 1) * G, 0.0)
        segments.append(Segment(chunk[0].size, chunk[-1].size, L, o, g, G))
    return Fit(tuple(segments))


def validate(model: Fit, points: Sequence[PRTT]) -> list[Check[int]]:
    """The model's ping-pong against the measured half round trip, at every size except the
    ones that anchored a segment's L (those agree by construction)."""
    anchors = {s.smallest for s in model.segments}
    return [
        Check(p.size, model.pingpong(p.size), p.one / 2) for p in points if p.size not in anchors
    ]
