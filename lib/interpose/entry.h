/* entry: the C entry points that memcomm's Fortran bindings (fortran.c) share.
 *
 * Each is defined once, as the hidden mc_NAME, and exported as NAME by an alias. The
 * Fortran bindings call mc_NAME directly: a call of NAME from inside memcomm would go
 * through the dynamic linker to the first NAME in the process, which is another tool's
 * when one is preloaded before memcomm, and that tool hands it to PMPI_NAME, past memcomm. */
#ifndef MEMCOMM_ENTRY_H
#define MEMCOMM_ENTRY_H

#include <mpi.h>
#include <stdbool.h>

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

/* The MPI-4.1 array forms of MPI_Request_get_status, where the MPI has them: their requests
 * const as the MPI's header declares them (Intel MPI 2021's are not). */
#if MEMCOMM_HAS_STATUS_ARRAYS
#if MEMCOMM_STATUS_ARRAYS_CONST
#define REQUESTS_CONST const
#else
#define REQUESTS_CONST
#endif
int mc_MPI_Request_get_status_any(int count, REQUESTS_CONST MPI_Request requests[], int *index,
                                  int *flag, MPI_Status *status);
int mc_MPI_Request_get_status_all(int count, REQUESTS_CONST MPI_Request requests[], int *flag,
                                  MPI_Status statuses[]);
int mc_MPI_Request_get_status_some(int count, REQUESTS_CONST MPI_Request requests[],
                                   int *outcount, int indices[], MPI_Status statuses[]);
#endif

/* Sends, receives and packs (Open MPI's Fortran bindings reach PMPI_ for them). */
int mc_MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int mc_MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int mc_MPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int mc_MPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int mc_MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                MPI_Status *status);
int mc_MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg, MPI_Status *status);
int mc_MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                    int recvtag, MPI_Comm comm, MPI_Status *status);
int mc_MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag,
                            int source, int recvtag, MPI_Comm comm, MPI_Status *status);
#define STARTING(NAME, BUF_T)                                                                  \
    int mc_##NAME(BUF_T buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,   \
                  MPI_Request *request);
STARTING(MPI_Isend, const void *)
STARTING(MPI_Issend, const void *)
STARTING(MPI_Irsend, const void *)
STARTING(MPI_Ibsend, const void *)
STARTING(MPI_Send_init, const void *)
STARTING(MPI_Ssend_init, const void *)
STARTING(MPI_Rsend_init, const void *)
STARTING(MPI_Bsend_init, const void *)
STARTING(MPI_Irecv, void *)
STARTING(MPI_Recv_init, void *)
#undef STARTING
int mc_MPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg,
                  MPI_Request *request);
int mc_MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
                int *position, MPI_Comm comm);
int mc_MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                  MPI_Datatype datatype, MPI_Comm comm);

/* Collectives, blocking and non-blocking (REQ: `, MPI_Request *`). */
#define ONE_EACH                                                                               \
    const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,   \
        MPI_Datatype recvtype
#define V_EACH(DISPL_T)                                                                        \
    const void *sendbuf, const int sendcounts[], const DISPL_T sdispls[],                      \
        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const DISPL_T rdispls[], \
        MPI_Datatype recvtype
#define W_EACH(DISPL_T)                                                                        \
    const void *sendbuf, const int sendcounts[], const DISPL_T sdispls[],                      \
        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],                 \
        const DISPL_T rdispls[], const MPI_Datatype recvtypes[]
#define TO_ROOT                                                                                \
    const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,                  \
        const int recvcounts[], const int displs[], MPI_Datatype recvtype
#define FROM_ROOT                                                                              \
    const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,    \
        void *recvbuf, int recvcount, MPI_Datatype recvtype
#define COLLECTIVE(NAME, INAME, ...)                                                           \
    int mc_MPI_##NAME(__VA_ARGS__);                                                            \
    int mc_MPI_##INAME(__VA_ARGS__, MPI_Request *request);
COLLECTIVE(Alltoall, Ialltoall, ONE_EACH, MPI_Comm comm)
COLLECTIVE(Alltoallv, Ialltoallv, V_EACH(int), MPI_Comm comm)
COLLECTIVE(Alltoallw, Ialltoallw, W_EACH(int), MPI_Comm comm)
COLLECTIVE(Neighbor_alltoall, Ineighbor_alltoall, ONE_EACH, MPI_Comm comm)
COLLECTIVE(Neighbor_alltoallv, Ineighbor_alltoallv, V_EACH(int), MPI_Comm comm)
COLLECTIVE(Neighbor_alltoallw, Ineighbor_alltoallw, W_EACH(MPI_Aint), MPI_Comm comm)
COLLECTIVE(Allgather, Iallgather, ONE_EACH, MPI_Comm comm)
COLLECTIVE(Neighbor_allgather, Ineighbor_allgather, ONE_EACH, MPI_Comm comm)
COLLECTIVE(Allgatherv, Iallgatherv, TO_ROOT, MPI_Comm comm)
COLLECTIVE(Neighbor_allgatherv, Ineighbor_allgatherv, TO_ROOT, MPI_Comm comm)
COLLECTIVE(Gather, Igather, ONE_EACH, int root, MPI_Comm comm)
COLLECTIVE(Scatter, Iscatter, ONE_EACH, int root, MPI_Comm comm)
COLLECTIVE(Gatherv, Igatherv, TO_ROOT, int root, MPI_Comm comm)
COLLECTIVE(Scatterv, Iscatterv, FROM_ROOT, int root, MPI_Comm comm)
COLLECTIVE(Bcast, Ibcast, void *buffer, int count, MPI_Datatype datatype, int root,
           MPI_Comm comm)
#undef COLLECTIVE

/* MPI-IO reads and writes with int counts (file.c; Open MPI's Fortran bindings reach PMPI_
 * for them). */
#if MEMCOMM_HAVE_MPI_IO
#include "file_forms.h"
#define BLOCKING_FILE(DIR, NAME, UPPER, AT)                                                    \
    int mc_MPI_File_##NAME(MPI_File fh FILE_AT_PARAM(AT), FILE_BUF_##DIR buf, int count,       \
                           MPI_Datatype type, MPI_Status *status);
#define NONBLOCKING_FILE(DIR, NAME, UPPER, AT)                                                 \
    int mc_MPI_File_##NAME(MPI_File fh FILE_AT_PARAM(AT), FILE_BUF_##DIR buf, int count,       \
                           MPI_Datatype type, MPI_Request *request);
#define SPLIT_FILE(DIR, NAME, UPPER, AT)                                                       \
    int mc_MPI_File_##NAME##_begin(MPI_File fh FILE_AT_PARAM(AT), FILE_BUF_##DIR buf,          \
                                   int count, MPI_Datatype type);                              \
    int mc_MPI_File_##NAME##_end(MPI_File fh, FILE_BUF_##DIR buf, MPI_Status *status);
FILE_BLOCKING_FORMS(BLOCKING_FILE)
FILE_NONBLOCKING_FORMS(NONBLOCKING_FILE)
FILE_SPLIT_FORMS(SPLIT_FILE)
#undef BLOCKING_FILE
#undef NONBLOCKING_FILE
#undef SPLIT_FILE
#endif

/* What memcomm does around the MPI's own MPI_Start(all), MPI_Type_commit, MPI_Type_dup and
 * MPI_Finalize, for bindings that make that call themselves. */
void starting(int count, MPI_Request requests[]);
void type_committed(MPI_Datatype type);
void type_duplicated(MPI_Datatype from, MPI_Datatype to);
void finalizing(void);

/* The Fortran bindings' probe (fortran.c), held across fork() before everything else: a probe
 * calls the binding, which may call memcomm's C entry points. None without Fortran handles
 * (a build against the MPI-5 standard ABI). */
#if MEMCOMM_HAVE_FORTRAN_HANDLES
void fortran_fork_lock(void);
void fortran_fork_unlock(bool child);
#else
static inline void fortran_fork_lock(void) {}
static inline void fortran_fork_unlock(bool child) { (void)child; }
#endif

#endif
