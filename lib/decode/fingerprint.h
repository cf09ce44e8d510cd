/* fingerprint: what a few cheap queries tell of a committed type (its envelope, size, bounds
 * and true bounds), without reading its construction.
 *
 * Reading a re-created type's construction costs what its MPI_Type_get_contents calls cost:
 * on Open MPI, a new handle for every derived part, each freed again (about 9,000
 * instructions for a struct of three subarrays), and a copy of every displacement of an
 * indexed type (tens of microseconds for 16,384 blocks). Types with one fingerprint are
 * usually built the same way, but not always (two index lists of one length, size and span),
 * so a fingerprint only ever tells memcomm that a call may go to the MPI as it came
 * (lib/core/typecache.h): never how to pack. */
#ifndef MEMCOMM_FINGERPRINT_H
#define MEMCOMM_FINGERPRINT_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int64_t combiner, lengths[4]; /* the envelope: ni, na, nc, nd */
    MPI_Count size, lb, extent, true_lb, true_extent;
    uint64_t hash; /* of the fields above; last */
} fingerprint;

/* False when a query fails. */
bool fingerprint_of(MPI_Datatype type, fingerprint *out);
bool fingerprint_equal(const fingerprint *a, const fingerprint *b);

#endif
