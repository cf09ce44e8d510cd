#include "config.h"
#include "../base/units.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* A quarter of one core's share of the memory, from 256 MiB up to what may be in flight: the
 * free buffers the pool keeps. A message whose buffers are larger than the pool keeps faults
 * them in on every call: MPICH's x-z slabs of 512^3 doubles (268 MB of send and 537 MB of
 * receive staging a rank) took 520 ms a call with the 256 MiB bound of before, 0.51x the
 * MPI's own Alltoallw, and 166 ms (1.54x) with the buffers kept (`bench collectives`, Intel
 * Xeon VM, 24 GB and 2 CPUs). Each kept buffer was in use before;
 * buffers of different calls are held together up to the bound, above any one call's need. */
static int64_t default_pool_bytes(int64_t inflight)
{
    const int64_t least = 256ll << 20, most = inflight > least ? inflight : least;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE),
               cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (pages <= 0 || page <= 0 || cpus <= 0)
        return least;
    const int64_t share = (int64_t)pages / (4 * cpus) * page;
    return share < least ? least : share > most ? most : share;
}

static void read_env(void)
{
    config_current.disable = env_flag("MEMCOMM_DISABLE", false);
    config_current.stats = env_flag("MEMCOMM_STATS", false);
    config_current.explain = env_flag("MEMCOMM_EXPLAIN", false);
    config_current.verify = env_flag("MEMCOMM_VERIFY", true);
    config_current.inflight_bytes = env_size("MEMCOMM_INFLIGHT_BYTES", 1ll << 30);
    config_current.pool_bytes =
        env_size("MEMCOMM_POOL_BYTES", default_pool_bytes(config_current.inflight_bytes));
    config_current.huge_pages = env_flag("MEMCOMM_HUGE_PAGES", true);
    const char *decisions = getenv("MEMCOMM_DECISIONS");
    config_current.decisions = decisions && *decisions ? decisions : NULL;
    const char *path = getenv("MEMCOMM_SEND_PATH");
    config_current.send_path = CONFIG_SEND_MEASURE;
    if (path && !strcmp(path, "packed"))
        config_current.send_path = CONFIG_SEND_PACKED;
    else if (path && !strcmp(path, "mpi"))
        config_current.send_path = CONFIG_SEND_BY_MPI;
    else if (path && *path && strcmp(path, "measure")) /* misspelt (`own` for `mpi`): said */
        fprintf(stderr, "memcomm: MEMCOMM_SEND_PATH=%s is none of measure, packed, mpi: "
                        "measuring\n", path);
}

void config_read(void)
{
    pthread_once(&once, read_env);
    atomic_store_explicit(&config_ready, true, memory_order_release);
}
