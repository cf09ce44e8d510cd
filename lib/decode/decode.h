/* decode: a committed MPI datatype -> memcomm's IR, through MPI_Type_get_envelope and
 * MPI_Type_get_contents (the _c variants where the MPI has them).
 *
 * The tree describes one instance of the type: byte displacements from the buffer origin in
 * typemap (= packed) order. Every sub-type's extent comes from the MPI itself, because the
 * MPIs disagree on some (Open MPI pads an hvector's extent to its basic type's alignment,
 * MPICH does not) and memcomm must pack exactly as the MPI below it would. */
#ifndef MEMCOMM_DECODE_H
#define MEMCOMM_DECODE_H

#include <mpi.h>

#include "../base/ir.h"

typedef struct {
    int64_t size, lb, extent, true_lb, true_extent;
} decode_bounds;

/* Returns the raw (unnormalized) tree of a committed type, or NULL with a reason in `why`
 * when the type cannot be represented (unknown combiner, overflow, too large) or, with
 * `verify`, packs differently from it (verify.h); such types go to the MPI. */
const ir_node *decode_type(MPI_Datatype type, ir_arena *arena, bool verify, char *why,
                           size_t why_cap);

/* Size, bounds and true bounds of a type, from the MPI. */
int decode_bounds_of(MPI_Datatype type, decode_bounds *out);

/* Name of a combiner constant, for messages ("vector", "struct", ...). */
const char *decode_combiner_name(int combiner);

#endif
