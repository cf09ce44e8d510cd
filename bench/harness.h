/* The measurement suite's timing method, shared by every experiment (docs/timing.md).
 *
 * A measurement is a function that runs `inner` iterations of what is measured on every rank
 * and returns the seconds this rank spent in the timed part (set-up such as putting the cache
 * in a given state is done by the function, outside what it times). The harness:
 *   - synchronizes the ranks (MPI_Barrier) before every sample;
 *   - calibrates `inner` so one sample lasts at least `min_sample_s` (long against the
 *     timer's resolution); those calibration samples are discarded, then `warmup` more, and
 *     more until the warm-up made at least `warmup_calls` iterations (memcomm's path trials:
 *     up to 30 calls of a message go by both paths before one is kept);
 *   - repeats until the relative standard error of the mean is below `rse`, or `max_reps`
 *     samples, or `cap_s` seconds, never fewer than `min_reps` samples;
 *   - prints one JSON line per reported rank with every sample (seconds per iteration).
 * Rank 0 decides when to stop and tells the others, so all ranks run the same samples. */
#ifndef MEMCOMM_BENCH_HARNESS_H
#define MEMCOMM_BENCH_HARNESS_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int warmup, min_reps, max_reps;
    int64_t warmup_calls;
    double rse, cap_s, min_sample_s;
    int64_t max_inner; /* 1 for measurements that must prepare state before each iteration */
} timing;

/* The defaults, overridden by --warmup --warmup-calls --min-reps --max-reps --rse --cap
 * --min-sample. */
timing timing_defaults(void);

/* What one measurement is, for its JSON record. `roles[r]` names what rank r's time is
 * ("sender", "round trip/2", ...); ranks without a role are timed but not reported. */
typedef struct {
    const char *experiment, *method;
    const char *roles[2];
    int64_t bytes;
    char params[384]; /* extra JSON members, e.g. "\"stride\": 16, \"state\": \"INV\"" */
} measurement;

typedef double (*sample_fn)(void *ctx, int64_t inner);

/* Time `fn` on every rank of `comm` and print the records (rank 0). Returns, on every rank,
 * the median seconds per iteration of the first reported rank (for experiments whose next
 * measurement depends on this one). */
double harness_measure(const timing *t, const measurement *m, sample_fn fn, void *ctx,
                       MPI_Comm comm);

/* Options every experiment takes; returns the index of the first argument it did not know
 * (experiments read their own from there), or -1 after printing an error. */
int harness_options(int argc, char **argv, timing *t, const char **sizes);

/* For experiments without options of their own: true (after a message) if any are left. */
bool harness_no_options(int argc, char **argv);

/* A comma-separated list of sizes with optional K/M/G suffixes ("64,4K,1M") into `out`: the
 * --sizes given, or the experiment's `fallback` when NULL. Returns how many, or -1 (with a
 * message) for a malformed or out-of-range entry. */
int harness_sizes(const char *given, const char *fallback, int64_t *out, int max, int64_t lo,
                  int64_t hi);

/* Memory for a buffer of `bytes`, page-aligned and touched; aborts the run with a message
 * when there is not enough. */
void *harness_alloc(int64_t bytes);

/* Cache states (Pellegrini et al.'s SCN1): flush every line of [p, p+bytes) from every cache level (INV),
 * read it (EXCL), or write it, keeping its content (MOD). */
void cache_invalidate(void *p, int64_t bytes);
void cache_read(const void *p, int64_t bytes);
void cache_modify(void *p, int64_t bytes);

/* Whether memcomm is loaded in this process (the runner preloads it for "with memcomm"). */
bool harness_memcomm_loaded(void);

/* Hardware counters, where the kernel gives them (perf_event_open): prints a JSON record
 * saying which counters are available, or why none are. */
void harness_counters_record(void);

/* One progress line on stderr, at most every second. */
void harness_progress(const char *what);

#endif
