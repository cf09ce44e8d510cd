/* Alltoallw on 2 ranks: each peer's send block one run of memory, given to the MPI as a
 * subarray type or as bytes; received as bytes. Medians of 15. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int n = argc > 1 ? atoi(argv[1]) : 256; /* n x n x n/2 complex per rank */
    int sizes[3] = {n, n, n / 2}, sub[3] = {n / 2, n, n / 2};
    MPI_Datatype sub_t[2];
    for (int p = 0; p < 2; p++) {
        int start[3] = {p * n / 2, 0, 0};
        MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_C_DOUBLE_COMPLEX, &sub_t[p]);
        MPI_Type_commit(&sub_t[p]);
    }
    size_t total = (size_t)n * n * (n / 2) * 16, half = total / 2;
    char *a = aligned_alloc(1 << 21, total), *r = aligned_alloc(1 << 21, total);
    memset(a, 1, total); memset(r, 0, total);
    int ones[2] = {1, 1}, zero[2] = {0, 0}, bytes[2] = {(int)half, (int)half}, rd[2] = {0, (int)half}, sd[2] = {0, (int)half};
    MPI_Datatype bt[2] = {MPI_BYTE, MPI_BYTE};
    for (int mode = 0; mode < 4; mode++) {
        double t[15];
        for (int i = 0; i < 17; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double s = MPI_Wtime();
            if (mode % 2 == 0)
                MPI_Alltoallw(a, ones, zero, sub_t, r, bytes, rd, bt, MPI_COMM_WORLD);
            else
                MPI_Alltoallw(a, bytes, sd, bt, r, bytes, rd, bt, MPI_COMM_WORLD);
            if (i >= 2) t[i - 2] = MPI_Wtime() - s;
        }
        qsort(t, 15, sizeof t[0], cmp);
        if (rank == 0) printf("%s: %.2f ms\n", mode % 2 == 0 ? "subarray send" : "bytes send   ", t[7] * 1e3);
    }
    MPI_Finalize();
    return 0;
}
