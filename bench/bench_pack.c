/* Pack bandwidth of a few layouts, four ways in one run: memcpy of the same number of bytes
 * (the ceiling), the MPI's own PMPI_Pack, a hand-written loop, and memcomm_pack.
 * Prints one JSON object per (pattern, method) with every timed repetition; the Python
 * runner (`memcomm bench pack`) turns them into a table of medians and ratios.
 *
 *   bench_pack [--n N] [--reps R]
 *
 * Before timing, memcomm's packed bytes are compared with the MPI's: a benchmark of a wrong
 * answer is worthless. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memcomm.h"

typedef struct {
    const char *name;
    MPI_Datatype type;
    int count;
    const void *src;
    void (*manual)(const void *src, void *dst, int n); /* the loop a user would write */
    int n;                                              /* manual loop's size parameter */
} pattern;

/* transpose of an n x n matrix of doubles: column by column */
static void manual_transpose(const void *src, void *dst, int n)
{
    const double *a = src;
    double *out = dst;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            *out++ = a[(size_t)i * n + j];
}

/* every 16th double (block 1, stride 16) */
static void manual_column(const void *src, void *dst, int n)
{
    const double *a = src;
    double *out = dst;
    for (int i = 0; i < n; i++)
        out[i] = a[(size_t)i * 16];
}

typedef struct {
    int i;
    double d;
} record;

static void manual_records(const void *src, void *dst, int n)
{
    const record *r = src;
    char *out = dst;
    for (int k = 0; k < n; k++) {
        memcpy(out, &r[k].i, sizeof(int));
        memcpy(out + sizeof(int), &r[k].d, sizeof(double));
        out += sizeof(int) + sizeof(double);
    }
}

/* the x = 0 face of an n^3 array (C order): one double every n*n */
static void manual_face(const void *src, void *dst, int n)
{
    const double *a = src;
    double *out = dst;
    for (int j = 0; j < n; j++)
        for (int k = 0; k < n; k++)
            *out++ = a[(size_t)j * n + k];
}

static void manual_face_y(const void *src, void *dst, int n)
{
    const double *a = src;
    double *out = dst;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++)
            *out++ = a[(size_t)i * n * n + k];
}

static void emit(const char *pattern_name, const char *method, long long bytes, const double *t,
                 int reps)
{
    printf("{\"experiment\": \"pack\", \"pattern\": \"%s\", \"method\": \"%s\", \"bytes\": %lld, "
           "\"seconds\": [",
           pattern_name, method, bytes);
    for (int r = 0; r < reps; r++)
        printf(r ? ", %.9f" : "%.9f", t[r]);
    printf("]}\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int reps = 15, n = 1024;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--n"))
            n = atoi(argv[i + 1]);
    }
    if (reps < 3 || n < 16) {
        fprintf(stderr, "bench_pack: --reps must be >= 3 and --n >= 16\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t nn = (size_t)n * n;
    int face_n = n / 8 < 16 ? 16 : n / 8; /* cube side for the face patterns */
    size_t cube = (size_t)face_n * face_n * face_n;
    double *matrix = malloc(nn * sizeof(double));
    double *strided = malloc(nn * 16 / 8 * sizeof(double));
    record *records = malloc(nn / 2 * sizeof(record));
    double *array3 = malloc(cube * sizeof(double));
    for (size_t i = 0; i < nn; i++)
        matrix[i] = (double)i;
    for (size_t i = 0; i < nn * 2; i++)
        strided[i] = (double)i;
    for (size_t i = 0; i < nn / 2; i++)
        records[i] = (record){(int)i, (double)i};
    for (size_t i = 0; i < cube; i++)
        array3[i] = (double)i;

    MPI_Datatype column, transpose, col16, rec, face_x, face_y;
    MPI_Type_vector(n, 1, n, MPI_DOUBLE, &column);
    MPI_Type_create_resized(column, 0, sizeof(double), &transpose);
    MPI_Type_commit(&transpose);
    MPI_Type_vector((int)(nn / 8), 1, 16, MPI_DOUBLE, &col16);
    MPI_Type_commit(&col16);
    int lens[2] = {1, 1};
    MPI_Aint displs[2] = {offsetof(record, i), offsetof(record, d)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, rec0;
    MPI_Type_create_struct(2, lens, displs, types, &rec0);
    MPI_Type_create_resized(rec0, 0, sizeof(record), &rec);
    MPI_Type_commit(&rec);
    int sizes[3] = {face_n, face_n, face_n}, sub_x[3] = {1, face_n, face_n},
        sub_y[3] = {face_n, 1, face_n}, start[3] = {0, 0, 0};
    MPI_Type_create_subarray(3, sizes, sub_x, start, MPI_ORDER_C, MPI_DOUBLE, &face_x);
    MPI_Type_commit(&face_x);
    MPI_Type_create_subarray(3, sizes, sub_y, start, MPI_ORDER_C, MPI_DOUBLE, &face_y);
    MPI_Type_commit(&face_y);

    char name_t[64], name_c[64], name_r[64], name_x[64], name_y[64];
    snprintf(name_t, sizeof name_t, "transpose %dx%d double", n, n);
    snprintf(name_c, sizeof name_c, "column stride 16, %zu doubles", nn / 8);
    snprintf(name_r, sizeof name_r, "struct {int, double} x %zu", nn / 2);
    snprintf(name_x, sizeof name_x, "x face of %d^3 (contiguous)", face_n);
    snprintf(name_y, sizeof name_y, "y face of %d^3", face_n);
    pattern patterns[] = {
        {name_t, transpose, n, matrix, manual_transpose, n},
        {name_c, col16, 1, strided, manual_column, (int)(nn / 8)},
        {name_r, rec, (int)(nn / 2), records, manual_records, (int)(nn / 2)},
        {name_x, face_x, 1, array3, manual_face, face_n},
        {name_y, face_y, 1, array3, manual_face_y, face_n},
    };
    int failures = 0;
    double *t = malloc(sizeof(double) * (size_t)reps);
    for (size_t p = 0; p < sizeof patterns / sizeof patterns[0]; p++) {
        pattern *pt = &patterns[p];
        int size;
        MPI_Type_size(pt->type, &size);
        long long bytes = (long long)size * pt->count;
        char *ref = malloc((size_t)bytes), *out = malloc((size_t)bytes), *copy_src = malloc((size_t)bytes);
        memset(copy_src, 1, (size_t)bytes);
        int pos = 0;
        MPI_Count mpos = 0;
        PMPI_Pack(pt->src, pt->count, pt->type, ref, (int)bytes, &pos, MPI_COMM_SELF);
        memcomm_pack(pt->src, pt->count, pt->type, out, bytes, &mpos);
        if (mpos != pos || memcmp(ref, out, (size_t)bytes) != 0) {
            fprintf(stderr, "bench_pack: memcomm packs %s differently from the MPI\n", pt->name);
            failures++;
        }
        pt->manual(pt->src, out, pt->n);
        if (memcmp(ref, out, (size_t)bytes) != 0) {
            fprintf(stderr, "bench_pack: the manual loop for %s is wrong\n", pt->name);
            failures++;
        }
        for (int method = 0; method < 4; method++) {
            static const char *names[] = {"memcpy", "mpi", "manual", "memcomm"};
            for (int r = -1; r < reps; r++) { /* r = -1: warm-up, discarded */
                double t0 = MPI_Wtime();
                pos = 0;
                mpos = 0;
                switch (method) {
                case 0: memcpy(out, copy_src, (size_t)bytes); break;
                case 1: PMPI_Pack(pt->src, pt->count, pt->type, out, (int)bytes, &pos, MPI_COMM_SELF); break;
                case 2: pt->manual(pt->src, out, pt->n); break;
                case 3: memcomm_pack(pt->src, pt->count, pt->type, out, bytes, &mpos); break;
                }
                double dt = MPI_Wtime() - t0;
                if (r >= 0)
                    t[r] = dt;
            }
            emit(pt->name, names[method], bytes, t, reps);
        }
        free(ref);
        free(out);
        free(copy_src);
    }
    free(t);
    MPI_Type_free(&transpose);
    MPI_Type_free(&column);
    MPI_Type_free(&col16);
    MPI_Type_free(&rec0);
    MPI_Type_free(&rec);
    MPI_Type_free(&face_x);
    MPI_Type_free(&face_y);
    free(matrix);
    free(strided);
    free(records);
    free(array3);
    MPI_Finalize();
    return failures ? 1 : 0;
}
