/* fortran_names: the Fortran call families memcomm defines for the MPIs' Fortran bindings
 * (interpose/fortran.c), one X(ENUM, lower, UPPER, ROUTE) each. ROUTE: the family completes,
 * starts or frees requests, so a definition of it that is not memcomm's is a way for a
 * carried request to finish unseen (p2p/routes.c). Each is exported as lower_, lower,
 * lower__, UPPER (mpif.h and `use mpi`) and lower_f08_ (`use mpi_f08`). */
#ifndef MEMCOMM_FORTRAN_NAMES_H
#define MEMCOMM_FORTRAN_NAMES_H

#include "mpiutil.h"

#define FORTRAN_FAMILIES(X)                                                                    \
    X(WAIT, mpi_wait, MPI_WAIT, 1)                                                             \
    X(TEST, mpi_test, MPI_TEST, 1)                                                             \
    X(WAITALL, mpi_waitall, MPI_WAITALL, 1)                                                    \
    X(TESTALL, mpi_testall, MPI_TESTALL, 1)                                                    \
    X(WAITANY, mpi_waitany, MPI_WAITANY, 1)                                                    \
    X(TESTANY, mpi_testany, MPI_TESTANY, 1)                                                    \
    X(WAITSOME, mpi_waitsome, MPI_WAITSOME, 1)                                                 \
    X(TESTSOME, mpi_testsome, MPI_TESTSOME, 1)                                                 \
    X(GET_STATUS, mpi_request_get_status, MPI_REQUEST_GET_STATUS, 1)                           \
    FORTRAN_STATUS_ARRAY_FAMILIES(X)                                                           \
    X(REQUEST_FREE, mpi_request_free, MPI_REQUEST_FREE, 1)                                     \
    X(START, mpi_start, MPI_START, 1)                                                          \
    X(STARTALL, mpi_startall, MPI_STARTALL, 1)                                                 \
    X(FINALIZE, mpi_finalize, MPI_FINALIZE, 1)                                                 \
    X(TYPE_COMMIT, mpi_type_commit, MPI_TYPE_COMMIT, 0)                                        \
    X(TYPE_DUP, mpi_type_dup, MPI_TYPE_DUP, 0)

/* The MPI-4.1 array forms of MPI_Request_get_status: defined where the MPI has them; where
 * it has not, names that complete requests and that memcomm does not define (a binding that
 * has them completes requests unseen). */
#if MEMCOMM_HAS_STATUS_ARRAYS
#define FORTRAN_STATUS_ARRAY_FAMILIES(X)                                                       \
    X(GET_STATUS_ANY, mpi_request_get_status_any, MPI_REQUEST_GET_STATUS_ANY, 1)               \
    X(GET_STATUS_ALL, mpi_request_get_status_all, MPI_REQUEST_GET_STATUS_ALL, 1)               \
    X(GET_STATUS_SOME, mpi_request_get_status_some, MPI_REQUEST_GET_STATUS_SOME, 1)
#define FORTRAN_UNCARRIED_ROUTES(X)
#else
#define FORTRAN_STATUS_ARRAY_FAMILIES(X)
#define FORTRAN_UNCARRIED_ROUTES(X)                                                            \
    X(mpi_request_get_status_any, MPI_REQUEST_GET_STATUS_ANY)                                  \
    X(mpi_request_get_status_all, MPI_REQUEST_GET_STATUS_ALL)                                  \
    X(mpi_request_get_status_some, MPI_REQUEST_GET_STATUS_SOME)
#endif

#endif
