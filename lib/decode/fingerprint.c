#include "fingerprint.h"

#include <stddef.h>
#include <string.h>

#include "construction.h"
#include "contents.h"

/* Eleven 8-byte fields: no padding, so the whole struct compares and hashes as bytes. */
_Static_assert(sizeof(fingerprint) == 11 * sizeof(int64_t), "fingerprint has padding");

bool fingerprint_of(MPI_Datatype type, fingerprint *out)
{
    memset(out, 0, sizeof *out);
    int combiner;
    if (contents_envelope(type, out->lengths, &combiner) != MPI_SUCCESS ||
        PMPI_Type_size_x(type, &out->size) != MPI_SUCCESS ||
        PMPI_Type_get_extent_x(type, &out->lb, &out->extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent_x(type, &out->true_lb, &out->true_extent) != MPI_SUCCESS)
        return false;
    out->combiner = combiner;
    out->hash = construction_hash(out, offsetof(fingerprint, hash));
    return true;
}

bool fingerprint_equal(const fingerprint *a, const fingerprint *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}
