/* The rooted and gathering collectives with derived datatypes (lib/coll/exchange.h), in every
 * form of interpose/coll_forms.h: MPI_Bcast,
 * MPI_Gather(v), MPI_Scatter(v) and MPI_Allgather(v) on an intracommunicator, and
 * MPI_Neighbor_allgather(v) among a topology's neighbours. A carried call packs the caller's
 * side that is worth it into a staging buffer, calls the MPI's same collective with the
 * user's counts of a contiguous stand-in type of the same size (by element: the MPI splits
 * these calls by element counts, which must come out alike on every rank whether it runs
 * memcomm or not), and unpacks what arrived. Arguments that the MPI ignores on a rank (the
 * receive side of a gather away from the root, the send side of a scatter) are not looked at.
 * MPI_IN_PLACE is carried: the caller's own block is packed into the receive staging, where
 * the MPI reads it, and is not unpacked. Intercommunicators, an invalid root, basic and
 * contiguous types and types memcomm does not handle go to the MPI unchanged. */
#include "../base/mpiutil.h"
#include "../coll/blocks.h"
#include "../p2p/message.h"
#include "coll_forms.h"
#include "entry.h"

/* Whether a side the call has passes (no type of it is worth looking at). */
static bool side_passes(bool present, MPI_Datatype type)
{
    return !present || message_passes(type);
}

/* The rank's parties for a rooted call, or false (memcomm off, an intercommunicator, a root
 * out of range: the MPI's call as it came). */
static bool rooted(MPI_Comm comm, int root, parties *p)
{
    return parties_everyone(comm, p) && root >= 0 && root < p->peers;
}

/* The form of a rooted or gathering call: by element, the caller's own receive block kept
 * when `in_place`. */
static exchange_form form_of(const parties *p, path_use use, bool large, bool in_place,
                             exchange_kind kind)
{
    return (exchange_form){.rank = p->rank, .uniform = true, .use = use, .large_counts = large,
                           .aint_displs = large, .by_element = true,
                           .in_place = in_place ? p->rank : -1, .kind = kind};
}

/* A side of a block per peer (the root's of a rooted call, or an allgather's receive side):
 * `count` instances each one after another from `buf`, or (`vector`) at `counts` and
 * `displs` in units of the type's extent. */
typedef struct {
    void *buf;
    MPI_Datatype type;
    bool vector;
    const void *counts, *displs;
    int64_t count;
} peers_side;

/* The exchange of a rooted call, or NULL: not carried (the MPI's call as it came). A gather
 * (`gathers`) sends every rank's `one` block to the root, which receives `many`; a scatter
 * the other way round. `in_place`: the root's own block stays where it is. Arguments the MPI
 * ignores on a rank are not looked at; types known to pass go to the MPI before any query of
 * the communicator. `*began`: when a timed trial starts. */
static exchange *rooted_start(MPI_Comm comm, int root, bool gathers, bool in_place,
                              coll_block one, peers_side many, path_use use, bool large,
                              exchange_kind kind, double *began)
{
    parties p;
    if ((message_passes(one.type) && message_passes(many.type)) ||
        !rooted(comm, root, &p) || (in_place && p.rank != root))
        return NULL;
    const bool at_root = p.rank == root, has_one = !in_place;
    if ((at_root && many.vector && (!many.counts || !many.displs)) ||
        (side_passes(has_one, one.type) && side_passes(at_root, many.type)))
        return NULL;
    *began = PMPI_Wtime();
    const exchange_form form = form_of(&p, use, large, gathers && in_place, kind);
    coll_block *ones = has_one ? block_at(root, p.peers, one.buf, one.count, one.type) : NULL;
    coll_block *blocks = at_root ? blocks_of(p.peers, p.peers, many.buf, many.type, many.counts,
                                             many.displs, NULL, &form, many.count)
                                 : NULL;
    exchange *x;
    const bool carried = gathers ? blocks_exchange(&x, p.peers, has_one, ones, at_root, blocks,
                                                   &form)
                                 : blocks_exchange(&x, p.peers, at_root, blocks, has_one, ones,
                                                   &form);
    return carried ? x : NULL;
}

/* The exchange of an allgather among `who`'s peers, or NULL: not carried. Every rank sends
 * its `one` block to every peer (none when `in_place`: its own block is in `all`, on all
 * ranks only) and receives `all`, a block from each. `*began`: when a timed trial starts. */
static exchange *allgather_start(MPI_Comm comm, bool (*who)(MPI_Comm, parties *),
                                 bool in_place, coll_block one, peers_side all, path_use use,
                                 bool large, exchange_kind kind, double *began)
{
    parties p;
    if ((side_passes(!in_place, one.type) && message_passes(all.type)) ||
        (all.vector && (!all.counts || !all.displs)) || !who(comm, &p) ||
        (in_place && p.rank < 0))
        return NULL;
    *began = PMPI_Wtime();
    const exchange_form form = form_of(&p, use, large, in_place, kind);
    coll_block *ones = in_place ? NULL : block_at(0, p.peers, one.buf, one.count, one.type);
    coll_block *blocks = blocks_of(p.recv, p.peers, all.buf, all.type, all.counts, all.displs,
                                   NULL, &form, all.count);
    exchange *x;
    return blocks_exchange(&x, p.peers, !in_place, ones, true, blocks, &form) ? x : NULL;
}

/* MPI_Bcast: the root sends its buffer, the others receive into theirs. */
#define BCAST_SHIM(NAME, PNAME, FORM, COUNT_T, LARGE)                                          \
    INTERPOSE(int, NAME,                                                                       \
              (void *buffer, COUNT_T count, MPI_Datatype datatype, int root,                   \
               MPI_Comm comm FORM##_PARAMS))                                                   \
    {                                                                                          \
        exchange *x;                                                                           \
        parties p;                                                                             \
        if (message_passes(datatype) || !rooted(comm, root, &p))                           \
            goto unchanged;                                                                    \
        const double began = PMPI_Wtime(); /* a timed trial times the packing too */           \
        const bool sends = p.rank == root;                                                     \
        exchange_form form = form_of(&p, USE_BCAST, LARGE, false, FORM##_KIND);                \
        form.rank = EXCHANGE_NO_SELF;                                                          \
        coll_block *mine = block_at(0, 1, buffer, count, datatype);                            \
        if (!blocks_exchange(&x, 1, sends, sends ? mine : NULL, !sends, sends ? NULL : mine,   \
                             &form))                                                           \
            goto unchanged;                                                                    \
        if (x->send_packed || x->recv_packed) {                                                \
            buffer = sends ? x->send_staging : x->recv_staging;                                \
            datatype = sends ? x->send_types[0] : x->recv_types[0];                            \
        }                                                                                      \
        CALL_MPI(PNAME, FORM, buffer, count, datatype, root, comm)                             \
    }

/* MPI_Gather (GATHERS) and MPI_Scatter: every rank sends a block to the root, which receives
 * one from each rank, one after another; or the root sends them and every rank receives
 * one. None for the root's own when its buffer on the one side is MPI_IN_PLACE. */
#define ROOTED_SHIM(NAME, PNAME, FORM, COUNT_T, USE, LARGE, GATHERS)                           \
    INTERPOSE(int, NAME,                                                                       \
              (const void *sendbuf, COUNT_T sendcount, MPI_Datatype sendtype, void *recvbuf,   \
               COUNT_T recvcount, MPI_Datatype recvtype, int root,                             \
               MPI_Comm comm FORM##_PARAMS))                                                   \
    {                                                                                          \
        double began;                                                                          \
        const coll_block one = GATHERS ? (coll_block){(void *)sendbuf, sendcount, sendtype}    \
                                       : (coll_block){recvbuf, recvcount, recvtype};           \
        const peers_side many =                                                                \
            GATHERS ? (peers_side){recvbuf, recvtype, false, NULL, NULL, recvcount}            \
                    : (peers_side){(void *)sendbuf, sendtype, false, NULL, NULL, sendcount};   \
        const bool in_place = (GATHERS ? sendbuf : recvbuf) == MPI_IN_PLACE;                   \
        exchange *x = rooted_start(comm, root, GATHERS, in_place, one, many, USE, LARGE,       \
                                   FORM##_KIND, &began);                                       \
        if (!x)                                                                                \
            goto unchanged;                                                                    \
        PACKED_BLOCKS(send)                                                                    \
        PACKED_BLOCKS(recv)                                                                    \
        CALL_MPI(PNAME, FORM, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,      \
                 root, comm)                                                                   \
    }

/* MPI_Gatherv: the root's blocks at displacements, in units of the receive type's extent. */
#define GATHERV_SHIM(NAME, PNAME, FORM, COUNT_T, DISPL_T, LARGE)                               \
    INTERPOSE(int, NAME,                                                                       \
              (const void *sendbuf, COUNT_T sendcount, MPI_Datatype sendtype, void *recvbuf,   \
               const COUNT_T recvcounts[], const DISPL_T displs[], MPI_Datatype recvtype,      \
               int root, MPI_Comm comm FORM##_PARAMS))                                         \
    {                                                                                          \
        double began;                                                                          \
        const coll_block one = {(void *)sendbuf, sendcount, sendtype};                         \
        const peers_side many = {recvbuf, recvtype, true, recvcounts, displs, 0};              \
        exchange *x = rooted_start(comm, root, true, sendbuf == MPI_IN_PLACE, one, many,       \
                                   USE_GATHERV, LARGE, FORM##_KIND, &began);                   \
        if (!x)                                                                                \
            goto unchanged;                                                                    \
        PACKED_BLOCKS(send)                                                                    \
        PACKED_VECTOR(recv, recvcounts, displs, recvtype, [0], COUNT_T, DISPL_T)               \
        CALL_MPI(PNAME, FORM, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,       \
                 recvtype, root, comm)                                                         \
    }

/* MPI_Scatterv: the root's blocks at displacements, in units of the send type's extent. */
#define SCATTERV_SHIM(NAME, PNAME, FORM, COUNT_T, DISPL_T, LARGE)                              \
    INTERPOSE(int, NAME,                                                                       \
              (const void *sendbuf, const COUNT_T sendcounts[], const DISPL_T displs[],        \
               MPI_Datatype sendtype, void *recvbuf, COUNT_T recvcount,                        \
               MPI_Datatype recvtype, int root, MPI_Comm comm FORM##_PARAMS))                  \
    {                                                                                          \
        double began;                                                                          \
        const coll_block one = {recvbuf, recvcount, recvtype};                                 \
        const peers_side many = {(void *)sendbuf, sendtype, true, sendcounts, displs, 0};      \
        exchange *x = rooted_start(comm, root, false, recvbuf == MPI_IN_PLACE, one, many,      \
                                   USE_SCATTERV, LARGE, FORM##_KIND, &began);                  \
        if (!x)                                                                                \
            goto unchanged;                                                                    \
        PACKED_VECTOR(send, sendcounts, displs, sendtype, [0], COUNT_T, DISPL_T)               \
        PACKED_BLOCKS(recv)                                                                    \
        CALL_MPI(PNAME, FORM, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,       \
                 recvtype, root, comm)                                                         \
    }

/* MPI_Allgather and MPI_Neighbor_allgather: one block sent to every peer (none when it is
 * MPI_IN_PLACE, on all ranks only), one received from each, one after another. */
#define ALLGATHER_SHIM(NAME, PNAME, FORM, COUNT_T, WHO, USE, LARGE)                            \
    INTERPOSE(int, NAME,                                                                       \
              (const void *sendbuf, COUNT_T sendcount, MPI_Datatype sendtype, void *recvbuf,   \
               COUNT_T recvcount, MPI_Datatype recvtype, MPI_Comm comm FORM##_PARAMS))         \
    {                                                                                          \
        double began;                                                                          \
        const coll_block one = {(void *)sendbuf, sendcount, sendtype};                         \
        const peers_side all = {recvbuf, recvtype, false, NULL, NULL, recvcount};              \
        exchange *x = allgather_start(comm, WHO, sendbuf == MPI_IN_PLACE, one, all, USE,       \
                                      LARGE, FORM##_KIND, &began);                             \
        if (!x)                                                                                \
            goto unchanged;                                                                    \
        PACKED_BLOCKS(send)                                                                    \
        PACKED_BLOCKS(recv)                                                                    \
        CALL_MPI(PNAME, FORM, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,      \
                 comm)                                                                         \
    }

/* MPI_Allgatherv and MPI_Neighbor_allgatherv: the received blocks at displacements, in units
 * of the receive type's extent. */
#define ALLGATHERV_SHIM(NAME, PNAME, FORM, COUNT_T, DISPL_T, WHO, USE, LARGE)                  \
    INTERPOSE(int, NAME,                                                                       \
              (const void *sendbuf, COUNT_T sendcount, MPI_Datatype sendtype, void *recvbuf,   \
               const COUNT_T recvcounts[], const DISPL_T displs[], MPI_Datatype recvtype,      \
               MPI_Comm comm FORM##_PARAMS))                                                   \
    {                                                                                          \
        double began;                                                                          \
        const coll_block one = {(void *)sendbuf, sendcount, sendtype};                         \
        const peers_side all = {recvbuf, recvtype, true, recvcounts, displs, 0};               \
        exchange *x = allgather_start(comm, WHO, sendbuf == MPI_IN_PLACE, one, all, USE,       \
                                      LARGE, FORM##_KIND, &began);                             \
        if (!x)                                                                                \
            goto unchanged;                                                                    \
        PACKED_BLOCKS(send)                                                                    \
        PACKED_VECTOR(recv, recvcounts, displs, recvtype, [0], COUNT_T, DISPL_T)               \
        CALL_MPI(PNAME, FORM, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,       \
                 recvtype, comm)                                                               \
    }

/* the parties of the calls on all ranks, and of the neighbourhood calls */
#define ALL parties_everyone
#define NEIGHBOURS parties_neighbours

FORMS(BCAST_SHIM, Bcast, bcast, , int, false)
FORMS(ROOTED_SHIM, Gather, gather, , int, USE_GATHER, false, true)
FORMS(GATHERV_SHIM, Gatherv, gatherv, , int, int, false)
FORMS(ROOTED_SHIM, Scatter, scatter, , int, USE_SCATTER, false, false)
FORMS(SCATTERV_SHIM, Scatterv, scatterv, , int, int, false)
FORMS(ALLGATHER_SHIM, Allgather, allgather, , int, ALL, USE_ALLGATHER, false)
FORMS(ALLGATHERV_SHIM, Allgatherv, allgatherv, , int, int, ALL, USE_ALLGATHERV, false)
FORMS(ALLGATHER_SHIM, Neighbor_allgather, neighbor_allgather, , int, NEIGHBOURS,
      USE_NEIGHBOR_ALLGATHER, false)
FORMS(ALLGATHERV_SHIM, Neighbor_allgatherv, neighbor_allgatherv, , int, int, NEIGHBOURS,
      USE_NEIGHBOR_ALLGATHERV, false)
#if MEMCOMM_HAVE_LARGE_COUNT
FORMS(BCAST_SHIM, Bcast, bcast, _c, MPI_Count, true)
FORMS(ROOTED_SHIM, Gather, gather, _c, MPI_Count, USE_GATHER, true, true)
FORMS(GATHERV_SHIM, Gatherv, gatherv, _c, MPI_Count, MPI_Aint, true)
FORMS(ROOTED_SHIM, Scatter, scatter, _c, MPI_Count, USE_SCATTER, true, false)
FORMS(SCATTERV_SHIM, Scatterv, scatterv, _c, MPI_Count, MPI_Aint, true)
FORMS(ALLGATHER_SHIM, Allgather, allgather, _c, MPI_Count, ALL, USE_ALLGATHER, true)
FORMS(ALLGATHERV_SHIM, Allgatherv, allgatherv, _c, MPI_Count, MPI_Aint, ALL, USE_ALLGATHERV,
      true)
FORMS(ALLGATHER_SHIM, Neighbor_allgather, neighbor_allgather, _c, MPI_Count, NEIGHBOURS,
      USE_NEIGHBOR_ALLGATHER, true)
FORMS(ALLGATHERV_SHIM, Neighbor_allgatherv, neighbor_allgatherv, _c, MPI_Count, MPI_Aint,
      NEIGHBOURS, USE_NEIGHBOR_ALLGATHERV, true)
#endif
