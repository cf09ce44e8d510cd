/* MPICH 5.0's MPI_Testall on a persistent collective that completed, with the MPI alone: it
 * returns MPI_ERR_IN_STATUS with the flag set and MPI_SUCCESS in the request's status (why
 * memcomm reads a status for carried collectives: lib/p2p/requests.h, carried_wants_status).
 *
 *   mpicc testall_persistent.c -o testall_persistent && mpiexec -n 2 ./testall_persistent
 *
 * Measured 2026-11-24: MPICH 5.0 (PyPI wheel) prints "rc 17 (MPI_ERR_IN_STATUS 17) flag 1
 * status error 0" on each rank; Open MPI 5.0 "rc 0 ...". */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int send[4] = {1, 2, 3, 4}, recv[4], flag = 0, rc = MPI_SUCCESS;
    MPI_Request request;
    MPI_Status status;
    status.MPI_ERROR = -1;
    MPI_Alltoall_init(send, 1, MPI_INT, recv, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                      &request);
    MPI_Start(&request);
    while (rc == MPI_SUCCESS && !flag)
        rc = MPI_Testall(1, &request, &flag, &status);
    printf("rc %d (MPI_ERR_IN_STATUS %d) flag %d status error %d\n", rc, MPI_ERR_IN_STATUS,
           flag, status.MPI_ERROR);
    MPI_Request_free(&request);
    MPI_Finalize();
    return 0;
}
