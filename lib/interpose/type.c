/* MPI_Type_commit / MPI_Type_dup: analyse a type once, when it becomes usable. */
#include "../core/config.h"
#include "../core/typecache.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int MPI_Type_commit(MPI_Datatype *datatype)
{
    int rc = PMPI_Type_commit(datatype);
    if (rc == MPI_SUCCESS && !config_get()->disable)
        typecache_on_commit(*datatype);
    return rc;
}

EXPORT int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int rc = PMPI_Type_dup(oldtype, newtype);
    if (rc == MPI_SUCCESS && !config_get()->disable)
        typecache_on_dup(oldtype, *newtype);
    return rc;
}
