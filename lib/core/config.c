#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

config config_current;
atomic_bool config_ready;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static bool env_flag(const char *name, bool unset)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return unset;
    return strcmp(v, "0") != 0 && strcmp(v, "no") != 0 && strcmp(v, "false") != 0;
}

static void read_env(void)
{
    config_current.disable = env_flag("MEMCOMM_DISABLE", false);
    config_current.stats = env_flag("MEMCOMM_STATS", false);
    config_current.explain = env_flag("MEMCOMM_EXPLAIN", false);
    config_current.verify = env_flag("MEMCOMM_VERIFY", true);
    const char *pool = getenv("MEMCOMM_POOL_BYTES");
    config_current.pool_bytes = pool && *pool ? strtoll(pool, NULL, 10) : 64ll << 20;
    const char *path = getenv("MEMCOMM_SEND_PATH");
    config_current.carry_path = !path || !*path             ? CONFIG_SEND_MEASURE
                        : !strcmp(path, "packed")   ? CONFIG_SEND_PACKED
                        : !strcmp(path, "mpi")      ? CONFIG_SEND_BY_MPI
                                                    : CONFIG_SEND_MEASURE;
}

void config_read(void)
{
    pthread_once(&once, read_env);
    atomic_store_explicit(&config_ready, true, memory_order_release);
}
