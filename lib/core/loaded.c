#define _GNU_SOURCE
#include "loaded.h"

#include <link.h>
#include <pthread.h>

#include "../base/forklock.h"

static pthread_mutex_t iterating = PTHREAD_MUTEX_INITIALIZER;

static int count_objects(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    *(unsigned long long *)out = info->dlpi_adds;
    return 1; /* the first object carries the count */
}

unsigned long long loaded_objects(void)
{
    unsigned long long loaded = 0;
    pthread_mutex_lock(&iterating);
    dl_iterate_phdr(count_objects, &loaded);
    pthread_mutex_unlock(&iterating);
    return loaded;
}

void loaded_fork_lock(void) { pthread_mutex_lock(&iterating); }

void loaded_fork_unlock(bool child) { forklock_release(&iterating, child); }
