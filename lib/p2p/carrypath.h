/* carrypath: whether a message memcomm may carry is carried (packed by memcomm and sent, or
 * received packed and unpacked by memcomm) or goes to the MPI's own datatype path, measured
 * per type, direction and message size.
 *
 * Pack-then-send costs one copy more than a datatype send that packs straight into the
 * transport, which is what Open MPI does for messages it pipelines: there its datatype send
 * of small non-contiguous messages beats memcomm's (README, ping-pong), and so does its
 * datatype receive, which unpacks fragments as they arrive, for faces of single elements
 * (README, lifecycle). Which path wins depends on the MPI, the layout, the size and the
 * direction, so memcomm measures it: the first blocking sends (receives) of each (type, size
 * class) alternate between the two paths, timed, and the faster one (by the best of three
 * each) is used from then on. A type built again the same way shares the measurements
 * (core/constructions.h). Both paths deliver the same bytes, so the choice changes speed
 * only. Non-blocking calls use a decided path, or carry until one is decided.
 * MEMCOMM_SEND_PATH=packed or =mpi fixes the path of both directions; =measure is the
 * default. */
#ifndef MEMCOMM_CARRYPATH_H
#define MEMCOMM_CARRYPATH_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/analysis.h"

typedef enum { CARRY_PACKED, CARRY_BY_MPI } carry_path;

typedef struct {
    carry_path path;
    int trial; /* >= 0: this call is timed as trial `trial` of its class; -1: not timed */
    int size_class; /* of the direction and message size */
} carry_choice;

enum { CARRYPATH_TRIALS = 6 }; /* alternating: packed, by the MPI, packed, ... (3 each) */

/* The path for a blocking send (`receive`: receive) of `bytes` of this type. */
carry_choice carrypath_choose(analysis *a, int64_t bytes, bool receive);

/* The time a timed call took. */
void carrypath_record(analysis *a, const carry_choice *c, double seconds);

/* The path for a non-blocking call: the decided one, carried until then. */
carry_path carrypath_for_nonblocking(analysis *a, int64_t bytes, bool receive);

/* The decision from the trials' times (pure, for tests): by the MPI only if its best time is
 * better than memcomm's best. */
carry_path carrypath_decide(const double packed[], const double by_mpi[], int n);

/* Free an analysis's measurements (analysis_release). */
void carrypath_free(analysis *a);

#endif
