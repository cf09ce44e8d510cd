/* entry: the C entry points that memcomm's Fortran bindings (fortran.c) share.
 *
 * Each is defined once, as the hidden mc_NAME, and exported as NAME by an alias. The
 * Fortran bindings call mc_NAME directly: a call of NAME from inside memcomm would go
 * through the dynamic linker to the first NAME in the process, which is another tool's
 * when one is preloaded before memcomm, and that tool hands it to PMPI_NAME, past memcomm. */
#ifndef MEMCOMM_ENTRY_H
#define MEMCOMM_ENTRY_H

#include <mpi.h>

#include "../base/mpiutil.h"

#define INTERPOSE(RET, NAME, PARAMS)                                                           \
    EXPORT RET NAME PARAMS __attribute__((alias("mc_" #NAME)));                                \
    RET mc_##NAME PARAMS

int mc_MPI_Wait(MPI_Request *request, MPI_Status *status);
int mc_MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int mc_MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
int mc_MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]);
int mc_MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status);
int mc_MPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
                   MPI_Status *status);
int mc_MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                    MPI_Status statuses[]);
int mc_MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                    MPI_Status statuses[]);
int mc_MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
int mc_MPI_Request_free(MPI_Request *request);

/* What memcomm does around the MPI's own MPI_Start(all), MPI_Type_commit, MPI_Type_dup and
 * MPI_Finalize, for bindings that make that call themselves. */
void starting(int count, MPI_Request requests[]);
void type_committed(MPI_Datatype type);
void type_duplicated(MPI_Datatype from, MPI_Datatype to);
void finalizing(void);

#endif
