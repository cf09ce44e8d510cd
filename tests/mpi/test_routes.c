/* A receive of a derived type completed by a Fortran binding's MPI_WAIT (tests/mpi/
 * fake_binding.c, argument `fortran`) or by a profiling tool's C MPI_Wait (tests/mpi/
 * fake_tool.c, argument `c`), each calling PMPI_Wait, with that library ahead of memcomm in
 * the dynamic linker's order (`behind`: memcomm must leave the request to the MPI) or memcomm
 * ahead of it (`ahead`: memcomm carries it and its own wait unpacks it). Either way the data
 * must be right. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "memcomm.h"

#ifndef MPI_F_STATUS_SIZE /* MPI-4.0's; Open MPI 4.1 has none: room for any MPI's status */
#define MPI_F_STATUS_SIZE 16
#endif

#if MEMCOMM_HAVE_FORTRAN_HANDLES
void mpi_wait_(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr);

static int fortran_wait(MPI_Request *r)
{
    MPI_Fint f = MPI_Request_c2f(*r), status[MPI_F_STATUS_SIZE], ierr = -1;
    mpi_wait_(&f, status, &ierr);
    *r = MPI_Request_f2c(f);
    return ierr;
}
#else /* no Fortran binding in this build: CMake registers no `fortran` test */
static int fortran_wait(MPI_Request *r)
{
    (void)r;
    return MPI_ERR_OTHER;
}
#endif

static int c_wait(MPI_Request *r) { return MPI_Wait(r, MPI_STATUS_IGNORE); }

enum { N = 4096, STRIDE = 3 };

int main(int argc, char **argv)
{
    const int ahead = argc > 1 && strcmp(argv[1], "ahead") == 0;
    const int fortran = argc > 2 && strcmp(argv[2], "fortran") == 0;
    int (*wait)(MPI_Request *) = fortran ? fortran_wait : c_wait;
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
        int wrong = wait(&r) != MPI_SUCCESS || r != MPI_REQUEST_NULL;
        for (int i = 0; i < N * STRIDE; i++)
            wrong += got[i] != (i % STRIDE ? -1 : sent[i / STRIDE]);
        failed += wrong != 0;
    }
    memcomm_stats s;
    memcomm_stats_get(&s);
    /* behind: every receive left to the MPI; ahead: none */
    const int routes_right = ahead ? s.unseen_routes == 0 && s.handled_calls >= 3
                                   : s.unseen_routes == 3;
    printf("test_routes %s %s: %d of 3 receives wrong, %llu left to the MPI, %llu calls carried\n",
           ahead ? "ahead" : "behind", fortran ? "fortran" : "c", failed, s.unseen_routes,
           s.handled_calls);
    MPI_Type_free(&column);
    MPI_Finalize();
    printf("%d passed, %d failed\n", (failed == 0) + routes_right,
           (failed != 0) + !routes_right);
    return failed || !routes_right;
}
