/* own_path: a thread's last point-to-point calls that went to the MPI's own path by a
 * decision, one per kind (a blocking send, a blocking receive, a non-blocking call): the next
 * call of the same kind, type and count goes there at once, with no look at the type (about
 * 240 instructions, the most of what memcomm cost such a call), while no cached type has been
 * freed since (the type, its analysis and its measurements are then alive) and the decision
 * and its sampling allow (sendpath_class_passes, sendpath_epoch_class_passes). Whatever
 * memcomm would check of the call on the way (its buffer, an overflow, overlapping entries),
 * a call on the MPI's own path reaches the MPI as it came. */
#ifndef MEMCOMM_OWN_PATH_H
#define MEMCOMM_OWN_PATH_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "../core/sendpath.h"

/* The kinds: TRIAL_SEND and TRIAL_RECEIVE for blocking calls, and this one. */
enum { OWN_PATH_NONBLOCKING = TRIAL_SIDES, OWN_PATH_KINDS };

bool own_path_passes(MPI_Datatype type, int64_t count, int kind);

/* After a call of `kind` left to the MPI's own path by the decision of `decided` (its
 * measurements), or by MEMCOMM_SEND_PATH=mpi (`fixed`); `generation`: typecache_generation()
 * read before the type was looked up. */
void own_path_remember(MPI_Datatype type, int64_t count, int kind, uint64_t generation,
                       sendpath_class *decided, bool fixed);

#endif
