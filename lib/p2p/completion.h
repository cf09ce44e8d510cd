/* completion: the MPI's completion calls when carried requests are outstanding.
 *
 * Each call claims the table entries of the handles it holds (requests.h), makes the MPI's
 * own call once, without memcomm's lock (a blocking wait blocks in the MPI), then finishes
 * the entries the MPI completed (unpacking receives and collectives) and unclaims the rest.
 * A non-persistent request counts as completed exactly when the MPI set its handle to
 * MPI_REQUEST_NULL, so a request the MPI still owns is never released, whatever error the
 * call returns. Work is linear in the number of requests.
 *
 * Statuses: a carried receive needs its status to know how much arrived, a carried
 * collective its own error code when the call returns MPI_ERR_IN_STATUS
 * (carried_wants_status; "carried receives" below means both). When the caller ignores
 * statuses, the call reads into its own (on the stack up to 16, else allocated). If that
 * allocation fails the call still completes correctly, in a form that needs no array:
 * Waitall waits for the carried receives one by one, then for the rest; Testall peeks at the
 * carried receives first; Waitsome and Testsome complete one request, as Waitany and Testany
 * would.
 *
 * The interposed calls (interpose/p2p_requests.c) come here only when requests_outstanding();
 * the arguments are as the MPI's. */
#ifndef MEMCOMM_COMPLETION_H
#define MEMCOMM_COMPLETION_H

#include <mpi.h>
#include <stdbool.h>

int completion_test(MPI_Request *request, int *flag, MPI_Status *status, bool blocking);
int completion_testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[],
                       bool blocking);
int completion_testany(int count, MPI_Request requests[], int *index, int *flag,
                       MPI_Status *status, bool blocking);
int completion_testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                        MPI_Status statuses[], bool blocking);

/* MPI_Request_get_status and the MPI-4.1 array forms (`kind` 'a'ny, 'l'l, 's'ome): a
 * carried receive found complete is unpacked now, once. */
int completion_peek(MPI_Request request, int *flag, MPI_Status *status);
int completion_peek_array(char kind, int count, const MPI_Request requests[], int *index,
                          int *flag, int *outcount, int indices[], MPI_Status statuses[]);

#endif
