/* analysis: everything memcomm knows about one datatype, computed once:
 * decode -> normalize -> plan. Shared (reference-counted) by every handle that names the
 * same type (dups) and by calls in flight, so a free in another thread never pulls the plan
 * from under a copy. */
#ifndef MEMCOMM_ANALYSIS_H
#define MEMCOMM_ANALYSIS_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#include "../decode/decode.h"
#include "../plan/plan.h"

typedef struct sendpath_table sendpath_table;

typedef struct {
    atomic_int refs;
    bool supported;   /* false: memcomm hands calls on this type to the MPI */
    char why[128];    /* reason when unsupported */
    decode_bounds bounds;
    const ir_node *normal;
    plan plan;
    ir_arena arena;
    _Atomic(sendpath_table *) send_paths; /* sendpath.c: measured per size, lazily */
    _Atomic int64_t unpack_disjoint_upto; /* see analysis_unpack_disjoint; -1 not yet known */
    _Atomic(MPI_Datatype) stand_in;       /* see analysis_stand_in; NULL type until asked */
    _Atomic int element_known;            /* see analysis_element: 0 not yet asked, 1, -1 */
    _Atomic(MPI_Datatype) element;
} analysis;

/* Analyse a committed type; NULL only when memory is short. Unsupported types still get an
 * analysis (with their size, for argument checks) so the decision is not repeated. */
analysis *analysis_create(MPI_Datatype type);
void analysis_retain(analysis *a);

/* Whether unpacking `count` instances writes every byte once (plan/overlap.h); if not, the
 * unpack goes to the MPI, which writes overlapping entries in its own order. Worked out at
 * the first unpack that asks, then one load for every count up to the answer. */
bool analysis_unpack_disjoint(analysis *a, int64_t count);
void analysis_release(analysis *a);

/* Whether calls on an analysed type can move it from or to MPI_BOTTOM (a NULL buffer): its
 * lowest byte at an absolute address (MPI_Get_address), at or above ANALYSIS_LOWEST_ADDRESS,
 * since no object lies in the first page. Below it, the MPI's own call on a NULL buffer gives
 * its error (MPICH: MPI_ERR_BUFFER for a true lower bound of 0) or its crash, as without
 * memcomm, so such calls go to the MPI. */
enum { ANALYSIS_LOWEST_ADDRESS = 4096 };
bool analysis_at_addresses(const analysis *a);

/* Where the data of `buf` lies, for the device-memory check: the buffer, or for MPI_BOTTOM the
 * type's lowest absolute address. */
static inline const void *analysis_data_at(const analysis *a, const void *buf)
{
    return buf ? buf : (const void *)(uintptr_t)a->bounds.true_lb;
}

/* A contiguous type of the type's size in bytes (MPI_BYTE), committed: what a collective whose
 * MPI counts in elements gets in place of the type for packed bytes (lib/coll/exchange.h).
 * Made at the first call that asks, freed with the analysis; MPI_DATATYPE_NULL if the MPI
 * cannot make it (a size beyond an int). */
MPI_Datatype analysis_stand_in(analysis *a);

/* The one predefined type of the type's signature (decode/signature.h), asked of `type`, a
 * handle of this analysis, at the first call that asks; MPI_DATATYPE_NULL if there is none.
 * Handles that share an analysis were built alike from the same predefined types, so the
 * answer holds for all of them. */
MPI_Datatype analysis_element(analysis *a, MPI_Datatype type);

/* Limit on the analysis memory of one type. */
enum { ANALYSIS_ARENA_LIMIT = 64 << 20 };

#endif
