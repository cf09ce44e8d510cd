"""LoGPC reproduced from its own parameters (seed 003). Where a published number does not
follow from the published parameters, the test says exactly why instead of tuning."""

import math

import pytest

from memcomm.models.logpc import (
    ALEWIFE_LONG,
    ALEWIFE_MESH,
    ALEWIFE_SHORT,
    Contention,
    Diamond,
    LogGP,
    ModelError,
    Network,
    em3d_message,
    remap_asynchronous,
    remap_long_interval,
    remap_synchronous,
)


def test_alewife_average_distance_for_random_destinations() -> None:
    # eq. 11 on the 4 x 8 mesh: 2 k_d = 3.875
    assert ALEWIFE_MESH.average_distance() == pytest.approx(3.875)
    # and by brute force over all pairs, the same
    count = 32
    pairs = sum(ALEWIFE_MESH.hops(a, b) for a in range(count) for b in range(count))
    assert pairs / count**2 == pytest.approx(3.875)


def test_alewife_neighbour_distance() -> None:
    # The paper gives 2 k_dl = 1.875 for "i sends to i+1 or i-1" (eq. 12), i.e. 60 hops over
    # the 32 processors. Numbered row by row (x, the 8-wide dimension, fastest), the 31
    # neighbour pairs within the machine cost 28 x 1 + 3 x 8 = 52 hops, and the wrap from 31
    # back to 0 another 10: 62 hops, 1.9375. Without the wrap, with the end processors
    # sending to their one neighbour, 1.65625. Neither numbering reaches 60: the paper's
    # figure needs a numbering it does not describe (its Fig. 9 notes Alewife's default
    # numbering is not row by row), so the test pins what eq. 12 gives for the stated one.
    assert ALEWIFE_MESH.neighbour_distance(wrap=True) == pytest.approx(1.9375)
    assert ALEWIFE_MESH.neighbour_distance(wrap=False) == pytest.approx(1.65625)
    assert ALEWIFE_MESH.neighbour_distance() < ALEWIFE_MESH.average_distance()


def test_table4_synchronous_and_asynchronous_remap() -> None:
    m = ALEWIFE_SHORT
    assert remap_synchronous(m, C_n=0, C_r=0) == 316  # LogP: 2(o_s + L + o_r)
    C_r = m.o_r + m.o_s  # LoPC: about the cost of a handler that sends the reply
    assert C_r == 137
    assert remap_synchronous(m, C_n=0, C_r=C_r) == 453  # LoPC
    assert remap_synchronous(m, C_n=23, C_r=C_r) == 499  # LoGPC, the paper's C_n
    assert remap_asynchronous(m) == 137
    assert em3d_message(m) == 137


def test_table4_contention_needs_the_message_size_the_paper_does_not_give() -> None:
    # C_n (23 synchronous, 31 asynchronous) follows from eq. 9 only with the size B of a
    # 2-argument message in the units of eq. 4, which the paper does not state. With the
    # asynchronous rate m = 1/(o_s + o_r) = 1/137, C_n = 31 needs B of about 45; the same B
    # at the synchronous rate of two messages per 499-cycle round trip gives about 14, not
    # 23. So the published C_n are inputs here (test above), not outputs.
    net = Contention.of(ALEWIFE_MESH)
    size = 45.3
    assert net.delay(1 / 137, size) == pytest.approx(31, rel=0.01)
    assert net.delay(2 / 499, size) == pytest.approx(14.0, rel=0.02)


def test_all_to_all_long_messages_and_the_upper_bound() -> None:
    G = ALEWIFE_LONG.G
    # with k_d = 3.875 / 2 from eq. 11: one message every 2.17 B cycles
    net = Contention.of(ALEWIFE_MESH)
    F = net.bound_factor(G)
    assert pytest.approx(2.1703, abs=1e-3) == F
    assert remap_long_interval(ALEWIFE_LONG, net, 1000) == pytest.approx(2170.3, abs=1)
    # The paper's 2.22 B is what k_d = 2 gives exactly: F = 1 + sqrt(1.5) = 2.2247. The paper
    # does not say it rounded k_d; with 1.9375 the bound is 2.17.
    assert Contention(2, 2.0).bound_factor(G) == pytest.approx(1 + math.sqrt(1.5))
    # eq. 14: the inflation bound F / 2G, "2.2 on Alewife"
    assert pytest.approx(2.2, abs=0.05) == F / (2 * G)
    # eq. 13 and the closed rate agree: at T = 2GB the closed rate is 1 / (F B)
    for size in (100.0, 1000.0, 32000.0):
        assert net.closed_rate(2 * G * size, size) * F * size == pytest.approx(1.0)


def test_closed_rate_satisfies_eq7_and_contention_grows_with_size() -> None:
    net = Contention.of(ALEWIFE_MESH)
    T = 500.0
    last = 0.0
    for size in (8.0, 64.0, 256.0, 1024.0):
        m = net.closed_rate(T, size)
        assert 1 / (T + net.delay(m, size)) == pytest.approx(m)
        c = net.closed_delay(T, size)
        assert c > last
        last = c


def test_short_and_long_message_times_add_contention() -> None:
    net = Contention.of(ALEWIFE_MESH)
    m = 1 / 137
    assert net.short_message(ALEWIFE_SHORT, m, 16) == pytest.approx(158 + net.delay(m, 16))
    assert ALEWIFE_LONG.long_message(1000) == 25 + 8 + 999 * 0.5  # eq. 1
    assert net.long_message(ALEWIFE_LONG, 1e-4, 1000) > ALEWIFE_LONG.long_message(1000)


def test_diamond_dag_optimum_trades_serialization_for_overhead() -> None:
    machine = LogGP(L=0.2, o_s=1.0, o_r=1.2, G=0.005)  # in task times (100 cycles per task)
    dag = Diamond(n=1024, P=16, machine=machine, alpha=0.05, a=8, value_bytes=8)
    best = dag.best_blocks()
    assert 1 < best < dag.n  # neither extreme
    assert dag.makespan(best) < min(dag.makespan(1), dag.makespan(dag.n))
    # around the optimum the makespan rises both ways (dM/db = 0 there)
    assert dag.makespan(best) <= dag.makespan(best - 1)
    assert dag.makespan(best) <= dag.makespan(best + 1)
    # a bigger problem is split into more blocks
    assert Diamond(n=4096, P=16, machine=machine, alpha=0.05, a=8,
                   value_bytes=8).best_blocks() > best  # fmt: skip
    # contention that grows with the message size pushes toward more, smaller blocks: it sets
    # a lower bound on b (sec. 5.2.2)
    net = Contention(2, 2.0)

    def contention(b: int) -> float:
        size = dag.message_bytes(b)
        return net.closed_delay(1000.0 * size / 8, size) / 100

    assert dag.best_blocks(contention) >= best


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: LogGP(L=-1, o_s=1, o_r=1), "L must be non-negative"),
        (lambda: ALEWIFE_LONG.long_message(-5), "message size B must be positive"),
        (lambda: Contention(2, 0.5), "k_d must be at least 1"),
        (lambda: Network(()), "radix"),
        (lambda: Contention(2, 2.0).delay(1.0, 100), "saturated"),
        (lambda: Contention(2, 2.0).closed_rate(-1, 10), "T must be non-negative"),
        (lambda: Diamond(n=64, P=4, machine=ALEWIFE_LONG).makespan(0), "block count b"),
    ],
)
def test_bad_parameters_are_named(call: object, message: str) -> None:
    with pytest.raises(ModelError, match=message):
        call()  # type: ignore[operator]
