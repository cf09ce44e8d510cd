/* MPI_Finalize: print MEMCOMM_STATS and drop the type cache while the MPI still runs. */
#include <stdio.h>

#include "../core/config.h"
#include "../core/stats.h"
#include "../core/typecache.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int MPI_Finalize(void)
{
    if (config_get()->stats) {
        int rank = -1;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        stats_print(stderr, rank);
        fflush(stderr);
    }
    typecache_shutdown();
    return PMPI_Finalize();
}
