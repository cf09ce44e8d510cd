"""LoGPC reproduced from its own parameters (Moritz and Frank). Where a published number does not
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
    mapping_contention,
    remap_asynchronous,
    remap_long_interval,
    remap_synchronous,
    snake_order,
    stripe_distance,
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


def fig9_dag(block_bytes: float) -> Diamond:
    """Fig. 9's program: n = 1,024, 32 nodes, 100-cycle tasks, b = 64, and the bytes per
    block varied through the data per value (n / b = 16 values per block)."""
    return Diamond(n=1024, P=32, machine=ALEWIFE_LONG, task=100, value_bytes=block_bytes / 16)


RANDOM = mapping_contention(ALEWIFE_MESH, ALEWIFE_MESH.average_distance())


def test_diamond_communication_to_computation_ratio_of_fig9_follows() -> None:
    # "contention ... begins ... at 32,000 bytes per block. This corresponds to a
    # communication to computation ratio of 0.625": (O_s + O_r) / W with G = 0.5 cycle per
    # byte and W = n^2 / (P b) tasks of 100 cycles = 51,200 cycles
    dag = fig9_dag(32_000)
    O_s, O_r, _ = dag.overheads(64)
    assert dag.work(64) == 51_200
    assert (O_s + O_r) / dag.work(64) == pytest.approx(0.625, abs=0.001)


def test_diamond_mappings_on_the_alewife_mesh() -> None:
    # the perfect mapping (consecutive stripes on neighbours) is a snake over the mesh: one
    # hop per message, no shared channel, no contention in Agarwal's model
    assert stripe_distance(ALEWIFE_MESH, snake_order(ALEWIFE_MESH)) == 1
    assert mapping_contention(ALEWIFE_MESH, 1.0) is None
    # the random mapping: eq. 11's 3.875 hops, k_d = 1.9375
    assert RANDOM is not None and RANDOM.k_d == pytest.approx(1.9375)


def test_diamond_contention_is_an_upper_bound_above_the_measured_slowdown() -> None:
    # Fig. 9 at 320,000 bytes per block: the random mapping ran 56% slower than the perfect
    # one. LoGPC's bound (contention on all P - 1 + 2(b - 1) critical-path communications)
    # gives 2.33x: above the measurement, as a bound must be, but not the measurement. The
    # measured 56% would be about 66 of those 157 communications delayed by C_n.
    dag = fig9_dag(320_000)
    perfect, random = dag.predict(64, "loggp"), dag.predict(64, "logpc", RANDOM)
    assert random / perfect == pytest.approx(2.33, abs=0.01)
    assert random / perfect > 1.56
    delayed = 0.56 * perfect / dag.contention(64, RANDOM)
    assert delayed == pytest.approx(66, abs=1)
    # and the bound grows with the message: more contention per byte sent (sec. 5.2.2)
    ratios = [
        fig9_dag(B).predict(64, "logpc", RANDOM) / fig9_dag(B).predict(64, "loggp")
        for B in (16_000, 32_000, 64_000, 320_000)
    ]
    assert ratios == sorted(ratios) and ratios[0] > 1
    # "For message lengths up to 16,000 bytes, we observed no contention": the bound still
    # allows 15% there; the model cannot say that none will be seen
    assert ratios[0] == pytest.approx(1.146, abs=0.002)


def test_diamond_default_numbering_slowdown_does_not_follow_from_a_row_major_mesh() -> None:
    # "Using Alewife's standard processor mapping caused up to 31 percent runtime increases".
    # Numbered row-major on the 4 x 8 mesh (x fastest), stripe i -> i + 1 is one hop except at
    # the three row ends (8 hops): 1.68 hops on average, k_d = 0.84 < 1, so Agarwal's model
    # gives no contention at all. The paper says the numbering is not row-major ("does not
    # put all sequential processor numbers adjacent") but does not give it, so the 31% cannot
    # be recomputed.
    distance = stripe_distance(ALEWIFE_MESH, range(32))
    assert distance == pytest.approx(52 / 31)
    assert mapping_contention(ALEWIFE_MESH, distance) is None


def test_diamond_aggregation_share_does_not_depend_on_b_in_eq15() -> None:
    # "the cost for message aggregation and unpacking ... more than 50 percent of total runtime
    # with n = 1,024 and b = 4". In eq. 15, W = n^2/(Pb) + alpha n/b, so aggregation's share of
    # the work is alpha P / n whatever b is; above 50% it needs alpha > n / P tasks = 3,200
    # cycles per value. The paper gives no alpha, so the figure is an input, not an output.
    for b in (4, 64):
        dag = Diamond(n=1024, P=32, machine=ALEWIFE_LONG, task=100, alpha=3200)
        aggregation = dag.alpha * dag.n / b
        assert aggregation / dag.work(b) == pytest.approx(0.5)


def test_diamond_models_order_and_the_best_granularity() -> None:
    dag = Diamond(n=1024, P=32, machine=ALEWIFE_LONG, task=100, value_bytes=8)
    for b in (4, 64, 1024):
        # LogP pays o_r per 8-byte short message; LogGP's bulk transfer G per byte
        assert dag.predict(b, "logp") > dag.predict(b, "loggp")
        assert dag.predict(b, "logpc", RANDOM) >= dag.predict(b, "loggp")
    # with 8-byte values and 100-cycle tasks, per-block overheads (o_s + o_r = 137 cycles)
    # are small against the pipeline fill, so the finest granularity wins: the continuous
    # optimum of M(b), sqrt((P - 1) n^2 task / (P (o_s + o_r))) = 861, lies near n
    assert dag.best_blocks() >= 861
    # with a costly software overhead per message (5,000 cycles each end) the optimum is
    # interior, and contention on the random mapping moves it to more, smaller blocks: the
    # lower bound on b of sec. 5.2.2
    slow = LogGP(L=8, o_s=5000, o_r=5000, G=0.5, P=32)
    dag = Diamond(n=1024, P=32, machine=slow, task=100, value_bytes=5000)
    plain = dag.best_blocks()
    contended = dag.best_blocks(lambda b: dag.contention(b, RANDOM))
    assert 1 < plain < contended < dag.n
    assert (plain, contended) == (188, 295)


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
        (lambda: Diamond(n=64, P=1, machine=ALEWIFE_LONG), "P >= 2"),
        (lambda: Diamond(n=64, P=4, machine=ALEWIFE_LONG).predict(4, "logq"), "unknown model"),
        (lambda: stripe_distance(ALEWIFE_MESH, [0]), "at least two"),
    ],
)
def test_bad_parameters_are_named(call: object, message: str) -> None:
    with pytest.raises(ModelError, match=message):
        call()  # type: ignore[operator]
