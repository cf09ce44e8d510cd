/* Probes of the machine and the MPI.
 *
 *   eager    the eager limit, by the delayed-receive method: rank 1 waits `--delay` seconds
 *            before posting its receive; a send that returns well before that was buffered
 *            (eager), one that waits for the receive was not (rendezvous).
 *   latency  the load-to-use latency of a dependent pointer chase, one pointer per cache line
 *            in a random cycle, over working sets from 4 KiB up: steps mark the cache sizes.
 *   tlb      the same chase over one line in each of N pages: the step marks the TLB entries.
 *   copy     memcpy bandwidth over buffer sizes (rank 0 alone). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "experiments.h"

/* ---- eager ---- */

typedef struct {
    int rank;
    int64_t bytes;
    char *buffer;
    double delay;
} delayed;

static void pause_for(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
}

static double eager_sample(void *ctx, int64_t inner)
{
    delayed *d = ctx;
    double total = 0;
    for (int64_t k = 0; k < inner; k++) {
        PMPI_Barrier(MPI_COMM_WORLD);
        if (d->rank == 0) {
            double t0 = MPI_Wtime();
            MPI_Send(d->buffer, (int)d->bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            total += MPI_Wtime() - t0;
        } else if (d->rank == 1) {
            pause_for(d->delay);
            MPI_Recv(d->buffer, (int)d->bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    return total;
}

int experiment_eager(const timing *given, const char *sizes, int argc, char **argv)
{
    double delay = 0.002;
    if (argc == 2 && !strcmp(argv[0], "--delay"))
        delay = atof(argv[1]);
    else if (harness_no_options(argc, argv))
        return 2;
    if (!(delay > 0 && delay < 1)) {
        fprintf(stderr, "bench: --delay must be between 0 and 1 second\n");
        return 2;
    }
    int64_t bytes[64];
    int n = harness_sizes(sizes,
                          "1K,2K,4K,6K,8K,12K,16K,24K,32K,48K,64K,96K,128K,192K,256K,384K,"
                          "512K,768K,1M",
                          bytes, 64, 1, 1ll << 30);
    if (n < 0)
        return 2;
    timing t = *given;
    t.max_inner = 1;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < n; i++) {
        harness_progress("eager");
        delayed d = {rank, bytes[i], harness_alloc(bytes[i]), delay};
        measurement m = {"eager", "MPI_Send", {"sender", NULL}, bytes[i], ""};
        snprintf(m.params, sizeof m.params, "\"delay\": %g", delay);
        harness_measure(&t, &m, eager_sample, &d, MPI_COMM_WORLD);
        free(d.buffer);
    }
    return 0;
}

/* ---- latency ---- */

/* 0..count-1 in a random order (Fisher-Yates with xorshift): a pointer chase through it
 * defeats the prefetchers. */
static int64_t *random_order(int64_t count, uint64_t *seed)
{
    int64_t *order = malloc(sizeof(int64_t) * (size_t)count);
    if (!order) {
        fprintf(stderr, "bench: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (int64_t k = 0; k < count; k++)
        order[k] = k;
    for (int64_t k = count - 1; k > 0; k--) {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        int64_t j = (int64_t)(*seed % (uint64_t)(k + 1)), x = order[k];
        order[k] = order[j];
        order[j] = x;
    }
    return order;
}

typedef struct {
    int rank;
    void **chain; /* a cycle through every line of the working set */
    int64_t loads;
} chase;

static double chase_sample(void *ctx, int64_t inner)
{
    chase *c = ctx;
    if (c->rank != 0)
        return 0;
    void **p = c->chain;
    double t0 = MPI_Wtime();
    for (int64_t k = 0; k < inner * c->loads; k++)
        p = (void **)*p;
    double elapsed = MPI_Wtime() - t0;
    if (!p)
        abort(); /* keeps the chase */
    return elapsed; /* a sample is `loads` loads (the record says how many) */
}

int experiment_latency(const timing *t, const char *sizes, int argc, char **argv)
{
    if (harness_no_options(argc, argv))
        return 2;
    int64_t bytes[64];
    int n = harness_sizes(sizes,
                          "4K,8K,16K,32K,48K,64K,128K,256K,512K,1M,2M,4M,8M,16M,32M,64M,128M",
                          bytes, 64, 128, 1ll << 32);
    if (n < 0)
        return 2;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < n; i++) {
        harness_progress("latency");
        const int64_t lines = bytes[i] / 64;
        chase c = {rank, NULL, lines < 4096 ? 4096 : lines};
        char *area = harness_alloc(bytes[i]);
        int64_t *order = random_order(lines, &seed);
        for (int64_t k = 0; k < lines; k++)
            *(void **)(area + order[k] * 64) = area + order[(k + 1) % lines] * 64;
        c.chain = (void **)(area + order[0] * 64);
        free(order);
        measurement m = {"latency", "pointer chase", {"chase", NULL}, bytes[i], ""};
        snprintf(m.params, sizeof m.params, "\"loads\": %lld", (long long)c.loads);
        harness_measure(t, &m, chase_sample, &c, MPI_COMM_WORLD);
        free(area);
    }
    return 0;
}

/* ---- tlb: one line in each of N pages (Saavedra and Smith's method) ----
 * The chase visits the pages in a random cycle, at a different line of each page so the
 * lines spread over the cache sets: while N pages fit the TLB the latency is that of the
 * cache the lines sit in; beyond, every access adds a page walk. */

int experiment_tlb(const timing *t, const char *sizes, int argc, char **argv)
{
    if (harness_no_options(argc, argv))
        return 2;
    int64_t pages[64];
    int n = harness_sizes(sizes, "8,16,32,48,64,80,96,112,128,192,256,384,512,1K,1536,2K,3K,4K",
                          pages, 64, 2, 1 << 20);
    if (n < 0)
        return 2;
    const int64_t page = 4096;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    uint64_t seed = 0x2545F4914F6CDD1Dull;
    for (int i = 0; i < n; i++) {
        harness_progress("tlb");
        const int64_t count = pages[i];
        char *area = harness_alloc(count * page);
        int64_t *order = random_order(count, &seed);
        /* page p's line: (p mod 64) * 64 bytes in */
#define SLOT(p) (area + (p) * page + ((p) % 64) * 64)
        for (int64_t k = 0; k < count; k++)
            *(void **)SLOT(order[k]) = SLOT(order[(k + 1) % count]);
        chase c = {rank, (void **)SLOT(order[0]), count < 4096 ? 4096 : count};
#undef SLOT
        free(order);
        measurement m = {"tlb", "page chase", {"chase", NULL}, count * page, ""};
        snprintf(m.params, sizeof m.params, "\"loads\": %lld, \"pages\": %lld",
                 (long long)c.loads, (long long)count);
        harness_measure(t, &m, chase_sample, &c, MPI_COMM_WORLD);
        free(area);
    }
    return 0;
}

/* ---- copy ---- */

typedef struct {
    int rank;
    int64_t bytes;
    char *from, *to;
} copying;

static double copy_sample(void *ctx, int64_t inner)
{
    copying *c = ctx;
    if (c->rank != 0)
        return 0;
    double t0 = MPI_Wtime();
    for (int64_t k = 0; k < inner; k++) {
        memcpy(c->to, c->from, (size_t)c->bytes);
        __asm__ volatile("" ::: "memory");
    }
    return MPI_Wtime() - t0;
}

int experiment_copy(const timing *t, const char *sizes, int argc, char **argv)
{
    if (harness_no_options(argc, argv))
        return 2;
    int64_t bytes[64];
    int n = harness_sizes(sizes, "4K,16K,64K,256K,1M,4M,16M,64M,256M", bytes, 64, 64,
                          1ll << 32);
    if (n < 0)
        return 2;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < n; i++) {
        harness_progress("copy");
        copying c = {rank, bytes[i], harness_alloc(bytes[i]), harness_alloc(bytes[i])};
        measurement m = {"copy", "memcpy", {"copy", NULL}, bytes[i], ""};
        harness_measure(t, &m, copy_sample, &c, MPI_COMM_WORLD);
        free(c.from);
        free(c.to);
    }
    return 0;
}
