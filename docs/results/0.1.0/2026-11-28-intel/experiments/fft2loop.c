/* Throwaway: ddtbench's FFT2 transpose (bench_collectives' "fft2 N": N x N complex doubles,
 * N/P rows per rank, MPI_Alltoall of square blocks received column by column) taken apart:
 *   memcomm    MPI_Alltoall on the datatypes, which memcomm carries
 *   parts      what memcomm's path does, step by step: PMPI_Alltoall of the send type into a
 *              contiguous staging (same type signature: doubles), then memcomm_unpack of each
 *              peer's block; each step timed
 *   contiguous PMPI_Alltoall of the same bytes between contiguous buffers
 * Times are the slowest rank's, medians of REPS, methods in turn within each repetition.
 *   mpicc -O2 -Iinclude fft2loop.c -o /tmp/fft2loop -Lbuild/<mpi> -lmemcomm
 *   memcomm run --mpi <mpi> -n 2 -- /tmp/fft2loop 1024 [twice] [with_mpi]
 * twice = 1: memcomm's timed call right after an untimed one of its own (as bench_collectives
 * times each method); 0: after the contiguous call of the repetition before; with_mpi = 1:
 * the MPI's own call on the datatypes in each repetition too, timed */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memcomm.h"

enum { REPS = 31, WARM = 40 };

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double slowest(double t)
{
    double m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    const long n = argc > 1 ? atol(argv[1]) : 1024, m = n / procs;
    const size_t bytes = (size_t)(16 * m * n);
    /* MALLOC=1: the typed arrays from malloc, as bench_collectives has them (glibc maps a
     * large block 16 bytes past a page start), else page-aligned */
    const int plain = getenv("MALLOC") && atoi(getenv("MALLOC"));
    double *in = plain ? malloc(bytes) : aligned_alloc(4096, bytes);
    double *out = plain ? malloc(bytes) : aligned_alloc(4096, bytes);
    double *staging = aligned_alloc(4096, bytes), *contig_in = aligned_alloc(4096, bytes);
    double *contig_out = aligned_alloc(4096, bytes);
    for (size_t i = 0; i < bytes / 8; i++)
        in[i] = (double)i + 0.25 * rank, contig_in[i] = 1;
    memset(out, 0, bytes);
    memset(staging, 0, bytes);
    memset(contig_out, 0, bytes);
    MPI_Datatype element, square, column, send_type, recv_type;
    MPI_Type_contiguous(2, MPI_DOUBLE, &element);
    MPI_Type_vector((int)m, (int)m, (int)n, element, &square);
    MPI_Type_create_resized(square, 0, m * 16, &send_type);
    MPI_Type_vector((int)m, 1, (int)n, element, &column);
    MPI_Type_create_resized(column, 0, 16, &recv_type);
    MPI_Type_commit(&send_type);
    MPI_Type_commit(&recv_type);
    const int peer_doubles = (int)(2 * m * m);
    double t[5][REPS]; /* memcomm, parts: alltoall, parts: unpack, contiguous, the MPI's own */
    const int twice = argc > 2 && atoi(argv[2]); /* memcomm's timed call after an untimed one */
    const int with_mpi = argc > 3 && atoi(argv[3]);
    for (int r = -WARM; r < REPS; r++) {
        if (twice)
            MPI_Alltoall(in, 1, send_type, out, (int)m, recv_type, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_Alltoall(in, 1, send_type, out, (int)m, recv_type, MPI_COMM_WORLD);
        double memcomm_s = slowest(MPI_Wtime() - t0);

        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        PMPI_Alltoall(in, 1, send_type, staging, peer_doubles, MPI_DOUBLE, MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        for (int q = 0; q < procs; q++) {
            MPI_Count pos = 0;
            memcomm_unpack((char *)staging + (size_t)q * 8 * peer_doubles,
                           (MPI_Count)8 * peer_doubles, &pos, (char *)out + q * m * 16, m,
                           recv_type);
        }
        double t2 = MPI_Wtime();
        double alltoall_s = slowest(t1 - t0), unpack_s = slowest(t2 - t1);

        double mpi_s = 0;
        if (with_mpi) { /* the MPI's own call on the datatypes, as bench_collectives has */
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            PMPI_Alltoall(in, 1, send_type, out, (int)m, recv_type, MPI_COMM_WORLD);
            mpi_s = slowest(MPI_Wtime() - t0);
        }

        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        PMPI_Alltoall(contig_in, peer_doubles, MPI_DOUBLE, contig_out, peer_doubles, MPI_DOUBLE,
                      MPI_COMM_WORLD);
        double contig_s = slowest(MPI_Wtime() - t0);
        if (r >= 0) {
            t[0][r] = memcomm_s;
            t[1][r] = alltoall_s;
            t[2][r] = unpack_s;
            t[3][r] = contig_s;
            t[4][r] = mpi_s;
        }
    }
    if (rank == 0) {
        printf("in %% 64 = %d, out %% 64 = %d\n", (int)((size_t)in % 64), (int)((size_t)out % 64));
        const char *names[5] = {"memcomm (MPI_Alltoall, carried)", "parts: PMPI_Alltoall to staging",
                                "parts: memcomm_unpack per peer", "contiguous PMPI_Alltoall",
                                "the MPI's own (PMPI_Alltoall)"};
        for (int k = 0; k < 4 + with_mpi; k++) {
            qsort(t[k], REPS, sizeof(double), cmp);
            printf("%-34s %8.3f ms  %6.2f GB/s\n", names[k], t[k][REPS / 2] * 1e3,
                   bytes / t[k][REPS / 2] / 1e9);
        }
    }
    MPI_Finalize();
    return 0;
}
