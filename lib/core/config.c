#include "config.h"
#include "../base/units.h"

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

static int64_t env_size(const char *name, int64_t unset)
{
    int64_t v = unset;
    units_parse_size(getenv(name), &v);
    return v;
}

static void read_env(void)
{
    config_current.disable = env_flag("MEMCOMM_DISABLE", false);
    config_current.stats = env_flag("MEMCOMM_STATS", false);
    config_current.explain = env_flag("MEMCOMM_EXPLAIN", false);
    config_current.verify = env_flag("MEMCOMM_VERIFY", true);
    config_current.pool_bytes = env_size("MEMCOMM_POOL_BYTES", 256ll << 20);
    config_current.inflight_bytes = env_size("MEMCOMM_INFLIGHT_BYTES", 1ll << 30);
    config_current.huge_pages = env_flag("MEMCOMM_HUGE_PAGES", true);
    const char *path = getenv("MEMCOMM_SEND_PATH");
    config_current.send_path = !path || !*path             ? CONFIG_SEND_MEASURE
                        : !strcmp(path, "packed")   ? CONFIG_SEND_PACKED
                        : !strcmp(path, "mpi")      ? CONFIG_SEND_BY_MPI
                                                    : CONFIG_SEND_MEASURE;
}

void config_read(void)
{
    pthread_once(&once, read_env);
    atomic_store_explicit(&config_ready, true, memory_order_release);
}
