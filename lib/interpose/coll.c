/* Collectives with derived datatypes (lib/coll/exchange.h): MPI_Alltoall, MPI_Alltoallv and
 * MPI_Alltoallw, blocking, in the int form and, where the MPI declares them, the large-count
 * form. A carried call packs each peer's block, calls the MPI's same collective on
 * MPI_PACKED bytes, and unpacks what arrived; everything else (MPI_IN_PLACE,
 * intercommunicators, basic and contiguous types, types memcomm does not handle) goes to the
 * MPI unchanged. */
#include <stdlib.h>

#include "../base/alloc.h"
#include "../base/mpiutil.h"
#include "../coll/exchange.h"
#include "../core/config.h"
#include "../p2p/message.h"

/* Whether a collective on `comm` may be carried at all: memcomm enabled, an
 * intracommunicator; `*peers` is its size and `*rank` the caller's. */
static bool carriable(MPI_Comm comm, int *peers, int *rank)
{
    int inter = 1;
    return !config_get()->disable && comm != MPI_COMM_NULL &&
           PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter &&
           PMPI_Comm_size(comm, peers) == MPI_SUCCESS &&
           PMPI_Comm_rank(comm, rank) == MPI_SUCCESS;
}

/* `peers` blocks of `count` instances of `type`, one after another from `buf` (Alltoall's
 * layout), or at displacements `displs` in units of the type's extent (Alltoallv's), or in
 * bytes with a type per peer (Alltoallw's). */
static coll_block *blocks_of(int peers, void *buf, MPI_Datatype type, const void *counts,
                             const void *displs, const MPI_Datatype *types, bool large,
                             int64_t one_count)
{
    coll_block *b = mc_malloc((size_t)peers * sizeof *b);
    MPI_Aint lb = 0, extent = 0;
    if (!b || (!types && PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS)) {
        free(b);
        return NULL;
    }
    for (int i = 0; i < peers; i++) {
        const int64_t count = !counts ? one_count
                              : large ? (int64_t)((const MPI_Count *)counts)[i]
                                      : ((const int *)counts)[i];
        const int64_t displ = !displs  ? i * one_count
                              : large ? (int64_t)((const MPI_Aint *)displs)[i]
                                      : ((const int *)displs)[i];
        b[i] = (coll_block){(char *)buf + (types ? displ : displ * extent), count,
                            types ? types[i] : type};
    }
    return b;
}

/* Start an exchange for blocks built by blocks_of, or say no. */
static bool start(exchange *x, int peers, coll_block *send, coll_block *recv, int rank,
                  bool uniform, path_use use, bool large)
{
    const bool carried =
        send && recv && exchange_start(x, peers, send, recv, rank, uniform, use, large);
    free(send);
    free(recv);
    return carried;
}

#define ALLTOALL_SHIM(NAME, PNAME, COUNT_T)                                                    \
    EXPORT int NAME(const void *sendbuf, COUNT_T sendcount, MPI_Datatype sendtype,             \
                    void *recvbuf, COUNT_T recvcount, MPI_Datatype recvtype, MPI_Comm comm)    \
    {                                                                                          \
        exchange x;                                                                            \
        int peers, rank;                                                                       \
        const double began = PMPI_Wtime(); /* a timed trial times the packing too */           \
        if (sendbuf == MPI_IN_PLACE ||                                                         \
            (message_passes_all(sendtype) && message_passes_all(recvtype)) ||                  \
            !carriable(comm, &peers, &rank) ||                                                 \
            !start(&x, peers,                                                                  \
                   blocks_of(peers, (void *)sendbuf, sendtype, NULL, NULL, NULL, false,        \
                             sendcount),                                                       \
                   blocks_of(peers, recvbuf, recvtype, NULL, NULL, NULL, false, recvcount),    \
                   rank, true, USE_ALLTOALL, false))                                           \
            return PNAME(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);    \
        if (x.send_packed) {                                                                   \
            sendbuf = x.send_staging;                                                          \
            sendcount = (COUNT_T)x.send_bytes[0];                                              \
            sendtype = MPI_PACKED;                                                             \
        }                                                                                      \
        if (x.recv_packed) {                                                                   \
            recvbuf = x.recv_staging;                                                          \
            recvcount = (COUNT_T)x.recv_bytes[0];                                              \
            recvtype = MPI_PACKED;                                                             \
        }                                                                                      \
        int rc = PNAME(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);      \
        exchange_finish(&x, rc, began);                                                        \
        return rc;                                                                             \
    }

/* A side of Alltoallv or Alltoallw that exchange_start packed: its MPI arguments. */
#define PACKED_SIDE(SIDE)                                                                      \
    if (x.SIDE##_packed) {                                                                     \
        SIDE##buf = x.SIDE##_staging;                                                          \
        SIDE##counts = x.SIDE##_counts;                                                        \
        SIDE##displs = x.SIDE##_displs;                                                        \
        SIDE##types = x.packed;                                                                \
    }

#define ALLTOALLV_SHIM(NAME, PNAME, COUNT_T, DISPL_T, LARGE)                                   \
    EXPORT int NAME(const void *sendbuf, const COUNT_T sendcounts[], const DISPL_T sdispls[],  \
                    MPI_Datatype sendtype, void *recvbuf, const COUNT_T recvcounts[],          \
                    const DISPL_T rdispls[], MPI_Datatype recvtype, MPI_Comm comm)             \
    {                                                                                          \
        exchange x;                                                                            \
        int peers, rank;                                                                       \
        const double began = PMPI_Wtime(); /* a timed trial times the packing too */           \
        if (sendbuf == MPI_IN_PLACE ||                                                         \
            (message_passes_all(sendtype) && message_passes_all(recvtype)) ||                  \
            !sendcounts || !sdispls || !recvcounts || !rdispls ||                              \
            !carriable(comm, &peers, &rank) ||                                                 \
            !start(&x, peers,                                                                  \
                   blocks_of(peers, (void *)sendbuf, sendtype, sendcounts, sdispls, NULL,      \
                             LARGE, 0),                                                        \
                   blocks_of(peers, recvbuf, recvtype, recvcounts, rdispls, NULL, LARGE, 0),   \
                   rank, false, USE_ALLTOALLV, LARGE))                                         \
            return PNAME(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, \
                         recvtype, comm);                                                      \
        const DISPL_T *senddispls = sdispls, *recvdispls = rdispls;                            \
        const MPI_Datatype *sendtypes = &sendtype, *recvtypes = &recvtype;                     \
        PACKED_SIDE(send)                                                                      \
        PACKED_SIDE(recv)                                                                      \
        int rc = PNAME(sendbuf, sendcounts, senddispls, sendtypes[0], recvbuf, recvcounts,     \
                       recvdispls, recvtypes[0], comm);                                        \
        exchange_finish(&x, rc, began);                                                        \
        return rc;                                                                             \
    }

/* Carried only if no type of either side is one known to pass (a quick test first). */
static bool all_pass(int peers, const MPI_Datatype *send, const MPI_Datatype *recv)
{
    for (int i = 0; i < peers; i++)
        if (!message_passes_all(send[i]) || !message_passes_all(recv[i]))
            return false;
    return true;
}

#define ALLTOALLW_SHIM(NAME, PNAME, COUNT_T, DISPL_T, LARGE)                                   \
    EXPORT int NAME(const void *sendbuf, const COUNT_T sendcounts[], const DISPL_T sdispls[],  \
                    const MPI_Datatype sendtypes[], void *recvbuf, const COUNT_T recvcounts[], \
                    const DISPL_T rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)    \
    {                                                                                          \
        exchange x;                                                                            \
        int peers, rank;                                                                       \
        const double began = PMPI_Wtime(); /* a timed trial times the packing too */           \
        if (sendbuf == MPI_IN_PLACE || !sendcounts || !sdispls || !sendtypes || !recvcounts || \
            !rdispls || !recvtypes || !carriable(comm, &peers, &rank) ||                       \
            all_pass(peers, sendtypes, recvtypes) ||                                           \
            !start(&x, peers,                                                                  \
                   blocks_of(peers, (void *)sendbuf, MPI_DATATYPE_NULL, sendcounts, sdispls,   \
                             sendtypes, LARGE, 0),                                             \
                   blocks_of(peers, recvbuf, MPI_DATATYPE_NULL, recvcounts, rdispls,           \
                             recvtypes, LARGE, 0),                                             \
                   rank, false, USE_ALLTOALLW, LARGE))                                         \
            return PNAME(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,         \
                         rdispls, recvtypes, comm);                                            \
        const DISPL_T *senddispls = sdispls, *recvdispls = rdispls;                            \
        PACKED_SIDE(send)                                                                      \
        PACKED_SIDE(recv)                                                                      \
        int rc = PNAME(sendbuf, sendcounts, senddispls, sendtypes, recvbuf, recvcounts,        \
                       recvdispls, recvtypes, comm);                                           \
        exchange_finish(&x, rc, began);                                                        \
        return rc;                                                                             \
    }

ALLTOALL_SHIM(MPI_Alltoall, PMPI_Alltoall, int)
ALLTOALLV_SHIM(MPI_Alltoallv, PMPI_Alltoallv, int, int, false)
ALLTOALLW_SHIM(MPI_Alltoallw, PMPI_Alltoallw, int, int, false)
#if MEMCOMM_HAVE_LARGE_COUNT
ALLTOALL_SHIM(MPI_Alltoall_c, PMPI_Alltoall_c, MPI_Count)
ALLTOALLV_SHIM(MPI_Alltoallv_c, PMPI_Alltoallv_c, MPI_Count, MPI_Aint, true)
ALLTOALLW_SHIM(MPI_Alltoallw_c, PMPI_Alltoallw_c, MPI_Count, MPI_Aint, true)
#endif
