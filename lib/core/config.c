#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static config current;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static bool env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0 && strcmp(v, "no") != 0 && strcmp(v, "false") != 0;
}

static void read_env(void)
{
    current.disable = env_flag("MEMCOMM_DISABLE");
    current.stats = env_flag("MEMCOMM_STATS");
    current.explain = env_flag("MEMCOMM_EXPLAIN");
    const char *pool = getenv("MEMCOMM_POOL_BYTES");
    current.pool_bytes = pool && *pool ? strtoll(pool, NULL, 10) : 64ll << 20;
    const char *path = getenv("MEMCOMM_SEND_PATH");
    current.send_path = !path || !*path             ? CONFIG_SEND_MEASURE
                        : !strcmp(path, "packed")   ? CONFIG_SEND_PACKED
                        : !strcmp(path, "mpi")      ? CONFIG_SEND_BY_MPI
                                                    : CONFIG_SEND_MEASURE;
}

const config *config_get(void)
{
    pthread_once(&once, read_env);
    return &current;
}
