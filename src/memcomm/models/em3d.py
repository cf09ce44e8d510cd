"""EM3D's communication phase under LogP and with hot spots (LoGPC, sec. 5.3).

EM3D updates the E and H nodes of a bipartite graph; before each half-step every processor
sends, for each edge that ends on another processor, the value of its end node, in messages
of 10 values (Alewife's short messages). The paper models a message as o_s + o_r and finds
that its first version stalled on hot spots: receivers that many senders target at once
fill their input queues and block the senders. Sending in random order removed 70% of the
stall time.

Here the graph is drawn as the Split-C generator's parameters describe it (our reading,
the paper gives no more): each of the `nodes` / P nodes of a processor has `degree` edges,
each to a processor at a distance drawn uniformly from 1..`span` on either side (the ring
of processor numbers, 100% non-local edges). The phase is then

- LogP: max over processors of S o_s + R o_r (S messages sent, R received), the time if the
  handlers interleave perfectly with the sends;
- simulated: every processor sends its messages in a given order, each send costs o_s and
  arrives L later (plus the network contention C_n of LoGPC, if given); a received
  message's handler costs o_r and preempts sending; a receiver holds at most `queue`
  messages sent to it but not yet handled, and a sender whose next destination is full
  waits (stalls) until the destination handles one. "by destination" sends the messages to
  processor 0 first, then 1, and so on (a loop over destinations: the hot spot); "random"
  shuffles them (the paper's fix).
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Sequence
from dataclasses import dataclass

from memcomm.models.logpc import LogGP, ModelError, Network, mapping_contention

ORDERS = ("by destination", "random")
VALUE_BYTES, HEADER_BYTES = 8, 8  # a double per value; a message's header


@dataclass(frozen=True)
class Graph:
    """The messages of one half-step: per processor, the destination of each message."""

    nodes: int = 3200
    degree: int = 32
    P: int = 32
    span: int = 1
    values_per_message: int = 10
    seed: int = 1

    def __post_init__(self) -> None:
        if self.P < 2 or self.nodes < self.P or self.nodes % self.P:
            raise ModelError(
                f"the graph needs P >= 2 processors holding nodes / P each: got "
                f"{self.nodes} nodes on {self.P}"
            )
        if self.degree < 1 or self.values_per_message < 1:
            raise ModelError("degree and values per message must be at least 1")
        if not 1 <= self.span <= self.P // 2:
            raise ModelError(f"span must be between 1 and P / 2 = {self.P // 2}: got {self.span}")

    def values(self) -> list[dict[int, int]]:
        """Per processor: values it sends to each other processor."""
        rng = random.Random(self.seed)
        out: list[dict[int, int]] = []
        for p in range(self.P):
            to: dict[int, int] = {}
            for _ in range(self.nodes // self.P * self.degree):
                distance = rng.randint(1, self.span) * rng.choice((-1, 1))
                q = (p + distance) % self.P
                to[q] = to.get(q, 0) + 1
            out.append(to)
        return out

    def messages(self, order: str = "by destination") -> list[list[int]]:
        """Per processor, the destinations of its messages in sending order."""
        if order not in ORDERS:
            raise ModelError(f"unknown order {order!r}: choose one of {', '.join(ORDERS)}")
        rng = random.Random(self.seed + 1)
        out = []
        for to in self.values():
            sequence = [q for q in sorted(to) for _ in range(-(-to[q] // self.values_per_message))]
            if order == "random":
                rng.shuffle(sequence)
            out.append(sequence)
        return out


def logp_phase(messages: Sequence[Sequence[int]], machine: LogGP) -> float:
    """max over processors of S o_s + R o_r: the phase when handlers and sends interleave
    without waiting (the paper's o_s + o_r per message, on the busiest processor)."""
    received = [0] * len(messages)
    for sequence in messages:
        for q in sequence:
            received[q] += 1
    return max(
        len(sent) * machine.o_s + received[p] * machine.o_r for p, sent in enumerate(messages)
    )


@dataclass(frozen=True)
class Phase:
    time: float  # until the last handler ran
    stall: float  # summed over processors: time with a message to send and its receiver full


def simulate_phase(
    messages: Sequence[Sequence[int]], machine: LogGP, queue: int = 4, contention: float = 0.0
) -> Phase:
    """The phase as an event simulation (module docstring). Deterministic."""
    if queue < 1:
        raise ModelError(f"the input queue holds at least one message: got {queue}")
    count = len(messages)
    sent_next = [0] * count  # index of each processor's next message
    reserved = [0] * count  # messages sent to each processor and not yet handled
    arrived: list[list[float]] = [[] for _ in range(count)]  # arrival times, a heap each
    free_at = [0.0] * count  # when each processor's CPU is next free
    stalled_since: list[float | None] = [None] * count
    waiting_on: list[list[int]] = [[] for _ in range(count)]  # senders stalled on a receiver
    stall = 0.0
    latency = machine.L + contention
    events: list[tuple[float, int]] = [(0.0, p) for p in range(count)]
    heapq.heapify(events)
    end = 0.0
    while events:
        now, p = heapq.heappop(events)
        if now < free_at[p]:
            continue  # a stale wake-up: p is busy until later
        if arrived[p] and arrived[p][0] <= now:  # handlers first: they preempt sending
            heapq.heappop(arrived[p])
            since = stalled_since[p]
            if since is not None:  # a handler is work, not a stall
                stall += now - since
                stalled_since[p] = None
            done = now + machine.o_r
            free_at[p] = done
            end = max(end, done)
            reserved[p] -= 1
            for sender in waiting_on[p]:  # a slot opens: stalled senders try again
                heapq.heappush(events, (done, sender))
            waiting_on[p].clear()
            heapq.heappush(events, (done, p))
            continue
        if sent_next[p] < len(messages[p]):
            q = messages[p][sent_next[p]]
            if reserved[q] < queue:
                since = stalled_since[p]
                if since is not None:
                    stall += now - since
                    stalled_since[p] = None
                sent_next[p] += 1
                reserved[q] += 1
                done = now + machine.o_s
                heapq.heappush(arrived[q], done + latency)
                heapq.heappush(events, (done + latency, q))
                free_at[p] = done
                end = max(end, done)
                heapq.heappush(events, (done, p))
                continue
            if stalled_since[p] is None:
                stalled_since[p] = now
            waiting_on[q].append(p)
        if arrived[p]:  # idle until the next message arrives
            heapq.heappush(events, (arrived[p][0], p))
    if any(sent_next[p] < len(messages[p]) for p in range(count)) or any(arrived):
        raise ModelError("the simulation ended with messages unsent or unhandled")
    return Phase(end, stall)


def ring_distance(network: Network, span: int) -> float:
    """The average hops of a message from processor p to p +- k (k uniform in 1..span, on the
    ring of processor numbers), processors numbered first dimension fastest."""
    count = 1
    for k in network.radix:
        count *= k
    hops = [
        network.hops(p, (p + sign * k) % count)
        for p in range(count)
        for k in range(1, span + 1)
        for sign in (-1, 1)
    ]
    return sum(hops) / len(hops)


def message_contention(network: Network, span: int, machine: LogGP, size: float) -> float:
    """LoGPC's C_n for EM3D's messages of `size` bytes: the closed model (eq. 7) at the
    asynchronous rate, one message per o_s + o_r, over the distance of the span's mapping;
    0 where messages share no channel."""
    contention = mapping_contention(network, ring_distance(network, span))
    if contention is None:
        return 0.0
    return contention.closed_delay(machine.o_s + machine.o_r, size)
