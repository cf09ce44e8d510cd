"""LogGP parameters fitted from parameterized round trips (the `logp` experiment).

The method is Hoefler, Lichei and Rehm's PRTT(n, d, s) (IPDPS 2007): rank 0 sends n messages
of s bytes, computing d between them, and rank 1 answers with one. With G_all = g + (s-1)G:

    PRTT(1, 0, s) = 2 (L + 2o + (s-1)G)
    PRTT(n, 0, s) = PRTT(1, 0, s) + (n-1) G_all          -> G_all(s)
    PRTT(n, d, s) = PRTT(1, 0, s) + (n-1) (o + d)        -> o(s), when o + d > G_all

g and G come from a least-squares line through G_all(s) (relative errors, since s spans six
orders of magnitude), o and the overhead per byte O (LogGOPS's) from a line through o(s). A
protocol change (the eager limit, a switch to single-copy) breaks the lines: the sizes are
split into up to four segments where that fits much better, each with its own parameters.
The ping-pong time LogGP predicts is PRTT(1, 0, s) / 2 = L + 2o + (s-1)G.

Two fits share the segments, o and g:
- `fit` ("streams"), the PRTT method as published: G from the streams, L from the round trip
  of each segment's smallest message. It assumes what LogGP assumes, that a stream's gap per
  byte is also the time per byte of one message. Over shared memory it is not: a stream
  overlaps the sender's copy of one message with the receiver's copy of the previous one,
  while a lone message waits for both.
- `fit_pingpong` ("ping-pong"): L and G from a least-squares line through the half round
  trips themselves, as LogGP was first fitted. `cross_validate` checks it on sizes it was not
  fitted on.
The segments are where either line breaks (`_chunks`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

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
    """LogGP parameters for a range of message sizes (one protocol), with the sender's
    overhead per byte O beside them (o(s) = o + (s-1)O)."""

    smallest: int
    largest: int
    L: float
    o: float
    g: float
    G: float
    O: float = 0.0  # noqa: E741 (LogGOPS's name)

    def pingpong(self, size: float) -> float:
        """Half a round trip: L + 2o + (s-1)G."""
        return self.L + 2 * self.o + (size - 1) * self.G


@dataclass(frozen=True)
class Fit:
    segments: tuple[Segment, ...]
    method: str  # "streams" or "ping-pong": where G and L came from

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


def _line(
    xs: Sequence[float], ys: Sequence[float], scales: Sequence[float] | None = None
) -> tuple[float, float, float]:
    """Weighted least squares y = a + b x with weights 1/scale^2, the scale being y itself
    unless given (relative errors), a and b non-negative; returns a, b and the weighted
    squared error."""
    ys = [max(y, 1e-12) for y in ys]
    ws = [1 / (max(s, 1e-12) ** 2) for s in (scales or ys)]
    sw = sum(ws)
    mx = sum(w * x for w, x in zip(ws, xs, strict=True)) / sw
    my = sum(w * y for w, y in zip(ws, ys, strict=True)) / sw
    sxx = sum(w * (x - mx) ** 2 for w, x in zip(ws, xs, strict=True))
    sxy = sum(w * (x - mx) * (y - my) for w, x, y in zip(ws, xs, ys, strict=True))
    b = max(sxy / sxx, 0.0) if sxx > 0 else 0.0
    a = max(my - b * mx, 0.0)
    error = sum(w * (y - (a + b * x)) ** 2 for w, x, y in zip(ws, xs, ys, strict=True))
    return a, b, error


def _gap_line(points: Sequence[PRTT]) -> tuple[float, float, float]:
    """g, G and the error of G_all(s) = g + (s-1)G."""
    return _line([p.size - 1.0 for p in points], [p.gap for p in points])


def _overhead_line(points: Sequence[PRTT]) -> tuple[float, float]:
    """o and O from o(s) = o + (s-1)O, over the sizes whose delay exceeded the gap. o(s) is
    a difference of round trips that last about (n-1)(o + d), so its error scales with o + d,
    not with o(s): the line is weighted by that."""
    valid = [p for p in points if p.delay > p.gap]
    if len(valid) < 2:
        return (max(valid[0].overhead, 0.0) if valid else 0.0), 0.0
    o, O, _ = _line(  # noqa: E741
        [p.size - 1.0 for p in valid],
        [p.overhead for p in valid],
        [abs(p.overhead) + p.delay for p in valid],
    )
    return o, O


def _splits(count: int, pieces: int, least: int) -> Iterable[tuple[int, ...]]:
    """Start indices of `pieces` consecutive segments of at least `least` points."""
    if pieces == 1:
        yield (0,)
        return
    for first in range(least, count - least * (pieces - 1) + 1):
        for rest in _splits(count - first, pieces - 1, least):
            yield (0, *[first + r for r in rest])


def _pingpong_fit(points: Sequence[PRTT]) -> tuple[float, float, float]:
    """L + 2o, G and the error of the half round trip's line."""
    return _line([p.size - 1.0 for p in points], [p.one / 2 for p in points])


def _chunks(points: Sequence[PRTT], max_segments: int, least: int) -> list[list[PRTT]]:
    """The sizes split where a protocol changes: where the line through the streams' gaps
    G_all or the one through the half round trips breaks (on shared memory a lone message
    shows an eager limit that the streams, overlapping the copies, hide). A further segment
    is taken only if it divides the weighted error of both lines by more than 4: a protocol
    change multiplies the error of a single line by far more, while noise (which a short
    extra segment always absorbs some of) does not."""
    if len(points) < least:
        raise ModelError(
            f"need PRTT at {least} message sizes at least to fit LogGP: got {len(points)}"
        )
    points = sorted(points, key=lambda p: p.size)
    count = len(points)

    def error(chunk: Sequence[PRTT]) -> float:
        return _gap_line(chunk)[2] + _pingpong_fit(chunk)[2]

    best: tuple[float, tuple[int, ...]] | None = None
    for pieces in range(1, max_segments + 1):
        candidates = [
            (sum(error(points[a:b]) for a, b in zip(starts, [*starts[1:], count], strict=True)),
             starts)
            for starts in _splits(count, pieces, least)
        ]  # fmt: skip
        if not candidates:
            break
        total, starts = min(candidates)
        if best is None or total < best[0] / 4:
            best = (total, starts)
    assert best is not None
    starts = best[1]
    return [points[a:b] for a, b in zip(starts, [*starts[1:], count], strict=True)]


def fit(points: Sequence[PRTT], max_segments: int = 4, least: int = 4) -> Fit:
    """LogGP by the PRTT method: per segment, g and G from the streams, o and O from the
    delayed streams, L from the round trip of the segment's smallest message."""
    segments = []
    for chunk in _chunks(points, max_segments, least):
        g, G, _ = _gap_line(chunk)
        o, O = _overhead_line(chunk)  # noqa: E741
        first = chunk[0]
        L = max(first.one / 2 - 2 * o - (first.size - 1) * G, 0.0)
        segments.append(Segment(chunk[0].size, chunk[-1].size, L, o, g, G, O))
    return Fit(tuple(segments), "streams")


def _pingpong_line(segment: Segment, points: Sequence[PRTT]) -> Segment:
    """The segment with L and G from a line through the half round trips of `points`. The
    line's start is L + 2o; where the o of the delayed streams exceeds half of it, o is
    capped there (L = 0), so that the line, not the streams, decides the prediction."""
    start, G, _ = _pingpong_fit(points)
    o = min(segment.o, start / 2)
    return replace(segment, L=start - 2 * o, o=o, G=G)


def fit_pingpong(points: Sequence[PRTT], max_segments: int = 4, least: int = 4) -> Fit:
    """LogGP with the segments, o and g of `fit`, and L and G from the ping-pong itself."""
    streams = fit(points, max_segments, least)
    segments = []
    for segment in streams.segments:
        chunk = [p for p in points if segment.smallest <= p.size <= segment.largest]
        segments.append(_pingpong_line(segment, chunk))
    return Fit(tuple(segments), "ping-pong")


def validate(model: Fit, points: Sequence[PRTT]) -> list[Check[int]]:
    """The streams model's ping-pong against the measured half round trip, at every size
    except the ones that anchored a segment's L (those agree by construction)."""
    anchors = {s.smallest for s in model.segments}
    return [
        Check(p.size, model.pingpong(p.size), p.one / 2) for p in points if p.size not in anchors
    ]


def cross_validate(points: Sequence[PRTT], max_segments: int = 4) -> list[Check[int]]:
    """The ping-pong fit checked on sizes it was not fitted on (two-fold cross-validation):
    the sizes alternate between two halves, and each half is predicted by the whole method,
    segments included, run on the other. Every size gets an out-of-sample prediction."""
    ordered = sorted(points, key=lambda p: p.size)
    checks = []
    for fold in (0, 1):
        fitted_on, held = ordered[1 - fold :: 2], ordered[fold::2]
        model = fit_pingpong(fitted_on, max_segments, least=2)
        checks += [Check(p.size, model.pingpong(p.size), p.one / 2) for p in held]
    return sorted(checks, key=lambda c: c.subject)
