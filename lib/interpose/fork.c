/* fork(): a thread that forks while another holds one of memcomm's locks would leave the child
 * with that lock held for ever. The handlers take every global lock before the fork, in the
 * one order memcomm ever nests them (the Fortran bindings' probe, the Fortran routes check,
 * requests, then the type cache, the constructions, the buffer pool, the loaded-objects
 * query of loaded.h, the collectives' receive shapes, MPI-IO's open split collectives and
 * the decisions of runs before, which a send-path table's lock may hold),
 * and release them after it: the parent unlocks them, the child, whose one thread does not
 * own them, makes them anew. */
#include <pthread.h>

#include "../coll/exchange.h"
#include "../core/constructions.h"
#include "../core/decisions.h"
#include "../core/loaded.h"
#include "../core/typecache.h"
#if MEMCOMM_HAVE_MPI_IO
#include "../io/split.h"
#else
static inline void split_fork_lock(void) {}
static inline void split_fork_unlock(bool child) { (void)child; }
#endif
#include "../p2p/bufpool.h"
#include "../p2p/requests.h"
#include "../p2p/routes.h"
#include "entry.h"

static void before_fork(void)
{
    fortran_fork_lock();
    routes_fork_lock();
    requests_fork_lock();
    typecache_fork_lock();
    constructions_fork_lock();
    bufpool_fork_lock();
    loaded_fork_lock();
    exchange_fork_lock();
    split_fork_lock();
    decisions_fork_lock();
}

static void in_parent(void)
{
    decisions_fork_unlock(false);
    split_fork_unlock(false);
    exchange_fork_unlock(false);
    loaded_fork_unlock(false);
    bufpool_fork_unlock(false);
    constructions_fork_unlock(false);
    typecache_fork_unlock(false);
    requests_fork_unlock(false);
    routes_fork_unlock(false);
    fortran_fork_unlock(false);
}

static void in_child(void)
{
    decisions_fork_unlock(true);
    split_fork_unlock(true);
    exchange_fork_unlock(true);
    loaded_fork_unlock(true);
    bufpool_fork_unlock(true);
    constructions_fork_unlock(true);
    typecache_fork_unlock(true);
    requests_fork_unlock(true);
    routes_fork_unlock(true);
    fortran_fork_unlock(true);
}

__attribute__((constructor)) static void register_fork_handlers(void)
{
    pthread_atfork(before_fork, in_parent, in_child);
}
