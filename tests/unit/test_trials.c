/* The path decision from timed trials (lib/base/trials.h), on hand-made times. */
#include "../check.h"
#include "base/trials.h"

enum { S = TRIAL_SEND, R = TRIAL_RECEIVE };

/* trials alternating between two paths in blocks of `block` calls, sides as given */
static int alternating(trial out[], const double seconds[], const unsigned char sides[], int n,
                       int block, int paths)
{
    for (int t = 0; t < n; t++)
        out[t] = (trial){seconds[t], sides[t], (unsigned char)((t / block) % paths)};
    return n;
}

static void test_one_side(void)
{
    /* a sender alone (a ping-pong against a contiguous receive): packing's usual 1.2 against
     * the MPI's 2.2 */
    trial t[6];
    const unsigned char sends[] = {S, S, S, S, S, S};
    int n = alternating(t, (const double[]){1.5, 2.0, 1.0, 2.5, 1.2, 2.2}, sends, 6, 1, 2);
    CHECK(trials_decide(t, n, 2) == 0);
    /* a slow outlier does not matter */
    n = alternating(t, (const double[]){9.0, 2.0, 1.0, 2.1, 1.1, 9.0}, sends, 6, 1, 2);
    CHECK(trials_decide(t, n, 2) == 0);
    /* nor does a fast one (a first call after a switch of path) */
    n = alternating(t, (const double[]){2.0, 1.5, 0.1, 1.6, 2.1, 1.4}, sends, 6, 1, 2);
    CHECK(trials_decide(t, n, 2) == 1);
}

static void test_margin_favours_the_mpi(void)
{
    trial t[2];
    const unsigned char sends[] = {S, S};
    int n = alternating(t, (const double[]){0.95, 1.0}, sends, 2, 1, 2); /* 5% faster */
    CHECK(trials_decide(t, n, 2) == 1);
    n = alternating(t, (const double[]){0.85, 1.0}, sends, 2, 1, 2); /* 15% */
    CHECK(trials_decide(t, n, 2) == 0);
}

static void test_separated_trials_need_less_margin(void)
{
    /* 6 trials each, the first path 5% faster in the median */
    trial t[12];
    const unsigned char sends[12] = {S, S, S, S, S, S, S, S, S, S, S, S};
    /* faster call by call: every pair in order */
    int n = alternating(t, (const double[]){0.95, 1.0, 0.94, 1.01, 0.96, 0.99, 0.95, 1.0, 0.93,
                                            1.02, 0.95, 1.0},
                        sends, 12, 1, 2);
    CHECK(trials_decide(t, n, 2) == 0);
    /* the same medians, the samples overlapping: the MPI's own */
    n = alternating(t, (const double[]){0.95, 1.0, 0.80, 0.90, 1.10, 1.20, 0.95, 1.0, 0.85, 0.91,
                                        1.05, 1.15},
                    sends, 12, 1, 2);
    CHECK(trials_decide(t, n, 2) == 1);
    /* a burst over half the MPI's own trials (1.6 times as long): packing faster than those
     * call by call, but not than the other half, where 3 of 18 pairs have it the slower: the
     * MPI's own (3 of all 36 pairs would be within the overlap allowed) */
    n = alternating(t, (const double[]){0.96, 0.975, 0.97, 1.0, 0.97, 1.01, 0.98, 1.6, 0.98,
                                        1.58, 0.99, 1.62},
                    sends, 12, 1, 2);
    CHECK(trials_decide(t, n, 2) == 1);
    /* the same with the other half 1.0 and up: packing */
    t[1].seconds = 1.0;
    CHECK(trials_decide(t, n, 2) == 0);
    /* separated but only 2% faster: the MPI's own */
    n = alternating(t, (const double[]){0.98, 1.0, 0.98, 1.0, 0.98, 1.0, 0.98, 1.0, 0.98, 1.0,
                                        0.98, 1.0},
                    sends, 12, 1, 2);
    CHECK(trials_decide(t, n, 2) == 1);
    /* separated, 5% faster, but too few trials (4 each) for a rank test */
    n = alternating(t, (const double[]){0.95, 1.0, 0.95, 1.0, 0.95, 1.0, 0.95, 1.0}, sends, 8, 1,
                    2);
    CHECK(trials_decide(t, n, 2) == 1);
    /* two sides, the first path 5% faster in the summed medians (0.95 + 0.95 against 2.0),
     * separated on the sends but not on the receives: the MPI's own */
    const double receives[6] = {0.7, 0.75, 0.8, 0.95, 1.02, 1.05};
    double both[24];
    for (int k = 0; k < 24; k++) { /* blocks of a send and a receive, the paths in turn */
        const int path = (k / 2) % 2, round = k / 4;
        both[k] = k % 2 == 0 ? (path == 0 ? 0.95 : 1.0) : (path == 0 ? receives[round] : 1.0);
    }
    trial u[24];
    unsigned char sr[24];
    for (int k = 0; k < 24; k++)
        sr[k] = k % 2 == 0 ? S : R;
    n = alternating(u, both, sr, 24, 2, 2);
    CHECK(trials_decide(u, n, 2) == 1);
}

static void test_both_ends(void)
{
    /* An exchange, a send and a receive per block: packing sends faster (1.1 against 2.1) but
     * its receive unpacks slowly (3.2 against 1.1): the sum decides, 4.3 against 3.2, for the
     * MPI. (Of two values the median is the larger.) */
    trial t[8];
    const unsigned char sr[] = {S, R, S, R, S, R, S, R};
    int n = alternating(t, (const double[]){1.0, 3.0, 2.0, 1.0, 1.1, 3.2, 2.1, 1.1}, sr, 8, 2, 2);
    CHECK(trials_decide(t, n, 2) == 1);
    /* the same with the receive no slower: packing */
    n = alternating(t, (const double[]){1.0, 1.0, 2.0, 1.0, 1.1, 1.2, 2.1, 1.1}, sr, 8, 2, 2);
    CHECK(trials_decide(t, n, 2) == 0);
}

static void test_a_side_missing_from_a_path(void)
{
    /* Receives only on the first path (the ends out of step): only the sides timed on every
     * path count, here the sends. */
    trial t[8];
    const unsigned char sides[] = {S, R, S, S, S, R, S, S};
    int n = alternating(t, (const double[]){1.0, 0.1, 2.0, 2.0, 1.0, 0.1, 2.0, 2.0}, sides, 8, 2,
                        2);
    CHECK(trials_decide(t, n, 2) == 0);
    /* nothing in common: the MPI's own */
    const unsigned char apart[] = {R, R, S, S, R, R, S, S};
    n = alternating(t, (const double[]){1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 2.0, 2.0}, apart, 8, 2, 2);
    CHECK(trials_decide(t, n, 2) == 1);
}

static void test_three_paths(void)
{
    /* a collective: short blocks packed, every gap packed, the MPI's own */
    trial t[6];
    const unsigned char sends[] = {S, S, S, S, S, S};
    int n = alternating(t, (const double[]){2.0, 1.0, 3.0, 2.0, 1.0, 3.0}, sends, 6, 1, 3);
    CHECK(trials_decide(t, n, 3) == 1);
    n = alternating(t, (const double[]){1.0, 1.0, 3.0, 1.0, 1.0, 3.0}, sends, 6, 1, 3);
    CHECK(trials_decide(t, n, 3) == 0); /* the lower index on a tie */
    CHECK(trials_decide(t, n, 1) == 0); /* one path: itself */
}

static void test_usual(void)
{
    /* the median of a side's trials on one path: the first call's outlier (buffers faulting
     * in) does not count */
    trial t[12];
    const unsigned char sides[] = {R, S, S, R, R, S, S, R, S, R, R, S};
    int n = alternating(t,
                        (const double[]){63.0, 1.0, 2.0, 3.0, 1.4, 1.2, 2.5, 9.0, 2.0, 1.1,
                                         2.4, 2.2},
                        sides, 12, 2, 2);
    CHECK(trials_usual(t, n, 0, R) == 1.4); /* 63, 1.4, 1.1 */
    CHECK(trials_usual(t, n, 0, S) == 1.2); /* 1.0, 1.2, 2.0 */
    CHECK(trials_usual(t, n, 1, R) == 3.0); /* 3.0, 9.0, 2.4 */
    CHECK(trials_usual(t, n, 1, S) == 2.2); /* 2.0, 2.5, 2.2 */
    n = alternating(t, (const double[]){1, 1, 1, 1}, (const unsigned char[]){S, S, S, S}, 4, 1, 2);
    CHECK(trials_usual(t, n, 0, R) == 0); /* none */
}

/* One block of each path decides when one is twice as fast as every other (a large
 * transpose: 30 ms packed, 250 ms on MPICH's path); closer, the second pass runs. */
static void test_decisive_first_pass(void)
{
    trial t[12];
    const unsigned char ends[] = {S, R, S, R, S, R, S, R, S, R, S, R};
    /* A (packed) then B (the MPI's), 6 trials each: 30 against 250 on both sides */
    int n = alternating(t, (const double[]){30, 31, 29, 30, 30, 32, 250, 251, 249, 250, 252, 250},
                        ends, 12, 6, 2);
    CHECK(trials_decide(t, n, 2) == 0 && trials_decisive(t, n, 2));
    /* the MPI's path twice as fast decides for it as well */
    n = alternating(t, (const double[]){90, 91, 92, 90, 91, 90, 40, 41, 40, 42, 40, 41}, ends,
                    12, 6, 2);
    CHECK(trials_decide(t, n, 2) == 1 && trials_decisive(t, n, 2));
    /* the MPI's path TRIALS_OWN_AHEAD ahead (1.3x) keeps it at once; packing as far ahead
     * does not leave it (the second pass must confirm) */
    n = alternating(t, (const double[]){52, 53, 52, 52, 54, 52, 40, 41, 40, 40, 40, 41}, ends,
                    12, 6, 2);
    CHECK(trials_decide(t, n, 2) == 1 && trials_decisive(t, n, 2));
    n = alternating(t, (const double[]){40, 41, 40, 40, 40, 41, 52, 53, 52, 52, 54, 52}, ends,
                    12, 6, 2);
    CHECK(trials_decide(t, n, 2) == 0 && !trials_decisive(t, n, 2));
    /* ... but not on its median alone: packing's lower quartile no slower */
    n = alternating(t, (const double[]){40, 40, 60, 60, 60, 60, 40, 40, 40, 40, 40, 40}, ends,
                    12, 6, 2);
    CHECK(trials_decide(t, n, 2) == 1 && !trials_decisive(t, n, 2));
    /* 1.5x: a winner, but not decisive */
    n = alternating(t, (const double[]){20, 20, 20, 20, 20, 20, 30, 30, 30, 30, 30, 30}, ends,
                    12, 6, 2);
    CHECK(trials_decide(t, n, 2) == 0 && !trials_decisive(t, n, 2));
    /* the sum of both ends counts: a fast send but a slow receive is not decisive */
    n = alternating(t, (const double[]){10, 60, 10, 60, 10, 60, 50, 50, 50, 50, 50, 50}, ends,
                    12, 6, 2);
    CHECK(!trials_decisive(t, n, 2));
    /* no path timed yet on some side: nothing decided */
    CHECK(!trials_decisive(t, 6, 2));
    /* three paths: twice as fast as each of the others */
    trial three[3] = {{10, S, 0}, {25, S, 1}, {19, S, 2}};
    CHECK(!trials_decisive(three, 3, 3));
    three[2].seconds = 21;
    CHECK(trials_decide(three, 3, 3) == 0 && trials_decisive(three, 3, 3));
}

/* Close decisions: another path within TRIALS_CLOSE of the chosen one's score, either way. */
static void test_close(void)
{
    trial t[4];
    const unsigned char sends[] = {S, S, S, S};
    int n = alternating(t, (const double[]){1.0, 1.4, 1.0, 1.4}, sends, 4, 1, 2);
    CHECK(trials_decide(t, n, 2) == 0 && trials_close(t, n, 2)); /* packing, 1.4x */
    n = alternating(t, (const double[]){1.0, 1.6, 1.0, 1.6}, sends, 4, 1, 2);
    CHECK(trials_decide(t, n, 2) == 0 && !trials_close(t, n, 2)); /* packing, 1.6x */
    n = alternating(t, (const double[]){0.95, 1.0, 0.95, 1.0}, sends, 4, 1, 2);
    CHECK(trials_decide(t, n, 2) == 1 && trials_close(t, n, 2)); /* the MPI's, by the margin */
    n = alternating(t, (const double[]){2.0, 1.0, 2.0, 1.0}, sends, 4, 1, 2);
    CHECK(trials_decide(t, n, 2) == 1 && !trials_close(t, n, 2)); /* the MPI's, 2x */
    CHECK(!trials_close(t, 0, 2)); /* nothing timed */
}

/* An exchange that decided apart: the packing end's later calls, on both sides, against the
 * MPI's own path in its trials. */
static void test_overtaken(void)
{
    /* trials of an exchange, blocks of a send and a receive: packing 10.4 + 10.4 against the
     * MPI's own 11.7 + 11.7 (a close decision for packing) */
    trial t[8];
    const unsigned char sr[] = {S, R, S, R, S, R, S, R};
    int n = alternating(t, (const double[]){10.4, 10.4, 11.7, 11.7, 10.4, 10.4, 11.7, 11.7}, sr,
                        8, 2, 2);
    CHECK(trials_decide(t, n, 2) == 0);
    trial samples[2 * TRIALS_OVERTAKEN_SAMPLES];
    /* the latest sampled calls, sends and receives in turn, each side at `send` and `receive`
     * but for one slow outlier each */
    for (int k = 0; k < 2 * TRIALS_OVERTAKEN_SAMPLES; k++)
        samples[k] = (trial){k % 2 == 0 ? 13.0 : 14.0, k % 2 == 0 ? S : R, 0};
    samples[0].seconds = samples[1].seconds = 90.0;
    const int m = 2 * TRIALS_OVERTAKEN_SAMPLES;
    CHECK(trials_overtaken(t, n, 2, 0, samples, m)); /* 27 against 23.4 */
    /* one side slower, the other faster: the sum is not behind (9 + 14 < 23.4) */
    for (int k = 2; k < m; k += 2)
        samples[k].seconds = 9.0;
    CHECK(!trials_overtaken(t, n, 2, 0, samples, m));
    /* slower than packing's trials, but not than the MPI's own (11 + 11) */
    for (int k = 2; k < m; k++)
        samples[k].seconds = 11.0;
    CHECK(!trials_overtaken(t, n, 2, 0, samples, m));
    /* behind, but too few samples of the receives yet */
    for (int k = 0; k < m; k++)
        samples[k].seconds = 14.0;
    CHECK(trials_overtaken(t, n, 2, 0, samples, m));
    samples[1].side = S;
    CHECK(!trials_overtaken(t, n, 2, 0, samples, m));
    samples[1].side = R;
    /* the MPI's own path chosen: nothing to fall behind */
    CHECK(!trials_overtaken(t, n, 2, 1, samples, m));
    /* not a close decision (packing 2x faster in the trials): a general slowdown, as of a late
     * peer, is no reason to measure again */
    n = alternating(t, (const double[]){5.0, 5.0, 11.7, 11.7, 5.0, 5.0, 11.7, 11.7}, sr, 8, 2, 2);
    CHECK(!trials_overtaken(t, n, 2, 0, samples, m));
    /* a collective (one side) of three paths: the middle one chosen, closely */
    trial three[6] = {{3.0, S, 0}, {1.0, S, 1}, {1.2, S, 2},
                      {3.0, S, 0}, {1.0, S, 1}, {1.2, S, 2}};
    trial late[TRIALS_OVERTAKEN_SAMPLES];
    for (int k = 0; k < TRIALS_OVERTAKEN_SAMPLES; k++)
        late[k] = (trial){1.3, S, 1};
    CHECK(trials_decide(three, 6, 3) == 1);
    CHECK(trials_overtaken(three, 6, 3, 1, late, TRIALS_OVERTAKEN_SAMPLES));
    CHECK(!trials_overtaken(three, 6, 3, 1, late, TRIALS_OVERTAKEN_SAMPLES - 1));
}

/* A check: a block of the MPI's own path (3 turns of a send and a receive), then one of the
 * decided packing. */
static int check_of(trial out[], const double own[6], const double packed[6], int packed_path)
{
    for (int k = 0; k < 6; k++) {
        out[k] = (trial){own[k], k % 2 ? R : S, 1};
        out[6 + k] = (trial){packed[k], k % 2 ? R : S, (unsigned char)packed_path};
    }
    return 12;
}

static void test_holds(void)
{
    trial c[12];
    const double own[6] = {10, 10, 10.2, 10.1, 9.9, 10};
    /* 10% faster at the median and the lower quartile: kept */
    CHECK(trials_holds(c, check_of(c, own, (const double[]){9, 9, 9.1, 9, 9.2, 8.9}, 0), 2, 0));
    /* as fast, or 2% slower: within the margin, kept */
    CHECK(trials_holds(c, check_of(c, own, (const double[]){10, 10, 10, 10, 10, 10}, 0), 2, 0));
    CHECK(trials_holds(c, check_of(c, own, (const double[]){10.2, 10.2, 10.2, 10.2, 10.2, 10.2},
                                   0), 2, 0));
    /* 10% slower: taken back */
    CHECK(!trials_holds(c, check_of(c, own, (const double[]){11, 11, 11, 11, 11, 11}, 0), 2, 0));
    /* 10% slower but at the lower quartile, where the decided path's fastest calls are as fast as
     * the MPI's own: kept (the check must prove the decision wrong at both) */
    CHECK(trials_holds(c, check_of(c, own, (const double[]){11, 9.0, 11, 11, 11, 11}, 0), 2, 0));
    /* three paths, the middle one decided: the check has its block and the MPI's own */
    const int n = check_of(c, own, (const double[]){9, 9, 9, 9, 9, 9}, 1);
    for (int k = 0; k < 6; k++)
        c[k].path = 2; /* the MPI's own of three */
    CHECK(trials_holds(c, n, 3, 1));
    /* the MPI's own path is not a decision to check */
    CHECK(!trials_holds(c, 12, 3, 2));
}

/* A decided MPI's own path checked against packing: packing is taken only by the margins a
 * round of trials asks, at the median and the lower quartile. */
static void test_beats_own(void)
{
    trial c[12];
    const double own[6] = {10, 10, 10.2, 10.1, 9.9, 10};
    /* 20% faster: taken */
    CHECK(trials_beats_own(c, check_of(c, own, (const double[]){8, 8, 8.1, 8, 8.2, 7.9}, 0), 2,
                           0));
    /* 5% faster, or as fast: kept */
    CHECK(!trials_beats_own(c, check_of(c, own, (const double[]){9.5, 9.5, 9.5, 9.5, 9.5, 9.5},
                                        0), 2, 0));
    CHECK(!trials_beats_own(c, check_of(c, own, (const double[]){10, 10, 10, 10, 10, 10}, 0), 2,
                            0));
    /* 30% faster at the median, within 10% at the lower quartile (a burst over two turns of
     * the MPI's own): kept */
    CHECK(!trials_beats_own(c, check_of(c, (const double[]){9.9, 10, 13, 13, 13, 13},
                                        (const double[]){9, 9, 9, 9, 9, 9}, 0), 2, 0));
    /* three paths: packing checked against the MPI's own whatever the third did */
    const int n = check_of(c, own, (const double[]){8, 8, 8, 8, 8, 8}, 0);
    for (int k = 0; k < 6; k++)
        c[k].path = 2;
    CHECK(trials_beats_own(c, n, 3, 0));
    /* no block of the MPI's own, or the MPI's own as `other`: nothing to take */
    CHECK(!trials_beats_own(c + 6, 6, 3, 0));
    CHECK(!trials_beats_own(c, n, 3, 2));
}

int main(void)
{
    test_one_side();
    test_margin_favours_the_mpi();
    test_separated_trials_need_less_margin();
    test_both_ends();
    test_a_side_missing_from_a_path();
    test_three_paths();
    test_usual();
    test_decisive_first_pass();
    test_close();
    test_overtaken();
    test_holds();
    test_beats_own();
    return check_summary("test_trials");
}
