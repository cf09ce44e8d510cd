/* constructions: analyses by how a type was built (decode/construction.h), so that a type
 * re-created the same way, under a new handle, reuses its analysis, its verification and its
 * measured send paths at once. Bounded: at most CONSTRUCTIONS_MAX analyses holding at most
 * CONSTRUCTIONS_MAX_BYTES of analysis memory; the least recently used go first (handles that
 * share one keep it until they are freed). */
#ifndef MEMCOMM_CONSTRUCTIONS_H
#define MEMCOMM_CONSTRUCTIONS_H

#include <mpi.h>

#include "analysis.h"

enum { CONSTRUCTIONS_SETS = 64, CONSTRUCTIONS_WAYS = 4,
       CONSTRUCTIONS_MAX = CONSTRUCTIONS_SETS * CONSTRUCTIONS_WAYS,
       CONSTRUCTIONS_MAX_BYTES = 64 << 20 };

/* The analysis of a committed type, retained: shared with every type built the same way, or
 * made now. NULL when memory is short. */
analysis *constructions_analysis(MPI_Datatype type);

/* Drop everything (at MPI_Finalize). */
void constructions_shutdown(void);

/* Held across fork() (interpose/fork.c). */
void constructions_fork_lock(void);
void constructions_fork_unlock(bool child);

#endif
