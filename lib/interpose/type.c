/* MPI_Type_commit / MPI_Type_dup: analyse a type once, when it becomes usable. */
#include <stdio.h>
#include <string.h>

#include "../core/config.h"
#include "../base/mpiutil.h"
#include "../core/explain.h"
#include "../core/typecache.h"
#include "../p2p/message.h"
#include "entry.h"

/* MEMCOMM_EXPLAIN=1: the decision for one element; calls explain their own counts */
static void explain_commit(MPI_Datatype datatype)
{
    analysis *a = typecache_acquire(datatype);
    if (a)
        explain_to_stderr(a, 1, "MPI_Type_commit");
    analysis_release(a);
}

void type_committed(MPI_Datatype datatype)
{
    if (config_get()->disable)
        return;
    message_forget_passing(datatype);
    typecache_on_commit(datatype);
    if (config_get()->explain)
        explain_commit(datatype);
}

void type_duplicated(MPI_Datatype oldtype, MPI_Datatype newtype)
{
    if (config_get()->disable)
        return;
    message_forget_passing(newtype);
    typecache_on_dup(oldtype, newtype);
}

EXPORT int MPI_Type_commit(MPI_Datatype *datatype)
{
    int rc = PMPI_Type_commit(datatype);
    if (rc == MPI_SUCCESS)
        type_committed(*datatype);
    return rc;
}

EXPORT int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int rc = PMPI_Type_dup(oldtype, newtype);
    if (rc == MPI_SUCCESS)
        type_duplicated(oldtype, *newtype);
    return rc;
}
