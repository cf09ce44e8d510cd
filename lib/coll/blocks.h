/* blocks: who a collective call exchanges with, and the user's blocks of each side, as
 * lib/coll/exchange.h takes them. */
#ifndef MEMCOMM_BLOCKS_H
#define MEMCOMM_BLOCKS_H

#include "exchange.h"

/* Who a call exchanges with: `send` and `recv` peers, `peers` = the larger, and the caller's
 * position among them (or EXCHANGE_SELF_UNKNOWN). */
typedef struct {
    int send, recv, peers, rank;
} parties;

/* Every rank of an intracommunicator, the caller at its rank; false when memcomm is disabled
 * or `comm` is not an intracommunicator. */
bool parties_everyone(MPI_Comm comm, parties *p);

/* A topology's neighbours (MPI_Neighbor_*): sources receive, destinations send, in the
 * order the MPI gives them; the caller may be among them (a periodic dimension of size 1 or
 * 2, a graph edge to itself). False without a topology or neighbours. */
bool parties_neighbours(MPI_Comm comm, parties *p);

/* `n` blocks (and empty ones up to `capacity`): `count` instances of `type` each, one after
 * another from `buf` (Alltoall's layout), or at displacements `displs` in units of the
 * type's extent (Alltoallv's), or in bytes with a type per peer (Alltoallw's); counts and
 * displacements in the form's widths. NULL when memory is short. */
coll_block *blocks_of(int n, int capacity, void *buf, MPI_Datatype type, const void *counts,
                      const void *displs, const MPI_Datatype *types, const exchange_form *form,
                      int64_t one_count);

/* One block, `count` instances of `type` at `buf`, at position `at` of `capacity` (the
 * others empty): a rooted call's send to the root, or receive from it. */
coll_block *block_at(int at, int capacity, void *buf, int64_t count, MPI_Datatype type);

/* Start an exchange (exchange_start, into `*x`) of the blocks built above, which it frees:
 * `sends` and `receives` say whether the call has each side (a side it has whose blocks are
 * NULL: memory was short, not carried). False: not carried. */
bool blocks_exchange(exchange **x, int peers, bool sends, coll_block *send, bool receives,
                     coll_block *recv, const exchange_form *form);

#endif
