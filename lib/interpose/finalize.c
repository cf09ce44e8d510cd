/* MPI_Finalize: print MEMCOMM_STATS, drop the type cache while the MPI still runs, and free
 * the kept message buffers. */
#include <stdio.h>

#include "../core/config.h"
#include "../base/mpiutil.h"
#include "../core/stats.h"
#include "../core/typecache.h"
#include "../p2p/bufpool.h"
#include "../p2p/requests.h"

EXPORT int MPI_Finalize(void)
{
    if (config_get()->stats) {
        int rank = -1;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        stats_print(stderr, rank);
        fflush(stderr);
    }
    requests_finalize(); /* requests the user freed before they completed */
    typecache_shutdown();
    bufpool_drain();
    return PMPI_Finalize();
}
