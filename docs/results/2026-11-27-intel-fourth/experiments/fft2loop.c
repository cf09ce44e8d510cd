/* FFT2 transpose (ddtbench's layout) as MPI_Alltoall, timed alone in a loop, with something
 * done before each timed call: a throwaway program of the 2026-11-27 fourth session, kept so
 * that the README's figures can be rerun (docs/results/2026-11-27-intel-fourth/experiments/).
 *
 *   fft2loop EVICT_MB BEFORE [N]
 *
 * EVICT_MB: MB of another buffer touched before each call (0: none); N: the side (1024).
 * BEFORE (what runs, untimed, before each timed call; the timed call is memcomm's MPI_Alltoall
 * unless BEFORE is 1):
 *   0 nothing       1 nothing, and the timed call is the MPI's own (PMPI_Alltoall)
 *   2 the MPI's own call into the same receive array
 *   3 a contiguous PMPI_Alltoall of the same bytes (into the other buffer: 3 and 5 need
 *     EVICT_MB of at least the receive array, 9 at N = 1024)
 *   4 memset of the receive array    5 the MPI's own call into the other buffer
 *   6 one read-modify-write per line of the receive array
 *   7 as 2, then a memset of the receive array    8 as 2, then EVICT_MB touched again
 * Prints the median and quartiles of 200 timed calls (the slowest rank's) after 64 untimed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &P);
    const int N = argc > 3 ? atoi(argv[3]) : 1024, L = N / P;
    size_t evict = (size_t)atoi(argv[1]) << 20; int pm = atoi(argv[2]);
    double *in = malloc(sizeof(double) * 2 * L * N), *out = malloc(sizeof(double) * 2 * L * N);
    char *junk = evict ? malloc(evict) : NULL;
    for (long i = 0; i < 2L * L * N; i++) in[i] = i + rank;
    memset(out, 0, sizeof(double) * 2 * L * N);
    MPI_Datatype z, rowblk, col, colr;
    MPI_Type_contiguous(2, MPI_DOUBLE, &z);
    MPI_Type_vector(L, L, N, z, &rowblk); /* L rows of L elements */
    MPI_Datatype rb; MPI_Type_create_resized(rowblk, 0, 16L * L, &rb);
    MPI_Type_vector(L, 1, N, z, &col);
    MPI_Type_create_resized(col, 0, 16, &colr);
    MPI_Type_commit(&rb); MPI_Type_commit(&colr);
    double t[400]; int reps = 200;
    for (int r = -64; r < reps; r++) {
        if (junk) for (size_t i = 0; i < evict; i += 64) junk[i]++;
        if (pm == 2) { MPI_Barrier(MPI_COMM_WORLD); PMPI_Alltoall(in, 1, rb, out, L, colr, MPI_COMM_WORLD); }
        if (pm == 7) { MPI_Barrier(MPI_COMM_WORLD); PMPI_Alltoall(in, 1, rb, out, L, colr, MPI_COMM_WORLD); memset(out, 1, sizeof(double) * 2 * L * N); }
        if (pm == 8) { MPI_Barrier(MPI_COMM_WORLD); PMPI_Alltoall(in, 1, rb, out, L, colr, MPI_COMM_WORLD); for (size_t i = 0; i < evict; i += 64) junk[i]++; }
        if (pm == 4) memset(out, 1, sizeof(double) * 2 * L * N);
        if (pm == 5) { MPI_Barrier(MPI_COMM_WORLD); PMPI_Alltoall(in, 1, rb, junk, L, colr, MPI_COMM_WORLD); }
        if (pm == 6) { for (long i = 0; i < 2L * L * N; i += 8) out[i] += 1; }
        if (pm == 3) { MPI_Barrier(MPI_COMM_WORLD); PMPI_Alltoall(in, 16 * L * L, MPI_BYTE, junk, 16 * L * L, MPI_BYTE, MPI_COMM_WORLD); }
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        (pm == 1 ? PMPI_Alltoall : MPI_Alltoall)(in, 1, rb, out, L, colr, MPI_COMM_WORLD);
        double d = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r >= 0) t[r] = d;
    }
    qsort(t, reps, sizeof(double), cmp);
    if (!rank) printf("evict %s MB before %d: median %.3f ms q1 %.3f q3 %.3f\n", argv[1], pm, t[reps/2]*1e3, t[reps/4]*1e3, t[3*reps/4]*1e3);
    MPI_Finalize();
}
