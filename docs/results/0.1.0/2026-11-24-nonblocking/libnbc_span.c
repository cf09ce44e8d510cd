/* Open MPI 5.0's non-blocking and persistent MPI_Alltoallw (libnbc) with the MPI alone: rank 1
 * sends 3 instances of a type of negative extent (resized(MPI_INT, 0, -10)) to rank 2, which
 * receives the same 12 bytes as MPI_PACKED. libnbc schedules a send only if the block's span
 * in memory is positive, which this one's is not, and the receive, whose span is, waits
 * forever. The blocking MPI_Alltoallw and MPI_Isend/MPI_Irecv deliver. (Why memcomm hands
 * these forms to the MPI unchanged for types of negative extent: lib/coll/exchange.c.)
 *
 *   mpicc libnbc_span.c -o libnbc_span
 *   for m in b s i p; do timeout 10 mpiexec -n 3 ./libnbc_span $m; echo "$m: $?"; done
 *
 * Modes: b MPI_Alltoallw, s MPI_Isend/MPI_Irecv, i MPI_Ialltoallw, p MPI_Alltoallw_init.
 * Measured 2026-11-24: Open MPI 5.0 (PyPI wheel) b 0, s 0, i 124 (hangs), p 124; MPICH 5.0 all 0. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char mode = argc > 1 ? argv[1][0] : 'i';
    MPI_Datatype negative;
    MPI_Type_create_resized(MPI_INT, 0, -10, &negative);
    MPI_Type_commit(&negative);
    int sendcounts[3] = {0}, sdispls[3] = {0}, recvcounts[3] = {0}, rdispls[3] = {0};
    MPI_Datatype sendtypes[3] = {MPI_INT, MPI_INT, MPI_INT};
    MPI_Datatype recvtypes[3] = {MPI_INT, MPI_INT, MPI_INT};
    char sendbuf[256], recvbuf[256];
    memset(sendbuf, 7, sizeof sendbuf);
    memset(recvbuf, 0, sizeof recvbuf);
    if (rank == 1) {
        sendcounts[2] = 3;
        sendtypes[2] = negative;
        sdispls[2] = 100;
    }
    if (rank == 2) {
        recvcounts[1] = 12;
        recvtypes[1] = MPI_PACKED;
    }
    MPI_Request request = MPI_REQUEST_NULL;
    if (mode == 'b')
        MPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                      recvtypes, MPI_COMM_WORLD);
    else if (mode == 's' && rank == 1)
        MPI_Isend(sendbuf + 100, 3, negative, 2, 0, MPI_COMM_WORLD, &request);
    else if (mode == 's' && rank == 2)
        MPI_Irecv(recvbuf, 12, MPI_PACKED, 1, 0, MPI_COMM_WORLD, &request);
    else if (mode == 'i')
        MPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                       recvtypes, MPI_COMM_WORLD, &request);
    else if (mode == 'p') {
        MPI_Alltoallw_init(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                           rdispls, recvtypes, MPI_COMM_WORLD, MPI_INFO_NULL, &request);
        MPI_Start(&request);
    }
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    if (mode == 'p')
        MPI_Request_free(&request);
    printf("rank %d done\n", rank);
    MPI_Type_free(&negative);
    MPI_Finalize();
    return 0;
}
