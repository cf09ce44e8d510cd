/* LoGPC's Diamond DAG (Moritz and Frank, sec. 5.2) as an MPI mini-application: dynamic programming
 * over an n x n grid of tasks, stripe-partitioned. Rank r owns rows [r n/P, (r+1) n/P) and
 * splits them into b blocks of n/b columns. A block waits for the n/b values of the top edge
 * of the block below it (from rank r - 1), computes its tasks, and sends its own top edge to
 * rank r + 1: eq. 15's schedule. A task is two additions and one multiplication, as in the
 * paper: c[i][j] = (c[i-1][j] + c[i][j-1] + c[i-1][j-1]) * (1/3).
 *
 * For each side n of --sizes and each b = 1, 4, 16, ... up to n, it times:
 *   makespan  from a barrier to the last rank's last task (the maximum over ranks)
 *   compute   the same blocks on every rank at once without any message: eq. 15's W, so
 *             that the model gets this machine's task time for this block shape
 * and checks once per n that the last rank's top row equals a sequential computation.
 * One JSON object per (n, b, method) with the time of every repetition; `memcomm bench
 * diamond` collects them and `memcomm report` sets them against eq. 15.
 *
 *   bench_diamond [--reps R] [--sizes N,N,...] [--only SUBSTRING] */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

typedef struct {
    int n, ranks, rank, rows; /* rows = n / ranks, this rank's stripe */
    double *c;                /* (rows + 1) x (n + 1): row 0 the edge below, column 0 the
                                 left boundary */
} stripe;

static double below_boundary(int j) { return (double)(j % 17) / 17.0; }
static double left_boundary(int i) { return (double)(i % 13) / 13.0; }

static inline double task(double up, double left, double diagonal)
{
    return (up + left + diagonal) * (1.0 / 3.0);
}

static double *at(const stripe *s, int row, int column)
{
    return s->c + (size_t)row * (size_t)(s->n + 1) + (size_t)column;
}

static stripe stripe_new(int n, int ranks, int rank)
{
    stripe s = {n, ranks, rank, n / ranks, NULL};
    s.c = malloc(sizeof(double) * (size_t)(s.rows + 1) * (size_t)(n + 1));
    if (!s.c) {
        fprintf(stderr, "bench_diamond: out of memory for n = %d\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int j = 1; j <= n; j++) /* the edge below: rank 0's is the boundary, others receive */
        *at(&s, 0, j) = rank == 0 ? below_boundary(j) : 0.0;
    for (int i = 0; i <= s.rows; i++) /* column 0: the left boundary of global row r*rows+i-1 */
        *at(&s, i, 0) = rank == 0 && i == 0 ? below_boundary(0) : left_boundary(rank * s.rows + i);
    return s;
}

/* The tasks of block k of b: rows 1..rows, columns k n/b + 1 .. (k+1) n/b. */
static void compute_block(const stripe *s, int k, int b)
{
    const int width = s->n / b, first = k * width + 1;
    for (int i = 1; i <= s->rows; i++) {
        const double *below = at(s, i - 1, 0);
        double *row = at(s, i, 0);
        for (int j = first; j < first + width; j++)
            row[j] = task(below[j], row[j - 1], below[j - 1]);
    }
}

/* One run of the DAG: receive each block's edge, compute, send the top edge on. */
static void run_dag(const stripe *s, int b, bool communicate)
{
    const int width = s->n / b;
    for (int k = 0; k < b; k++) {
        const int first = k * width + 1;
        if (communicate && s->rank > 0)
            MPI_Recv(at(s, 0, first), width, MPI_DOUBLE, s->rank - 1, k, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        compute_block(s, k, b);
        if (communicate && s->rank < s->ranks - 1)
            MPI_Send(at(s, s->rows, first), width, MPI_DOUBLE, s->rank + 1, k, MPI_COMM_WORLD);
    }
}

/* The whole grid on one rank, two rows at a time: the last rank's top row must equal it. */
static bool top_row_is_right(const stripe *s)
{
    const int n = s->n, last = s->ranks - 1;
    double *top = malloc(sizeof(double) * (size_t)n);
    if (s->rank == last)
        MPI_Send(at(s, s->rows, 1), n, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    bool right = true;
    if (s->rank == 0) {
        MPI_Recv(top, n, MPI_DOUBLE, last, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double *below = malloc(sizeof(double) * (size_t)(n + 1));
        double *row = malloc(sizeof(double) * (size_t)(n + 1));
        for (int j = 0; j <= n; j++)
            below[j] = below_boundary(j);
        for (int i = 0; i < n; i++) {
            row[0] = left_boundary(i + 1);
            for (int j = 1; j <= n; j++)
                row[j] = task(below[j], row[j - 1], below[j - 1]);
            double *swap = below;
            below = row;
            row = swap;
        }
        right = memcmp(top, below + 1, sizeof(double) * (size_t)n) == 0;
        if (!right)
            fprintf(stderr, "bench_diamond: n = %d: the DAG's top row differs from a "
                            "sequential computation\n", n);
        free(below);
        free(row);
    }
    free(top);
    MPI_Bcast(&right, 1, MPI_C_BOOL, 0, MPI_COMM_WORLD);
    return right;
}

static double timed(const stripe *s, int b, bool communicate)
{
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    run_dag(s, b, communicate);
    double mine = MPI_Wtime() - start, longest;
    MPI_Allreduce(&mine, &longest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return longest;
}

static void print_result(int n, int ranks, int b, const char *method, const double *t, int reps)
{
    printf("{\"kind\": \"result\", \"experiment\": \"diamond\", \"stopped\": \"fixed\", "
           "\"pattern\": \"diamond %dx%d on %d ranks\", \"n\": %d, \"ranks\": %d, "
           "\"blocks\": %d, \"tasks\": %lld, \"method\": \"%s\", \"bytes\": %lld, ",
           n, n, ranks, n, ranks, b, (long long)n * n, method,
           (long long)(n / b) * (long long)sizeof(double));
    bench_print_seconds(t, reps);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const int reps = atoi(bench_option(argc, argv, "--reps", "7"));
    const char *sizes = bench_option(argc, argv, "--sizes", "4096");
    if (ranks < 2 || reps < 3) {
        if (rank == 0)
            fprintf(stderr, "bench_diamond: run on 2 or more ranks with --reps >= 3\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *t = malloc(sizeof(double) * (size_t)reps);
    int failures = 0;
    char *list = strdup(sizes);
    for (char *item = strtok(list, ","); item; item = strtok(NULL, ",")) {
        const int n = atoi(item);
        if (n < ranks || n % ranks || (n & (n - 1))) {
            if (rank == 0)
                fprintf(stderr, "bench_diamond: n = %s must be a power of two and a multiple "
                                "of the %d ranks\n", item, ranks);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        stripe s = stripe_new(n, ranks, rank);
        run_dag(&s, 1, true);
        failures += !top_row_is_right(&s);
        for (int b = 1; b <= n; b *= 4) {
            run_dag(&s, b, true); /* warm: pages touched, connections made */
            for (int r = 0; r < reps; r++)
                t[r] = timed(&s, b, false);
            if (rank == 0)
                print_result(n, ranks, b, "compute", t, reps);
            for (int r = 0; r < reps; r++)
                t[r] = timed(&s, b, true);
            if (rank == 0)
                print_result(n, ranks, b, "makespan", t, reps);
            if (rank == 0)
                fprintf(stderr, "progress: n = %d, b = %d\n", n, b);
        }
        free(s.c);
    }
    free(list);
    free(t);
    MPI_Finalize();
    return failures ? 1 : 0;
}
