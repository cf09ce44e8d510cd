/* What a program pays memcomm over the life of its datatypes, against the MPI alone in the
 * same run (the MPI alone: the same calls through PMPI_, which memcomm never sees).
 *
 *   commit    create + commit + free of a type the program never moves: a resized vector
 *             (a matrix column), a 3-D subarray face and a struct of three; per type
 *   recreate  ddtbench's micro-applications as ddtbench runs them, at several sizes each
 *             (ddtbench_add_sweep): every outer iteration builds and commits its datatype,
 *             exchanges it 20 times (--exchanges; ping-pong: both ranks send and receive the
 *             datatype) and frees it; per iteration
 *   requests  n non-blocking messages each way, each a column of an R x n matrix, all
 *             sends and receives of a rank completed by one MPI_Waitall of 2n requests;
 *             per 20 such exchanges: n = 1,000, 4,000 and 10,000 columns of 8 doubles
 *             (64 bytes a message, where the MPI's own path is fastest) and 64 columns of
 *             4,096 doubles (32 KiB, where packing is)
 *
 * The methods: the MPI alone, memcomm, and the MPI alone again ("mpi-again"), timed in turn
 * like the others: its speed-up over the first is this run's noise, what a case of memcomm
 * against the MPI is to be read against.
 *
 * Prints one JSON object per (pattern, method) with the time of every timed repetition, like
 * bench_pingpong; `memcomm bench lifecycle` turns them into a table. Before timing, the bytes
 * memcomm's exchange delivers are compared with the MPI's.
 *
 *   bench_lifecycle [--reps R] [--seconds S] [--exchanges E] [--only SUBSTRING]
 *
 * --reps: timed repetitions of every method at least (9); --seconds: more for the re-created
 * types and the requests where a repetition is short, as many as fill S seconds (0; at most
 * 201); --exchanges: round trips per re-created type (20, ddtbench's; 1 shows what a type
 * costs apart from its calls). */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ddtbench.h"
#include "options.h"

enum { COMMITS = 2000, EXCHANGES = 20, MAX_REPS = 201, MAX_EXCHANGES = 1000 };
enum { M_MPI, M_MEMCOMM, M_MPI_AGAIN, METHODS };
static const char *method_names[METHODS] = {"mpi", "memcomm", "mpi-again"};

typedef struct {
    int (*commit)(MPI_Datatype *);
    int (*free)(MPI_Datatype *);
    int (*send)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
    int (*recv)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
    int (*isend)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    int (*irecv)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    int (*waitall)(int, MPI_Request[], MPI_Status[]);
} calls;

/* the MPI alone: the PMPI_ entry points, which memcomm never sees */
#define MPI_ALONE                                                                              \
    {PMPI_Type_commit, PMPI_Type_free, PMPI_Send, PMPI_Recv, PMPI_Isend, PMPI_Irecv,           \
     PMPI_Waitall}
static const calls by_method[METHODS] = {
    [M_MPI] = MPI_ALONE,
    [M_MEMCOMM] = {MPI_Type_commit, MPI_Type_free, MPI_Send, MPI_Recv, MPI_Isend, MPI_Irecv,
                   MPI_Waitall},
    [M_MPI_AGAIN] = MPI_ALONE,
};

/* The timed repetitions for a pattern whose repetition of every method took `turn` seconds
 * on this rank: the same on both ranks (the slower one's). */
static int timed_reps(int reps, double seconds, double turn)
{
    double slowest;
    MPI_Allreduce(&turn, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return bench_timed_reps(reps, seconds, slowest, MAX_REPS);
}

static void print_result(const char *role, const char *pattern, int method, long long bytes,
                         const double *t, int reps)
{
    printf("{\"kind\": \"result\", \"experiment\": \"lifecycle\", \"stopped\": \"fixed\", "
           "\"role\": \"%s\", \"pattern\": \"%s\", \"method\": \"%s\", \"bytes\": %lld, ",
           role, pattern, method_names[method], bytes);
    bench_print_seconds(t, reps);
}

/* ---- commit: types never moved ---- */

static MPI_Datatype column_type(void)
{
    MPI_Datatype column, narrow;
    MPI_Type_vector(512, 1, 512, MPI_DOUBLE, &column);
    MPI_Type_create_resized(column, 0, sizeof(double), &narrow);
    MPI_Type_free(&column);
    return narrow;
}

static MPI_Datatype face_type(void)
{
    int full[3] = {128, 128, 128}, sub[3] = {128, 1, 128}, start[3] = {0, 0, 0};
    MPI_Datatype face;
    MPI_Type_create_subarray(3, full, sub, start, MPI_ORDER_C, MPI_DOUBLE, &face);
    return face;
}

static MPI_Datatype struct_type(void)
{
    int lens[3] = {1, 3, 2};
    MPI_Aint displs[3] = {0, 8, 32};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_FLOAT}, t;
    MPI_Type_create_struct(3, lens, displs, types, &t);
    return t;
}

static void bench_commit(int rank, int reps, const char *only)
{
    static const struct {
        const char *name;
        MPI_Datatype (*build)(void);
    } shapes[] = {{"resized vector (a column of 512x512 doubles)", column_type},
                  {"subarray (a face of 128^3 doubles)", face_type},
                  {"struct of int, 3 doubles, 2 floats", struct_type}};
    double *t = malloc(sizeof *t * (size_t)reps * METHODS);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        if (!strstr(shapes[s].name, only))
            continue;
        for (int r = -1; r < reps; r++) /* one warm-up repetition; as bench_recreate */
            for (int k = 0; k < METHODS; k++) {
                const int m = bench_turn(r, k, METHODS);
                double t0 = MPI_Wtime();
                for (int i = 0; i < COMMITS; i++) {
                    MPI_Datatype x = shapes[s].build();
                    by_method[m].commit(&x);
                    by_method[m].free(&x);
                }
                if (r >= 0)
                    t[m * reps + r] = (MPI_Wtime() - t0) / COMMITS;
            }
        for (int m = 0; m < METHODS && rank == 0; m++)
            print_result("create+commit+free", shapes[s].name, m, 0, t + m * reps, reps);
    }
    free(t);
}

/* ---- recreate: ddtbench's outer iterations ---- */

/* One outer iteration: build, commit, `exchanges` round trips of the datatype, free. */
static void iteration(pattern *p, int method, int rank, int exchanges, double *received)
{
    const calls *c = &by_method[method];
    const int peer = 1 - rank;
    MPI_Datatype t = p->build(p);
    c->commit(&t);
    for (int k = 0; k < exchanges; k++) {
        if (rank == 0) {
            c->send(p->array, p->count, t, peer, 0, MPI_COMM_WORLD);
            c->recv(received, p->count, t, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            c->recv(received, p->count, t, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            c->send(p->array, p->count, t, peer, 0, MPI_COMM_WORLD);
        }
    }
    c->free(&t);
}

static int bench_recreate(pattern *patterns, int np, int rank, int min_reps, double seconds,
                          int exchanges, const char *only)
{
    char role[64];
    snprintf(role, sizeof role, "iteration of %d round trip%s", exchanges,
             exchanges == 1 ? "" : "s");
    int failures = 0;
    double *t = malloc(sizeof *t * (size_t)MAX_REPS * METHODS);
    for (int i = 0; i < np; i++) {
        pattern *p = &patterns[i];
        if (!strstr(p->name, only))
            continue;
        p->array = malloc(p->array_doubles * sizeof(double));
        double *by_mpi = calloc(p->array_doubles, sizeof(double)),
               *by_memcomm = calloc(p->array_doubles, sizeof(double));
        for (size_t k = 0; k < p->array_doubles; k++)
            p->array[k] = (double)k + 0.5 * rank;
        double t0 = MPI_Wtime();
        iteration(p, M_MPI, rank, exchanges, by_mpi);
        const double alone = MPI_Wtime() - t0;
        t0 = MPI_Wtime();
        iteration(p, M_MEMCOMM, rank, exchanges, by_memcomm);
        const int reps = timed_reps(min_reps, seconds, 2 * alone + MPI_Wtime() - t0);
        if (memcmp(by_mpi, by_memcomm, p->array_doubles * sizeof(double)) != 0) {
            fprintf(stderr, "bench_lifecycle: memcomm delivers other bytes than the MPI for %s\n",
                    p->name);
            failures++;
        }
        /* the methods take turns, in pairs of repetitions in both orders (bench_turn), so
         * that drift, and a disturbance that comes every other iteration (a busy neighbour's
         * time slices), hit all alike */
        for (int r = 0; r < reps; r++)
            for (int k = 0; k < METHODS; k++) {
                const int m = bench_turn(r, k, METHODS);
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
                iteration(p, m, rank, exchanges, by_mpi);
                t[m * reps + r] = MPI_Wtime() - t0;
            }
        int size;
        MPI_Type_size(p->type, &size);
        for (int m = 0; m < METHODS && rank == 0; m++)
            print_result(role, p->name, m, (long long)size * p->count, t + m * reps, reps);
        free(p->array);
        free(by_mpi);
        free(by_memcomm);
    }
    free(t);
    return failures;
}

/* ---- requests: exchanges of many non-blocking messages ---- */

/* n columns of an R x n matrix of doubles each way, each column a message of its own (a
 * vector of R doubles n apart, resized to one double), all a rank's sends and receives
 * completed by one MPI_Waitall of 2n requests; one round of it. */
typedef struct {
    int n, rows;
} columns;

static void waitall_round(int method, columns c, MPI_Datatype column, const double *out,
                          double *in, MPI_Request *r)
{
    const calls *k = &by_method[method];
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < c.n; i++)
        k->irecv(in + i, 1, column, 1 - rank, 0, MPI_COMM_WORLD, &r[i]);
    for (int i = 0; i < c.n; i++)
        k->isend(out + i, 1, column, 1 - rank, 0, MPI_COMM_WORLD, &r[c.n + i]);
    k->waitall(2 * c.n, r, MPI_STATUSES_IGNORE);
}

/* A repetition is EXCHANGES rounds: memcomm decides a path for non-blocking calls by timing
 * whole exchanges (epochs), so a run of the first rounds only would time its trials. */
static int bench_requests(int rank, int min_reps, double seconds, const char *only)
{
    static const columns sizes[] = {{1000, 8}, {4000, 8}, {10000, 8}, {64, 4096}};
    int failures = 0;
    double *t = malloc(sizeof *t * (size_t)MAX_REPS * METHODS);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const columns c = sizes[s];
        char name[96];
        snprintf(name, sizeof name, "%d columns of %d doubles each way", c.n, c.rows);
        if (!strstr(name, only))
            continue;
        MPI_Datatype v, column;
        MPI_Type_vector(c.rows, 1, c.n, MPI_DOUBLE, &v);
        MPI_Type_create_resized(v, 0, sizeof(double), &column);
        MPI_Type_free(&v);
        MPI_Type_commit(&column);
        const size_t doubles = (size_t)c.n * (size_t)c.rows;
        double *out = malloc(sizeof(double) * doubles), *in[METHODS];
        MPI_Request *r = malloc(sizeof *r * 2 * (size_t)c.n);
        for (size_t k = 0; k < doubles; k++)
            out[k] = (double)k + 0.5 * rank;
        const double started = MPI_Wtime(); /* one round of every method */
        for (int m = 0; m < METHODS; m++) {
            in[m] = calloc(doubles, sizeof(double));
            waitall_round(m, c, column, out, in[m], r);
        }
        const int reps = timed_reps(min_reps, seconds, EXCHANGES * (MPI_Wtime() - started));
        if (memcmp(in[M_MPI], in[M_MEMCOMM], sizeof(double) * doubles) != 0) {
            fprintf(stderr, "bench_lifecycle: memcomm delivers other bytes than the MPI for %s\n",
                    name);
            failures++;
        }
        for (int rep = 0; rep < reps; rep++)
            for (int k = 0; k < METHODS; k++) {
                const int m = bench_turn(rep, k, METHODS);
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                for (int e = 0; e < EXCHANGES; e++)
                    waitall_round(m, c, column, out, in[m], r);
                t[m * reps + rep] = MPI_Wtime() - t0;
            }
        for (int m = 0; m < METHODS && rank == 0; m++)
            print_result("20 exchanges, each one Waitall of 2n requests", name, m,
                         (long long)doubles * 8, t + m * reps, reps);
        for (int m = 0; m < METHODS; m++)
            free(in[m]);
        free(r);
        free(out);
        MPI_Type_free(&column);
    }
    free(t);
    return failures;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const int reps = atoi(bench_option(argc, argv, "--reps", "9"));
    const double seconds = atof(bench_option(argc, argv, "--seconds", "0"));
    const char *only = bench_option(argc, argv, "--only", "");
    const int exchanges = atoi(bench_option(argc, argv, "--exchanges", "20"));
    if (nranks != 2 || reps < 3 || reps > MAX_REPS || exchanges < 1 ||
        exchanges > MAX_EXCHANGES) {
        if (rank == 0)
            fprintf(stderr,
                    "bench_lifecycle: run on 2 ranks with 3 <= --reps <= %d and 1 <= "
                    "--exchanges <= %d\n",
                    MAX_REPS, MAX_EXCHANGES);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    bench_commit(rank, reps, only);
    static pattern patterns[DDTBENCH_SWEEP];
    int np = 0;
    ddtbench_add_sweep(patterns, &np); /* their types give the size: iterations build their own */
    int failures = bench_recreate(patterns, np, rank, reps, seconds, exchanges, only);
    failures += bench_requests(rank, reps, seconds, only);
    for (int i = 0; i < np; i++) {
        MPI_Type_free(&patterns[i].type);
        free(patterns[i].index);
    }
    int any;
    MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? 1 : 0;
}
