/* MPI-IO with non-contiguous memory types, the way parallel HDF5 and PnetCDF call it, every
 * method in one run:
 *
 *   contiguous  the same bytes written from (read into) a contiguous buffer: the ceiling
 *   mpi         the MPI's own call on the memory type (PMPI_File_*: memcomm does not see it)
 *   manual      a hand-written pack loop and a contiguous write; a contiguous read and a
 *               hand-written unpack loop (cache-blocked where it transposes)
 *   memcomm     the same call as `mpi` through MPI_File_*, which memcomm carries
 *
 * Layouts, each rank moving about the --sizes value of data (bytes per rank):
 *   interior 2d   the n x n interior of an (n+2)^2 block of doubles, ghost cells left out
 *                 (a subarray type: runs of n doubles)
 *   interior 3d   the n^3 interior of an (n+2)^3 block (runs of n doubles)
 *   columns       an n x n matrix of doubles written column after column, so the file holds
 *                 its transpose (a one-double column vector resized to a double, count n):
 *                 runs of 8 bytes
 *   subarray      z planes 0-7 of an n x n x 32 array of doubles (a subarray type: runs of 64
 *                 bytes every 256)
 * Calls: collective (MPI_File_write_at_all, MPI_File_read_at_all) and independent
 * (MPI_File_write_at, MPI_File_read_at), each rank's data at rank * bytes of one file in the
 * default ("native", byte) view, or with --files per-rank at the start of a file of its own
 * (opened on MPI_COMM_SELF): the file side is the same for every method, so what differs is
 * the memory side. Put the file in memory (tmpfs, --dir, /dev/shm by default) to measure the
 * memory side and not a disk; each record says which file system held it. A shared file
 * couples the ranks: a Linux file takes one write at a time (its inode lock), so one rank's
 * write waits for the other's.
 *
 * Prints one JSON object per (layout, call, method) with the time of every timed repetition
 * (the slowest rank's), memcomm's also with each rank's path decisions. Before timing, what
 * each method writes (the file, read back) and reads (the memory, ghost cells and gaps
 * included) is compared with what the MPI's own call writes and reads.
 *
 *   bench_io [--reps R] [--seconds S] [--sizes 1M,16M,128M] [--only SUBSTRING] [--dir DIR]
 *            [--files shared|per-rank]
 *
 * --reps: timed repetitions of every method (5), more for calls that are short (as many as all
 * methods' calls fill --seconds in: 1; at most 101), fewer for calls that take long (as many
 * as fill a minute, at least 3). */
#include <mpi.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "harness.h"
#include "options.h"
#include "paths.h"

/* memcomm's path trials for a file call take 13 or 16 calls (lib/core/sendpath.c: a call
 * warming up, 3 more where the MPI's own path comes first, then 6 of each path); the other
 * methods warm up with 2 (the file's pages allocated, the buffers faulted in). */
enum { MEMCOMM_WARMUP = 16, WARMUP = 2, PACE = 2, MAX_REPS = 101, MIN_REPS = 3 };
/* Seconds of timed turns a pattern gets at most (with MIN_REPS turns at least), so that a
 * method whose calls take seconds does not hold the run for many minutes: Open MPI's own
 * write of 128 MB of 8-byte columns took about 5 s a call (2026-12-02). */
#define BUDGET_SECONDS 60.0
enum { TILE = 32 };                  /* the hand-written transpose's tile */
#define TMPFS_MAGIC_NUMBER 0x01021994 /* statfs's f_type of tmpfs (linux/magic.h) */

typedef enum { INTERIOR_2D, INTERIOR_3D, COLUMNS, SUBARRAY, LAYOUTS } layout_kind;
static const char *const layout_names[LAYOUTS] = {"interior 2d", "interior 3d", "columns",
                                                  "subarray"};

typedef struct layout layout;
struct layout {
    char name[96];
    layout_kind kind;
    int64_t n;
    MPI_Datatype type; /* the memory type, `count` of it */
    int count;
    int64_t array_doubles, bytes; /* the array the type lies in; the data it selects */
    /* the manual method: the data to or from contiguous bytes */
    void (*pack)(const layout *l, const double *array, double *to);
    void (*unpack)(const layout *l, const double *from, double *array);
};

/* interior 2d: rows 1..n, columns 1..n of an (n+2)^2 array. */
static void interior_2d_copy(const layout *l, double *array, double *bytes, bool pack)
{
    const int64_t n = l->n;
    for (int64_t i = 0; i < n; i++) {
        double *row = array + (i + 1) * (n + 2) + 1;
        memcpy(pack ? bytes + i * n : row, pack ? row : bytes + i * n, (size_t)(8 * n));
    }
}

/* interior 3d: the n^3 interior of an (n+2)^3 array. */
static void interior_3d_copy(const layout *l, double *array, double *bytes, bool pack)
{
    const int64_t n = l->n, side = n + 2;
    for (int64_t x = 0; x < n; x++)
        for (int64_t y = 0; y < n; y++) {
            double *row = array + ((x + 1) * side + y + 1) * side + 1;
            double *run = bytes + (x * n + y) * n;
            memcpy(pack ? run : row, pack ? row : run, (size_t)(8 * n));
        }
}

/* columns: element (i, j) of the n x n array is element j * n + i of the data. */
static void columns_copy(const layout *l, double *array, double *bytes, bool pack)
{
    const int64_t n = l->n;
    for (int64_t ii = 0; ii < n; ii += TILE)
        for (int64_t jj = 0; jj < n; jj += TILE)
            for (int64_t j = jj; j < jj + TILE && j < n; j++)
                for (int64_t i = ii; i < ii + TILE && i < n; i++) {
                    if (pack)
                        bytes[j * n + i] = array[i * n + j];
                    else
                        array[i * n + j] = bytes[j * n + i];
                }
}

/* subarray: z planes 0-7 of an n x n x 32 array. */
static void subarray_copy(const layout *l, double *array, double *bytes, bool pack)
{
    const int64_t rows = l->n * l->n;
    for (int64_t r = 0; r < rows; r++)
        memcpy(pack ? bytes + 8 * r : array + 32 * r, pack ? array + 32 * r : bytes + 8 * r,
               64);
}

static void (*const copies[LAYOUTS])(const layout *, double *, double *, bool) = {
    interior_2d_copy, interior_3d_copy, columns_copy, subarray_copy};

static void layout_pack(const layout *l, const double *array, double *to)
{
    copies[l->kind](l, (double *)array, to, true);
}

static void layout_unpack(const layout *l, const double *from, double *array)
{
    copies[l->kind](l, array, (double *)from, false);
}

/* The layout of `kind` whose data is at most `bytes` (and at least one element). */
static layout make_layout(layout_kind kind, int64_t bytes)
{
    layout l = {.kind = kind, .count = 1, .pack = layout_pack, .unpack = layout_unpack};
    const double doubles = (double)bytes / 8;
    switch (kind) {
    case INTERIOR_2D:
    case COLUMNS:
        l.n = (int64_t)sqrt(doubles);
        break;
    case INTERIOR_3D:
        l.n = (int64_t)cbrt(doubles);
        break;
    default:
        l.n = (int64_t)sqrt(doubles / 8);
        break;
    }
    l.n = l.n < 1 ? 1 : l.n;
    const int n = (int)l.n;
    if (kind == INTERIOR_2D || kind == INTERIOR_3D) {
        const int dims = kind == INTERIOR_2D ? 2 : 3;
        int sizes[3] = {n + 2, n + 2, n + 2}, sub[3] = {n, n, n}, start[3] = {1, 1, 1};
        MPI_Type_create_subarray(dims, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &l.type);
        l.array_doubles = dims == 2 ? (l.n + 2) * (l.n + 2) : (l.n + 2) * (l.n + 2) * (l.n + 2);
        l.bytes = 8 * (dims == 2 ? l.n * l.n : l.n * l.n * l.n);
        snprintf(l.name, sizeof l.name, "%s %lld^%d of %lld^%d doubles", layout_names[kind],
                 (long long)l.n, dims, (long long)l.n + 2, dims);
    } else if (kind == COLUMNS) {
        MPI_Datatype column;
        MPI_Type_vector(n, 1, n, MPI_DOUBLE, &column);
        MPI_Type_create_resized(column, 0, 8, &l.type);
        MPI_Type_free(&column);
        l.count = n;
        l.array_doubles = l.n * l.n;
        l.bytes = 8 * l.n * l.n;
        snprintf(l.name, sizeof l.name, "columns of %lld^2 doubles", (long long)l.n);
    } else {
        int sizes[3] = {n, n, 32}, sub[3] = {n, n, 8}, start[3] = {0, 0, 0};
        MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &l.type);
        l.array_doubles = 32 * l.n * l.n;
        l.bytes = 64 * l.n * l.n;
        snprintf(l.name, sizeof l.name, "subarray %lldx%lldx8 of %lldx%lldx32 doubles",
                 (long long)l.n, (long long)l.n, (long long)l.n, (long long)l.n);
    }
    MPI_Type_commit(&l.type);
    return l;
}

typedef enum { WRITE_AT_ALL, READ_AT_ALL, WRITE_AT, READ_AT, CALLS } call_kind;
static const char *const call_names[CALLS] = {"MPI_File_write_at_all", "MPI_File_read_at_all",
                                              "MPI_File_write_at", "MPI_File_read_at"};
static bool is_read(call_kind c) { return c == READ_AT_ALL || c == READ_AT; }
static bool is_collective(call_kind c) { return c == WRITE_AT_ALL || c == READ_AT_ALL; }

enum { M_CONTIGUOUS, M_MPI, M_MANUAL, M_MEMCOMM, METHODS };
static const char *const method_names[METHODS] = {"contiguous", "mpi", "manual", "memcomm"};

typedef struct {
    MPI_File fh;
    MPI_Offset at; /* this rank's data */
    double *array; /* a write's data, laid out by the layout; a read's destination */
    double *bytes; /* the same data, contiguous */
    const char *file_system, *files; /* for the records: "tmpfs" or "other"; --files */
} target;

typedef int (*file_call)(MPI_File, MPI_Offset, void *, int, MPI_Datatype, MPI_Status *);

static file_call the_call(call_kind c, bool through_memcomm)
{
    switch (c) {
    case WRITE_AT_ALL:
        return through_memcomm ? (file_call)MPI_File_write_at_all
                               : (file_call)PMPI_File_write_at_all;
    case READ_AT_ALL:
        return through_memcomm ? MPI_File_read_at_all : PMPI_File_read_at_all;
    case WRITE_AT:
        return through_memcomm ? (file_call)MPI_File_write_at : (file_call)PMPI_File_write_at;
    default:
        return through_memcomm ? MPI_File_read_at : PMPI_File_read_at;
    }
}

static void check_rc(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, text, &len);
        fprintf(stderr, "bench_io: %s failed: %s\n", what, text);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void run_once(const layout *l, call_kind c, int method, const target *t)
{
    MPI_Status status;
    const int64_t bytes = l->bytes;
    const file_call contiguous = the_call(c, false);
    switch (method) {
    case M_CONTIGUOUS:
        check_rc(contiguous(t->fh, t->at, t->bytes, (int)bytes, MPI_BYTE, &status), "a call");
        break;
    case M_MANUAL:
        if (!is_read(c))
            l->pack(l, t->array, t->bytes);
        check_rc(contiguous(t->fh, t->at, t->bytes, (int)bytes, MPI_BYTE, &status), "a call");
        if (is_read(c))
            l->unpack(l, t->bytes, t->array);
        break;
    default:
        check_rc(the_call(c, method == M_MEMCOMM)(t->fh, t->at, t->array, l->count, l->type,
                                                  &status),
                 call_names[c]);
        break;
    }
}

/* One call of `method`, the slowest rank's seconds (the same on every rank). */
static double timed_call(const layout *l, call_kind c, int method, const target *t)
{
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    run_once(l, c, method, t);
    double took = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &took, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return took;
}

/* Each timed call after an untimed one of the same method, so that it finds the caches as a
 * loop of its own calls leaves them (bench_collectives.c says by how much that matters). */
static double timed_turn(const layout *l, call_kind c, int method, const target *t)
{
    run_once(l, c, method, t);
    return timed_call(l, c, method, t);
}

/* What `method` leaves: for a write, the file's bytes (read back); for a read, the whole
 * array, ghost cells and gaps included (cleared before). `into` holds outcome_size bytes. */
static size_t outcome_size(const layout *l, call_kind c)
{
    return (size_t)(is_read(c) ? l->array_doubles * 8 : l->bytes);
}

static void outcome(const layout *l, call_kind c, int method, const target *t, double *into)
{
    if (is_read(c)) {
        memset(t->array, 0, outcome_size(l, c));
        run_once(l, c, method, t);
        memcpy(into, t->array, outcome_size(l, c));
        return;
    }
    run_once(l, c, method, t);
    MPI_Status status;
    check_rc(PMPI_File_read_at(t->fh, t->at, into, (int)l->bytes, MPI_BYTE, &status),
             "reading the file back");
}

/* The comparison of every method with the MPI's own call, then the timed turns. */
static int measure(const layout *l, call_kind c, const target *t, int reps, double seconds)
{
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    memcomm_stats before;
    memcomm_stats_get(&before);
    const size_t size = outcome_size(l, c);
    double *reference = bench_array(size), *found = bench_array(size);
    if (!reference || !found) {
        fprintf(stderr, "bench_io: no memory for %s\n", l->name);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    outcome(l, c, M_MPI, t, reference);
    int failures = 0;
    for (int method = M_MANUAL; method < METHODS; method++) {
        outcome(l, c, method, t, found);
        if (memcmp(reference, found, size) != 0) {
            fprintf(stderr, "bench_io: %s by %s differs from the MPI's own call (%s)\n",
                    call_names[c], method_names[method], l->name);
            failures++;
        }
    }
    free(reference);
    free(found);
    double pace = 0; /* the last turns of the warm-up, every method */
    for (int r = -MEMCOMM_WARMUP; r < 0; r++)
        for (int method = 0; method < METHODS; method++)
            if (method == M_MEMCOMM || r >= -WARMUP) {
                const double took = timed_call(l, c, method, t);
                pace += r >= -PACE ? took : 0;
            }
    const double turn = 2 * pace / PACE; /* a timed turn of every method: two calls each */
    int timed = bench_timed_reps(reps, seconds, turn / 2, MAX_REPS);
    if (timed * turn > BUDGET_SECONDS)
        timed = BUDGET_SECONDS / turn > MIN_REPS ? (int)(BUDGET_SECONDS / turn) : MIN_REPS;
    double *times = malloc(sizeof(double) * (size_t)timed * METHODS);
    for (int r = 0; r < timed; r++) /* methods take turns, in reverse every other time */
        for (int turn = 0; turn < METHODS; turn++) {
            const int method = bench_turn(r, turn, METHODS);
            times[method * timed + r] = timed_turn(l, c, method, t);
        }
    for (int method = 0; method < METHODS; method++) {
        int *every = method == M_MEMCOMM ? bench_paths_gather(&before, MPI_COMM_WORLD) : NULL;
        if (rank == 0) {
            printf("{\"kind\": \"result\", \"experiment\": \"io\", \"stopped\": \"fixed\", "
                   "\"role\": \"slowest rank\", \"pattern\": \"%s, %s\", \"layout\": \"%s\", "
                   "\"call\": \"%s\", \"collective\": %s, \"direction\": \"%s\", "
                   "\"file_system\": \"%s\", \"files\": \"%s\", \"method\": \"%s\", "
                   "\"ranks\": %d, \"bytes\": %lld, ",
                   l->name, call_names[c] + strlen("MPI_File_"), layout_names[l->kind],
                   call_names[c], is_collective(c) ? "true" : "false",
                   is_read(c) ? "read" : "write", t->file_system, t->files,
                   method_names[method], ranks, (long long)l->bytes);
            if (every)
                bench_print_paths(every, ranks);
            bench_print_seconds(times + method * timed, timed);
        }
        free(every);
    }
    free(times);
    return failures;
}

/* The file every rank writes its part of, in `dir` (named by rank 0), or with `per_rank` a file
 * of each rank's own (opened on MPI_COMM_SELF); removed when closed. */
static MPI_File open_file(const char *dir, bool per_rank, const char **file_system)
{
    char path[4096];
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        snprintf(path, sizeof path, "%s/memcomm-bench-io-%ld", dir, (long)getpid());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (per_rank)
        snprintf(path + strlen(path), sizeof path - strlen(path), "-%d", rank);
    MPI_File fh;
    const int rc = MPI_File_open(per_rank ? MPI_COMM_SELF : MPI_COMM_WORLD, path,
                                 MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                                 MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "bench_io: cannot open %s (--dir: a directory every rank can write)\n",
                path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    struct statfs fs;
    *file_system = statfs(dir, &fs) == 0 && fs.f_type == TMPFS_MAGIC_NUMBER ? "tmpfs" : "other";
    return fh;
}

/* Whether --only chose call `c` of layout `l`: its name holds the substring. */
static bool chosen(const layout *l, call_kind c, const char *only)
{
    char name[160];
    snprintf(name, sizeof name, "%s, %s", l->name, call_names[c]);
    return strstr(name, only) != NULL;
}

static bool any_call_chosen(const layout *l, const char *only)
{
    for (int c = 0; c < CALLS; c++)
        if (chosen(l, (call_kind)c, only))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static const char *const known[] = {"--reps", "--seconds", "--sizes", "--only", "--dir",
                                        "--files", NULL};
    const int reps = atoi(bench_option(argc, argv, "--reps", "5"));
    const double seconds = atof(bench_option(argc, argv, "--seconds", "1"));
    const char *only = bench_option(argc, argv, "--only", "");
    const char *in_memory = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : ".";
    const char *dir = bench_option(argc, argv, "--dir", in_memory);
    int64_t sizes[16];
    const int nsizes = harness_sizes(bench_option(argc, argv, "--sizes", NULL), "1M,16M,128M",
                                     sizes, 16, 64, (int64_t)1 << 30);
    const char *files = bench_option(argc, argv, "--files", "shared");
    const bool per_rank = !strcmp(files, "per-rank");
    if (!bench_options_known(argc, argv, known) || reps < MIN_REPS || nsizes < 1 ||
        (!per_rank && strcmp(files, "shared"))) {
        if (rank == 0)
            fprintf(stderr, "usage: bench_io [--reps R >= 3] [--seconds S] [--sizes "
                            "64..1G,...] [--only SUBSTRING] [--dir DIR] "
                            "[--files shared|per-rank]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *file_system = NULL;
    MPI_File fh = open_file(dir, per_rank, &file_system);
    int failures = 0;
    for (int s = 0; s < nsizes; s++)
        for (int kind = 0; kind < LAYOUTS; kind++) {
            layout l = make_layout((layout_kind)kind, sizes[s]);
            if (!any_call_chosen(&l, only)) {
                MPI_Type_free(&l.type);
                continue;
            }
            target t = {fh, per_rank ? 0 : (MPI_Offset)rank * l.bytes,
                        bench_array((size_t)l.array_doubles * 8), bench_array((size_t)l.bytes),
                        file_system, files};
            if (!t.array || !t.bytes) {
                fprintf(stderr, "bench_io: no memory for %s\n", l.name);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            for (int64_t i = 0; i < l.array_doubles; i++)
                t.array[i] = (double)i + 0.25 * rank;
            memset(t.bytes, 0, (size_t)l.bytes);
            for (int c = 0; c < CALLS; c++) {
                if (!chosen(&l, (call_kind)c, only))
                    continue;
                fprintf(stderr, "progress: %s, %s\n", l.name, call_names[c]);
                if (is_read(c)) /* the file holds the data a write of it leaves */
                    run_once(&l, c == READ_AT ? WRITE_AT : WRITE_AT_ALL, M_MPI, &t);
                failures += measure(&l, (call_kind)c, &t, reps, seconds);
                if (is_read(c)) /* the array as the next write expects it */
                    for (int64_t i = 0; i < l.array_doubles; i++)
                        t.array[i] = (double)i + 0.25 * rank;
            }
            free(t.array);
            free(t.bytes);
            MPI_Type_free(&l.type);
        }
    MPI_File_close(&fh);
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return total ? 1 : 0;
}
