/* constructions: analyses by how a type was built (decode/construction.h), so that a type
 * re-created the same way, under a new handle, reuses its analysis, its verification and its
 * measured send paths at once. Bounded: at most CONSTRUCTIONS_MAX analyses holding at most
 * CONSTRUCTIONS_MAX_BYTES of analysis memory; the least recently used go first (handles that
 * share one keep it until they are freed). */
#ifndef MEMCOMM_CONSTRUCTIONS_H
#define MEMCOMM_CONSTRUCTIONS_H

#include <mpi.h>

#include "../decode/fingerprint.h"
#include "analysis.h"

enum { CONSTRUCTIONS_SETS = 64, CONSTRUCTIONS_WAYS = 4,
       CONSTRUCTIONS_MAX = CONSTRUCTIONS_SETS * CONSTRUCTIONS_WAYS,
       CONSTRUCTIONS_MAX_BYTES = 64 << 20, CONSTRUCTIONS_READ_EVERY = 16 };

/* The analysis of a committed type, retained: shared with every type built the same way, or
 * made now. NULL when memory is short. `print` (or NULL): the type's fingerprint, noted with
 * the analysis for constructions_recognise. */
analysis *constructions_analysis(MPI_Datatype type, const fingerprint *print);

/* The analysis that the one construction read so far with this fingerprint was built into,
 * retained, or NULL: none, or two (decode/fingerprint.h: good only to pass a call to the
 * MPI). Every CONSTRUCTIONS_READ_EVERY-th recognition of a fingerprint answers NULL, so that
 * its caller reads the type in full: a program that re-creates one layout keeps finding out
 * whether the fingerprint still names one construction, and keeps a handle of it whose
 * calls are carried and sampled (lib/core/sendpath.h). */
analysis *constructions_recognise(const fingerprint *print);

/* Drop everything (at MPI_Finalize). */
void constructions_shutdown(void);

/* Held across fork() (interpose/fork.c). */
void constructions_fork_lock(void);
void constructions_fork_unlock(bool child);

#endif
