#include "signature.h"

#include "contents.h"

enum { MAX_DEPTH = 64 };

/* A predefined type that lies in memory as its packed bytes. */
static bool dense_predefined(MPI_Datatype type)
{
    MPI_Aint lb, extent;
    int size;
    return PMPI_Type_size(type, &size) == MPI_SUCCESS && size > 0 &&
           PMPI_Type_get_extent(type, &lb, &extent) == MPI_SUCCESS && lb == 0 &&
           extent == size;
}

/* Every basic type under `type` is `*element` (set by the first one met). Every type in the
 * construction counts, even one a zero-length block leaves out of the signature: such a
 * mixed type is declined, which only sends it to the MPI. */
static bool one_element(MPI_Datatype type, MPI_Datatype *element, int depth)
{
    int combiner;
    if (depth > MAX_DEPTH || contents_combiner(type, &combiner) != MPI_SUCCESS)
        return false;
    if (combiner == MPI_COMBINER_NAMED) {
        if (*element == MPI_DATATYPE_NULL && dense_predefined(type))
            *element = type;
        return *element == type;
    }
    if (!contents_is_constructed(combiner)) /* f90 parameterized types: left to the MPI */
        return false;
    contents c;
    if (!contents_fetch(type, &c))
        return false;
    bool same = c.nd > 0;
    for (int64_t i = 0; i < c.nd && same; i++)
        same = one_element(c.types[i], element, depth + 1);
    contents_release(&c);
    return same;
}

bool decode_signature_element(MPI_Datatype type, MPI_Datatype *element)
{
    *element = MPI_DATATYPE_NULL;
    return one_element(type, element, 0);
}
