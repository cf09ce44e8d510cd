#include "trials.h"

#include <stdbool.h>

enum { MAX_PATHS = 8, MAX_USUAL = 64 };

/* The `path`'s trials of `side`, sorted: their number (at most MAX_USUAL). */
static int sorted_times(const trial trials[], int n, int path, int side, double found[])
{
    int k = 0;
    for (int t = 0; t < n && k < MAX_USUAL; t++)
        if (trials[t].path == path && trials[t].side == side)
            found[k++] = trials[t].seconds;
    for (int i = 1; i < k; i++) /* a few values: insertion sort */
        for (int j = i; j > 0 && found[j] < found[j - 1]; j--) {
            const double swap = found[j];
            found[j] = found[j - 1];
            found[j - 1] = swap;
        }
    return k;
}

/* The time below which `quarters` quarters of one side's trials of a path fall (2: the
 * median, 1: the lower quartile); 0 when it had none. */
static double quantile(const trial trials[], int n, int path, int side, int quarters)
{
    double found[MAX_USUAL];
    const int k = sorted_times(trials, n, path, side, found);
    return k ? found[k * quarters / 4] : 0;
}

/* Each path's score: the sum over the sides timed on every path of the side's time at
 * `quarters` quarters (quantile). False if no side was timed on every path. */
static bool scores_at(const trial trials[], int n, int paths, int quarters, double score[])
{
    bool any = false;
    for (int p = 0; p < paths; p++)
        score[p] = 0;
    for (int side = 0; side < TRIAL_SIDES; side++) {
        double usual[MAX_PATHS];
        bool on_every_path = true;
        for (int p = 0; p < paths; p++)
            on_every_path =
                (usual[p] = quantile(trials, n, p, side, quarters)) > 0 && on_every_path;
        for (int p = 0; p < paths && on_every_path; p++)
            score[p] += usual[p];
        any = any || on_every_path;
    }
    return any;
}

/* Each path's score: the sum over the sides timed on every path of the side's usual time. */
static bool scores(const trial trials[], int n, int paths, double score[])
{
    return scores_at(trials, n, paths, 2, score);
}

/* Whether path `p`'s trials were faster than path `own`'s call by call, not only in the
 * median: on every side timed on both, with at least TRIALS_SEPARATED_SAMPLES of each, at
 * most TRIALS_SEPARATED_OVERLAP of all pairs of a trial of `p` and one of the faster half of
 * `own`'s have `p`'s the slower. The faster half, because noise only adds time: a burst over
 * one block of the MPI's own trials makes them slower than every other trial, and counted
 * among all pairs it made packing look faster call by call in 8% of trials of two paths
 * alike (a rank test; 2.6% against the faster half, and 0.25% without a burst, where all
 * pairs gave 0.65%: of 6 and 6 trials, uniform noise of 5%). */
static bool separated(const trial trials[], int n, int p, int own)
{
    bool any = false;
    for (int side = 0; side < TRIAL_SIDES; side++) {
        double of_p[MAX_USUAL], of_own[MAX_USUAL];
        const int k_p = sorted_times(trials, n, p, side, of_p);
        const int k_own = sorted_times(trials, n, own, side, of_own);
        if (k_p == 0 && k_own == 0)
            continue;
        if (k_p < TRIALS_SEPARATED_SAMPLES || k_own < TRIALS_SEPARATED_SAMPLES)
            return false;
        const int faster_half = (k_own + 1) / 2;
        long slower = 0;
        for (int a = 0; a < k_p; a++)
            for (int b = 0; b < faster_half; b++)
                slower += of_p[a] >= of_own[b];
        if ((double)slower > TRIALS_SEPARATED_OVERLAP * (double)(k_p * faster_half))
            return false;
        any = true;
    }
    return any;
}

static int chosen_of(const trial trials[], int n, const double score[], int paths)
{
    const int own = paths - 1; /* the MPI's own path */
    double low[MAX_PATHS];
    scores_at(trials, n, paths, 1, low);
    int chosen = own;
    for (int p = 0; p < own; p++) {
        const bool faster = (score[p] < (1.0 - TRIALS_MARGIN) * score[own] &&
                             low[p] < (1.0 - TRIALS_MARGIN_LOW) * low[own]) ||
                            (score[p] < (1.0 - TRIALS_MARGIN_SEPARATED) * score[own] &&
                             separated(trials, n, p, own));
        if (faster && score[p] < score[chosen])
            chosen = p;
    }
    return chosen;
}

int trials_decide(const trial trials[], int n, int paths)
{
    if (paths < 2 || paths > MAX_PATHS)
        return paths - 1;
    double score[MAX_PATHS];
    scores(trials, n, paths, score);
    return chosen_of(trials, n, score, paths);
}

int trials_decide_again(const trial earlier[], int n_earlier, const trial trials[], int n,
                        int paths)
{
    const int chosen = trials_decide(trials, n, paths);
    return trials_decide(earlier, n_earlier, paths) == chosen ? chosen : paths - 1;
}

/* Whether another path scored within `factor` of the chosen one: 1 or 0, -1 when no side was
 * timed on every path. */
static int another_within(const trial trials[], int n, int paths, double factor)
{
    double score[MAX_PATHS];
    if (paths < 2 || paths > MAX_PATHS || !scores(trials, n, paths, score))
        return -1;
    const int chosen = chosen_of(trials, n, score, paths);
    for (int p = 0; p < paths; p++)
        if (p != chosen && score[p] < factor * score[chosen])
            return 1;
    return 0;
}

/* Whether the MPI's own path scored TRIALS_OWN_AHEAD ahead of every other, at the median and
 * at the lower quartile. */
static bool own_ahead(const trial trials[], int n, int paths)
{
    double score[MAX_PATHS], low[MAX_PATHS];
    const int own = paths - 1;
    if (paths < 2 || paths > MAX_PATHS || !scores(trials, n, paths, score) ||
        !scores_at(trials, n, paths, 1, low))
        return false;
    for (int p = 0; p < own; p++)
        if (score[p] < TRIALS_OWN_AHEAD * score[own] || low[p] < TRIALS_OWN_AHEAD * low[own])
            return false;
    return true;
}

int trials_decisive(const trial trials[], int n, int paths)
{
    return another_within(trials, n, paths, TRIALS_DECISIVE) == 0 || own_ahead(trials, n, paths);
}

double trials_usual(const trial trials[], int n, int path, int side)
{
    return quantile(trials, n, path, side, 2);
}

int trials_close(const trial trials[], int n, int paths)
{
    return another_within(trials, n, paths, TRIALS_CLOSE) == 1;
}

int trials_overtaken(const trial trials[], int n, int paths, int chosen, const trial samples[],
                     int m)
{
    const int own = paths - 1;
    double score[MAX_PATHS];
    if (paths < 2 || paths > MAX_PATHS || chosen < 0 || chosen >= own ||
        !scores(trials, n, paths, score) || score[own] >= TRIALS_CLOSE * score[chosen])
        return 0;
    double sampled = 0, owns = 0;
    for (int side = 0; side < TRIAL_SIDES; side++) {
        const double own_usual = trials_usual(trials, n, own, side);
        if (own_usual <= 0 || trials_usual(trials, n, chosen, side) <= 0)
            continue;
        int of_side = 0;
        for (int k = 0; k < m; k++)
            of_side += samples[k].side == side && samples[k].path == chosen;
        if (of_side < TRIALS_OVERTAKEN_SAMPLES)
            return 0;
        sampled += trials_usual(samples, m, chosen, side);
        owns += own_usual;
    }
    return owns > 0 && sampled > owns;
}

/* The trials of `chosen` (as path 0) and of the MPI's own path (as path 1) alone, whatever
 * other paths the trials have: their number. */
static int two_paths(const trial trials[], int n, int paths, int chosen, trial two[MAX_USUAL])
{
    const int own = paths - 1;
    int m = 0;
    for (int t = 0; t < n && m < MAX_USUAL; t++)
        if (trials[t].path == chosen || trials[t].path == own) {
            two[m] = trials[t];
            two[m++].path = trials[t].path == own;
        }
    return m;
}

/* The scores at `quarters` (scores_at) of `chosen` ([0]) and the MPI's own path ([1]) alone;
 * false if no side was timed on both. */
static bool two_scores(const trial trials[], int n, int paths, int chosen, int quarters,
                       double score[2])
{
    trial two[MAX_USUAL];
    return scores_at(two, two_paths(trials, n, paths, chosen, two), 2, quarters, score);
}

int trials_holds(const trial checks[], int n, int paths, int chosen)
{
    double score[2], low[2];
    if (paths < 2 || paths > MAX_PATHS || chosen < 0 || chosen >= paths - 1 ||
        !two_scores(checks, n, paths, chosen, 2, score) ||
        !two_scores(checks, n, paths, chosen, 1, low))
        return 0;
    return !(score[1] < (1.0 - TRIALS_HOLD_MARGIN) * score[0] &&
             low[1] < (1.0 - TRIALS_HOLD_MARGIN) * low[0]);
}

double trials_own_over(const trial trials[], int n, int paths, int chosen)
{
    double score[2];
    if (paths < 2 || paths > MAX_PATHS || chosen < 0 || chosen >= paths - 1 ||
        !two_scores(trials, n, paths, chosen, 2, score) || score[0] <= 0)
        return 1;
    return score[1] / score[0];
}

int trials_beats_own(const trial checks[], int n, int paths, int other)
{
    trial two[MAX_USUAL];
    if (paths < 2 || paths > MAX_PATHS || other < 0 || other >= paths - 1)
        return 0;
    return trials_decide(two, two_paths(checks, n, paths, other, two), 2) == 0;
}
