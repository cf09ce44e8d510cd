/* A stand-in Fortran binding's MPI_WAIT: like Open MPI's, it completes the request through
 * PMPI_Wait, where memcomm cannot see it. */
#include <mpi.h>

__attribute__((visibility("default"))) void mpi_wait_(MPI_Fint *request, MPI_Fint *status,
                                                  MPI_Fint *ierr)
{
    MPI_Request c = MPI_Request_f2c(*request);
    MPI_Status s;
    *ierr = PMPI_Wait(&c, &s);
    *request = MPI_Request_c2f(c);
    if (status != MPI_F_STATUS_IGNORE)
        MPI_Status_c2f(&s, status);
}
