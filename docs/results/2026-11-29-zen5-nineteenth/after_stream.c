/* What runs before a large transpose's pack changes its speed (throwaway measurement, not
 * part of the build). memcomm_pack of an n x n transpose (floats or doubles) is timed after
 * each of: its own unpack of the same layout ("after unpack"), a memcpy of as many bytes
 * between two other arrays ("after memcpy"), and that memcpy followed by 100 ms of sleep
 * ("after memcpy+sleep"); and a memcpy of the packed bytes is timed as the baseline. The
 * conditions take turns in a rotating order; with "flush", every array is flushed (the
 * harness's cache_invalidate) before each timed call, as `bench pack --cache flushed` does.
 *
 *   mpicc -O2 -I include -I bench after_stream.c bench/harness.c -o after_stream -lm -ldl \
 *         -L build/mpich -lmemcomm -Wl,-rpath,$PWD/build/mpich
 *   ./after_stream N float|double REPS [flush]
 */
#include "harness.h"
#include <memcomm.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, by_value);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

enum { AFTER_UNPACK, AFTER_MEMCPY, AFTER_MEMCPY_SLEEP, MEMCPY, CONDITIONS };
static const char *const names[CONDITIONS] = {"pack after unpack", "pack after memcpy",
                                              "pack after memcpy+sleep", "memcpy"};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 4) {
        fprintf(stderr, "usage: after_stream N float|double REPS [flush]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int n = atoi(argv[1]), reps = atoi(argv[3]);
    const int elem = strcmp(argv[2], "float") ? 8 : 4;
    const bool flushed = argc > 4 && !strcmp(argv[4], "flush");
    const size_t bytes = (size_t)n * (size_t)n * (size_t)elem;
    char *typed = aligned_alloc(4096, bytes), *packed = aligned_alloc(4096, bytes);
    char *from = aligned_alloc(4096, bytes), *to = aligned_alloc(4096, bytes);
    for (size_t i = 0; i < bytes; i++)
        typed[i] = (char)(i * 7);
    memset(packed, 1, bytes);
    memset(from, 2, bytes);
    memset(to, 3, bytes);
    MPI_Datatype column, t;
    MPI_Type_vector(n, 1, n, elem == 4 ? MPI_FLOAT : MPI_DOUBLE, &column);
    MPI_Type_create_resized(column, 0, elem, &t);
    MPI_Type_commit(&t);
    double *seconds = malloc(sizeof(double) * (size_t)(CONDITIONS * reps));
    for (int r = -1; r < reps; r++) { /* r = -1: warm-up, discarded */
        for (int turn = 0; turn < CONDITIONS; turn++) {
            const int c = (turn + (r < 0 ? 0 : r)) % CONDITIONS;
            MPI_Count pos = 0;
            if (c == AFTER_UNPACK)
                memcomm_unpack(packed, (MPI_Count)bytes, &pos, typed, n, t);
            else if (c != MEMCPY)
                memcpy(to, from, bytes);
            if (c == AFTER_MEMCPY_SLEEP)
                usleep(100000);
            if (flushed) {
                cache_invalidate(typed, (int64_t)bytes);
                cache_invalidate(packed, (int64_t)bytes);
                cache_invalidate(from, (int64_t)bytes);
                cache_invalidate(to, (int64_t)bytes);
            }
            pos = 0;
            const double t0 = now();
            if (c == MEMCPY)
                memcpy(packed, from, bytes);
            else
                memcomm_pack(typed, n, t, packed, (MPI_Count)bytes, &pos);
            const double dt = now() - t0;
            if (r >= 0)
                seconds[c * reps + r] = dt;
        }
    }
    const double copy = median(seconds + MEMCPY * reps, reps);
    printf("%d^2 %s%s, medians of %d:", n, argv[2], flushed ? " flushed" : "", reps);
    for (int c = 0; c < CONDITIONS; c++) {
        const double m = median(seconds + c * reps, reps);
        printf("  %s %.2f ms", names[c], m * 1e3);
        if (c != MEMCPY)
            printf(" (%.0f%% of memcpy)", 100 * copy / m);
    }
    printf("\n");
    MPI_Type_free(&t);
    MPI_Type_free(&column);
    MPI_Finalize();
    return 0;
}
