/* MPI_Finalize: print MEMCOMM_STATS, write MEMCOMM_DECISIONS, drop the type cache while the
 * MPI still runs, and free the kept message buffers. */
#include <stdatomic.h>
#include <stdio.h>

#include "../core/config.h"
#include "../core/decisions.h"
#include "../base/mpiutil.h"
#include "../core/stats.h"
#include "../core/typecache.h"
#include "../p2p/bufpool.h"
#include "../p2p/requests.h"
#include "../p2p/routes.h"
#include "entry.h"

/* Once: a Fortran binding's MPI_FINALIZE (fortran.c) may reach MPI_Finalize here as well. */
void finalizing(void)
{
    static atomic_flag done = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&done))
        return;
    int rank = -1;
    if (config_get()->stats || config_get()->decisions)
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (config_get()->stats) {
        char unseen[256];
        stats_print(stderr, rank, routes_unseen(unseen, sizeof unseen));
        fflush(stderr);
    }
    if (config_get()->decisions)
        decisions_save(rank);
    requests_finalize(); /* requests the user freed before they completed */
    typecache_shutdown();
    bufpool_drain();
}

EXPORT int MPI_Finalize(void)
{
    finalizing();
    return PMPI_Finalize();
}
