#include "own_path.h"

_Thread_local __attribute__((tls_model("initial-exec"))) own_path_memo own_path[OWN_PATH_KINDS];

void own_path_remember(MPI_Datatype type, int64_t count, int kind, uint64_t generation,
                       sendpath_class *decided, bool fixed)
{
    own_path[kind] = (own_path_memo){type, count, generation, fixed || decided, decided};
}
