/* sendpath: whether a send of a type memcomm carries packs it (memcomm) or goes to the MPI's
 * own datatype send, measured per type and message size; likewise for each collective memcomm
 * carries (a "use": the same type may win in a send and lose in an Alltoall).
 *
 * Pack-then-send costs one copy more than a datatype send that packs straight into the
 * transport, which is what Open MPI does for messages it pipelines: there its datatype send
 * of small non-contiguous messages beats memcomm's (README, ping-pong). Which path wins
 * depends on the MPI, the layout and the size, so memcomm measures it: the first blocking
 * sends of each (type, size class) try the two paths, 3 in a row each, timed, and the faster
 * one (by the best of three each) is used from then on. Both paths deliver the same bytes, so
 * the choice changes speed only (a collective's ranks may choose differently: MPI_PACKED
 * matches any type). Non-blocking sends use a decided path, or pack until one is decided.
 * MEMCOMM_SEND_PATH=packed or =mpi fixes the path of every use; =measure is the default. */
#ifndef MEMCOMM_SENDPATH_H
#define MEMCOMM_SENDPATH_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"

typedef enum { SEND_PACKED, SEND_BY_MPI } send_path;

/* What is timed: a point-to-point send, or a collective (the whole call, every rank's
 * packing and unpacking included), keyed by the analysis of its largest packed block. */
typedef enum {
    USE_SEND,
    USE_ALLTOALL,
    USE_ALLTOALLV,
    USE_ALLTOALLW,
    USE_NEIGHBOR_ALLTOALL,
    USE_NEIGHBOR_ALLTOALLV,
    USE_NEIGHBOR_ALLTOALLW,
    USE_BCAST,
    USE_GATHER,
    USE_GATHERV,
    USE_SCATTER,
    USE_SCATTERV,
    USE_ALLGATHER,
    USE_ALLGATHERV,
    USE_NEIGHBOR_ALLGATHER,
    USE_NEIGHBOR_ALLGATHERV,
    PATH_USES
} path_use;

/* A choice among `paths` alternatives: 0 is packing (SEND_PACKED), the last is the MPI's own
 * path (SEND_BY_MPI for a send's two); a collective may have a third, packing long blocks
 * too (lib/coll/exchange.c). */
enum { SENDPATH_MAX_PATHS = 3, SENDPATH_TRIALS_EACH = 3 };

typedef struct {
    int path;
    int trial; /* >= 0: this send is timed as trial `trial` of its size class; -1: not timed */
    int size_class;
    path_use use;
} send_choice;

/* The path for a blocking call (`use`) moving `bytes` of this type, among `paths` (2 or 3;
 * the same for every call of a use, type and size). The first calls are trials: 3 of the
 * first path, then 3 of the next, ... (in a row, so that the first one's buffers faulting
 * in does not weigh on the next two: a path of large messages is timed warm). */
send_choice sendpath_choose(analysis *a, path_use use, int64_t bytes, int paths);

/* The time a timed send took. */
void sendpath_record(analysis *a, const send_choice *c, double seconds);

/* The path for a non-blocking or persistent call among `paths`: the one its blocking form
 * decided, packed (0) until then. */
int sendpath_for_nonblocking(analysis *a, path_use use, int64_t bytes, int paths);

/* The decision from the trials' times, `trials / paths` of each path in a row (pure, for
 * tests): the path with the best time, the lower index on a tie. */
int sendpath_decide(const double seconds[], int paths, int trials);

/* Free an analysis's measurements (analysis_release). */
void sendpath_free(analysis *a);

#endif
