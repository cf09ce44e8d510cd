#include "stats.h"

#include <inttypes.h>
#include <stdatomic.h>

static _Atomic uint64_t handled_calls, handled_bytes, fallback_calls, error_calls, analysed_types,
    reused_types, stale_requests, unseen_routes, paths_packed, paths_by_mpi, paths_saved,
    recognised_types, paths_checked, paths_returned, paths_left;

void stats_handled(int64_t bytes)
{
    atomic_fetch_add_explicit(&handled_calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&handled_bytes, (uint64_t)bytes, memory_order_relaxed);
}

void stats_fallback(void) { atomic_fetch_add_explicit(&fallback_calls, 1, memory_order_relaxed); }

void stats_error(void) { atomic_fetch_add_explicit(&error_calls, 1, memory_order_relaxed); }

void stats_analysed(void) { atomic_fetch_add_explicit(&analysed_types, 1, memory_order_relaxed); }

void stats_reused(void) { atomic_fetch_add_explicit(&reused_types, 1, memory_order_relaxed); }

void stats_recognised(void)
{
    atomic_fetch_add_explicit(&recognised_types, 1, memory_order_relaxed);
}

void stats_stale_request(void)
{
    atomic_fetch_add_explicit(&stale_requests, 1, memory_order_relaxed);
}

void stats_unseen_route(void)
{
    atomic_fetch_add_explicit(&unseen_routes, 1, memory_order_relaxed);
}

void stats_path_saved(void) { atomic_fetch_add_explicit(&paths_saved, 1, memory_order_relaxed); }

void stats_path_decided(int by_mpi)
{
    atomic_fetch_add_explicit(by_mpi ? &paths_by_mpi : &paths_packed, 1, memory_order_relaxed);
}

void stats_path_checked(int from_own, int changed)
{
    atomic_fetch_add_explicit(&paths_checked, 1, memory_order_relaxed);
    if (changed)
        atomic_fetch_add_explicit(from_own ? &paths_left : &paths_returned, 1,
                                  memory_order_relaxed);
}

stats_snapshot stats_read(void)
{
    stats_snapshot s = {atomic_load(&handled_calls), atomic_load(&handled_bytes),
                        atomic_load(&fallback_calls), atomic_load(&error_calls),
                        atomic_load(&analysed_types), atomic_load(&reused_types),
                        atomic_load(&stale_requests), atomic_load(&unseen_routes),
                        atomic_load(&paths_packed),
                        atomic_load(&paths_by_mpi),
                        atomic_load(&paths_saved),
                        atomic_load(&recognised_types),
                        atomic_load(&paths_checked),
                        atomic_load(&paths_returned),
                        atomic_load(&paths_left)};
    return s;
}

void stats_print(FILE *out, int rank, const char *unseen)
{
    stats_snapshot s = stats_read();
    char stale[96] = ""; /* only programs that complete requests behind memcomm's back */
    if (s.stale_requests)
        snprintf(stale, sizeof stale, "; dropped %" PRIu64 " requests completed without memcomm",
                 s.stale_requests);
    char routes[384] = ""; /* only programs with a binding or tool memcomm is not in front of */
    if (s.unseen_routes)
        snprintf(routes, sizeof routes,
                 "; left %" PRIu64 " requests to the MPI (%s completes requests past memcomm)",
                 s.unseen_routes, unseen ? unseen : "a library loaded meanwhile");
    char saved[96] = ""; /* only runs with MEMCOMM_DECISIONS */
    if (s.paths_saved)
        snprintf(saved, sizeof saved, "; took %" PRIu64 " paths from runs before", s.paths_saved);
    char recognised[96] = ""; /* only programs that re-create types */
    if (s.recognised_types)
        snprintf(recognised, sizeof recognised, "; recognised %" PRIu64 " types by fingerprint",
                 s.recognised_types);
    char checked[160] = ""; /* only runs long enough for a decision to be checked */
    if (s.paths_checked)
        snprintf(checked, sizeof checked,
                 "; checked %" PRIu64 " decisions against the other path: back to the MPI's "
                 "own %" PRIu64 " times, over to packing %" PRIu64 " times",
                 s.paths_checked, s.paths_returned, s.paths_left);
    /* one write: ranks share stderr, and unbuffered pieces would interleave */
    fprintf(out,
            "memcomm: rank %d handled %" PRIu64 " calls (%" PRIu64 " bytes), passed %" PRIu64
            " calls to the MPI, raised %" PRIu64 " errors; analysed %" PRIu64
            " types, reused %" PRIu64 " analyses; measured %" PRIu64 " paths, packing %" PRIu64
            "%s%s%s%s%s\n",
            rank, s.handled_calls, s.handled_bytes, s.fallback_calls, s.error_calls,
            s.analysed_types, s.reused_types, s.paths_packed + s.paths_by_mpi, s.paths_packed,
            checked, recognised, saved, stale, routes);
}
