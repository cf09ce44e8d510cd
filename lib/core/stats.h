/* Per-process counters of what memcomm did, printed by MEMCOMM_STATS=1 at MPI_Finalize. */
#ifndef MEMCOMM_STATS_H
#define MEMCOMM_STATS_H

#include <stdint.h>
#include <stdio.h>

typedef struct {
    uint64_t handled_calls, handled_bytes, fallback_calls, error_calls, analysed_types,
        reused_types, stale_requests, unseen_routes, paths_packed, paths_by_mpi, paths_saved,
        recognised_types, paths_checked, paths_returned, paths_left;
} stats_snapshot;

void stats_handled(int64_t bytes);
void stats_fallback(void);
void stats_error(void);
void stats_analysed(void);
void stats_reused(void);
/* A first use that recognised a type by its fingerprint (lib/core/constructions.h). */
void stats_recognised(void);
void stats_stale_request(void);
/* A request memcomm left to the MPI because it could complete unseen (p2p/routes.h). */
void stats_unseen_route(void);
/* A path decided from timed trials (lib/core/sendpath.h): packing, or the MPI's own. */
void stats_path_decided(int by_mpi);
/* A decided path checked against the other (lib/core/sendpath.h): the MPI's own path against
 * packing (`from_own`), or packing against the MPI's own; `changed`: the other path taken. */
void stats_path_checked(int from_own, int changed);
/* A path taken from a run before (MEMCOMM_DECISIONS, lib/core/decisions.h). */
void stats_path_saved(void);
stats_snapshot stats_read(void);
/* `unseen`: the Fortran entry point that completes requests past memcomm, or NULL. */
void stats_print(FILE *out, int rank, const char *unseen);

#endif
