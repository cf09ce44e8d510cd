/* exchange: one collective call's data, as packed bytes per peer.
 *
 * A collective that moves derived datatypes is carried by packing what each peer gets into
 * one staging buffer, peer after peer, calling the MPI's same collective on the packed bytes
 * (the same function, so ranks without memcomm take part unchanged), and unpacking each
 * peer's bytes from a second staging buffer into the user's blocks. The packed bytes go as
 * - MPI_PACKED, counted in bytes (the alltoalls: MPI_PACKED matches any type signature of
 *   the same bytes, and the MPIs move each peer's block as one message), or
 * - `by_element` (the rooted and gathering collectives): the user's counts of a contiguous
 *   stand-in of each type's size (analysis_stand_in). Open MPI splits a broadcast, gather or
 *   scatter into segments of whole elements, counted on each rank from its own type's size:
 *   bytes as MPI_PACKED on one rank and typed on another would split differently.
 *
 * Each side is decided alone: it is packed only when
 * - memcomm can pack every non-empty block of it (any type its engine handles, basic types
 *   included, each in host memory at a non-NULL address),
 * - at least one of its blocks is worth packing (message_worth_packing: blocks not long),
 *   or packing long blocks too is the path measured (below),
 * - for the receive side, no block overlaps itself or another (the MPI would write
 *   overlapping bytes in an order of its own),
 * - and all its packed bytes fit an int (the MPI's int displacements).
 * A side not packed goes to the MPI as the user gave it (the packed bytes on the other side
 * match it): the send side of an FFT transpose, blocks of whole rows, streams from the
 * user's buffer with no copy. In the forms with counts and displacements per peer (v and
 * w), such a side whose blocks are each one run of memory goes as MPI_PACKED bytes in
 * place, when the other side is packed: MPICH moves a contiguous subarray type half as fast
 * as the same bytes (an Alltoallw of 67 MB per peer, 2 ranks: 75 ms against 45). A call
 * with neither side packed, with a negative count, or when memory is short, goes to the MPI
 * unchanged.
 *
 * The block a rank sends itself (Alltoallv and Alltoallw) is copied by memcomm from the
 * send block into the receive block, once, and left out of the MPI's call (its count 0 on
 * both sides, also of a side the MPI gets as the user gave it): on two ranks that is half
 * the data, which the MPI would copy through its typed path (MPICH) or memcomm through the
 * staging, twice. With the own block out of the MPI's call, a packed send side no longer
 * needs a packed receive side (see packed_sides): a slab FFT's receive blocks, one run
 * each, take the MPI_PACKED bytes straight into the user's array.
 *
 * The non-blocking forms (MPI_I...) pack at the call and unpack when the request completes,
 * by whichever completion call (lib/p2p/requests.h: the exchange is a request of another
 * kind); the persistent forms (..._init) pack at each MPI_Start and unpack at each
 * completion. The staging buffers and the argument arrays the MPI reads stay until then. */
#ifndef MEMCOMM_EXCHANGE_H
#define MEMCOMM_EXCHANGE_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "../core/analysis.h"
#include "../core/sendpath.h"
#include "../p2p/requests.h"

/* What one peer sends or receives: `count` instances of `type` from `buf`. */
typedef struct {
    void *buf;
    int64_t count;
    MPI_Datatype type;
} coll_block;

typedef enum { EXCHANGE_BLOCKING, EXCHANGE_NONBLOCKING, EXCHANGE_PERSISTENT } exchange_kind;

typedef struct {
    int peers;
    exchange_kind kind;
    bool send_packed, recv_packed; /* which sides the MPI gets as MPI_PACKED bytes */
    /* a side not packed whose blocks are each one run of memory, in a call that packs the
     * other (a form with counts and displacements per peer), goes to the MPI as its runs in
     * place, MPI_PACKED bytes from its lowest run: that run, else NULL */
    char *send_runs, *recv_runs;
    int self;                      /* the own block, which memcomm copies itself, or -1 */
    int in_place;                  /* the receive block MPI_IN_PLACE keeps, or -1 */
    /* per peer, receives after sends: packed bytes and their offset in the staging buffer */
    int64_t *send_bytes, *send_offset, *recv_bytes, *recv_offset;
    char *send_staging, *recv_staging; /* NULL when a side has no bytes */
    char *self_staging; /* the own block's packed bytes, when neither of its blocks is one run */
    int64_t send_total;                /* bytes packed into the send staging */
    coll_block *send, *recv; /* the user's blocks, kept for each start's pack and the unpack */
    analysis **types;                  /* per block, sends then receives; NULL when empty */
    /* the counts and offsets above as the MPI's argument arrays (int, or MPI_Count counts
     * and MPI_Aint offsets for the large-count forms; in bytes, or in elements of the
     * stand-ins `by_element`), and the type per peer (MPI_PACKED or the stand-in) */
    void *send_counts, *send_displs, *recv_counts, *recv_displs;
    MPI_Datatype *send_types, *recv_types;
    analysis *key;      /* the path choice's key (one of `types`), when there is a choice */
    send_choice choice; /* packed or the MPI's own path, maybe a timed trial of one */
    request_entry *entry; /* reserved for the request of a non-blocking or persistent call */
} exchange;

/* Whether memcomm carries a collective with these blocks (`peers` of each side; a side with
 * no blocks passes NULL). If so, the packed sides are in x->send_staging and x->recv_staging
 * (packed already, unless the call is persistent) with their argument arrays in the call's
 * `form`, and the caller calls the MPI with them for the packed sides and the user's
 * arguments for the others, then exchange_called. The form's `rank` is the caller's (its own
 * block, see above), or EXCHANGE_SELF_UNKNOWN when any peer may be the caller itself (a
 * neighbourhood collective's neighbours); `uniform` says that the MPI's call takes one count
 * for all peers (MPI_Alltoall), so that the rank's own block cannot be left out of it. The
 * two sides may have fewer real peers than `peers` (a neighbourhood's in- and out-degree):
 * the rest are empty blocks, and the MPI reads only its own number of entries of the
 * arrays.
 *
 * Whether packing pays is measured per collective (`use`), keyed by the largest packed
 * block's type and the bytes packed (lib/core/sendpath.h): the first blocking calls alternate
 * timed trials of both paths. A trial of the MPI's own path is carried with neither side
 * packed (the caller passes the user's arguments); once the MPI's path is chosen, the call is
 * not carried, and the same call made again goes to the MPI without its blocks analysed
 * again (exchange.c: kept calls), its samples timed all the same. The non-blocking and
 * persistent forms, whose time is not theirs alone, follow the blocking form's decision, and
 * pack until there is one. */
enum { EXCHANGE_SELF_UNKNOWN = -1, EXCHANGE_NO_SELF = -2 };

/* What the MPI's call is like. */
typedef struct {
    int rank;          /* the caller's, EXCHANGE_SELF_UNKNOWN, or EXCHANGE_NO_SELF (Bcast) */
    bool uniform;      /* one count for all peers */
    path_use use;      /* which measurement of lib/core/sendpath.h */
    bool large_counts; /* counts as MPI_Count (the _c forms), else int */
    bool aint_displs;  /* displacements as MPI_Aint (_c forms, Neighbor_alltoallw), else int */
    bool by_element;   /* packed bytes as the user's counts of stand-in types (see above) */
    int in_place;      /* the receive block holding the caller's own data (MPI_IN_PLACE: packed
                        * before the call, not unpacked after it), or -1 */
    exchange_kind kind;
} exchange_form;

/* The lock of the receive-shape answers and the kept calls (exchange.c), held across fork()
 * (interpose/fork.c). */
void exchange_fork_lock(void);
void exchange_fork_unlock(bool child);

/* NULL: not carried. */
exchange *exchange_start(int peers, const coll_block *send, const coll_block *recv,
                         const exchange_form *form);

/* The MPI's call, begun at `start` (PMPI_Wtime, before exchange_start), returned `rc` and,
 * unless blocking, `*request`. Blocking: unpack what arrived (if it succeeded), record a
 * timed trial, give everything back. Otherwise the request is remembered (or, if the call
 * failed, everything given back). Returns `rc`. */
int exchange_called(exchange *x, int rc, double start, const MPI_Request *request);

#endif
