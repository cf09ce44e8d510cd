/* typecache: datatype handle -> analysis.
 *
 * Filled when a type is committed (and when a committed type is duplicated), and for
 * predefined types on first use. A committed type is analysed at its first use, not at
 * commit (a type the program never moves costs one table entry), and through
 * constructions.h, so that a type built again the same way shares the analysis. Each cached derived type carries a memcomm attribute whose
 * delete callback removes the entry, so however a type is freed (MPI_Type_free, PMPI_ from
 * another tool, the MPI itself) a re-used handle never meets a stale plan. A handle that is
 * not in the cache (uncommitted, freed, unknown) is never looked at through the MPI on the
 * fast path: the call goes to the MPI, which reports it as it would without memcomm. */
#ifndef MEMCOMM_TYPECACHE_H
#define MEMCOMM_TYPECACHE_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#include "analysis.h"

/* The analysis for `type`, retained (release with analysis_release), or NULL. */
analysis *typecache_acquire(MPI_Datatype type);

/* The same, or, for a type not read yet whose fingerprint names one construction read before
 * (lib/core/constructions.h), that construction's analysis, with `*recognised` set, where
 * `will_do(analysis, context)` takes it: good only to tell that the call goes to the MPI (its
 * size and the decisions measured for the type it was recognised as). Where it does not, the
 * type is read at once (with the fingerprint asked once) and its analysis returned. A handle
 * answers so for TYPECACHE_RECOGNISED_USES look-ups at most, then is read: a type that only
 * shares a fingerprint with another is not left to the MPI for a whole run. */
enum { TYPECACHE_RECOGNISED_USES = 8 };
typedef bool (*typecache_will_do)(analysis *recognised, void *context);
analysis *typecache_acquire_recognised(MPI_Datatype type, typecache_will_do will_do,
                                       void *context, bool *recognised);

/* How many cached types have been freed so far: an answer kept for a call's types (handles,
 * which the MPI may give to a new type once one is freed) holds while this is unchanged.
 * Inline: a call that a thread's memo passes (lib/p2p/own_path.h) reads it. */
extern _Atomic uint64_t typecache_freed;
static inline uint64_t typecache_generation(void)
{
    return atomic_load_explicit(&typecache_freed, memory_order_acquire);
}

/* Hooks called after the MPI's own commit / dup succeeded. */
void typecache_on_commit(MPI_Datatype type);
void typecache_on_dup(MPI_Datatype from, MPI_Datatype to);

/* Drop everything (at MPI_Finalize). */
void typecache_shutdown(void);

/* Held across fork() (interpose/fork.c), so that the child never inherits it held: released
 * in the parent, made anew in the child (whose one thread does not own it). */
void typecache_fork_lock(void);
void typecache_fork_unlock(bool child);

#endif
