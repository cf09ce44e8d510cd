/* Collectives with derived datatypes (lib/coll/exchange.h), in every form of
 * interpose/coll_forms.h: MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw among all ranks of an
 * intracommunicator, and MPI_Neighbor_alltoall, _v and _w among a topology's neighbours. A
 * carried call packs each peer's block, calls the MPI's same collective on MPI_PACKED bytes,
 * and unpacks what arrived (a request's, when it completes); everything else (MPI_IN_PLACE,
 * intercommunicators, communicators without a topology for the neighbourhood calls, basic
 * and contiguous types, types memcomm does not handle) goes to the MPI unchanged. */
#include <stdlib.h>

#include "../base/alloc.h"
#include "../base/mpiutil.h"
#include "../coll/blocks.h"
#include "../core/config.h"
#include "../p2p/message.h"
#include "coll_forms.h"
#include "entry.h"

/* Carried only if some type of either side is not one known to pass (a quick test first). */
static bool all_pass(int sends, const MPI_Datatype *send, int recvs, const MPI_Datatype *recv)
{
    for (int i = 0; i < sends; i++)
        if (!message_passes(send[i]))
            return false;
    for (int i = 0; i < recvs; i++)
        if (!message_passes(recv[i]))
            return false;
    return true;
}

/* MPI_Alltoall and MPI_Neighbor_alltoall: one count and type per side. */
#define ALLTOALL_SHIM(NAME, PNAME, FORM, COUNT_T, WHO, USE, LARGE)                             \
    INTERPOSE(int, NAME,                                                                       \
              (const void *sendbuf, COUNT_T sendcount, MPI_Datatype sendtype, void *recvbuf,   \
               COUNT_T recvcount, MPI_Datatype recvtype, MPI_Comm comm FORM##_PARAMS))         \
    {                                                                                          \
        exchange *x;                                                                           \
        parties p;                                                                             \
        if (sendbuf == MPI_IN_PLACE ||                                                         \
            (message_passes(sendtype) && message_passes(recvtype)) || !WHO(comm, &p))  \
            goto unchanged;                                                                    \
        const double began = PMPI_Wtime(); /* a timed trial times the packing too */           \
        const exchange_form form = {.rank = p.rank, .uniform = true, .use = USE,              \
                                    .large_counts = LARGE, .aint_displs = LARGE,               \
                                    .in_place = -1, .kind = FORM##_KIND};                      \
        if (!blocks_exchange(&x, p.peers, true,                                                \
                   blocks_of(p.send, p.peers, (void *)sendbuf, sendtype, NULL, NULL, NULL,     \
                             &form, sendcount),                                                \
                   true,                                                                       \
                   blocks_of(p.recv, p.peers, recvbuf, recvtype, NULL, NULL, NULL, &form,      \
                             recvcount),                                                       \
                   &form))                                                                     \
            goto unchanged;                                                                    \
        if (x->send_packed) {                                                                  \
            sendbuf = x->send_staging;                                                         \
            sendcount = (COUNT_T)x->send_bytes[0];                                             \
            sendtype = MPI_PACKED;                                                             \
        }                                                                                      \
        if (x->recv_packed) {                                                                  \
            recvbuf = x->recv_staging;                                                         \
            recvcount = (COUNT_T)x->recv_bytes[0];                                             \
            recvtype = MPI_PACKED;                                                             \
        }                                                                                      \
        CALL_MPI(PNAME, FORM, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,      \
                 comm)                                                                         \
    }

/* MPI_Alltoallv and MPI_Neighbor_alltoallv: counts and displacements (in extents) per peer. */
#define ALLTOALLV_SHIM(NAME, PNAME, FORM, COUNT_T, DISPL_T, WHO, USE, LARGE)                   \
    INTERPOSE(int, NAME,                                                                       \
              (const void *sendbuf, const COUNT_T sendcounts[], const DISPL_T sdispls[],       \
               MPI_Datatype sendtype, void *recvbuf, const COUNT_T recvcounts[],               \
               const DISPL_T rdispls[], MPI_Datatype recvtype, MPI_Comm comm FORM##_PARAMS))   \
    {                                                                                          \
        exchange *x;                                                                           \
        parties p;                                                                             \
        if (sendbuf == MPI_IN_PLACE ||                                                         \
            (message_passes(sendtype) && message_passes(recvtype)) || !sendcounts ||   \
            !sdispls || !recvcounts || !rdispls || !WHO(comm, &p))                             \
            goto unchanged;                                                                    \
        const double began = PMPI_Wtime(); /* a timed trial times the packing too */           \
        const exchange_form form = {.rank = p.rank, .use = USE, .large_counts = LARGE,        \
                                    .aint_displs = LARGE, .in_place = -1,                      \
                                    .kind = FORM##_KIND};                                      \
        if (!blocks_exchange(&x, p.peers, true,                                                \
                   blocks_of(p.send, p.peers, (void *)sendbuf, sendtype, sendcounts, sdispls,  \
                             NULL, &form, 0),                                                  \
                   true,                                                                       \
                   blocks_of(p.recv, p.peers, recvbuf, recvtype, recvcounts, rdispls, NULL,    \
                             &form, 0),                                                        \
                   &form))                                                                     \
            goto unchanged;                                                                    \
        PACKED_VECTOR(send, sendcounts, sdispls, sendtype, [0], COUNT_T, DISPL_T)              \
        PACKED_VECTOR(recv, recvcounts, rdispls, recvtype, [0], COUNT_T, DISPL_T)              \
        CALL_MPI(PNAME, FORM, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,     \
                 rdispls, recvtype, comm)                                                      \
    }

/* MPI_Alltoallw and MPI_Neighbor_alltoallw: a type per peer, displacements in bytes (int, or
 * MPI_Aint in the neighbourhood and large-count forms: AINT). */
#define ALLTOALLW_SHIM(NAME, PNAME, FORM, COUNT_T, DISPL_T, WHO, USE, LARGE, AINT)             \
    INTERPOSE(int, NAME,                                                                       \
              (const void *sendbuf, const COUNT_T sendcounts[], const DISPL_T sdispls[],       \
               const MPI_Datatype sendtypes[], void *recvbuf, const COUNT_T recvcounts[],      \
               const DISPL_T rdispls[], const MPI_Datatype recvtypes[],                        \
               MPI_Comm comm FORM##_PARAMS))                                                   \
    {                                                                                          \
        exchange *x;                                                                           \
        parties p;                                                                             \
        if (sendbuf == MPI_IN_PLACE || !sendcounts || !sdispls || !sendtypes || !recvcounts || \
            !rdispls || !recvtypes || !WHO(comm, &p) ||                                        \
            all_pass(p.send, sendtypes, p.recv, recvtypes))                                    \
            goto unchanged;                                                                    \
        const double began = PMPI_Wtime(); /* a timed trial times the packing too */           \
        const exchange_form form = {.rank = p.rank, .use = USE, .large_counts = LARGE,        \
                                    .aint_displs = AINT, .in_place = -1,                       \
                                    .kind = FORM##_KIND};                                      \
        if (!blocks_exchange(&x, p.peers, true,                                                \
                   blocks_of(p.send, p.peers, (void *)sendbuf, MPI_DATATYPE_NULL, sendcounts,  \
                             sdispls, sendtypes, &form, 0),                                    \
                   true,                                                                       \
                   blocks_of(p.recv, p.peers, recvbuf, MPI_DATATYPE_NULL, recvcounts, rdispls, \
                             recvtypes, &form, 0),                                             \
                   &form))                                                                     \
            goto unchanged;                                                                    \
        PACKED_VECTOR(send, sendcounts, sdispls, sendtypes, , COUNT_T, DISPL_T)                \
        PACKED_VECTOR(recv, recvcounts, rdispls, recvtypes, , COUNT_T, DISPL_T)                \
        CALL_MPI(PNAME, FORM, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,    \
                 rdispls, recvtypes, comm)                                                     \
    }

/* the parties of the calls on all ranks, and of the neighbourhood calls */
#define ALL parties_everyone
#define NEIGHBOURS parties_neighbours

FORMS(ALLTOALL_SHIM, Alltoall, alltoall, , int, ALL, USE_ALLTOALL, false)
FORMS(ALLTOALLV_SHIM, Alltoallv, alltoallv, , int, int, ALL, USE_ALLTOALLV, false)
FORMS(ALLTOALLW_SHIM, Alltoallw, alltoallw, , int, int, ALL, USE_ALLTOALLW, false, false)
FORMS(ALLTOALL_SHIM, Neighbor_alltoall, neighbor_alltoall, , int, NEIGHBOURS,
      USE_NEIGHBOR_ALLTOALL, false)
FORMS(ALLTOALLV_SHIM, Neighbor_alltoallv, neighbor_alltoallv, , int, int, NEIGHBOURS,
      USE_NEIGHBOR_ALLTOALLV, false)
FORMS(ALLTOALLW_SHIM, Neighbor_alltoallw, neighbor_alltoallw, , int, MPI_Aint, NEIGHBOURS,
      USE_NEIGHBOR_ALLTOALLW, false, true)
#if MEMCOMM_HAVE_LARGE_COUNT
FORMS(ALLTOALL_SHIM, Alltoall, alltoall, _c, MPI_Count, ALL, USE_ALLTOALL, true)
FORMS(ALLTOALLV_SHIM, Alltoallv, alltoallv, _c, MPI_Count, MPI_Aint, ALL, USE_ALLTOALLV, true)
FORMS(ALLTOALLW_SHIM, Alltoallw, alltoallw, _c, MPI_Count, MPI_Aint, ALL, USE_ALLTOALLW, true,
      true)
FORMS(ALLTOALL_SHIM, Neighbor_alltoall, neighbor_alltoall, _c, MPI_Count, NEIGHBOURS,
      USE_NEIGHBOR_ALLTOALL, true)
FORMS(ALLTOALLV_SHIM, Neighbor_alltoallv, neighbor_alltoallv, _c, MPI_Count, MPI_Aint,
      NEIGHBOURS, USE_NEIGHBOR_ALLTOALLV, true)
FORMS(ALLTOALLW_SHIM, Neighbor_alltoallw, neighbor_alltoallw, _c, MPI_Count, MPI_Aint,
      NEIGHBOURS, USE_NEIGHBOR_ALLTOALLW, true, true)
#endif
