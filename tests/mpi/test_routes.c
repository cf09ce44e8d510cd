/* A receive of a derived type completed by a Fortran binding's MPI_WAIT (tests/mpi/
 * fake_binding.c), with that binding ahead of memcomm in the dynamic linker's order
 * (`behind`: memcomm must leave the request to the MPI) or memcomm ahead of it (`ahead`:
 * memcomm carries it and its own MPI_WAIT unpacks it). Either way the data must be right. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "memcomm.h"

#ifndef MPI_F_STATUS_SIZE /* MPI-4.0's; Open MPI 4.1 has none: room for any MPI's status */
#define MPI_F_STATUS_SIZE 16
#endif

void mpi_wait_(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr);

enum { N = 4096, STRIDE = 3 };

int main(int argc, char **argv)
{
    const int ahead = argc > 1 && strcmp(argv[1], "ahead") == 0;
    static double sent[N], got[N * STRIDE];
    MPI_Init(&argc, &argv);
    MPI_Datatype column;
    MPI_Type_vector(N, 1, STRIDE, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    int failed = 0;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++)
            sent[i] = round * 1e6 + i;
        for (int i = 0; i < N * STRIDE; i++)
            got[i] = -1;
        MPI_Request r;
        MPI_Irecv(got, 1, column, 0, round, MPI_COMM_SELF, &r);
        MPI_Send(sent, N, MPI_DOUBLE, 0, round, MPI_COMM_SELF);
        MPI_Fint f = MPI_Request_c2f(r), status[MPI_F_STATUS_SIZE], ierr = -1;
        mpi_wait_(&f, status, &ierr);
        int wrong = ierr != MPI_SUCCESS || f != MPI_Request_c2f(MPI_REQUEST_NULL);
        for (int i = 0; i < N * STRIDE; i++)
            wrong += got[i] != (i % STRIDE ? -1 : sent[i / STRIDE]);
        failed += wrong != 0;
    }
    memcomm_stats s;
    memcomm_stats_get(&s);
    /* behind: every receive left to the MPI; ahead: none */
    const int routes_right = ahead ? s.unseen_routes == 0 && s.handled_calls >= 3
                                   : s.unseen_routes == 3;
    printf("test_routes %s: %d of 3 receives wrong, %llu left to the MPI, %llu calls carried\n",
           ahead ? "ahead" : "behind", failed, s.unseen_routes, s.handled_calls);
    MPI_Type_free(&column);
    MPI_Finalize();
    printf("%d passed, %d failed\n", (failed == 0) + routes_right,
           (failed != 0) + !routes_right);
    return failed || !routes_right;
}
