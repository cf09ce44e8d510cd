/* A stand-in profiling tool's MPI_Wait: like any PMPI tool's, it hands the call to PMPI_Wait,
 * where memcomm cannot see it. */
#include <mpi.h>

__attribute__((visibility("default"))) int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    return PMPI_Wait(request, status);
}
