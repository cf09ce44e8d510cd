#include "contents.h"

#include <stdlib.h>
#include <string.h>

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

int contents_combiner(MPI_Datatype type, int *combiner)
{
#if MEMCOMM_HAVE_LARGE_COUNT
    MPI_Count ni, na, nc, nd;
    return PMPI_Type_get_envelope_c(type, &ni, &na, &nc, &nd, combiner);
#else
    int ni, na, nd;
    return PMPI_Type_get_envelope(type, &ni, &na, &nd, combiner);
#endif
}

void contents_release(contents *c)
{
    for (int64_t i = 0; c->types && i < c->nd; i++) {
        int combiner;
        if (contents_combiner(c->types[i], &combiner) == MPI_SUCCESS && contents_is_constructed(combiner))
            PMPI_Type_free(&c->types[i]);
    }
    free(c->ints);
    free(c->addrs);
    free(c->counts);
    free(c->types);
    memset(c, 0, sizeof *c);
}

bool contents_fetch(MPI_Datatype type, contents *c)
{
    memset(c, 0, sizeof *c);
#if MEMCOMM_HAVE_LARGE_COUNT
    MPI_Count ni, na, nc, nd;
    if (PMPI_Type_get_envelope_c(type, &ni, &na, &nc, &nd, &c->combiner) != MPI_SUCCESS)
        return false;
#else
    int ni, na, nd, nc = 0;
    if (PMPI_Type_get_envelope(type, &ni, &na, &nd, &c->combiner) != MPI_SUCCESS)
        return false;
#endif
    c->ni = ni;
    c->na = na;
    c->nc = nc;
    c->nd = nd;
    if (c->combiner == MPI_COMBINER_NAMED)
        return true;
    /* +1 so that zero-length requests still get a distinct, freeable pointer */
    c->ints = mc_malloc(sizeof(int) * (size_t)(ni + 1));
    c->addrs = mc_malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    c->counts = mc_malloc(sizeof(MPI_Count) * (size_t)(nc + 1));
    c->types = mc_malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    if (!c->ints || !c->addrs || !c->counts || !c->types) {
        c->nd = 0;
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
        c->nd = 0; /* nothing was returned to free */
        contents_release(c);
        return false;
    }
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

