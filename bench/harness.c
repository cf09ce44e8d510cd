#define _GNU_SOURCE
#include "harness.h"

#include <dlfcn.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

timing timing_defaults(void)
{
    return (timing){.warmup = 2,
                    .min_reps = 10,
                    .max_reps = 200,
                    .rse = 0.02,
                    .cap_s = 5.0,
                    .min_sample_s = 200e-6,
                    .max_inner = 1 << 20};
}

/* ---- hardware counters (perf_event_open) ----
 * Opened once per process; a counter the kernel refuses is left out. On virtual machines
 * without a virtual PMU every hardware event is refused, and the record says so. */
enum { COUNTERS = 5 };
static const struct {
    const char *name;
    uint32_t type;
    uint64_t config;
} counter_events[COUNTERS] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"l1d_read_misses", PERF_TYPE_HW_CACHE,
     PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
         (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)},
    {"llc_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"dtlb_read_misses", PERF_TYPE_HW_CACHE,
     PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
         (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)},
};
static int counter_fd[COUNTERS] = {-2, -2, -2, -2, -2}; /* -2: not tried yet */
static int counter_errno;

static void counters_open(void)
{
    if (counter_fd[0] != -2)
        return;
    for (int i = 0; i < COUNTERS; i++) {
        struct perf_event_attr attr;
        memset(&attr, 0, sizeof attr);
        attr.size = sizeof attr;
        attr.type = counter_events[i].type;
        attr.config = counter_events[i].config;
        attr.disabled = 1;
        attr.exclude_kernel = 1;
        attr.exclude_hv = 1;
        counter_fd[i] = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
        if (counter_fd[i] < 0 && !counter_errno)
            counter_errno = errno;
    }
}

static int counters_available(void)
{
    counters_open();
    int n = 0;
    for (int i = 0; i < COUNTERS; i++)
        n += counter_fd[i] >= 0;
    return n;
}

static void counters_start(void)
{
    for (int i = 0; i < COUNTERS; i++)
        if (counter_fd[i] >= 0) {
            ioctl(counter_fd[i], PERF_EVENT_IOC_RESET, 0);
            ioctl(counter_fd[i], PERF_EVENT_IOC_ENABLE, 0);
        }
}

static void counters_stop(double *values, int64_t inner)
{
    for (int i = 0; i < COUNTERS; i++) {
        uint64_t v = 0;
        if (counter_fd[i] >= 0) {
            ioctl(counter_fd[i], PERF_EVENT_IOC_DISABLE, 0);
            if (read(counter_fd[i], &v, sizeof v) != (ssize_t)sizeof v)
                v = 0;
        }
        values[i] = (double)v / (double)inner;
    }
}

void harness_counters_record(void)
{
    int n = counters_available();
    printf("{\"kind\": \"counters\", \"available\": [");
    for (int i = 0, first = 1; i < COUNTERS; i++)
        if (counter_fd[i] >= 0) {
            printf(first ? "\"%s\"" : ", \"%s\"", counter_events[i].name);
            first = 0;
        }
    printf("]");
    if (n < COUNTERS)
        printf(", \"reason\": \"perf_event_open refused %d of %d hardware events: %s%s\"",
               COUNTERS - n, COUNTERS, strerror(counter_errno),
               counter_errno == ENOENT || counter_errno == EOPNOTSUPP
                   ? " (no hardware performance counters, e.g. a virtual machine without a "
                     "virtual PMU)"
               : counter_errno == EACCES || counter_errno == EPERM
                   ? " (not permitted: see /proc/sys/kernel/perf_event_paranoid)"
                   : "");
    printf("}\n");
    fflush(stdout);
}

/* ---- timing ---- */

typedef struct {
    double *v;
    int n, cap;
} series;

static void push(series *s, double x)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = realloc(s->v, sizeof(double) * (size_t)s->cap);
        if (!s->v) {
            fprintf(stderr, "bench: out of memory for samples\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    s->v[s->n++] = x;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of the samples and, in `rse`, its relative standard error: from the
 * distribution-free 95% confidence interval of the median (order statistics, normal
 * approximation of the binomial), half its width over 1.96, over the median. Robust to the
 * outliers a shared VM throws in. Below 3 samples (or out of memory) the error is infinite. */
static double median_of(const series *s, double *rse)
{
    *rse = INFINITY;
    double *v = s->n ? malloc(sizeof(double) * (size_t)s->n) : NULL;
    if (!v)
        return 0;
    memcpy(v, s->v, sizeof(double) * (size_t)s->n);
    qsort(v, (size_t)s->n, sizeof(double), by_value);
    const double median = s->n % 2 ? v[s->n / 2] : (v[s->n / 2 - 1] + v[s->n / 2]) / 2;
    if (s->n >= 3) {
        const double half = 1.96 * sqrt((double)s->n) / 2;
        int lo = (int)floor(s->n / 2.0 - half), hi = (int)ceil(s->n / 2.0 + half);
        lo = lo < 0 ? 0 : lo;
        hi = hi > s->n - 1 ? s->n - 1 : hi;
        if (median > 0)
            *rse = (v[hi] - v[lo]) / 2 / 1.96 / median;
    }
    free(v);
    return median;
}

/* One sample on every rank, after a barrier; every rank's seconds land in `times` and, when
 * counting, its counts per iteration in `counts` (rank-major), both on rank 0. */
static void one_sample(sample_fn fn, void *ctx, int64_t inner, MPI_Comm comm, double *times,
                       double *counts)
{
    PMPI_Barrier(comm);
    double mine[COUNTERS];
    if (counts)
        counters_start();
    double s = fn(ctx, inner);
    if (counts)
        counters_stop(mine, inner);
    PMPI_Gather(&s, 1, MPI_DOUBLE, times, 1, MPI_DOUBLE, 0, comm);
    if (counts)
        PMPI_Gather(mine, COUNTERS, MPI_DOUBLE, counts, COUNTERS, MPI_DOUBLE, 0, comm);
}

static const char *stop_reason(int n, const timing *t, double rse, double elapsed)
{
    if (n >= t->max_reps)
        return "max_reps";
    if (n >= t->min_reps && rse <= t->rse)
        return "rse";
    if (n >= t->min_reps && elapsed >= t->cap_s)
        return "cap";
    return NULL;
}

double harness_measure(const timing *t, const measurement *m, sample_fn fn, void *ctx,
                       MPI_Comm comm)
{
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    double *times = malloc(sizeof(double) * (size_t)nranks);
    double *counted = malloc(sizeof(double) * COUNTERS * (size_t)nranks);
    if (!times || !counted) {
        fprintf(stderr, "bench: out of memory\n");
        MPI_Abort(comm, 2);
    }
    const int reported = nranks < 2 ? nranks : 2;
    one_sample(fn, ctx, 1, comm, times, NULL); /* first use: page faults, lazy set-up */
    /* calibration: double `inner` until a sample of the slowest reported rank is long enough */
    int64_t inner = 1;
    for (;;) {
        one_sample(fn, ctx, inner, comm, times, NULL);
        double longest = 0;
        for (int r = 0; r < reported; r++)
            if (m->roles[r] && times[r] > longest)
                longest = times[r];
        int more = rank == 0 && longest < t->min_sample_s && inner < t->max_inner;
        PMPI_Bcast(&more, 1, MPI_INT, 0, comm);
        if (!more)
            break;
        inner *= 2;
    }
    for (int64_t w = 0, calls = 0; w < t->warmup || calls < t->warmup_calls; w++, calls += inner)
        one_sample(fn, ctx, inner, comm, times, NULL);

    /* counters are opened on every rank alike (same machine), so all agree on `counting` */
    const bool counting = counters_available() > 0;
    series samples[2] = {{0}}, counts[2][COUNTERS] = {{{0}}};
    const char *reason = NULL;
    double start = MPI_Wtime();
    while (!reason) {
        one_sample(fn, ctx, inner, comm, times, counting ? counted : NULL);
        int stop = 0;
        if (rank == 0) {
            double worst = 0;
            int n = 0;
            for (int r = 0; r < reported; r++) {
                if (!m->roles[r])
                    continue;
                push(&samples[r], times[r] / (double)inner);
                for (int i = 0; counting && i < COUNTERS; i++)
                    push(&counts[r][i], counted[r * COUNTERS + i]);
                double e;
                median_of(&samples[r], &e);
                worst = e > worst ? e : worst;
                n = samples[r].n;
            }
            reason = stop_reason(n, t, worst, MPI_Wtime() - start);
            stop = reason != NULL;
        }
        PMPI_Bcast(&stop, 1, MPI_INT, 0, comm);
        if (stop && !reason)
            reason = "";
    }
    if (rank == 0) {
        for (int r = 0; r < reported; r++) {
            if (!m->roles[r])
                continue;
            printf("{\"kind\": \"result\", \"experiment\": \"%s\", \"method\": \"%s\", "
                   "\"role\": \"%s\", \"bytes\": %lld, \"engine\": \"%s\"%s%s, \"inner\": %lld, "
                   "\"warmup\": %d, \"stopped\": \"%s\", \"seconds\": [",
                   m->experiment, m->method, m->roles[r], (long long)m->bytes,
                   harness_memcomm_loaded() ? "memcomm" : "mpi", m->params[0] ? ", " : "",
                   m->params, (long long)inner, t->warmup, reason);
            for (int i = 0; i < samples[r].n; i++)
                printf(i ? ", %.4e" : "%.4e", samples[r].v[i]);
            printf("]");
            if (counting) {
                printf(", \"counters\": {");
                for (int i = 0, first = 1; i < COUNTERS; i++) {
                    if (counter_fd[i] < 0)
                        continue;
                    printf(first ? "\"%s\": [" : ", \"%s\": [", counter_events[i].name);
                    first = 0;
                    for (int k = 0; k < counts[r][i].n; k++)
                        printf(k ? ", %.1f" : "%.1f", counts[r][i].v[k]);
                    printf("]");
                }
                printf("}");
            }
            printf("}\n");
        }
        fflush(stdout);
    }
    double median = 0, unused;
    if (rank == 0)
        median = median_of(&samples[m->roles[0] ? 0 : 1], &unused);
    PMPI_Bcast(&median, 1, MPI_DOUBLE, 0, comm);
    for (int r = 0; r < 2; r++) {
        free(samples[r].v);
        for (int i = 0; i < COUNTERS; i++)
            free(counts[r][i].v);
    }
    free(times);
    free(counted);
    return median;
}

/* ---- options and helpers ---- */

int harness_sizes(const char *given, const char *fallback, int64_t *out, int max, int64_t lo,
                  int64_t hi)
{
    const char *text = given ? given : fallback;
    int n = 0;
    for (const char *s = text; *s;) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (end == s || errno) {
            fprintf(stderr, "bench: malformed size list %s\n", text);
            return -1;
        }
        int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
        end += shift != 0;
        if (v < 0 || v > (hi >> shift) || (v << shift) < lo || (*end && *end != ',') || n == max) {
            fprintf(stderr, "bench: size %.*s out of range %lld..%lld (or too many sizes)\n",
                    (int)(end - s), s, (long long)lo, (long long)hi);
            return -1;
        }
        out[n++] = (int64_t)v << shift;
        s = *end ? end + 1 : end;
    }
    return n;
}

int harness_options(int argc, char **argv, timing *t, const char **sizes)
{
    int i = 2; /* argv[1] is the experiment */
    for (; i + 1 < argc; i += 2) {
        const char *o = argv[i], *v = argv[i + 1];
        if (!strcmp(o, "--warmup"))
            t->warmup = atoi(v);
        else if (!strcmp(o, "--warmup-calls"))
            t->warmup_calls = atoll(v);
        else if (!strcmp(o, "--min-reps"))
            t->min_reps = atoi(v);
        else if (!strcmp(o, "--max-reps"))
            t->max_reps = atoi(v);
        else if (!strcmp(o, "--rse"))
            t->rse = atof(v);
        else if (!strcmp(o, "--cap"))
            t->cap_s = atof(v);
        else if (!strcmp(o, "--min-sample"))
            t->min_sample_s = atof(v);
        else if (!strcmp(o, "--sizes"))
            *sizes = v;
        else
            break;
    }
    if (t->warmup < 0 || t->warmup_calls < 0 || t->min_reps < 3 || t->max_reps < t->min_reps || !(t->rse > 0) ||
        !(t->cap_s > 0) || !(t->min_sample_s >= 0)) {
        fprintf(stderr, "bench: need --warmup >= 0, --warmup-calls >= 0, 3 <= --min-reps <= --max-reps, --rse > 0, "
                        "--cap > 0, --min-sample >= 0\n");
        return -1;
    }
    return i;
}

bool harness_no_options(int argc, char **argv)
{
    if (argc > 0)
        fprintf(stderr, "bench: unknown option %s (or a missing value)\n", argv[0]);
    return argc > 0;
}

void *harness_alloc(int64_t bytes)
{
    void *p = NULL;
    size_t n = bytes > 0 ? (size_t)bytes : 1;
    if (posix_memalign(&p, 4096, (n + 4095) & ~(size_t)4095) != 0) {
        fprintf(stderr, "bench: cannot allocate %lld bytes: not enough memory for this size\n",
                (long long)bytes);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    memset(p, 0, n);
    return p;
}

void cache_invalidate(void *p, int64_t bytes)
{
#if defined(__x86_64__) || defined(__i386__)
    char *c = p;
    for (int64_t i = 0; i < bytes; i += 64)
        __builtin_ia32_clflush(c + i);
    __builtin_ia32_mfence();
#else /* no user-level flush: evict by reading a buffer larger than any cache */
    enum { EVICT = 256 << 20 };
    static char *evict;
    if (!evict)
        evict = harness_alloc(EVICT);
    (void)p;
    (void)bytes;
    cache_modify(evict, EVICT);
#endif
}

void cache_read(const void *p, int64_t bytes)
{
    const volatile char *c = p;
    char sink = 0;
    for (int64_t i = 0; i < bytes; i += 64)
        sink ^= c[i];
    (void)sink;
}

void cache_modify(void *p, int64_t bytes)
{
    volatile char *c = p;
    for (int64_t i = 0; i < bytes; i += 64)
        c[i] = c[i];
}

bool harness_memcomm_loaded(void) { return dlsym(RTLD_DEFAULT, "memcomm_version") != NULL; }

void harness_progress(const char *what)
{
    static struct timespec last;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - last.tv_sec >= 1) {
        fprintf(stderr, "progress: %s\n", what);
        last = now;
    }
}
