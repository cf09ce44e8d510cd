/* Ping-pong of non-contiguous data between two ranks, every method in one run (the paper
 * paper's evaluation, Byna et al. 2003, sec. 6): each rank in turn sends a layout of its array and the
 * other receives it contiguously.
 *
 *   contiguous      the same number of bytes sent as MPI_DOUBLE from a contiguous buffer
 *   mpi             the MPI's own datatype send (PMPI_Send: memcomm does not see it)
 *   manual          a hand-written pack loop, then PMPI_Send of the packed bytes
 *   manual-blocked  the same loop cache-blocked by hand (transposes only)
 *   memcomm         MPI_Send of the datatype, which memcomm carries
 *
 * Patterns: the paper's transposes, a column, the faces of 256^3, micro-applications with the
 * access patterns of ddtbench (WRF, MILC, NAS LU and MG, FFT2, SPECFEM3D, LAMMPS: ddtbench.h),
 * and the latency of an 8-byte message.
 *
 * Prints one JSON object per (pattern, method) with the half round-trip time of every timed
 * repetition, memcomm's also with each rank's path decisions on the pattern ("paths");
 * `memcomm bench pingpong` turns them into a table. Before timing, the bytes each
 * method delivers are compared with what the MPI's own datatype send delivers.
 *
 *   bench_pingpong [--reps R] [--sizes 256,512,...] [--only SUBSTRING] */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ddtbench.h"
#include "options.h"
#include "paths.h"


static void pack_transpose(const pattern *p, double *out)
{
    const int64_t n = p->n;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++)
            *out++ = p->array[i * n + j];
}

static void pack_transpose_blocked(const pattern *p, double *out)
{
    const int64_t n = p->n, b = 32;
    for (int64_t jj = 0; jj < n; jj += b)
        for (int64_t ii = 0; ii < n; ii += b)
            for (int64_t j = jj; j < jj + b && j < n; j++)
                for (int64_t i = ii; i < ii + b && i < n; i++)
                    out[j * n + i] = p->array[i * n + j];
}

static void pack_column(const pattern *p, double *out)
{
    for (int64_t i = 0; i < p->n; i++)
        out[i] = p->array[i * 16];
}

static void pack_face(const pattern *p, double *out)
{
    const int64_t n = p->n;
    for (int64_t u = 0; u < n; u++)
        for (int64_t v = 0; v < n; v++) {
            int64_t i = p->axis == 0 ? 0 : u, j = p->axis == 1 ? 0 : p->axis == 0 ? u : v,
                    k = p->axis == 2 ? 0 : v;
            *out++ = p->array[(i * n + j) * n + k];
        }
}


enum { WARMUP = 32 };

enum { M_CONTIGUOUS, M_MPI, M_MANUAL, M_BLOCKED, M_MEMCOMM, METHODS };
static const char *method_names[METHODS] = {"contiguous", "mpi", "manual", "manual-blocked",
                                            "memcomm"};

/* One send by `method` of the pattern (or of `doubles` contiguous doubles). */
static void send_once(const pattern *p, int method, double *packed, int64_t doubles, int peer)
{
    switch (method) {
    case M_CONTIGUOUS: PMPI_Send(packed, (int)doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD); break;
    case M_MPI: PMPI_Send(p->array, p->count, p->type, peer, 0, MPI_COMM_WORLD); break;
    case M_MANUAL:
        p->pack(p, packed);
        PMPI_Send(packed, (int)doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
        break;
    case M_BLOCKED:
        p->pack_blocked(p, packed);
        PMPI_Send(packed, (int)doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
        break;
    case M_MEMCOMM: MPI_Send(p->array, p->count, p->type, peer, 0, MPI_COMM_WORLD); break;
    }
}

static bool runs(const pattern *p, int method)
{
    return !(method == M_BLOCKED && !p->pack_blocked) && !(method == M_MANUAL && !p->pack);
}

/* `inner` round trips, each rank sending its layout by `method` and receiving the other's
 * contiguously; the time of half a round trip. memcomm's receive is MPI_Recv, so that its
 * checks are paid on both sides as in a program that runs under it. */
static double half_round_trip(const pattern *p, int method, double *packed, double *received,
                              int64_t doubles, int rank, int64_t inner)
{
    const int peer = 1 - rank;
    int (*receive)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *) =
        method == M_MEMCOMM ? MPI_Recv : PMPI_Recv;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int64_t k = 0; k < inner; k++) {
        if (rank == 0) {
            send_once(p, method, packed, doubles, peer);
            receive(received, (int)doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
        } else {
            receive(received, (int)doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
            send_once(p, method, packed, doubles, peer);
        }
    }
    return (MPI_Wtime() - t0) / 2 / (double)inner;
}

/* One timed turn of a method: a round trip by the same method first, untimed, so that every
 * timed round trip follows one of its own kind (the state a program's loop of exchanges
 * leaves) rather than whichever method ran before it. */
static double turn(const pattern *p, int method, double *packed, double *received,
                   int64_t doubles, int rank, int64_t inner)
{
    half_round_trip(p, method, packed, received, doubles, rank, 1);
    return half_round_trip(p, method, packed, received, doubles, rank, inner);
}

/* Round trips per timed turn: as many as fill TURN_SECONDS by the fastest method's warm-up
 * (at most MAX_INNER), so that a short message's turn is not one round trip's worth of
 * barrier skew and timer; both ranks take the larger count. */
enum { MAX_INNER = 256 };
static const double TURN_SECONDS = 2e-3;

static int64_t round_trips_per_turn(double fastest_half_trip)
{
    double wanted = TURN_SECONDS / (2 * fastest_half_trip);
    int64_t inner = wanted >= MAX_INNER ? MAX_INNER : wanted < 1 ? 1 : (int64_t)wanted;
    MPI_Allreduce(MPI_IN_PLACE, &inner, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    return inner;
}

/* Collective: whether memcomm, on some rank, has packed this pattern's sends since `before`
 * but not decided a path (its trials still running). */
static bool still_trying(const memcomm_stats *before)
{
    memcomm_stats now;
    memcomm_stats_get(&now);
    int trying = now.handled_calls > before->handled_calls &&
                 now.paths_packed + now.paths_by_mpi == before->paths_packed + before->paths_by_mpi;
    MPI_Allreduce(MPI_IN_PLACE, &trying, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return trying;
}

static int measure(const pattern *p, int rank, int reps)
{
    int size;
    MPI_Type_size(p->type, &size);
    /* every pattern's size is a whole number of doubles (sent contiguously as such) */
    const int64_t bytes = (int64_t)size * p->count, doubles = bytes / 8;
    double *packed = bench_array((size_t)bytes), *received = bench_array((size_t)bytes);
    double *reference = bench_array((size_t)bytes);
    memset(packed, 0, (size_t)bytes);
    const int peer = 1 - rank;
    int failures = 0;
    memcomm_stats before; /* memcomm's path decisions on this pattern: from here on */
    memcomm_stats_get(&before);
    /* what each method delivers to the other rank, against the MPI's own datatype send */
    for (int method = M_MPI; method < METHODS; method++) {
        if (!runs(p, method))
            continue;
        if (rank == 0) {
            send_once(p, method, packed, doubles, peer);
        } else {
            PMPI_Recv(method == M_MPI ? reference : received, (int)doubles, MPI_DOUBLE, peer, 0,
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (method != M_MPI && memcmp(reference, received, (size_t)bytes) != 0) {
                fprintf(stderr, "bench_pingpong: %s delivers other bytes than the MPI for %s\n",
                        method_names[method], p->name);
                failures++;
            }
        }
    }
    /* Each method's warm-up first (32 round trips, discarded: they also cover memcomm's first
     * 30 sends of a type, which time both paths to pick one: lib/core/sendpath.h; memcomm's
     * goes on while it packs and has not decided, up to 32 more, for a close decision's second
     * round of trials), then the
     * repetitions, the methods in turn within each, so that drift hits all alike, in reverse
     * order every other repetition. Each timed turn follows an untimed round trip of its own
     * method and lasts TURN_SECONDS at least. With one timed round trip per turn right after
     * another method, two ranks both handing the same call to the MPI (MEMCOMM_DISABLE=1,
     * Open MPI, Intel Xeon VM) read 0.86-1.14x of each other on the faces, WRF and NAS LU. */
    double *t = malloc(sizeof(double) * (size_t)reps * METHODS);
    double fastest = 1e30;
    for (int method = 0; method < METHODS; method++)
        for (int w = 0; w < 2 * WARMUP && runs(p, method); w++) {
            if (w >= WARMUP && (method != M_MEMCOMM || !still_trying(&before)))
                break;
            const double took = half_round_trip(p, method, packed, received, doubles, rank, 1);
            fastest = took < fastest ? took : fastest;
        }
    const int64_t inner = p->inner ? p->inner : round_trips_per_turn(fastest);
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < METHODS; k++) {
            const int method = bench_turn(r, k, METHODS);
            if (runs(p, method))
                t[method * reps + r] = turn(p, method, packed, received, doubles, rank, inner);
        }
    int *every = bench_paths_gather(&before, MPI_COMM_WORLD);
    for (int method = 0; method < METHODS && rank == 0; method++) {
        if (!runs(p, method))
            continue;
        printf("{\"kind\": \"result\", \"experiment\": \"pingpong\", \"stopped\": \"fixed\", \"role\": \"round trip/2\", \"pattern\": \"%s\", \"method\": \"%s\", "
               "\"bytes\": %lld, \"inner\": %lld, ",
               p->name, method_names[method], (long long)bytes, (long long)inner);
        if (method == M_MEMCOMM)
            bench_print_paths(every, 2);
        bench_print_seconds(t + method * reps, reps);
    }
    free(every);
    free(t);
    free(packed);
    free(received);
    free(reference);
    return failures;
}

static double *filled(size_t doubles, int rank)
{
    double *a = bench_array(doubles * sizeof(double));
    if (!a) {
        fprintf(stderr, "bench_pingpong: cannot allocate %zu doubles\n", doubles);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (size_t i = 0; i < doubles; i++)
        a[i] = (double)i + 0.5 * rank;
    return a;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const int reps = atoi(bench_option(argc, argv, "--reps", "9"));
    const char *sizes = bench_option(argc, argv, "--sizes", "256,512,1024,2048,4096");
    const char *only = bench_option(argc, argv, "--only", "");
    if (nranks != 2 || reps < 3) {
        if (rank == 0)
            fprintf(stderr, "bench_pingpong: run on 2 ranks with --reps >= 3\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    enum { MAX_PATTERNS = 64 };
    static pattern patterns[MAX_PATTERNS];
    int np = 0;
    for (const char *s = sizes; *s && np < MAX_PATTERNS - 16;) {
        int64_t n = strtoll(s, (char **)&s, 10);
        if (n < 16 || n > 16384) {
            if (rank == 0)
                fprintf(stderr, "bench_pingpong: transpose sizes must be in 16..16384\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        pattern *p = &patterns[np++];
        snprintf(p->name, sizeof p->name, "transpose %lldx%lld double", (long long)n, (long long)n);
        MPI_Datatype column;
        MPI_Type_vector((int)n, 1, (int)n, MPI_DOUBLE, &column);
        MPI_Type_create_resized(column, 0, sizeof(double), &p->type);
        MPI_Type_free(&column);
        p->count = (int)n;
        p->n = n;
        p->array_doubles = (size_t)(n * n);
        p->pack = pack_transpose;
        p->pack_blocked = pack_transpose_blocked;
        if (*s == ',')
            s++;
    }
    {
        pattern *p = &patterns[np++];
        p->n = 1 << 17;
        snprintf(p->name, sizeof p->name, "column stride 16, %lld doubles", (long long)p->n);
        MPI_Type_vector((int)p->n, 1, 16, MPI_DOUBLE, &p->type);
        p->count = 1;
        p->array_doubles = (size_t)p->n * 16;
        p->pack = pack_column;
    }
    for (int axis = 0; axis < 3; axis++) {
        pattern *p = &patterns[np++];
        const int n = 256;
        snprintf(p->name, sizeof p->name, "%c face of %d^3 double", "xyz"[axis], n);
        int full[3] = {n, n, n}, sub[3] = {n, n, n}, start[3] = {0, 0, 0};
        sub[axis] = 1;
        MPI_Type_create_subarray(3, full, sub, start, MPI_ORDER_C, MPI_DOUBLE, &p->type);
        p->count = 1;
        p->n = n;
        p->axis = axis;
        p->array_doubles = (size_t)n * n * n;
        p->pack = pack_face;
    }
    ddtbench_add(patterns, &np);
    { /* latency: one MPI_DOUBLE, which memcomm must hand to the MPI at no measurable cost */
        pattern *p = &patterns[np++];
        snprintf(p->name, sizeof p->name, "latency: 1 MPI_DOUBLE (10000 round trips)");
        p->type = MPI_DOUBLE;
        p->named = true;
        p->count = 1;
        p->inner = 10000;
        p->array_doubles = 1;
    }
    int failures = 0;
    for (int i = 0; i < np; i++) {
        pattern *p = &patterns[i];
        if (!p->named)
            MPI_Type_commit(&p->type);
        if (strstr(p->name, only)) {
            p->array = filled(p->array_doubles, rank);
            failures += measure(p, rank, reps);
            free(p->array);
        }
        if (!p->named)
            MPI_Type_free(&p->type);
        free(p->index);
    }
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return total ? 1 : 0;
}
