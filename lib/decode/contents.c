#include "contents.h"

#include <stdlib.h>

#include "../base/alloc.h"

bool contents_is_constructed(int combiner)
{
    switch (combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_CONTIGUOUS:
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
    case MPI_COMBINER_STRUCT:
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY:
    case MPI_COMBINER_RESIZED:
#if MEMCOMM_HAVE_INTEGER_COMBINERS
    case MPI_COMBINER_HVECTOR_INTEGER:
    case MPI_COMBINER_HINDEXED_INTEGER:
    case MPI_COMBINER_STRUCT_INTEGER:
#endif
        return true;
    default:
        return false;
    }
}

int contents_envelope(MPI_Datatype type, int64_t lengths[4], int *combiner)
{
#if MEMCOMM_HAVE_LARGE_COUNT
    MPI_Count ni, na, nc, nd;
    int rc = PMPI_Type_get_envelope_c(type, &ni, &na, &nc, &nd, combiner);
#else
    int ni, na, nd, nc = 0;
    int rc = PMPI_Type_get_envelope(type, &ni, &na, &nd, combiner);
#endif
    lengths[0] = ni;
    lengths[1] = na;
    lengths[2] = nc;
    lengths[3] = nd;
    return rc;
}

int contents_combiner(MPI_Datatype type, int *combiner)
{
    int64_t lengths[4];
    return contents_envelope(type, lengths, combiner);
}

void contents_release(contents *c)
{
    for (int64_t i = 0; c->types && i < c->nd; i++) {
        int combiner;
        if (c->types[i] != MPI_DATATYPE_NULL &&
            contents_combiner(c->types[i], &combiner) == MPI_SUCCESS &&
            contents_is_constructed(combiner))
            PMPI_Type_free(&c->types[i]);
    }
    if (c->ints != c->inline_ints)
        free(c->ints);
    if (c->addrs != c->inline_addrs)
        free(c->addrs);
    if (c->counts != c->inline_counts)
        free(c->counts);
    if (c->types != c->inline_types)
        free(c->types);
    c->ints = NULL;
    c->addrs = NULL;
    c->counts = NULL;
    c->types = NULL;
    c->nd = 0;
}

/* Room for n elements of `size` bytes: the inline array when they fit, else the heap (+1 so
 * that zero-length requests still get a distinct, freeable pointer). */
static void *room(void *inline_array, int64_t inline_n, int64_t n, size_t size)
{
    return n <= inline_n ? inline_array : mc_malloc(size * (size_t)(n + 1));
}

bool contents_fetch(MPI_Datatype type, contents *c)
{
    c->ints = NULL;
    c->addrs = NULL;
    c->counts = NULL;
    c->types = NULL;
    int64_t lengths[4];
    if (contents_envelope(type, lengths, &c->combiner) != MPI_SUCCESS)
        return false;
    c->ni = lengths[0];
    c->na = lengths[1];
    c->nc = lengths[2];
    const int64_t ni = c->ni, na = c->na, nc = c->nc, nd = lengths[3];
    c->nd = 0; /* until get_contents has returned handles to free */
    if (!contents_is_constructed(c->combiner))
        return true;
    c->ints = room(c->inline_ints, CONTENTS_INLINE_INTS, ni, sizeof(int));
    c->addrs = room(c->inline_addrs, CONTENTS_INLINE_OTHERS, na, sizeof(MPI_Aint));
    c->counts = room(c->inline_counts, CONTENTS_INLINE_OTHERS, nc, sizeof(MPI_Count));
    c->types = room(c->inline_types, CONTENTS_INLINE_OTHERS, nd, sizeof(MPI_Datatype));
    if (!c->ints || !c->addrs || !c->counts || !c->types) {
        contents_release(c);
        return false;
    }
#if MEMCOMM_HAVE_LARGE_COUNT
    int rc = PMPI_Type_get_contents_c(type, ni, na, nc, nd, c->ints, c->addrs, c->counts,
                                      c->types);
#else
    int rc = PMPI_Type_get_contents(type, ni, na, nd, c->ints, c->addrs, c->types);
#endif
    if (rc != MPI_SUCCESS) {
        contents_release(c); /* nothing was returned to free */
        return false;
    }
    c->nd = nd;
    return true;
}

int64_t contents_flat(const contents *c, int64_t k)
{
    if (c->nc > 0)
        return c->counts[k];
    return k < c->ni ? c->ints[k] : c->addrs[k - c->ni];
}

bool contents_flat_has(const contents *c, int64_t n)
{
    return (c->nc > 0 ? c->nc : c->ni + c->na) >= n;
}

