/* The 3-point stencil of Pellegrini, Hoefler and Fahringer (sec. V, Listings 1-3), two ranks on a ring, and what the
 * placement of its halo exchange costs by message size.
 *
 * Each rank holds R rows (64; 8-32 for rows of 16 MiB and more) of a matrix whose rows are
 * the message (COLS = bytes / 8 doubles)
 * and updates tmp[i][j] = (A[i][j] + A[i+1][j] + A[i][j+1]) / 4 for i < R-1, j < COLS-1;
 * before that row R-1 is received from one neighbour while row 0 goes to the other.
 *   baseline     Listing 1: the exchange, then the sweep
 *   OPT1         Listing 2: row 0 first (the row sent is fresh in cache), the exchange, the
 *                rest (the received row is used last)
 *   OPT2         Listing 3: rows R-3 .. 0 backwards (ending at the row sent), the exchange,
 *                then row R-2, which uses the received row at once
 *   strip K      the paper's future work beyond the last-level cache: the exchange in chunks
 *                of K bytes, each followed by the sweep of its columns (K = 64 KiB, 1 MiB;
 *                only where the message is larger)
 *   column mpi   the same stencil transposed: the halo is a column, sent as a vector
 *   column memcomm  datatype; through PMPI_ (the MPI alone) and through MPI_ (memcomm, when
 *                preloaded or linked), in the same run
 * All row variants compute the same matrix bit for bit, and the column variants its
 * transpose: checked before timing. One JSON object per (size, method) with the time per
 * iteration of every repetition; `memcomm bench stencil` turns them into a table.
 *
 *   bench_stencil [--reps R] [--sizes BYTES,...] [--only SUBSTRING] */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

enum { CHECK_ITERATIONS = 3 };

typedef struct {
    long rows, cols; /* R x COLS, row-major; the transposed variants use COLS x R */
    double *a, *tmp;
    int up, down; /* ring neighbours: receive from up, send to down */
} grid;

typedef void (*variant)(grid *, long chunk);

static double initial(long i, long j) { return (double)((i * 31 + j * 17) % 1000) / 1000.0; }

static void fill(grid *g, bool transposed)
{
    for (long i = 0; i < g->rows; i++)
        for (long j = 0; j < g->cols; j++) {
            const long at = transposed ? j * g->rows + i : i * g->cols + j;
            g->a[at] = g->tmp[at] = initial(i, j);
        }
}

static void swap(grid *g)
{
    double *t = g->a;
    g->a = g->tmp;
    g->tmp = t;
}

static inline void row_update(grid *g, long i, long j0, long j1)
{
    const double *a = g->a + i * g->cols, *below = a + g->cols;
    double *out = g->tmp + i * g->cols;
    for (long j = j0; j < j1; j++)
        out[j] = (a[j] + below[j] + a[j + 1]) * 0.25;
}

static void exchange_rows(grid *g, long j0, long j1)
{
    MPI_Sendrecv(g->a + j0, (int)(j1 - j0), MPI_DOUBLE, g->down, 0,
                 g->a + (g->rows - 1) * g->cols + j0, (int)(j1 - j0), MPI_DOUBLE, g->up, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void baseline(grid *g, long chunk)
{
    (void)chunk;
    exchange_rows(g, 0, g->cols);
    for (long i = 0; i < g->rows - 1; i++)
        row_update(g, i, 0, g->cols - 1);
    swap(g);
}

static void opt1(grid *g, long chunk)
{
    (void)chunk;
    row_update(g, 0, 0, g->cols - 1);
    exchange_rows(g, 0, g->cols);
    for (long i = 1; i < g->rows - 1; i++)
        row_update(g, i, 0, g->cols - 1);
    swap(g);
}

static void opt2(grid *g, long chunk)
{
    (void)chunk;
    for (long i = g->rows - 3; i >= 0; i--) { /* backwards, as Listing 3 */
        const double *a = g->a + i * g->cols, *below = a + g->cols;
        double *out = g->tmp + i * g->cols;
        for (long j = g->cols - 2; j >= 0; j--)
            out[j] = (a[j] + below[j] + a[j + 1]) * 0.25;
    }
    exchange_rows(g, 0, g->cols);
    row_update(g, g->rows - 2, 0, g->cols - 1);
    swap(g);
}

/* Strip mining: chunk c of the exchange, then the columns it covers for every row. Column
 * j needs a[i][j+1], which the next chunk's exchange may still change only in row R-1, and
 * row R-1 is never updated, so each strip can run as soon as its chunk arrived. */
static void strips(grid *g, long chunk)
{
    for (long j0 = 0; j0 < g->cols; j0 += chunk) {
        const long j1 = j0 + chunk < g->cols ? j0 + chunk : g->cols;
        exchange_rows(g, j0, j1);
        const long last = j1 < g->cols ? j1 : g->cols - 1;
        for (long i = 0; i < g->rows - 1; i++)
            row_update(g, i, j0, last);
    }
    swap(g);
}

/* ---- the transposed stencil: the halo is a column ---- */

typedef int (*sendrecv_call)(const void *, int, MPI_Datatype, int, int, void *, int,
                             MPI_Datatype, int, int, MPI_Comm, MPI_Status *);

static MPI_Datatype column_type;

static void transposed_sweep(grid *g, sendrecv_call call)
{
    /* column 0 of the COLS x R array goes down, column R-1 comes from up */
    call(g->a, 1, column_type, g->down, 1, g->a + (g->rows - 1), 1, column_type, g->up, 1,
         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (long j = 0; j < g->cols - 1; j++) {
        const double *a = g->a + j * g->rows, *next = a + g->rows;
        double *out = g->tmp + j * g->rows;
        for (long i = 0; i < g->rows - 1; i++)
            out[i] = (a[i] + a[i + 1] + next[i]) * 0.25;
    }
    swap(g);
}

static void column_mpi(grid *g, long chunk)
{
    (void)chunk;
    transposed_sweep(g, PMPI_Sendrecv);
}

static void column_memcomm(grid *g, long chunk)
{
    (void)chunk;
    transposed_sweep(g, MPI_Sendrecv);
}

typedef struct {
    const char *name;
    variant run;
    long chunk_bytes; /* strips */
    bool transposed;
} method;

static const method methods[] = {
    {"baseline", baseline, 0, false},
    {"OPT1", opt1, 0, false},
    {"OPT2", opt2, 0, false},
    {"strip 64 KiB", strips, 64 << 10, false},
    {"strip 1 MiB", strips, 1 << 20, false},
    {"column mpi", column_mpi, 0, true},
    {"column memcomm", column_memcomm, 0, true},
};
enum { METHODS = sizeof methods / sizeof methods[0] };

static bool applies(const method *m, long bytes) { return m->chunk_bytes < bytes; }

/* The matrix after CHECK_ITERATIONS of `m` (transposed back for the column variants). */
static double *result_of(grid *g, const method *m)
{
    fill(g, m->transposed);
    for (int k = 0; k < CHECK_ITERATIONS; k++)
        m->run(g, m->chunk_bytes / 8);
    double *out = malloc(sizeof(double) * (size_t)(g->rows * g->cols));
    for (long i = 0; i < g->rows; i++)
        for (long j = 0; j < g->cols; j++)
            out[i * g->cols + j] = g->a[m->transposed ? j * g->rows + i : i * g->cols + j];
    return out;
}

static void print_result(long bytes, long rows, const char *name, long iterations,
                         const double *t, int reps)
{
    printf("{\"kind\": \"result\", \"experiment\": \"stencil\", \"stopped\": \"fixed\", "
           "\"role\": \"iteration\", \"pattern\": \"rows of %ld B\", \"rows\": %ld, "
           "\"iterations\": %ld, \"method\": \"%s\", \"bytes\": %ld, ",
           bytes, rows, iterations, name, bytes);
    bench_print_seconds(t, reps);
}

static long parse_bytes(const char *text)
{
    char *end;
    long value = strtol(text, &end, 10);
    if (*end == 'K')
        value <<= 10;
    else if (*end == 'M')
        value <<= 20;
    return value;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const int reps = atoi(bench_option(argc, argv, "--reps", "7"));
    const char *sizes =
        bench_option(argc, argv, "--sizes", "64,256,1K,4K,16K,64K,256K,1M,4M,16M,64M");
    const char *only = bench_option(argc, argv, "--only", "");
    if (ranks != 2 || reps < 3) {
        if (rank == 0)
            fprintf(stderr, "bench_stencil: run on 2 ranks with --reps >= 3\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *t = malloc(sizeof(double) * (size_t)reps);
    int failures = 0;
    char *list = strdup(sizes);
    for (char *item = strtok(list, ","); item; item = strtok(NULL, ",")) {
        const long bytes = parse_bytes(item);
        if (bytes < 16 || bytes % 8) {
            if (rank == 0)
                fprintf(stderr, "bench_stencil: size %s: rows need at least 2 doubles\n", item);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        /* rows: 64 (the matrix is 64 messages: it leaves the last-level cache from a few
         * hundred KiB on), fewer for large rows to stay within 512 MiB per matrix */
        long rows = (512L << 20) / bytes;
        rows = rows < 8 ? 8 : rows > 64 ? 64 : rows;
        grid g = {rows, bytes / 8, NULL, NULL, 1 - rank, 1 - rank};
        g.a = malloc(sizeof(double) * (size_t)(rows * g.cols));
        g.tmp = malloc(sizeof(double) * (size_t)(rows * g.cols));
        if (!g.a || !g.tmp) {
            fprintf(stderr, "bench_stencil: out of memory for rows of %ld B\n", bytes);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        MPI_Type_vector((int)g.cols, 1, (int)rows, MPI_DOUBLE, &column_type);
        MPI_Type_commit(&column_type);
        double *expected = result_of(&g, &methods[0]);
        for (int m = 1; m < METHODS; m++) {
            if (!applies(&methods[m], bytes))
                continue;
            double *got = result_of(&g, &methods[m]);
            if (memcmp(got, expected, sizeof(double) * (size_t)(rows * g.cols))) {
                fprintf(stderr, "bench_stencil: rank %d, rows of %ld B: %s computes another "
                                "matrix than the baseline\n", rank, bytes, methods[m].name);
                failures++;
            }
            free(got);
        }
        free(expected);
        /* about 20 ms of sweeping per repetition, at 1 ns a point */
        long iterations = 20000000L / (rows * g.cols);
        iterations = iterations < 3 ? 3 : iterations > 2000 ? 2000 : iterations;
        char pattern[64];
        snprintf(pattern, sizeof pattern, "rows of %ld B", bytes);
        for (int m = 0; m < METHODS; m++) {
            const bool chosen = strstr(methods[m].name, only) || strstr(pattern, only);
            if (!applies(&methods[m], bytes) || !chosen)
                continue;
            fill(&g, methods[m].transposed);
            for (long k = 0; k < 2; k++) /* warm: pages, connections, memcomm's trials */
                methods[m].run(&g, methods[m].chunk_bytes / 8);
            for (int r = 0; r < reps; r++) {
                MPI_Barrier(MPI_COMM_WORLD);
                const double start = MPI_Wtime();
                for (long k = 0; k < iterations; k++)
                    methods[m].run(&g, methods[m].chunk_bytes / 8);
                double mine = (MPI_Wtime() - start) / (double)iterations;
                MPI_Allreduce(&mine, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            }
            if (rank == 0)
                print_result(bytes, rows, methods[m].name, iterations, t, reps);
        }
        if (rank == 0)
            fprintf(stderr, "progress: rows of %ld B\n", bytes);
        MPI_Type_free(&column_type);
        free(g.a);
        free(g.tmp);
    }
    free(list);
    free(t);
    int any;
    MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? 1 : 0;
}
