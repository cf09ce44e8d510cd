#include "defects.h"

#include <mpi.h>
#include <stdatomic.h>
#include <string.h>

/* 0: not asked yet, 1: this MPI has the defect, 2: it has not. MPI_Get_library_version is
 * callable from any thread, before MPI_Init too, so racing first callers just ask twice. */
static bool library_starts(atomic_int *known, const char *prefix)
{
    int k = atomic_load_explicit(known, memory_order_relaxed);
    if (!k) {
        char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
        int length = 0;
        PMPI_Get_library_version(version, &length);
        k = strncmp(version, prefix, strlen(prefix)) == 0 ? 1 : 2;
        atomic_store_explicit(known, k, memory_order_relaxed);
    }
    return k == 1;
}

bool defects_persistent_collectives(void)
{
    static atomic_int known;
    return library_starts(&known, "Intel(R) MPI Library 2021");
}

bool defects_pack_rejects_bottom(void)
{
    static atomic_int known;
    return library_starts(&known, "MPICH Version:\t4.0");
}
