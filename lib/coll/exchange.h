/* exchange: one collective call's data, as packed bytes per peer.
 *
 * A collective that moves derived datatypes is carried by packing what each peer gets into
 * one staging buffer, peer after peer, calling the MPI's same collective on MPI_PACKED bytes
 * (the same function, so ranks without memcomm take part unchanged: MPI_PACKED matches any
 * type signature of the same bytes), and unpacking each peer's bytes from a second staging
 * buffer into the user's blocks.
 *
 * A call is carried only when
 * - memcomm can pack every non-empty block of it (any type its engine handles, basic types
 *   included, each in host memory at a non-NULL address),
 * - at least one block is worth packing (message_worth_packing: what point-to-point would
 *   carry),
 * - no receive block overlaps itself or another (the MPI would write overlapping bytes in
 *   an order of its own),
 * - and all the packed bytes of each side fit an int (the MPI's int displacements).
 * Otherwise, and when memory is short, the MPI gets the call unchanged. */
#ifndef MEMCOMM_EXCHANGE_H
#define MEMCOMM_EXCHANGE_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "../core/analysis.h"

/* What one peer sends or receives: `count` instances of `type` from `buf`. */
typedef struct {
    void *buf;
    int64_t count;
    MPI_Datatype type;
} coll_block;

typedef struct {
    int peers;
    /* per peer, receives after sends: packed bytes and their offset in the staging buffer */
    int64_t *send_bytes, *send_offset, *recv_bytes, *recv_offset;
    char *send_staging, *recv_staging; /* NULL when a side has no bytes */
    coll_block *recv;                  /* the user's receive blocks, kept for the unpack */
    analysis **types;                  /* per block, sends then receives; NULL when empty */
    /* the byte counts and offsets above as the MPI's argument arrays (int, or MPI_Count
     * counts and MPI_Aint offsets for the large-count forms), and MPI_PACKED per peer */
    void *send_counts, *send_displs, *recv_counts, *recv_displs;
    MPI_Datatype *packed;
} exchange;

/* Whether memcomm carries a collective with these blocks (`peers` of each side; a side with
 * no blocks passes NULL). If so, the sends are packed into x->send_staging, the argument
 * arrays are in the int or (`large`) the large-count form, and the caller calls the MPI on
 * the staging buffers, then exchange_finish. */
bool exchange_start(exchange *x, int peers, const coll_block *send, const coll_block *recv,
                    bool large);

/* The MPI's call returned `rc`: unpack what arrived (if it succeeded) and give everything
 * back. */
void exchange_finish(exchange *x, int rc);

#endif
