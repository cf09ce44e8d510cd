/* sendpath: whether a send of a type memcomm carries packs it (memcomm) or goes to the MPI's
 * own datatype send, measured per type and message size.
 *
 * Pack-then-send costs one copy more than a datatype send that packs straight into the
 * transport, which is what Open MPI does for messages it pipelines: there its datatype send
 * of small non-contiguous messages beats memcomm's (README, ping-pong). Which path wins
 * depends on the MPI, the layout and the size, so memcomm measures it: the first blocking
 * sends of each (type, size class) alternate between the two paths, timed, and the faster
 * one (by the best of three each) is used from then on. Both paths deliver the same bytes, so
 * the choice changes speed only. Non-blocking sends use a decided path, or pack until one is
 * decided. MEMCOMM_SEND_PATH=packed or =mpi fixes the path; =measure is the default. */
#ifndef MEMCOMM_SENDPATH_H
#define MEMCOMM_SENDPATH_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"

typedef enum { SEND_PACKED, SEND_BY_MPI } send_path;

typedef struct {
    send_path path;
    int trial; /* >= 0: this send is timed as trial `trial` of its size class; -1: not timed */
    int size_class;
} send_choice;

enum { SENDPATH_TRIALS = 6 }; /* alternating: packed, by the MPI, packed, ... (3 each) */

/* The path for a blocking send of `bytes` of this type. */
send_choice sendpath_choose(analysis *a, int64_t bytes);

/* The time a timed send took. */
void sendpath_record(analysis *a, const send_choice *c, double seconds);

/* The path for a non-blocking send: the decided one, packed until then. */
send_path sendpath_for_nonblocking(analysis *a, int64_t bytes);

/* The decision from the trials' times (pure, for tests): by the MPI only if its best time is
 * better than memcomm's best. */
send_path sendpath_decide(const double packed[], const double by_mpi[], int n);

/* Free an analysis's measurements (analysis_release). */
void sendpath_free(analysis *a);

#endif
