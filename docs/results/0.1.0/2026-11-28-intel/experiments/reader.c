/* Throwaway: a transposing unpack (memcomm_unpack of n column types, as FFT2's receive) into
 * a destination the caches hold (written just before, as the last iteration's compute would
 * leave it), then the program reading the result (a sum over it: the FFT's next step). Timed
 * apart and together, medians of REPS. Run against a library whose transposes take the
 * store mode FORCE_MODE says (0 cached, 2 streamed; unset: memcomm's rule), built from a
 * worktree with that switch (experiments/README.md).
 *   mpicc -O2 -Iinclude reader.c -o /tmp/reader -L<lib> -lmemcomm
 *   /tmp/reader */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memcomm.h"

enum { REPS = 41 };

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static volatile double sink;

static void one(long n, int elem)
{
    const size_t bytes = (size_t)n * n * elem;
    char *typed = aligned_alloc(4096, bytes), *packed = aligned_alloc(4096, bytes);
    for (size_t i = 0; i < bytes; i++)
        packed[i] = (char)i;
    MPI_Datatype e, column, t;
    MPI_Type_contiguous(elem, MPI_BYTE, &e);
    MPI_Type_vector((int)n, 1, (int)n, e, &column);
    MPI_Type_create_resized(column, 0, elem, &t);
    MPI_Type_commit(&t);
    double unpack_t[REPS], read_t[REPS], both[REPS];
    for (int r = -3; r < REPS; r++) {
        memset(typed, r & 0xff, bytes); /* the destination in the caches, dirty */
        double s = 0;
        for (size_t i = 0; i < bytes; i += 64) /* the packed bytes just received */
            s += packed[i];
        double t0 = MPI_Wtime();
        MPI_Count pos = 0;
        memcomm_unpack(packed, (MPI_Count)bytes, &pos, typed, n, t);
        double t1 = MPI_Wtime();
        const double *d = (const double *)typed;
        for (size_t i = 0; i < bytes / 8; i++)
            s += d[i];
        double t2 = MPI_Wtime();
        sink = s;
        if (r >= 0) {
            unpack_t[r] = t1 - t0;
            read_t[r] = t2 - t1;
            both[r] = t2 - t0;
        }
    }
    qsort(unpack_t, REPS, sizeof(double), cmp);
    qsort(read_t, REPS, sizeof(double), cmp);
    qsort(both, REPS, sizeof(double), cmp);
    printf("%5ld^2 x %2d B (%5.1f MB): unpack %7.1f us, then read %7.1f us, together %7.1f us\n",
           n, elem, bytes / 1e6, unpack_t[REPS / 2] * 1e6, read_t[REPS / 2] * 1e6,
           both[REPS / 2] * 1e6);
    MPI_Type_free(&t);
    MPI_Type_free(&column);
    MPI_Type_free(&e);
    free(typed);
    free(packed);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    one(512, 4);
    one(512, 8);
    one(512, 16);
    one(1024, 4);
    one(1024, 8);
    MPI_Finalize();
    return 0;
}
