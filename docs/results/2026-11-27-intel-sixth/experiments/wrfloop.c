/* WRF's halo ping-pong under memcomm: per call send time, round trip, with or without a
 * barrier between round trips.  wrfloop ROUNDS BARRIER(0/1); FIRST=1 prints every call. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ddtbench.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int rounds = atoi(argv[1]), barrier = atoi(argv[2]);
    pattern ps[16];
    int np = 0;
    ddtbench_add(ps, &np);
    pattern *p = &ps[0];
    p->type = p->build(p);
    MPI_Type_commit(&p->type);
    p->array = calloc(p->array_doubles, sizeof(double));
    int size;
    MPI_Type_size(p->type, &size);
    const int doubles = size * p->count / 8;
    double *recv = calloc((size_t)doubles, 8);
    double *st = malloc(sizeof(double) * rounds), *rt = malloc(sizeof(double) * rounds);
    const int peer = 1 - rank;
    for (int r = 0; r < rounds; r++) {
        if (barrier)
            MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime(), t1;
        if (rank == 0) {
            MPI_Send(p->array, p->count, p->type, peer, 0, MPI_COMM_WORLD);
            t1 = MPI_Wtime();
            MPI_Recv(recv, doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(recv, doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            t0 = MPI_Wtime();
            MPI_Send(p->array, p->count, p->type, peer, 0, MPI_COMM_WORLD);
            t1 = MPI_Wtime();
        }
        st[r] = t1 - t0;
        rt[r] = MPI_Wtime() - t0;
    }
    if (getenv("FIRST"))
        for (int r = 0; r < rounds; r++)
            printf("rank %d call %d send %.1f rt %.1f\n", rank, r, st[r] * 1e6, rt[r] * 1e6);
    qsort(st + rounds / 2, rounds - rounds / 2, 8, cmp);
    qsort(rt + rounds / 2, rounds - rounds / 2, 8, cmp);
    const int mid = rounds / 2 + (rounds - rounds / 2) / 2;
    printf("rank %d %s: send %.2f us, round trip (from send) %.2f us (medians of the last half)\n",
           rank, p->name, st[mid] * 1e6, rt[mid] * 1e6);
    MPI_Finalize();
    return 0;
}
