#include "fingerprint.h"

#include <string.h>

#include "contents.h"

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
    const int64_t words[] = {out->combiner,  out->lengths[0], out->lengths[1],
                             out->lengths[2], out->lengths[3], out->size,
                             out->lb,        out->extent,     out->true_lb,
                             out->true_extent};
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        h = (h ^ (uint64_t)words[i]) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    out->hash = h;
    return true;
}

bool fingerprint_equal(const fingerprint *a, const fingerprint *b)
{
    return a->hash == b->hash && a->combiner == b->combiner &&
           memcmp(a->lengths, b->lengths, sizeof a->lengths) == 0 && a->size == b->size &&
           a->lb == b->lb && a->extent == b->extent && a->true_lb == b->true_lb &&
           a->true_extent == b->true_extent;
}
