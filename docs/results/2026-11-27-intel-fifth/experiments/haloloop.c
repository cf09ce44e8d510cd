/* Neighbor_alltoallw of a 3-D halo (bench_collectives' types) in a loop, timed call by call: through
 * memcomm (MPI_) or straight to the MPI (PMPI_). A throwaway program of 2026-11-27 (fifth
 * session), kept to rerun the README's figures: haloloop N WHICH [REPS] (WHICH 0: MPI_, 1: PMPI_). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 64, which = argc > 2 ? atoi(argv[2]) : 0, reps = argc > 3 ? atoi(argv[3]) : 2000;
    int nr, rank; MPI_Comm_size(MPI_COMM_WORLD, &nr); MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int dims[3] = {0,0,0}, periods[3] = {1,1,1}; MPI_Dims_create(nr, 3, dims);
    MPI_Comm c; MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &c);
    MPI_Datatype st[6], rt[6]; int ones[6]; MPI_Aint z[6] = {0};
    const int side = n + 2, sizes[3] = {side, side, side};
    for (int k = 0; k < 6; k++) {
        for (int g = 0; g < 2; g++) {
            int start[3], sub[3], d = k / 2;
            for (int e = 0; e < 3; e++) { start[e] = 1; sub[e] = n; }
            sub[d] = 1; start[d] = k % 2 == 0 ? (g ? 0 : 1) : (g ? n + 1 : n);
            MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, g ? &rt[k] : &st[k]);
            MPI_Type_commit(g ? &rt[k] : &st[k]);
        }
        ones[k] = 1;
    }
    double *in = calloc((size_t)side * side * side, 8), *out = calloc((size_t)side * side * side, 8);
    double *t = malloc(sizeof(double) * reps);
    for (int r = -200; r < reps; r++) {
        MPI_Barrier(c);
        double t0 = MPI_Wtime();
        (which ? PMPI_Neighbor_alltoallw : MPI_Neighbor_alltoallw)(in, ones, z, st, out, ones, z, rt, c);
        if (r >= 0) t[r] = MPI_Wtime() - t0;
    }
    qsort(t, reps, sizeof(double), cmp);
    if (!rank) printf("n %d %s: median %.2f us\n", n, which ? "PMPI" : "MPI", t[reps / 2] * 1e6);
    MPI_Finalize();
}
