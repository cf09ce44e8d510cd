#include "own_path.h"

#include "../core/config.h"
#include "../core/typecache.h"

typedef struct {
    MPI_Datatype type;
    int64_t count;
    uint64_t generation;
    bool valid;
    sendpath_class *decided; /* NULL: the MPI's own path by MEMCOMM_SEND_PATH=mpi */
} own_path_memo;

static _Thread_local __attribute__((tls_model("initial-exec"))) own_path_memo
    own_path[OWN_PATH_KINDS];

bool own_path_passes(MPI_Datatype type, int64_t count, int kind)
{
    const own_path_memo *m = &own_path[kind];
    if (!m->valid || m->type != type || m->count != count ||
        m->generation != typecache_generation())
        return false;
    if (!m->decided)
        return config_get()->send_path == CONFIG_SEND_BY_MPI;
    return kind == OWN_PATH_NONBLOCKING ? sendpath_epoch_class_passes(m->decided)
                                        : sendpath_class_passes(m->decided, 2, kind);
}

void own_path_remember(MPI_Datatype type, int64_t count, int kind, uint64_t generation,
                       sendpath_class *decided, bool fixed)
{
    own_path[kind] = (own_path_memo){type, count, generation, fixed || decided, decided};
}
