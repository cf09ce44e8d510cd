/* The path decisions' state machine (lib/core/sendpath.c) on injected times: which path a run
 * of blocking calls, or of epochs of non-blocking calls, settles on, and when it measures
 * again, deterministically (the times are what each scenario says the path costs, with a
 * seeded noise; no clock is read). */
#include <stdio.h>
#include <stdlib.h>

#include "../check.h"
#include "core/sendpath.h"
#include "core/stats.h"


enum { PACKED = 0, BY_MPI = 1, PATHS = 2, BYTES = 1 << 20, UNDECIDED = -1 };

/* A scenario: what a call on each path costs at call `n`, and the noise around it. */
typedef struct {
    double cost[PATHS];      /* seconds */
    double after[PATHS];     /* from call `change` on (0: never) */
    int change;
    double noise;            /* each time times 1 +- this, uniformly */
    unsigned seed;
    int burst_from, burst_to; /* calls [from, to) of the MPI's own path take `burst` times */
    double burst;
    bool burst_packed;        /* ... of packing instead */
} scenario;

static double noisy(scenario *s, double t)
{
    s->seed = s->seed * 1103515245u + 12345u;
    const double u = (double)((s->seed >> 8) & 0xffffu) / 65535.0; /* 0..1 */
    return t * (1 + s->noise * (2 * u - 1));
}

/* One blocking call of `use` on `side`, timed when the state machine asks; the path it took. */
static int one_call_on(analysis *a, path_use use, scenario *s, int n, int side)
{
    const send_choice c = sendpath_choose(a, use, BYTES, PATHS, side);
    const double *cost = s->change && n >= s->change ? s->after : s->cost;
    const int burst_path = s->burst_packed ? PACKED : BY_MPI;
    const double burst =
        c.path == burst_path && n >= s->burst_from && n < s->burst_to ? s->burst : 1;
    if (c.timed)
        sendpath_record(a, &c, noisy(s, cost[c.path] * burst));
    return c.path;
}

static int one_call(analysis *a, path_use use, scenario *s, int n)
{
    return one_call_on(a, use, s, n, TRIAL_SEND);
}

static int decision(analysis *a, path_use use)
{
    return sendpath_untimed(a, use, BYTES, PATHS, UNDECIDED);
}

/* The calls until a decision (or `max`), and the decision. */
static int run_until_decided(analysis *a, path_use use, scenario *s, int *n, int max)
{
    while (decision(a, use) == UNDECIDED && *n < max)
        one_call(a, use, s, (*n)++);
    return decision(a, use);
}

static void test_a_clear_winner(void)
{
    for (int winner = 0; winner < PATHS; winner++) {
        analysis a = {0};
        scenario s = {.cost = {winner == PACKED ? 1e-3 : 3e-3, winner == PACKED ? 3e-3 : 1e-3},
                      .noise = 0.05, .seed = 1};
        int n = 0;
        CHECK(run_until_decided(&a, USE_ALLTOALL, &s, &n, 100) == winner);
        /* three times as fast after one block of each: no second block (TRIALS_DECISIVE) */
        CHECK(n == 1 + 2 * SENDPATH_TRIALS_EACH); /* a call warming up, 2 blocks */
        sendpath_free(&a);
    }
}

/* What a run decides for `cost` (packed, the MPI's own) under `noise`, over 20 seeds: the
 * number of runs that chose packing. */
static int packed_runs(double packed, double by_mpi, double noise)
{
    int packing = 0;
    for (unsigned seed = 1; seed <= 20; seed++) {
        analysis a = {0};
        scenario s = {.cost = {packed, by_mpi}, .noise = noise, .seed = seed};
        int n = 0;
        packing += run_until_decided(&a, USE_ALLTOALL, &s, &n, 100) == PACKED;
        sendpath_free(&a);
    }
    return packing;
}

/* Within noise the MPI's own path stays: packing must win by TRIALS_MARGIN, or by
 * TRIALS_MARGIN_SEPARATED with its trials faster call by call (lib/base/trials.h). */
static void test_noise_keeps_the_mpi(void)
{
    CHECK(packed_runs(1e-3, 1e-3, 0.08) == 0);      /* the same, +-8% */
    CHECK(packed_runs(1.05e-3, 1e-3, 0.08) == 0);   /* 5% slower, within the noise */
    CHECK(packed_runs(0.98e-3, 1e-3, 0.002) == 0);  /* 2% faster, call by call */
    CHECK(packed_runs(0.95e-3, 1e-3, 0.005) == 20); /* 5% faster, call by call */
    CHECK(packed_runs(0.75e-3, 1e-3, 0.05) == 20);  /* 25% faster */
}

/* A busy neighbour during one block of the MPI's own trials moves their median, not their
 * lower quartile, and the MPI's own path stays. A collective's round: a warm-up call, then
 * blocks of packed, own, own, packed; the burst takes the second block of own (calls 7-9)
 * 1.6 times as long. Of 20 seeds, the median alone chooses
 * packing in all; with the lower quartile, one (by the call-by-call rule,
 * TRIALS_MARGIN_SEPARATED; four when that rule compared packing's trials with all of the
 * MPI's own, not only their faster half). */
static void test_a_burst_in_one_block_keeps_the_mpi(void)
{
    const int block = SENDPATH_TRIALS_EACH;
    int packing = 0;
    for (unsigned seed = 1; seed <= 20; seed++) {
        analysis a = {0};
        scenario s = {.cost = {1e-3, 1e-3}, .noise = 0.05, .seed = seed,
                      .burst_from = 1 + 2 * block, .burst_to = 1 + 3 * block, .burst = 1.6};
        int n = 0;
        packing += run_until_decided(&a, USE_ALLTOALL, &s, &n, 100) == PACKED;
        sendpath_free(&a);
    }
    CHECK(packing <= 1);
}

/* A decided path that turns slow is measured again, and the other path taken. */
static void test_a_path_turning_slow(void)
{
    analysis a = {0};
    scenario s = {.cost = {1e-3, 2.5e-3}, .after = {5e-3, 2.5e-3}, .change = 40, .noise = 0.03,
                  .seed = 7};
    int n = 0;
    CHECK(run_until_decided(&a, USE_ALLTOALL, &s, &n, 40) == PACKED);
    while (n < 40)
        CHECK(one_call(&a, USE_ALLTOALL, &s, n++) == PACKED);
    /* every SENDPATH_SAMPLE_EVERY-th call is timed; SENDPATH_STRIKES slow ones in a row start
     * the trials again, which the MPI's own path then wins */
    const int strikes_by = 40 + SENDPATH_SAMPLE_EVERY * SENDPATH_STRIKES;
    while (n < strikes_by && decision(&a, USE_ALLTOALL) == PACKED)
        one_call(&a, USE_ALLTOALL, &s, n++);
    CHECK(decision(&a, USE_ALLTOALL) == UNDECIDED);
    CHECK(run_until_decided(&a, USE_ALLTOALL, &s, &n, strikes_by + 100) == BY_MPI);
    sendpath_free(&a);
}

/* A slow call now and then (noise) restarts nothing: the strikes must come in a row. */
static void test_single_slow_samples(void)
{
    analysis a = {0};
    scenario s = {.cost = {1e-3, 2.5e-3}, .noise = 0.03, .seed = 3};
    int n = 0;
    CHECK(run_until_decided(&a, USE_ALLTOALL, &s, &n, 40) == PACKED);
    for (int k = 0; k < 400; k++) {
        /* every other sample twice the usual time */
        s.cost[PACKED] = (n / SENDPATH_SAMPLE_EVERY) % 2 ? 2e-3 : 1e-3;
        one_call(&a, USE_ALLTOALL, &s, n++);
        CHECK(decision(&a, USE_ALLTOALL) == PACKED);
    }
    sendpath_free(&a);
}

/* Uses and sizes decide apart: the same type may pack in one and not in another. */
static void test_uses_apart(void)
{
    analysis a = {0};
    scenario fast = {.cost = {1e-3, 3e-3}, .seed = 1}, slow = {.cost = {3e-3, 1e-3}, .seed = 1};
    int n = 0, m = 0;
    CHECK(run_until_decided(&a, USE_FILE_WRITE, &fast, &n, 100) == PACKED);
    CHECK(run_until_decided(&a, USE_FILE_READ, &slow, &m, 100) == BY_MPI);
    CHECK(decision(&a, USE_FILE_WRITE) == PACKED);
    CHECK(sendpath_untimed(&a, USE_FILE_WRITE, 4 * BYTES, PATHS, UNDECIDED) == UNDECIDED);
    sendpath_free(&a);
}

/* A write packing wins by less than TRIALS_CLOSE stays with the MPI's own path (the other
 * ranks' writes to the file wait for it, which no rank's trials see); by more, it packs. A
 * read with the same times packs. */
static void test_close_writes_keep_the_mpi(void)
{
    for (int k = 0; k < 2; k++) {
        const double by_mpi = k == 0 ? 1.2e-3 : 2.0e-3; /* packed: 1 ms */
        analysis a = {0};
        scenario write = {.cost = {1e-3, by_mpi}, .noise = 0.02, .seed = 3};
        scenario read = write;
        int n = 0, m = 0;
        CHECK(run_until_decided(&a, USE_FILE_WRITE, &write, &n, 100) ==
              (k == 0 ? BY_MPI : PACKED));
        CHECK(run_until_decided(&a, USE_FILE_READ, &read, &m, 100) == PACKED);
        sendpath_free(&a);
    }
}

/* Of `calls` calls on a decided path of `cost` seconds, those not in a check against the MPI's
 * own path (tested below) `*counted`, how many are timed samples. */
static int samples_of(double cost, int calls, int *counted)
{
    analysis a = {0};
    scenario s = {.cost = {cost, 3 * cost}, .seed = 5};
    int n = 0, timed = 0;
    *counted = 0;
    CHECK(run_until_decided(&a, USE_ALLTOALL, &s, &n, 100) == PACKED);
    for (int k = 0; k < calls; k++) {
        const send_choice c = sendpath_choose(&a, USE_ALLTOALL, BYTES, PATHS, TRIAL_SEND);
        timed += c.timed && !c.check;
        *counted += !c.check;
        if (c.timed)
            sendpath_record(&a, &c, noisy(&s, s.cost[c.path]));
    }
    sendpath_free(&a);
    return timed;
}

/* Short calls are sampled less often, so that samples cost them no more than long ones. */
static void test_short_calls_sampled_less(void)
{
    int m = 0, samples = samples_of(1e-3, 640, &m);
    CHECK(samples == m / SENDPATH_SAMPLE_EVERY && m >= 600);
    samples = samples_of(1e-6, 640, &m);
    CHECK(samples == m / SENDPATH_SAMPLE_EVERY_MOST); /* 1 us: every 64th */
    samples = samples_of(5e-6, 640, &m);
    CHECK(samples == m / 16); /* 16 x 5 us is the first >= 50 us */
}

/* A point-to-point block: SENDPATH_TRIALS_EACH turns, a turn being two calls. A round: a
 * warm-up turn of packing (and a block of the MPI's own where it comes first), and two blocks
 * of each path. */
enum { P2P_BLOCK = 2 * SENDPATH_TRIALS_EACH, P2P_WARM_UP = 2,
       P2P_ROUND = P2P_WARM_UP + 4 * P2P_BLOCK };

/* A point-to-point decision for packing close in its first round is measured again; packing
 * is taken only if both rounds choose it. A close first round the MPI's own path wins is
 * kept. The calls the decision took: `calls`. */
static int p2p_decision(double first, double second, double by_mpi, unsigned seed, int calls)
{
    analysis a = {0};
    scenario s = {.cost = {first, by_mpi}, .after = {second, by_mpi}, .change = P2P_ROUND,
                  .noise = 0.05, .seed = seed};
    int n = 0;
    const int chosen = run_until_decided(&a, USE_POINT_TO_POINT, &s, &n, 3 * P2P_ROUND);
    CHECK(n == calls);
    sendpath_free(&a);
    return chosen;
}

static void test_close_rounds_must_agree(void)
{
    for (unsigned seed = 1; seed <= 10; seed++) {
        /* 25% faster twice */
        CHECK(p2p_decision(0.75e-3, 0.75e-3, 1e-3, seed, 2 * P2P_ROUND) == PACKED);
        CHECK(p2p_decision(0.75e-3, 1.0e-3, 1e-3, seed, 2 * P2P_ROUND) == BY_MPI); /* once */
        /* the MPI's own path wins a close first round (packing 5% slower): kept, no second
         * round of packed trials */
        CHECK(p2p_decision(1.05e-3, 0.75e-3, 1e-3, seed, P2P_ROUND) == BY_MPI);
        CHECK(p2p_decision(1.0e-3, 0.75e-3, 1e-3, seed, P2P_ROUND) == BY_MPI);
    }
}

/* The MPI's own path TRIALS_OWN_AHEAD ahead after one block of each (packing 25% slower, as
 * MPICH 4.0.2's y face of 192^3 doubles) is kept at once: the warm-up and the first pass
 * are all its trials, 4 turns of them packed. */
static void test_own_path_ahead_ends_the_trials(void)
{
    for (unsigned seed = 1; seed <= 10; seed++)
        CHECK(p2p_decision(1.25e-3, 1.25e-3, 1e-3, seed, P2P_WARM_UP + 2 * P2P_BLOCK) ==
              BY_MPI);
}

/* An analysis whose plan has long blocks (plan_long_blocks): 4 of 2 KiB. */
static void long_blocks(analysis *a)
{
    a->plan.kind = PLAN_STRIDED;
    a->plan.strided.ndims = 1;
    a->plan.strided.count[0] = 4;
    a->plan.size = 8192;
}

/* The trials' paths, a turn at a time (a point-to-point turn: a send and a receive; a
 * write's: one call): a turn of packing not timed, then blocks of packed, own, own, packed;
 * where the plan expects the MPI's own path to win, a block of it not timed after the packed
 * turn, then blocks of own, packed, packed, own (a write: its decision for the MPI's own path
 * is not checked against packing, so it has trials; point-to-point has none there, below). */
static void test_order_of_the_trials(void)
{
    for (int own_first = 0; own_first < 2; own_first++) {
        analysis a = {0};
        if (own_first)
            long_blocks(&a);
        const path_use use = own_first ? USE_FILE_WRITE : USE_POINT_TO_POINT;
        const int sides = own_first ? 1 : TRIAL_SIDES;
        scenario s = {.cost = {1e-3, 1e-3}, .noise = 0.01, .seed = 3};
        const int order[2][6] = {{PACKED, PACKED, BY_MPI, BY_MPI, PACKED},
                                 {PACKED, BY_MPI, BY_MPI, PACKED, PACKED, BY_MPI}};
        const int blocks = 5 + own_first, warm_up = 1 + own_first * SENDPATH_TRIALS_EACH;
        for (int turn = 0; turn < 1 + (blocks - 1) * SENDPATH_TRIALS_EACH; turn++)
            for (int side = 0; side < sides; side++) {
                const send_choice c = sendpath_choose(&a, use, BYTES, PATHS, side);
                const int block = turn == 0 ? 0 : 1 + (turn - 1) / SENDPATH_TRIALS_EACH;
                CHECK(c.path == order[own_first][block] && c.timed == (turn >= warm_up));
                sendpath_record(&a, &c, noisy(&s, 1e-3));
            }
        CHECK(decision(&a, use) == BY_MPI); /* alike: the MPI's own */
        sendpath_free(&a);
    }
}

/* Packing 25% slower, the MPI's own path's first calls twice its usual time (its cold
 * start): the packed calls until the MPI's own is decided. Where the plan expects the MPI's
 * own path (a write), its cold start falls in the warm-up and the first pass decides (a call
 * and a block packed); packing first (point-to-point), the cold start falls in the MPI's own
 * first block, and both passes run (a turn and two blocks). */
static int packed_calls_until_decided(bool own_first)
{
    analysis a = {0};
    if (own_first)
        long_blocks(&a);
    const path_use use = own_first ? USE_FILE_WRITE : USE_POINT_TO_POINT;
    const int own_from = own_first ? 1 : P2P_WARM_UP + P2P_BLOCK;
    scenario s = {.cost = {1.25e-3, 1e-3}, .noise = 0.02, .seed = 5,
                  .burst_from = own_from, .burst_to = own_from + 4, .burst = 2};
    int n = 0, packed = 0;
    while (decision(&a, use) == UNDECIDED && n < P2P_ROUND + P2P_BLOCK)
        packed += one_call(&a, use, &s, n++) == PACKED;
    CHECK(decision(&a, use) == BY_MPI);
    sendpath_free(&a);
    return packed;
}

static void test_own_cold_start_in_the_warm_up(void)
{
    CHECK(packed_calls_until_decided(true) == 1 + SENDPATH_TRIALS_EACH);
    CHECK(packed_calls_until_decided(false) == P2P_WARM_UP + 2 * P2P_BLOCK);
}

/* Where the plan expects the MPI's own path (long blocks), point-to-point calls and two-path
 * uses whose decision for the MPI's own path is checked start on it, decided, with no trials:
 * nothing is timed until the check after SENDPATH_CHECK_FIRST blocks' worth of calls, whose
 * blocks (own, packed, packed, own) are the first packed calls; packing 25% faster is taken
 * at that check and its confirmation. A collective with a third path (packing long blocks
 * too) still has trials. */
static void test_long_blocks_start_on_the_mpi(void)
{
    analysis a = {0};
    long_blocks(&a);
    scenario s = {.cost = {0.75e-3, 1e-3}, .noise = 0.02, .seed = 8};
    int n = 0, timed = 0, packed_before_check = 0;
    for (; n < SENDPATH_CHECK_FIRST * P2P_BLOCK - 1; n++) { /* the check is the next */
        const send_choice c = sendpath_choose(&a, USE_POINT_TO_POINT, BYTES, PATHS, n % 2);
        timed += c.timed;
        packed_before_check += c.path == PACKED;
    }
    CHECK(timed == 0 && packed_before_check == 0);
    CHECK(decision(&a, USE_POINT_TO_POINT) == BY_MPI);
    const int first = n;
    for (; decision(&a, USE_POINT_TO_POINT) == BY_MPI && n < first + 1000; n++)
        one_call_on(&a, USE_POINT_TO_POINT, &s, n, n % 2);
    CHECK(decision(&a, USE_POINT_TO_POINT) == PACKED);
    CHECK(n - first == 2 * 4 * P2P_BLOCK); /* a check and its confirmation */
    sendpath_free(&a);
    analysis b = {0};
    long_blocks(&b);
    const send_choice c = sendpath_choose(&b, USE_ALLTOALLW, BYTES, 3, TRIAL_SEND);
    CHECK(c.trial == 0 && sendpath_untimed(&b, USE_ALLTOALLW, BYTES, 3, UNDECIDED) == UNDECIDED);
    sendpath_free(&b);
}

/* A decision for the MPI's own path lets a caller's memo pass the calls between samples
 * without asking (sendpath_class_passes); the samples still come to sendpath_choose, timed. A
 * decision for packing passes nothing. */
static void test_memo_passes_between_samples(void)
{
    for (int winner = 0; winner < PATHS; winner++) {
        analysis a = {0};
        scenario s = {.cost = {winner == PACKED ? 1e-3 : 3e-3, winner == PACKED ? 3e-3 : 1e-3},
                      .seed = 1};
        int n = 0;
        CHECK(run_until_decided(&a, USE_POINT_TO_POINT, &s, &n, 100) == winner);
        sendpath_class *c = sendpath_class_of(&a, USE_POINT_TO_POINT, BYTES);
        CHECK(c != NULL);
        int passed = 0, samples = 0;
        for (int k = 0; c && k < 40; k++) {
            if (sendpath_class_passes(c, PATHS, TRIAL_SEND)) {
                passed++;
                continue;
            }
            const send_choice ch =
                sendpath_choose(&a, USE_POINT_TO_POINT, BYTES, PATHS, TRIAL_SEND);
            CHECK(ch.path == winner);
            samples += ch.timed;
            if (ch.timed)
                sendpath_record(&a, &ch, s.cost[ch.path]);
        }
        CHECK(passed == (winner == BY_MPI ? 40 - 40 / SENDPATH_SAMPLE_EVERY : 0));
        CHECK(samples == 40 / SENDPATH_SAMPLE_EVERY); /* 1 ms calls: every 4th */
        sendpath_free(&a);
    }
}

/* Trials that a burst of noise made the MPI's own path look 1.6 times as slow in chose
 * packing, 10% slower than the MPI's own in truth: neither the samples (packing runs as its
 * trials did) nor the close decision's watch (packing is not slower than the MPI's own was
 * in the trials) see it; the check does, once SENDPATH_CHECK_FIRST blocks' worth of calls
 * have run, and the MPI's own path is taken back, for a collective and for point-to-point
 * (whose close first round runs again at once, in the burst too). */
static void test_check_takes_back_the_mpi(void)
{
    const path_use uses[2] = {USE_ALLTOALL, USE_POINT_TO_POINT};
    for (int u = 0; u < 2; u++)
        for (unsigned seed = 1; seed <= 10; seed++) {
            analysis a = {0};
            scenario s = {.cost = {1.1e-3, 1e-3}, .noise = 0.03, .seed = seed,
                          .burst_from = 0, .burst_to = 3 * P2P_ROUND, .burst = 1.6};
            int n = 0;
            /* point-to-point: a send, then a receive */
            const int sides = uses[u] == USE_POINT_TO_POINT ? 2 : 1;
            for (; decision(&a, uses[u]) == UNDECIDED && n < 3 * P2P_ROUND; n++)
                one_call_on(&a, uses[u], &s, n, n % sides);
            CHECK(decision(&a, uses[u]) == PACKED);
            s.burst_to = n; /* over with the trials */
            const int decided_at = n,
                      block = (uses[u] == USE_POINT_TO_POINT ? 2 : 1) * SENDPATH_TRIALS_EACH;
            for (; decision(&a, uses[u]) == PACKED && n < decided_at + 1000; n++)
                one_call_on(&a, uses[u], &s, n, n % sides);
            CHECK(decision(&a, uses[u]) == BY_MPI);
            CHECK(n - decided_at >= SENDPATH_CHECK_FIRST * block + 8 * block); /* 2 checks */
            CHECK(n - decided_at <= 1000);
            sendpath_free(&a);
        }
}

/* A collective whose trials (packing at `packed` seconds, the MPI's own at `by_mpi`, noise of
 * 5%) decide `decided`, then 5,000 calls: the calls its checks made on the other path (the
 * decision still standing is checked). */
static int checks_other_calls(double packed, double by_mpi, int decided, unsigned seed)
{
    analysis a = {0};
    scenario s = {.cost = {packed, by_mpi}, .noise = 0.05, .seed = seed};
    int n = 0, other = 0;
    CHECK(run_until_decided(&a, USE_ALLTOALL, &s, &n, 100) == decided);
    for (int k = 0; k < 5000; k++)
        other += one_call(&a, USE_ALLTOALL, &s, n++) != decided;
    CHECK(decision(&a, USE_ALLTOALL) == decided);
    sendpath_free(&a);
    return other;
}

/* A path that still wins (25% faster, noise of 5%) is kept by every check, and the checks
 * thin out: their calls of the MPI's own path cost about a hundredth of the calls' time at
 * first, and less as the checks pass. */
static void test_check_keeps_a_faster_path(void)
{
    const stats_snapshot before = stats_read();
    for (unsigned seed = 1; seed <= 20; seed++) {
        const int own = checks_other_calls(0.8e-3, 1e-3, PACKED, seed);
        /* checks after about 150, 300, 600, ... 2400 calls: 5, two blocks each */
        CHECK(own >= 2 * SENDPATH_TRIALS_EACH && own <= 6 * 2 * SENDPATH_TRIALS_EACH);
    }
    const stats_snapshot after = stats_read();
    CHECK(after.paths_checked - before.paths_checked >= 20);
    CHECK(after.paths_returned == before.paths_returned);
}

/* The MPI's own path turns faster after a decision packing won by far (2.5 times): the
 * samples see packing as fast as ever, and a decision that was not close has no watch on
 * the MPI's own; the first check, after enough calls that its block of the MPI's own would
 * cost about a hundredth of them, takes it back. */
static void test_check_finds_the_mpi_faster(void)
{
    analysis a = {0};
    scenario s = {.cost = {0.4e-3, 1e-3}, .after = {0.4e-3, 0.3e-3}, .noise = 0.03, .seed = 9};
    int n = 0;
    CHECK(run_until_decided(&a, USE_ALLTOALL, &s, &n, 100) == PACKED);
    s.change = n;
    const int decided_at = n;
    while (decision(&a, USE_ALLTOALL) == PACKED && n < decided_at + 2000)
        one_call(&a, USE_ALLTOALL, &s, n++);
    CHECK(decision(&a, USE_ALLTOALL) == BY_MPI);
    /* 2 x 3 x (2.5 - 1) / 0.01 = 900 calls, then two checks of four blocks */
    CHECK(n - decided_at >= 900 + 8 * SENDPATH_TRIALS_EACH && n - decided_at <= 1000);
    sendpath_free(&a);
}

/* A collective whose trials (packing at `packed` seconds, the MPI's own at 1 ms) decide
 * `decided`, then up to 3,000 calls while that stands, the other path taking 0.7 ms in a
 * check (faster alone) except in a second check where the other end did not check (1.3 ms:
 * one end on each path): the path in the end; the check calls made (`*check_calls`). */
static int confirmed_change(double packed, int decided, bool other_end_checks, int *check_calls)
{
    analysis a = {0};
    scenario s = {.cost = {packed, 1e-3}, .noise = 0.01, .seed = 4};
    int n = 0;
    CHECK(run_until_decided(&a, USE_ALLTOALL, &s, &n, 100) == decided);
    *check_calls = 0;
    for (int k = 0; k < 3000 && decision(&a, USE_ALLTOALL) == decided; k++) {
        const send_choice c = sendpath_choose(&a, USE_ALLTOALL, BYTES, PATHS, TRIAL_SEND);
        const int check = *check_calls / (4 * SENDPATH_TRIALS_EACH); /* which, from 0 */
        *check_calls += c.check;
        double t = s.cost[c.path];
        if (c.check && c.path != decided)
            t = check % 2 == 0 || other_end_checks ? 0.7e-3 : 1.3e-3;
        if (c.timed)
            sendpath_record(&a, &c, noisy(&s, t));
    }
    const int path = decision(&a, USE_ALLTOALL);
    sendpath_free(&a);
    return path;
}

/* A check that finds the MPI's own path faster is checked again at once, and the MPI's own
 * taken back only if that finds it faster too: where the other end of an exchange checked too
 * (its blocks of the MPI's own path meet this end's), it does; where the other end's check
 * kept packing, this end's second check times its MPI's own path against the other's packing
 * (here 1.3 times the usual), and packing stays on both. */
static void test_check_confirmed_with_the_other_end(void)
{
    for (int other_end_checks = 0; other_end_checks < 2; other_end_checks++) {
        const stats_snapshot before = stats_read();
        int check_calls;
        CHECK(confirmed_change(0.8e-3, PACKED, other_end_checks, &check_calls) ==
              (other_end_checks ? BY_MPI : PACKED));
        const stats_snapshot after = stats_read();
        CHECK(check_calls >= 2 * 4 * SENDPATH_TRIALS_EACH);
        CHECK(after.paths_returned - before.paths_returned == (other_end_checks ? 1u : 0u));
    }
}

/* Trials that found packing 1.2 times as slow as the MPI's own path after one block of each
 * (packing cold: its first calls 1.6 times its usual) kept the MPI's own, where packing is 25%
 * faster in truth: the samples time only the MPI's own path, which runs as in its trials; the
 * check against packing finds it, and packing is taken after a check and its confirmation, for
 * a collective and for point-to-point. */
static void test_check_leaves_the_mpi(void)
{
    const path_use uses[2] = {USE_ALLTOALL, USE_POINT_TO_POINT};
    for (int u = 0; u < 2; u++)
        for (unsigned seed = 1; seed <= 10; seed++) {
            analysis a = {0};
            scenario s = {.cost = {0.75e-3, 1e-3}, .noise = 0.03, .seed = seed,
                          .burst_from = 0, .burst_to = P2P_ROUND, .burst = 1.6,
                          .burst_packed = true};
            const int sides = uses[u] == USE_POINT_TO_POINT ? 2 : 1;
            int n = 0;
            for (; decision(&a, uses[u]) == UNDECIDED && n < P2P_ROUND; n++)
                one_call_on(&a, uses[u], &s, n, n % sides);
            CHECK(decision(&a, uses[u]) == BY_MPI);
            s.burst_to = n;
            const int decided_at = n,
                      block = (uses[u] == USE_POINT_TO_POINT ? 2 : 1) * SENDPATH_TRIALS_EACH;
            for (; decision(&a, uses[u]) == BY_MPI && n < decided_at + 1000; n++)
                one_call_on(&a, uses[u], &s, n, n % sides);
            CHECK(decision(&a, uses[u]) == PACKED);
            /* the first check after 2 x block x (1.2 - 1) / 0.01 = 40 blocks of calls, give or
             * take the trials' noise; then two checks of four blocks */
            CHECK(n - decided_at >= 30 * block + 8 * block);
            CHECK(n - decided_at <= 50 * block + 8 * block);
            sendpath_free(&a);
        }
}

/* The MPI's own path 1.5 times as fast as packing stays through every check over 5,000 calls,
 * in 20 seeds of 20, and the checks' packed calls cost about a hundredth of the calls' time at
 * first, less as the checks pass: after about 300, 600, 1,200, 2,400 calls, two blocks each. */
static void test_check_keeps_the_mpi(void)
{
    const stats_snapshot before = stats_read();
    for (unsigned seed = 1; seed <= 20; seed++) {
        const int packed = checks_other_calls(1.5e-3, 1e-3, BY_MPI, seed);
        CHECK(packed >= 3 * 2 * SENDPATH_TRIALS_EACH && packed <= 5 * 2 * SENDPATH_TRIALS_EACH);
    }
    const stats_snapshot after = stats_read();
    CHECK(after.paths_checked - before.paths_checked >= 3 * 20);
    CHECK(after.paths_left == before.paths_left);
}

/* A check that finds packing faster than a decided MPI's own path is confirmed by a second,
 * as a check of packing is: where the other end of an exchange checked too, packing is
 * taken; where its check kept the MPI's own, this end's second check times packing against
 * the other's MPI's own path (1.3 times the usual), and the MPI's own stays on both. */
static void test_check_leaving_confirmed_with_the_other_end(void)
{
    for (int other_end_checks = 0; other_end_checks < 2; other_end_checks++) {
        const stats_snapshot before = stats_read();
        int check_calls;
        CHECK(confirmed_change(1.2e-3, BY_MPI, other_end_checks, &check_calls) ==
              (other_end_checks ? PACKED : BY_MPI));
        const stats_snapshot after = stats_read();
        CHECK(check_calls >= 2 * 4 * SENDPATH_TRIALS_EACH);
        CHECK(after.paths_left - before.paths_left == (other_end_checks ? 1u : 0u));
    }
}

/* Checks that always find the other path faster (in a check, the other path 0.85 times the
 * decided's, whichever is decided; the calls between checks 0.9 times, on either path) change
 * the path at every confirmed check, and each change checks no sooner than twice the calls the
 * check before came after: over 20,000 calls, a few changes, not one every few hundred. */
static void test_changes_thin_out(void)
{
    analysis a = {0};
    scenario s = {.cost = {1.5e-3, 1e-3}, .noise = 0.01, .seed = 6};
    int n = 0;
    CHECK(run_until_decided(&a, USE_ALLTOALL, &s, &n, 100) == BY_MPI);
    int changes = 0, undecided = 0;
    for (int k = 0; k < 20000; k++) {
        const int decided = decision(&a, USE_ALLTOALL);
        const send_choice c = sendpath_choose(&a, USE_ALLTOALL, BYTES, PATHS, TRIAL_SEND);
        if (c.timed)
            sendpath_record(&a, &c,
                            noisy(&s, !c.check ? 0.9e-3 : c.path != decided ? 0.85e-3 : 1e-3));
        changes += decision(&a, USE_ALLTOALL) != decided;
        undecided += decision(&a, USE_ALLTOALL) == UNDECIDED;
    }
    CHECK(undecided == 0); /* no strikes, no trials again */
    /* the first check after 2 x 3 x 0.5 / 0.01 = 300 calls; each change at least doubles */
    CHECK(changes >= 3 && changes <= 7);
    sendpath_free(&a);
}

/* Calls of a type recognised by its fingerprint and not read (sendpath_class_passes_unread)
 * count as the decided MPI's own path's calls, samples' turns included, until its check is
 * due: then the next call is the check's first, of the MPI's own path. A decision for
 * packing passes nothing unread. */
static void test_unread_calls_counted(void)
{
    analysis a = {0};
    scenario s = {.cost = {3e-3, 1e-3}, .seed = 1}; /* no noise: packing 3 times as slow */
    int n = 0;
    CHECK(run_until_decided(&a, USE_POINT_TO_POINT, &s, &n, 100) == BY_MPI);
    sendpath_class *c = sendpath_class_of(&a, USE_POINT_TO_POINT, BYTES);
    int passed = 0;
    while (c && passed < 10000 && sendpath_class_passes_unread(c, PATHS, passed % 2))
        passed++;
    CHECK(passed == 2 * P2P_BLOCK * 2 * 100 - 1); /* 2 x block x (3 - 1) / 0.01 calls */
    const send_choice first = sendpath_choose(&a, USE_POINT_TO_POINT, BYTES, PATHS, TRIAL_SEND);
    CHECK(first.check && first.path == BY_MPI);
    sendpath_free(&a);
    analysis b = {0};
    scenario t = {.cost = {1e-3, 3e-3}, .seed = 1};
    n = 0;
    CHECK(run_until_decided(&b, USE_POINT_TO_POINT, &t, &n, 100) == PACKED);
    c = sendpath_class_of(&b, USE_POINT_TO_POINT, BYTES);
    CHECK(c && !sendpath_class_passes_unread(c, PATHS, TRIAL_SEND));
    sendpath_free(&b);
}

/* A write's decision for the MPI's own path is not checked against packing (a close result
 * there keeps the MPI's own: a rank's times do not show what its writes cost the others'); a
 * read's is. */
static void test_writes_not_checked_for_packing(void)
{
    for (int read = 0; read < 2; read++) {
        const path_use use = read ? USE_FILE_READ : USE_FILE_WRITE;
        analysis a = {0};
        scenario s = {.cost = {1.2e-3, 1e-3}, .noise = 0.01, .seed = 2};
        int n = 0;
        CHECK(run_until_decided(&a, use, &s, &n, 100) == BY_MPI);
        int checks = 0;
        for (int k = 0; k < 2000; k++) {
            const send_choice c = sendpath_choose(&a, use, BYTES, PATHS, TRIAL_SEND);
            checks += c.check;
            if (c.timed)
                sendpath_record(&a, &c, noisy(&s, s.cost[c.path]));
        }
        CHECK(read ? checks >= 4 * SENDPATH_TRIALS_EACH : checks == 0);
        sendpath_free(&a);
    }
}

/* ---- non-blocking epochs: injected times ---- */

static double fake_now;
static double fake_clock(void) { return fake_now; }

/* One exchange of `calls` non-blocking calls and a completion call: the epoch's path (every
 * call must take the same), its time (the scenario's cost of that path) added to the clock. */
static int one_epoch(analysis *a, scenario *s, int n, int calls)
{
    const int path = sendpath_epoch_path(a, BYTES, PACKED, fake_clock);
    for (int k = 1; k < calls; k++)
        CHECK(sendpath_epoch_path(a, BYTES, PACKED, fake_clock) == path);
    const double *cost = s->change && n >= s->change ? s->after : s->cost;
    const double burst = path == BY_MPI && n >= s->burst_from && n < s->burst_to ? s->burst : 1;
    fake_now += noisy(s, cost[path] * burst);
    sendpath_epoch_boundary();
    return path;
}

static int epochs_until_decided(analysis *a, scenario *s, int *n, int max)
{
    while (decision(a, USE_NONBLOCKING) == UNDECIDED && *n < max)
        one_epoch(a, s, (*n)++, 8);
    return decision(a, USE_NONBLOCKING);
}

static void test_epochs_choose_the_faster(void)
{
    for (int winner = 0; winner < PATHS; winner++) {
        analysis a = {0};
        scenario s = {.cost = {winner == PACKED ? 1e-3 : 1.6e-3, winner == PACKED ? 1.6e-3 : 1e-3},
                      .noise = 0.05, .seed = 3};
        int n = 0;
        CHECK(epochs_until_decided(&a, &s, &n, 100) == winner);
        CHECK(n <= 2 * (1 + 3 + 2 * 6)); /* two rounds of a warm-up and two blocks a path */
        sendpath_free(&a);
    }
}

/* Paths within noise of each other: the MPI's own, in nearly every seed. */
static void test_epochs_noise_keeps_the_mpi(void)
{
    int packed = 0;
    for (unsigned seed = 1; seed <= 20; seed++) {
        analysis a = {0};
        scenario s = {.cost = {0.97e-3, 1e-3}, .noise = 0.15, .seed = seed};
        int n = 0;
        packed += epochs_until_decided(&a, &s, &n, 200) == PACKED;
        sendpath_free(&a);
    }
    CHECK(packed <= 1);
}

/* An epoch of 8 calls as lib/interpose/p2p_requests.c makes them once the MPI's own path is
 * decided: each passes at once (a thread's memo) or asks; the epoch's path, and the calls
 * that asked added to `*asked`. */
static int epoch_with_memo(analysis *a, sendpath_class *c, scenario *s, int n, int *asked)
{
    int path = BY_MPI;
    for (int call = 0; call < 8; call++)
        if (!sendpath_epoch_class_passes(c)) {
            ++*asked;
            path = sendpath_epoch_path(a, BYTES, PACKED, fake_clock);
        }
    const double *cost = s->change && n >= s->change ? s->after : s->cost;
    fake_now += cost[path];
    sendpath_epoch_boundary();
    return path;
}

/* The decided MPI's own path passes without the lock between watches, is watched about every
 * SENDPATH_SAMPLE_EVERY_MOST-th epoch, and measured again when it turns slow. */
static void test_epochs_own_path_watched(void)
{
    analysis a = {0};
    scenario s = {.cost = {3e-3, 1e-3}, .after = {3e-3, 12e-3}, .seed = 5};
    int n = 0;
    CHECK(epochs_until_decided(&a, &s, &n, 100) == BY_MPI);
    sendpath_class *c = sendpath_class_of(&a, USE_NONBLOCKING, BYTES);
    CHECK(c != NULL);
    int asked = 0;
    for (int k = 0; c && k < 3 * SENDPATH_SAMPLE_EVERY_MOST; k++, n++)
        CHECK(epoch_with_memo(&a, c, &s, n, &asked) == BY_MPI);
    /* watches: about two epochs of 8 calls each every 64 epochs */
    CHECK(asked > 0 && asked <= 3 * 3 * 8);
    /* the MPI's own path turns twelve times slower: three slow watches, trials, packing */
    s.change = n;
    int epochs = 0;
    while (c && epochs < 6 * SENDPATH_SAMPLE_EVERY_MOST && decision(&a, USE_NONBLOCKING) != PACKED)
        epoch_with_memo(&a, c, &s, n++, &asked), epochs++;
    CHECK(decision(&a, USE_NONBLOCKING) == PACKED);
    CHECK(epochs > 2 * SENDPATH_SAMPLE_EVERY_MOST); /* not before the third watch */
    sendpath_free(&a);
}

/* A decided packed path whose epochs turn slow: measured again, and the MPI's own chosen. */
static void test_epochs_packed_turning_slow(void)
{
    analysis a = {0};
    scenario s = {.cost = {1e-3, 3e-3}, .after = {9e-3, 3e-3}, .seed = 7};
    int n = 0;
    CHECK(epochs_until_decided(&a, &s, &n, 100) == PACKED);
    s.change = n;
    for (int k = 0; k < 200 && decision(&a, USE_NONBLOCKING) != BY_MPI; k++)
        one_epoch(&a, &s, n++, 8);
    CHECK(decision(&a, USE_NONBLOCKING) == BY_MPI);
    sendpath_free(&a);
}

int main(void)
{
    test_a_clear_winner();
    test_noise_keeps_the_mpi();
    test_a_burst_in_one_block_keeps_the_mpi();
    test_a_path_turning_slow();
    test_single_slow_samples();
    test_uses_apart();
    test_close_writes_keep_the_mpi();
    test_short_calls_sampled_less();
    test_close_rounds_must_agree();
    test_own_path_ahead_ends_the_trials();
    test_order_of_the_trials();
    test_own_cold_start_in_the_warm_up();
    test_long_blocks_start_on_the_mpi();
    test_memo_passes_between_samples();
    test_check_takes_back_the_mpi();
    test_check_keeps_a_faster_path();
    test_check_finds_the_mpi_faster();
    test_check_confirmed_with_the_other_end();
    test_check_leaves_the_mpi();
    test_check_keeps_the_mpi();
    test_check_leaving_confirmed_with_the_other_end();
    test_changes_thin_out();
    test_unread_calls_counted();
    test_writes_not_checked_for_packing();
    test_epochs_choose_the_faster();
    test_epochs_noise_keeps_the_mpi();
    test_epochs_own_path_watched();
    test_epochs_packed_turning_slow();
    return check_summary("test_sendpath");
}
