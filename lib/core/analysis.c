#include "analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../normalize/normalize.h"
#include "../p2p/sendpath.h"

analysis *analysis_create(MPI_Datatype type)
{
    analysis *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    atomic_init(&a->refs, 1);
    ir_arena_init(&a->arena, ANALYSIS_ARENA_LIMIT);
    if (decode_bounds_of(type, &a->bounds) != MPI_SUCCESS) {
        snprintf(a->why, sizeof a->why, "size/extent query failed");
        return a;
    }
    const ir_node *raw = decode_type(type, &a->arena, a->why, sizeof a->why);
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
    plan_build(normal, a->bounds.size, a->bounds.extent, machine_get(), &a->plan);
    a->supported = true;
    return a;
}

void analysis_retain(analysis *a) { atomic_fetch_add_explicit(&a->refs, 1, memory_order_relaxed); }

void analysis_release(analysis *a)
{
    if (a && atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) == 1) {
        sendpath_free(a);
        ir_arena_free(&a->arena);
        free(a);
    }
}
