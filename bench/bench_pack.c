/* Pack and unpack bandwidth of the layouts real codes send, every method in one run:
 *
 *   memcpy          the same number of bytes copied contiguously (the ceiling)
 *   lines           each cache line the layout touches, once, in address order: read (pack),
 *                   or read and written back (unpack: a word of it loaded and stored); the
 *                   memory traffic any pack or unpack must pay, for sparse layouts the real
 *                   ceiling
 *   mpi             the MPI's own PMPI_Pack / PMPI_Unpack
 *   manual          the loop a user would write
 *   manual-blocked  the same loop cache-blocked by hand (transposes only)
 *   memcomm         memcomm_pack / memcomm_unpack: memcomm's kernels
 *   interposed      MPI_Pack / MPI_Unpack as a program linked with memcomm calls them: memcomm's
 *                   kernel or the MPI's own call, whichever its trials found faster for the
 *                   layout (lib/core/engine.h); timed after the trials decided
 *
 * Prints one JSON object per (pattern, direction, method) with every timed repetition; the
 * Python runner (`memcomm bench pack`) turns them into tables of medians and ratios.
 *
 *   bench_pack [--reps R] [--sizes 512,1024,...] [--scale S] [--only SUBSTRING]
 *              [--methods memcpy,memcomm,...] [--cache as-left|flushed]
 *
 * --sizes are the transpose sides; --scale divides every other pattern's size (for quick
 * runs). Before timing, every method's bytes are compared with the MPI's: a benchmark of a
 * wrong answer is worthless. */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "memcomm.h"
#include "options.h"

typedef struct pattern pattern;
typedef void (*loop_fn)(const pattern *p, char *typed, char *packed, bool pack);

struct pattern {
    char name[96];
    MPI_Datatype type;
    int count;
    char *typed;        /* the user's array */
    size_t typed_bytes; /* its size */
    loop_fn manual, blocked;
    int64_t n, m, k;        /* the loops' shape parameters */
    const int64_t *index;   /* the indexed pattern's block starts (in doubles) */
};

/* ---- the loops a user would write; `pack` copies typed -> packed, else back ---- */

#define MOVE(typed_elem, packed_elem)                                                          \
    do {                                                                                       \
        if (pack)                                                                              \
            (packed_elem) = (typed_elem);                                                      \
        else                                                                                   \
            (typed_elem) = (packed_elem);                                                      \
    } while (0)

/* transpose of an n x n matrix: column by column */
#define TRANSPOSE_LOOPS(T)                                                                     \
    static void manual_transpose_##T(const pattern *p, char *typed, char *packed, bool pack)   \
    {                                                                                          \
        T *a = (T *)typed, *out = (T *)packed;                                                 \
        const int64_t n = p->n;                                                                \
        for (int64_t j = 0; j < n; j++)                                                        \
            for (int64_t i = 0; i < n; i++)                                                    \
                MOVE(a[i * n + j], out[j * n + i]);                                            \
    }                                                                                          \
    /* 32 x 32 tiles: each fetched line is used whole before it is evicted */                 \
    static void blocked_transpose_##T(const pattern *p, char *typed, char *packed, bool pack)  \
    {                                                                                          \
        T *a = (T *)typed, *out = (T *)packed;                                                 \
        const int64_t n = p->n, b = 32;                                                        \
        for (int64_t jj = 0; jj < n; jj += b)                                                  \
            for (int64_t ii = 0; ii < n; ii += b)                                              \
                for (int64_t j = jj; j < jj + b && j < n; j++)                                 \
                    for (int64_t i = ii; i < ii + b && i < n; i++)                             \
                        MOVE(a[i * n + j], out[j * n + i]);                                    \
    }
/* complex doubles (FFT2's elements), moved as one 16-byte value */
typedef struct {
    double re, im;
} complex_double;
TRANSPOSE_LOOPS(double)
TRANSPOSE_LOOPS(float)
TRANSPOSE_LOOPS(complex_double)

/* every m-th double, n of them */
static void manual_column(const pattern *p, char *typed, char *packed, bool pack)
{
    double *a = (double *)typed, *out = (double *)packed;
    for (int64_t i = 0; i < p->n; i++)
        MOVE(a[i * p->m], out[i]);
}

typedef struct {
    int i;
    double d;
} record;

static void manual_records(const pattern *p, char *typed, char *packed, bool pack)
{
    record *r = (record *)typed;
    char *out = packed;
    for (int64_t k = 0; k < p->n; k++, out += sizeof(int) + sizeof(double)) {
        if (pack) {
            memcpy(out, &r[k].i, sizeof(int));
            memcpy(out + sizeof(int), &r[k].d, sizeof(double));
        } else {
            memcpy(&r[k].i, out, sizeof(int));
            memcpy(&r[k].d, out + sizeof(int), sizeof(double));
        }
    }
}

/* faces of an n^3 array in C order: x = 0 (one run), y = 0 (n runs of n), z = 0 (n*n
 * single doubles) */
static void manual_face(const pattern *p, char *typed, char *packed, bool pack)
{
    double *a = (double *)typed, *out = (double *)packed;
    const int64_t n = p->n, axis = p->m;
    int64_t at = 0;
    for (int64_t u = 0; u < n; u++)
        for (int64_t v = 0; v < n; v++, at++) {
            int64_t i = axis == 0 ? 0 : u, j = axis == 1 ? 0 : axis == 0 ? u : v,
                    k = axis == 2 ? 0 : v;
            MOVE(a[(i * n + j) * n + k], out[at]);
        }
}

/* particles: blocks of 3 doubles (x, y, z) at the listed atom indices */
static void manual_particles(const pattern *p, char *typed, char *packed, bool pack)
{
    double *a = (double *)typed, *out = (double *)packed;
    for (int64_t i = 0; i < p->n; i++)
        for (int c = 0; c < 3; c++)
            MOVE(a[p->index[i] * 3 + c], out[i * 3 + c]);
}

/* FFT redistribution: an (n/P) x n slab cut into P blocks of n/P columns, block by block */
static void manual_fft(const pattern *p, char *typed, char *packed, bool pack)
{
    double *a = (double *)typed, *out = (double *)packed;
    const int64_t n = p->n, procs = p->m, rows = n / procs, cols = n / procs;
    for (int64_t b = 0; b < procs; b++)
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++)
                MOVE(a[i * n + b * cols + j], *out++);
}

/* NAS LU-like: u[k][j][i][5] (C order of Fortran u(5,i,j,k)); the i = 0 face, 5 doubles
 * per point */
static void manual_lu(const pattern *p, char *typed, char *packed, bool pack)
{
    double *a = (double *)typed, *out = (double *)packed;
    const int64_t n = p->n;
    for (int64_t k = 0; k < n; k++)
        for (int64_t j = 0; j < n; j++)
            for (int c = 0; c < 5; c++)
                MOVE(a[((k * n + j) * n + 0) * 5 + c], *out++);
}

/* ---- the cache lines a layout touches, from the MPI itself ---- */

/* Unpack a buffer of 0xFF into a zeroed copy of the array: the bytes that become 0xFF are the
 * layout's. Returns the sorted line offsets. */
static int64_t *touched_lines(const pattern *p, int64_t bytes, int64_t *nlines)
{
    unsigned char *mask = calloc(p->typed_bytes, 1), *ones = malloc((size_t)bytes);
    memset(ones, 0xFF, (size_t)bytes);
    int pos = 0;
    PMPI_Unpack(ones, (int)bytes, &pos, mask, p->count, p->type, MPI_COMM_SELF);
    int64_t lines = ((int64_t)p->typed_bytes + 63) / 64, n = 0;
    int64_t *at = malloc(sizeof *at * (size_t)lines);
    for (int64_t l = 0; l < lines; l++) {
        int64_t end = (l + 1) * 64 < (int64_t)p->typed_bytes ? (l + 1) * 64 : (int64_t)p->typed_bytes;
        for (int64_t b = l * 64; b < end; b++)
            if (mask[b]) {
                at[n++] = l * 64;
                break;
            }
    }
    free(mask);
    free(ones);
    *nlines = n;
    return at;
}

static volatile uint64_t sink;

/* One load per line: the memory system moves the whole line for it. */
static void read_lines(const char *base, const int64_t *lines, int64_t n)
{
    uint64_t sum = 0;
    for (int64_t i = 0; i < n; i++)
        sum += *(const uint64_t *)(base + lines[i]);
    sink = sum;
}

/* One load and one store of the same word per line: the line is read for ownership and
 * written back dirty, as any unpack into it must. */
static void write_lines(char *base, const int64_t *lines, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        volatile uint64_t *word = (volatile uint64_t *)(base + lines[i]);
        *word = *word;
    }
}

/* ---- timing ---- */

static void emit(const char *pattern_name, const char *direction, const char *method,
                 long long bytes, const double *t, int reps)
{
    printf("{\"kind\": \"result\", \"experiment\": \"pack\", \"stopped\": \"fixed\", \"pattern\": \"%s\", \"direction\": \"%s\", "
           "\"method\": \"%s\", \"bytes\": %lld, ",
           pattern_name, direction, method, bytes);
    bench_print_seconds(t, reps);
}

enum { M_MEMCPY, M_LINES, M_MPI, M_MANUAL, M_BLOCKED, M_MEMCOMM, M_INTERPOSED, METHODS };
static const char *method_names[METHODS] = {"memcpy",         "lines",   "mpi",       "manual",
                                            "manual-blocked", "memcomm", "interposed"};

/* One call of `method` in direction `pack`. */
static void run(const pattern *p, int method, bool pack, char *packed, int64_t bytes,
                const char *copy_src, const int64_t *lines, int64_t nlines)
{
    int pos = 0;
    MPI_Count mpos = 0;
    switch (method) {
    case M_MEMCPY: memcpy(packed, copy_src, (size_t)bytes); break;
    case M_LINES:
        if (pack)
            read_lines(p->typed, lines, nlines);
        else
            write_lines(p->typed, lines, nlines);
        break;
    case M_MPI:
        if (pack)
            PMPI_Pack(p->typed, p->count, p->type, packed, (int)bytes, &pos, MPI_COMM_SELF);
        else
            PMPI_Unpack(packed, (int)bytes, &pos, p->typed, p->count, p->type, MPI_COMM_SELF);
        break;
    case M_MANUAL: p->manual(p, p->typed, packed, pack); break;
    case M_BLOCKED: p->blocked(p, p->typed, packed, pack); break;
    case M_MEMCOMM:
        if (pack)
            memcomm_pack(p->typed, p->count, p->type, packed, bytes, &mpos);
        else
            memcomm_unpack(packed, bytes, &mpos, p->typed, p->count, p->type);
        break;
    case M_INTERPOSED:
        if (pack)
            MPI_Pack(p->typed, p->count, p->type, packed, (int)bytes, &pos, MPI_COMM_SELF);
        else
            MPI_Unpack(packed, (int)bytes, &pos, p->typed, p->count, p->type, MPI_COMM_SELF);
        break;
    }
}

/* Each method's pack must equal the MPI's bytes, and its unpack must rebuild the array the
 * MPI's unpack builds. */
static int verify(const pattern *p, int64_t bytes, char *ref, char *out)
{
    int failures = 0, pos = 0;
    PMPI_Pack(p->typed, p->count, p->type, ref, (int)bytes, &pos, MPI_COMM_SELF);
    char *want = malloc(p->typed_bytes), *saved = malloc(p->typed_bytes);
    memcpy(saved, p->typed, p->typed_bytes);
    /* the MPI's unpack of shifted bytes is the reference array */
    for (int64_t i = 0; i < bytes; i++)
        out[i] = (char)(ref[i] + 1);
    pos = 0;
    PMPI_Unpack(out, (int)bytes, &pos, p->typed, p->count, p->type, MPI_COMM_SELF);
    memcpy(want, p->typed, p->typed_bytes);
    for (int method = M_MANUAL; method < METHODS; method++) {
        if (method == M_BLOCKED && !p->blocked)
            continue;
        memcpy(p->typed, saved, p->typed_bytes);
        memset(out, 0, (size_t)bytes);
        run(p, method, true, out, bytes, NULL, NULL, 0);
        bool packed_ok = memcmp(ref, out, (size_t)bytes) == 0;
        for (int64_t i = 0; i < bytes; i++)
            out[i] = (char)(ref[i] + 1);
        run(p, method, false, out, bytes, NULL, NULL, 0);
        bool unpacked_ok = memcmp(want, p->typed, p->typed_bytes) == 0;
        if (!packed_ok || !unpacked_ok) {
            fprintf(stderr, "bench_pack: %s %s differs from the MPI's for %s\n",
                    method_names[method], packed_ok ? "unpack" : "pack", p->name);
            failures++;
        }
    }
    memcpy(p->typed, saved, p->typed_bytes);
    free(want);
    free(saved);
    return failures;
}

/* The methods --methods names (all by default). Each method's footprint is in the caches
 * when the next one starts; with only some of them the others' do not shape the figures. */
static bool method_selected[METHODS];

/* --cache flushed: every timed call starts with all of the pattern's arrays out of the
 * caches (the paper's INV state), so that no method's figure depends on which method ran
 * before it; the default (as-left) times each method in the caches the one before left. */
static bool flush_before_each;

/* Every method in turn within each repetition, so that a slow spell of this (shared, noisy)
 * machine hits all methods alike and the ratios of medians stay fair, in reverse order every
 * other repetition, so that each method follows others alike: flushing the arrays leaves
 * the TLB and the page-table lines as the method before left them, and in one fixed order
 * memcomm's pack of the z face of 256^3 ran at 0.81-0.85x the MPI's in the full run and at
 * 0.99-1.00x after other methods (`--methods lines,mpi,memcomm`; Intel Xeon VM). */
static void flush_arrays(const pattern *p, char *out, char *ref, char *copy_src, int64_t bytes)
{
    cache_invalidate(p->typed, (int64_t)p->typed_bytes);
    cache_invalidate(out, bytes);
    cache_invalidate(ref, bytes);
    cache_invalidate(copy_src, bytes);
}

/* The interposed calls until memcomm's trials decide their path (a decision counted in
 * memcomm_stats), in the cache state the timed calls will find: the figure is the path a
 * program gets after its first calls of the layout, not the trials. */
static void settle_interposed(const pattern *p, char *out, char *ref, char *copy_src,
                              int64_t bytes)
{
    enum { AT_MOST = 64 };
    for (int pack = 1; pack >= 0; pack--) {
        memcomm_stats before, now;
        memcomm_stats_get(&before);
        for (int call = 0; call < AT_MOST; call++) {
            if (flush_before_each)
                flush_arrays(p, out, ref, copy_src, bytes);
            run(p, M_INTERPOSED, pack, pack ? out : ref, bytes, copy_src, NULL, 0);
            memcomm_stats_get(&now);
            if (now.paths_packed + now.paths_by_mpi > before.paths_packed + before.paths_by_mpi)
                break;
        }
    }
}

static int measure(const pattern *p, int reps)
{
    int size;
    MPI_Type_size(p->type, &size);
    const int64_t bytes = (int64_t)size * p->count;
    char *ref = bench_array((size_t)bytes), *out = bench_array((size_t)bytes);
    char *copy_src = bench_array((size_t)bytes);
    memset(copy_src, 1, (size_t)bytes);
    int failures = verify(p, bytes, ref, out);
    int64_t nlines;
    int64_t *lines = touched_lines(p, bytes, &nlines);
    if (method_selected[M_INTERPOSED])
        settle_interposed(p, out, ref, copy_src, bytes);
    enum { RUNS = 2 * METHODS };
    double *t = malloc(sizeof(double) * (size_t)(reps * RUNS));
    bool used[RUNS] = {false};
    for (int r = -1; r < reps; r++) { /* r = -1: warm-up, discarded */
        for (int turn = 0; turn < RUNS; turn++) {
            const int run_index = r % 2 ? RUNS - 1 - turn : turn;
            const bool pack = run_index < METHODS;
            const int method = run_index % METHODS;
            if ((method == M_BLOCKED && !p->blocked) || (!pack && method == M_MEMCPY) ||
                !method_selected[method])
                continue; /* memcpy has no direction: measured once */
            /* unpacks read the MPI's packed bytes, so the array keeps its values; no copy
             * runs in between, which would leave the caches other than the packs find them */
            if (flush_before_each)
                flush_arrays(p, out, ref, copy_src, bytes);
            double t0 = MPI_Wtime();
            run(p, method, pack, pack ? out : ref, bytes, copy_src, lines, nlines);
            double dt = MPI_Wtime() - t0;
            if (r >= 0)
                t[run_index * reps + r] = dt;
            used[run_index] = true;
        }
    }
    for (int run_index = 0; run_index < RUNS; run_index++)
        if (used[run_index])
            emit(p->name, run_index < METHODS ? "pack" : "unpack", method_names[run_index % METHODS],
                 bytes, t + run_index * reps, reps);
    free(t);
    free(lines);
    free(ref);
    free(out);
    free(copy_src);
    return failures;
}

/* ---- the patterns ---- */

static char *filled(size_t bytes)
{
    double *a = bench_array(bytes);
    if (!a) {
        fprintf(stderr, "bench_pack: cannot allocate %zu bytes\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (size_t i = 0; i < bytes / sizeof(double); i++)
        a[i] = (double)i;
    return (char *)a;
}

static void finish(pattern *p, MPI_Datatype type)
{
    p->type = type;
    MPI_Type_commit(&p->type);
}

/* n x n matrix of `elem`, sent transposed: n columns, each a vector resized to one element */
typedef enum { ELEM_DOUBLE, ELEM_FLOAT, ELEM_COMPLEX } transpose_elem;

/* A transpose of n x n elements: n columns, each a vector resized to one element. Complex
 * doubles are FFT2's elements (a 2-D FFT's transpose); a column of them is built from
 * MPI_C_DOUBLE_COMPLEX. */
static void make_transpose(pattern *p, int64_t n, transpose_elem e)
{
    static const char *const names[] = {"double", "float", "complex"};
    MPI_Datatype elem = e == ELEM_DOUBLE ? MPI_DOUBLE : e == ELEM_FLOAT ? MPI_FLOAT
                                                                        : MPI_C_DOUBLE_COMPLEX;
    const MPI_Aint size = e == ELEM_DOUBLE ? 8 : e == ELEM_FLOAT ? 4 : 16;
    MPI_Datatype column, t;
    snprintf(p->name, sizeof p->name, "transpose %lldx%lld %s", (long long)n, (long long)n,
             names[e]);
    MPI_Type_vector((int)n, 1, (int)n, elem, &column);
    MPI_Type_create_resized(column, 0, size, &t);
    MPI_Type_free(&column);
    finish(p, t);
    p->count = (int)n;
    p->n = n;
    p->typed_bytes = (size_t)(n * n * size);
    p->typed = filled(p->typed_bytes);
    p->manual = e == ELEM_DOUBLE  ? manual_transpose_double
                : e == ELEM_FLOAT ? manual_transpose_float
                                  : manual_transpose_complex_double;
    p->blocked = e == ELEM_DOUBLE  ? blocked_transpose_double
                 : e == ELEM_FLOAT ? blocked_transpose_float
                                   : blocked_transpose_complex_double;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    static const char *const known[] = {"--reps",    "--sizes", "--scale", "--only",
                                        "--methods", "--cache", NULL};
    if (!bench_options_known(argc, argv, known)) {
        fprintf(stderr, "usage: bench_pack [--reps R] [--sizes 512,1024,...] [--scale S] "
                        "[--only SUBSTRING] [--methods memcpy,memcomm,...] "
                        "[--cache as-left|flushed]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *methods = bench_option(argc, argv, "--methods", "");
    for (int m = 0; m < METHODS; m++)
        method_selected[m] = !*methods;
    for (const char *at = methods; *at;) {
        const size_t len = strcspn(at, ",");
        int m = 0;
        while (m < METHODS && (strlen(method_names[m]) != len || strncmp(at, method_names[m], len)))
            m++;
        if (m == METHODS) {
            fprintf(stderr, "bench_pack: unknown method in --methods: %.*s (methods:", (int)len,
                    at);
            for (int k = 0; k < METHODS; k++)
                fprintf(stderr, " %s", method_names[k]);
            fprintf(stderr, ")\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        method_selected[m] = true;
        at += len + (at[len] == ',');
    }
    const char *cache = bench_option(argc, argv, "--cache", "as-left");
    if (strcmp(cache, "as-left") && strcmp(cache, "flushed")) {
        fprintf(stderr, "bench_pack: --cache must be as-left or flushed, not %s\n", cache);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    flush_before_each = !strcmp(cache, "flushed");
    const int reps = atoi(bench_option(argc, argv, "--reps", "7"));
    const int64_t scale = atoll(bench_option(argc, argv, "--scale", "1"));
    const char *sizes = bench_option(argc, argv, "--sizes", "512,1024,2048,4096,8192");
    const char *only = bench_option(argc, argv, "--only", "");
    if (reps < 3 || scale < 1 || scale > 64) {
        fprintf(stderr, "bench_pack: --reps must be >= 3 and --scale in 1..64\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    enum { MAX_PATTERNS = 64 };
    static pattern patterns[MAX_PATTERNS];
    int np = 0;

    /* transposes, doubles and floats, at each size asked for */
    for (const char *s = sizes; *s;) {
        int64_t n = strtoll(s, (char **)&s, 10);
        if (n < 16 || n > 65536) {
            fprintf(stderr, "bench_pack: transpose sizes must be in 16..65536\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        make_transpose(&patterns[np++], n, ELEM_DOUBLE);
        make_transpose(&patterns[np++], n, ELEM_FLOAT);
        if (n <= 4096) /* 256 MiB; 8192^2 would take 1 GiB per array */
            make_transpose(&patterns[np++], n, ELEM_COMPLEX);
        if (*s == ',')
            s++;
    }
    /* columns: one double every 16, 32, 64 (Byna et al.'s Table 1) */
    const int64_t column_n = (1 << 17) / scale;
    for (int64_t stride = 16; stride <= 64; stride *= 2) {
        pattern *p = &patterns[np++];
        snprintf(p->name, sizeof p->name, "column stride %lld, %lld doubles", (long long)stride,
                 (long long)column_n);
        MPI_Datatype t;
        MPI_Type_vector((int)column_n, 1, (int)stride, MPI_DOUBLE, &t);
        finish(p, t);
        p->count = 1;
        p->n = column_n;
        p->m = stride;
        p->typed_bytes = (size_t)(column_n * stride * 8);
        p->typed = filled(p->typed_bytes);
        p->manual = manual_column;
    }
    /* the faces of an n^3 array (NAS MG-like halos), via subarray */
    const int64_t cube = 256 / (scale >= 8 ? 4 : scale >= 2 ? 2 : 1);
    char *array3 = filled((size_t)(cube * cube * cube * 8));
    for (int axis = 0; axis < 3; axis++) {
        pattern *p = &patterns[np++];
        snprintf(p->name, sizeof p->name, "%c face of %lld^3 double", "xyz"[axis], (long long)cube);
        int full[3] = {(int)cube, (int)cube, (int)cube}, sub[3] = {(int)cube, (int)cube, (int)cube},
            start[3] = {0, 0, 0};
        sub[axis] = 1;
        MPI_Datatype t;
        MPI_Type_create_subarray(3, full, sub, start, MPI_ORDER_C, MPI_DOUBLE, &t);
        finish(p, t);
        p->count = 1;
        p->n = cube;
        p->m = axis;
        p->typed_bytes = (size_t)(cube * cube * cube * 8);
        p->typed = array3;
        p->manual = manual_face;
    }
    /* records of {int, double} */
    {
        pattern *p = &patterns[np++];
        int64_t n = (1 << 20) / scale;
        snprintf(p->name, sizeof p->name, "struct {int, double} x %lld", (long long)n);
        int lens[2] = {1, 1};
        MPI_Aint displs[2] = {offsetof(record, i), offsetof(record, d)};
        MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, rec0, t;
        MPI_Type_create_struct(2, lens, displs, types, &rec0);
        MPI_Type_create_resized(rec0, 0, sizeof(record), &t);
        MPI_Type_free(&rec0);
        finish(p, t);
        p->count = (int)n;
        p->n = n;
        p->typed_bytes = (size_t)n * sizeof(record);
        p->typed = filled(p->typed_bytes);
        p->manual = manual_records;
    }
    /* particles (LAMMPS-like): half the atoms, in random order, 3 doubles each */
    {
        pattern *p = &patterns[np++];
        int64_t atoms = (1 << 19) / scale, n = atoms / 2;
        snprintf(p->name, sizeof p->name, "particles: %lld random blocks of 3 doubles", (long long)n);
        int64_t *perm = malloc(sizeof *perm * (size_t)atoms);
        for (int64_t i = 0; i < atoms; i++)
            perm[i] = i;
        uint64_t state = 12345;
        for (int64_t i = atoms - 1; i > 0; i--) { /* Fisher-Yates, fixed seed */
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            int64_t j = (int64_t)((state >> 33) % (uint64_t)(i + 1)), tmp = perm[i];
            perm[i] = perm[j];
            perm[j] = tmp;
        }
        int *displs = malloc(sizeof *displs * (size_t)n);
        for (int64_t i = 0; i < n; i++)
            displs[i] = (int)(perm[i] * 3);
        MPI_Datatype t;
        MPI_Type_create_indexed_block((int)n, 3, displs, MPI_DOUBLE, &t);
        free(displs);
        finish(p, t);
        p->count = 1;
        p->n = n;
        p->index = perm;
        p->typed_bytes = (size_t)atoms * 3 * 8;
        p->typed = filled(p->typed_bytes);
        p->manual = manual_particles;
    }
    /* FFT redistribution: a slab of n/P rows of an n x n grid, cut into P column blocks, one
     * per process (vector resized to the block's width; count P) */
    {
        pattern *p = &patterns[np++];
        int64_t n = 2048 / (scale >= 4 ? 4 : scale), procs = 8, rows = n / procs, cols = n / procs;
        snprintf(p->name, sizeof p->name, "FFT redistribution %lldx%lld slab to %lld procs",
                 (long long)rows, (long long)n, (long long)procs);
        MPI_Datatype block, t;
        MPI_Type_vector((int)rows, (int)cols, (int)n, MPI_DOUBLE, &block);
        MPI_Type_create_resized(block, 0, cols * 8, &t);
        MPI_Type_free(&block);
        finish(p, t);
        p->count = (int)procs;
        p->n = n;
        p->m = procs;
        p->typed_bytes = (size_t)(rows * n * 8);
        p->typed = filled(p->typed_bytes);
        p->manual = manual_fft;
    }
    /* NAS LU-like: the i = 0 face of u(5, n, n, n), 5 doubles per point */
    {
        pattern *p = &patterns[np++];
        int64_t n = 128 / (scale >= 4 ? 4 : scale);
        snprintf(p->name, sizeof p->name, "LU face of u(5,%lld,%lld,%lld)", (long long)n,
                 (long long)n, (long long)n);
        MPI_Datatype t;
        MPI_Type_vector((int)(n * n), 5, (int)(5 * n), MPI_DOUBLE, &t);
        finish(p, t);
        p->count = 1;
        p->n = n;
        p->typed_bytes = (size_t)(n * n * n * 5 * 8);
        p->typed = filled(p->typed_bytes);
        p->manual = manual_lu;
    }

    int failures = 0;
    for (int i = 0; i < np; i++)
        if (strstr(patterns[i].name, only))
            failures += measure(&patterns[i], reps);
    for (int i = 0; i < np; i++) {
        MPI_Type_free(&patterns[i].type);
        if (patterns[i].typed != array3)
            free(patterns[i].typed);
        free((void *)patterns[i].index);
    }
    free(array3);
    MPI_Finalize();
    return failures ? 1 : 0;
}
