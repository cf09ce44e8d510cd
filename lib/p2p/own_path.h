/* own_path: a thread's last point-to-point calls that went to the MPI's own path by a
 * decision, one per kind (a blocking send, a blocking receive, a non-blocking call, an
 * MPI_Sendrecv of one type and count both ways): the next call of the same kind, type and
 * count goes there at once, with no look at the type (about 240 instructions, the most of
 * what memcomm cost such a call), while no cached type has been freed since (the type, its
 * analysis and its measurements are then alive) and the decision and its sampling allow
 * (sendpath_class_passes, sendpath_epoch_class_passes). Whatever memcomm would check of the
 * call on the way (its buffer, an overflow, overlapping entries), a call on the MPI's own
 * path reaches the MPI as it came. */
#ifndef MEMCOMM_OWN_PATH_H
#define MEMCOMM_OWN_PATH_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "../core/config.h"
#include "../core/sendpath.h"
#include "../core/typecache.h"

/* The kinds: TRIAL_SEND and TRIAL_RECEIVE for blocking calls, these two: a non-blocking
 * call, and an exchange (MPI_Sendrecv of one type and count both ways, timed as a send). */
enum { OWN_PATH_NONBLOCKING = TRIAL_SIDES, OWN_PATH_EXCHANGE, OWN_PATH_KINDS };

typedef struct {
    MPI_Datatype type;
    int64_t count;
    uint64_t generation;
    bool valid;
    sendpath_class *decided; /* NULL: the MPI's own path by MEMCOMM_SEND_PATH=mpi */
} own_path_memo;

extern _Thread_local __attribute__((tls_model("initial-exec"))) own_path_memo
    own_path[OWN_PATH_KINDS];

/* Inline: it is all a passed call costs (about 30 instructions). */
static inline bool own_path_passes(MPI_Datatype type, int64_t count, int kind)
{
    const own_path_memo *m = &own_path[kind];
    if (!m->valid || m->type != type || m->count != count ||
        m->generation != typecache_generation())
        return false;
    if (!m->decided)
        return config_get()->send_path == CONFIG_SEND_BY_MPI;
    if (kind == OWN_PATH_NONBLOCKING)
        return sendpath_epoch_class_passes(m->decided);
    return sendpath_class_passes(m->decided, 2, kind == OWN_PATH_EXCHANGE ? TRIAL_SEND : kind);
}

/* After a call of `kind` left to the MPI's own path by the decision of `decided` (its
 * measurements), or by MEMCOMM_SEND_PATH=mpi (`fixed`); `generation`: typecache_generation()
 * read before the type was looked up. */
void own_path_remember(MPI_Datatype type, int64_t count, int kind, uint64_t generation,
                       sendpath_class *decided, bool fixed);

#endif
