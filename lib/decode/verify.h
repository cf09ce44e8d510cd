/* verify: check a decoded tree against the MPI's own pack of the type.
 *
 * Both MPIs have corners where their packing disagrees with the layout they report
 * (MPICH 5.0.2 for types above negative extents, Open MPI 5.0.11 for structs with empty
 * members and complex types in strided layouts; docs/errors.md lists what was found). So
 * every constructed type whose two-instance span is small is packed twice when memcomm first
 * analyses it (its first use, once per construction), by PMPI_Pack and by a plain walk of
 * the decoded tree, and any difference hands the type to the MPI. Larger types rely on their
 * (smaller) sub-types having passed and on the probes in decode.c. MEMCOMM_VERIFY=0 skips
 * it (the probes stay). */
#ifndef MEMCOMM_VERIFY_H
#define MEMCOMM_VERIFY_H

#include <mpi.h>
#include <stdbool.h>

#include "../base/ir.h"

enum { VERIFY_MAX_SPAN = 1 << 20 };

/* True when the tree packs two instances of `type` exactly as the MPI does (or when the type
 * is too large to check); false with the reason in `why` otherwise. A type not `committed`
 * (a sub-type) is packed through a one-element contiguous type of it. */
bool verify_against_mpi(MPI_Datatype type, bool committed, const ir_node *raw, char *why,
                        size_t why_cap);

#endif
