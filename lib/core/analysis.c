#include "analysis.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "../decode/signature.h"
#include "config.h"
#include "stats.h"
#include "../normalize/normalize.h"
#include "../kernel/kernel.h"
#include "../plan/overlap.h"
#include "sendpath.h"

analysis *analysis_create(MPI_Datatype type)
{
    analysis *a = mc_calloc(1, sizeof *a);
    if (!a)
        return NULL;
    atomic_init(&a->refs, 1);
    stats_analysed();
    atomic_init(&a->unpack_disjoint_upto, -1);
    atomic_init(&a->stand_in, MPI_DATATYPE_NULL);
    atomic_init(&a->element_known, 0);
    atomic_init(&a->element, MPI_DATATYPE_NULL);
    ir_arena_init(&a->arena, ANALYSIS_ARENA_LIMIT);
    if (decode_bounds_of(type, &a->bounds) != MPI_SUCCESS) {
        snprintf(a->why, sizeof a->why, "size/extent query failed");
        return a;
    }
    const ir_node *raw = decode_type(type, &a->arena, config_get()->verify, a->why, sizeof a->why);
    const ir_node *normal = raw ? norm_tree(&a->arena, raw) : NULL;
    if (raw && !normal)
        snprintf(a->why, sizeof a->why, "normalization ran out of analysis memory");
    /* the tree must account for exactly the bytes the MPI says the type has */
    if (normal && normal->size != a->bounds.size) {
        snprintf(a->why, sizeof a->why, "decoded size %lld differs from MPI size %lld",
                 (long long)normal->size, (long long)a->bounds.size);
        normal = NULL;
    }
    if (!normal) {
        ir_arena_free(&a->arena);
        return a;
    }
    a->normal = normal;
    plan_build(normal, a->bounds.size, a->bounds.extent, machine_get(), &a->arena, &a->plan);
    kernel_select(&a->plan);
    a->supported = true;
    return a;
}

bool analysis_unpack_disjoint(analysis *a, int64_t count)
{
    int64_t upto = atomic_load_explicit(&a->unpack_disjoint_upto, memory_order_relaxed);
    if (count <= upto)
        return true;
    if (upto < 0) { /* two threads may both work it out; they store the same answer */
        upto = overlap_instance_disjoint(a->normal)
                   ? overlap_disjoint_count(a->normal, a->bounds.extent)
                   : 0;
        atomic_store_explicit(&a->unpack_disjoint_upto, upto, memory_order_relaxed);
        if (count <= upto)
            return true;
    }
    /* beyond the enumeration's budget, a strided walk of this count may still be proven */
    plan_strided s;
    return upto > 0 && (a->plan.kind == PLAN_STRIDED || a->plan.kind == PLAN_CONTIG) &&
           plan_strided_for_count(&a->plan, count, &s) && overlap_strided_disjoint(&s);
}

void analysis_retain(analysis *a) { atomic_fetch_add_explicit(&a->refs, 1, memory_order_relaxed); }

MPI_Datatype analysis_stand_in(analysis *a)
{
    MPI_Datatype t = atomic_load_explicit(&a->stand_in, memory_order_acquire);
    if (t != MPI_DATATYPE_NULL || a->bounds.size <= 0 || a->bounds.size > INT_MAX)
        return t;
    MPI_Datatype fresh = MPI_DATATYPE_NULL, expected = MPI_DATATYPE_NULL;
    if (PMPI_Type_contiguous((int)a->bounds.size, MPI_BYTE, &fresh) != MPI_SUCCESS)
        return MPI_DATATYPE_NULL;
    if (PMPI_Type_commit(&fresh) != MPI_SUCCESS) {
        PMPI_Type_free(&fresh);
        return MPI_DATATYPE_NULL;
    }
    /* two threads may both make one: the first stored is kept */
    if (!atomic_compare_exchange_strong(&a->stand_in, &expected, fresh)) {
        PMPI_Type_free(&fresh);
        return expected;
    }
    return fresh;
}

MPI_Datatype analysis_element(analysis *a, MPI_Datatype type)
{
    const int known = atomic_load_explicit(&a->element_known, memory_order_acquire);
    if (known) /* two threads may both work it out; they store the same answer */
        return known > 0 ? atomic_load_explicit(&a->element, memory_order_relaxed)
                         : MPI_DATATYPE_NULL;
    MPI_Datatype element;
    const bool one = decode_signature_element(type, &element);
    atomic_store_explicit(&a->element, one ? element : MPI_DATATYPE_NULL, memory_order_relaxed);
    atomic_store_explicit(&a->element_known, one ? 1 : -1, memory_order_release);
    return one ? element : MPI_DATATYPE_NULL;
}

bool analysis_at_addresses(const analysis *a)
{
    return a->bounds.true_lb >= ANALYSIS_LOWEST_ADDRESS;
}

void analysis_release(analysis *a)
{
    if (a && atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) == 1) {
        MPI_Datatype stand_in = atomic_load(&a->stand_in);
        int finalized = 1;
        if (stand_in != MPI_DATATYPE_NULL && PMPI_Finalized(&finalized) == MPI_SUCCESS &&
            !finalized)
            PMPI_Type_free(&stand_in);
        sendpath_free(a);
        ir_arena_free(&a->arena);
        free(a);
    }
}
