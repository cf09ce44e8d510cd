/* The benchmark programs' command lines (`--name value` pairs, in any order), and their
 * arrays. */
#ifndef MEMCOMM_BENCH_OPTIONS_H
#define MEMCOMM_BENCH_OPTIONS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `bytes` on a page boundary, or NULL. Where malloc puts an array depends on what was
 * freed before (glibc raises its mmap threshold after a large free, and later arrays land
 * on the heap at another offset within their lines): in a run of many patterns, MILC's
 * 48-byte rows then straddled two lines each, and every method ran 2-5x slower than with
 * the pattern alone. A fixed alignment keeps a pattern's figures independent of the
 * patterns before it. */
static inline void *bench_array(size_t bytes)
{
    const size_t page = 4096;
    return aligned_alloc(page, (bytes + page - 1) / page * page + (bytes == 0) * page);
}

/* The value given for `name` ("--reps"), the last one if repeated, or `fallback`. */
static inline const char *bench_option(int argc, char **argv, const char *name,
                                       const char *fallback)
{
    const char *value = fallback;
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], name))
            value = argv[i + 1];
    return value;
}

/* The end of a result record: its samples in seconds, as `"seconds": [...]}` and a line. */
static inline void bench_print_seconds(const double *t, int reps)
{
    printf("\"seconds\": [");
    for (int r = 0; r < reps; r++)
        printf(r ? ", %.9f" : "%.9f", t[r]);
    printf("]}\n");
    fflush(stdout);
}

/* The method that takes turn `k` of repetition `rep` among `methods`: repetitions go in
 * pairs, one in an order and one in the reverse order, so that what drifts during a pattern
 * weighs on each method alike; the order is the methods' list rotated by a number drawn per
 * pair (a fixed hash), so that it is not periodic and no method keeps a place (with three
 * methods, reversing alone leaves the second in the middle every time). Beside a busy process
 * on a rank's core, a stall of one time slice locked onto a fixed place of the repeating
 * A B B A order: the third turn (memcomm's) of NAS LU's 42 KB face took 2.4 ms of every 4
 * turns of 0.4-0.6 ms, in all ten repetitions. */
static inline int bench_turn(int rep, int k, int methods)
{
    unsigned drawn = (unsigned)rep / 2 * 0x9E3779B1u; /* the pair's number, mixed */
    drawn ^= drawn >> 15;
    drawn *= 0x85EBCA77u;
    drawn ^= drawn >> 13;
    const unsigned place = (unsigned)rep % 2 ? (unsigned)(methods - 1 - k) : (unsigned)k;
    return (int)((place + drawn % (unsigned)methods) % (unsigned)methods);
}

/* At least `reps` timed turns, more where a turn is short: as many as fill `seconds` at the
 * pace of `turn` seconds (the warm-up's last turns), at most `max_reps`. Medians of 7 calls
 * of 0.05-1.3 ms read 0.92x and 0.93x for the same call in both columns (Open MPI's own
 * collective, on both ranks, halo of 64^3 and x-z slabs of 128^3, 2026-11-27). Every rank
 * must compute the same number: give it the slowest rank's times. */
static inline int bench_timed_reps(int reps, double seconds, double turn, int max_reps)
{
    const double fill = turn > 0 ? seconds / turn : 0;
    if (fill <= reps || reps >= max_reps)
        return reps;
    return fill >= max_reps ? max_reps : (int)fill;
}

/* Whether every option is one of the NULL-terminated `known` names. */
static inline int bench_options_known(int argc, char **argv, const char *const *known)
{
    for (int i = 1; i < argc; i += 2) {
        int found = 0;
        for (const char *const *k = known; *k; k++)
            found |= !strcmp(argv[i], *k);
        if (!found || i + 1 >= argc)
            return 0;
    }
    return 1;
}

#endif
