/* The transpose of a distributed 2-D FFT, as ddtbench's FFT2 pattern lays it out: an N x N
 * matrix of complex numbers, N/P rows per rank; one MPI_Alltoall sends each peer the square
 * block of its columns and receives the peer's block placed column by column (the receive
 * type is one column of N/P elements, resized to one element, so consecutive instances fill
 * consecutive columns). Plain MPI; run it with and without memcomm:
 *
 *   memcomm run -n 2 -- build/mpich/examples/fft2_transpose 2048
 *   MEMCOMM_DISABLE=1 memcomm run -n 2 -- build/mpich/examples/fft2_transpose 2048
 *
 * Prints the median time of the datatype transpose and of a contiguous MPI_Alltoall of the
 * same bytes, after checking that the transpose is right. `complex` selects the element type:
 * MPI_C_DOUBLE_COMPLEX (default) or two MPI_DOUBLEs. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REPS = 15 };

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const int n = argc > 1 ? atoi(argv[1]) : 1024;
    const int pairs = argc > 2 && !strcmp(argv[2], "pairs");
    if (n <= 0 || n % nranks) {
        if (rank == 0)
            fprintf(stderr, "fft2_transpose: N (%d) must be a positive multiple of the ranks\n",
                    n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int rows = n / nranks;
    const size_t elements = (size_t)rows * (size_t)n;
    double *local = malloc(elements * 16), *transposed = malloc(elements * 16);
    for (size_t k = 0; k < elements; k++) { /* element (global row, column) = row * n + col */
        local[2 * k] = (double)((size_t)rank * rows * n + k);
        local[2 * k + 1] = -local[2 * k];
    }
    MPI_Datatype element, square, block, column, placed;
    if (pairs)
        MPI_Type_contiguous(2, MPI_DOUBLE, &element);
    else
        MPI_Type_dup(MPI_C_DOUBLE_COMPLEX, &element);
    MPI_Type_vector(rows, rows, n, element, &square);
    MPI_Type_create_resized(square, 0, (MPI_Aint)rows * 16, &block);
    MPI_Type_vector(rows, 1, n, element, &column);
    MPI_Type_create_resized(column, 0, 16, &placed);
    MPI_Type_commit(&block);
    MPI_Type_commit(&placed);

    double datatype[REPS], contiguous[REPS];
    const int bytes_per_peer = rows * rows * 16;
    for (int r = 0; r < REPS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        MPI_Alltoall(local, 1, block, transposed, rows, placed, MPI_COMM_WORLD);
        datatype[r] = MPI_Wtime() - start;
        MPI_Barrier(MPI_COMM_WORLD);
        start = MPI_Wtime();
        MPI_Alltoall(local, bytes_per_peer, MPI_BYTE, transposed,
                     bytes_per_peer, MPI_BYTE, MPI_COMM_WORLD);
        contiguous[r] = MPI_Wtime() - start;
    }
    MPI_Alltoall(local, 1, block, transposed, rows, placed, MPI_COMM_WORLD);
    /* transposed holds rows of the transpose: (local row i, column j) = global (j, rank*rows+i) */
    long long wrong = 0;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < n; j++) {
            const double want = (double)j * n + rank * rows + i;
            const double *got = transposed + 2 * ((size_t)i * n + j);
            wrong += got[0] != want || got[1] != -want;
        }
    qsort(datatype, REPS, sizeof(double), by_value);
    qsort(contiguous, REPS, sizeof(double), by_value);
    long long all_wrong = 0;
    MPI_Reduce(&wrong, &all_wrong, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("fft2_transpose N=%d (%s), %d ranks: datatype %.3f ms, contiguous %.3f ms "
               "(median of %d); %lld elements wrong\n",
               n, pairs ? "2 doubles" : "MPI_C_DOUBLE_COMPLEX", nranks,
               datatype[REPS / 2] * 1e3, contiguous[REPS / 2] * 1e3, REPS, all_wrong);
    MPI_Type_free(&element);
    MPI_Type_free(&square);
    MPI_Type_free(&block);
    MPI_Type_free(&column);
    MPI_Type_free(&placed);
    free(local);
    free(transposed);
    MPI_Finalize();
    return all_wrong != 0;
}
