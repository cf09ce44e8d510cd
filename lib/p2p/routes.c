#define _GNU_SOURCE
#include "routes.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>

#include "../base/forklock.h"
#include "../base/fortran_names.h"
#include "../core/loaded.h"

/* Every exported name of each family that completes, starts or frees requests. */
#define ROUTE_NAMES(lower, UPPER) #lower "_", #lower, #lower "__", #UPPER, #lower "_f08_",
#define CARRIED_ROUTE(E, lower, UPPER, ROUTE) ROUTE_NAMES(lower, UPPER)
static const char *const names[] = {FORTRAN_FAMILIES(CARRIED_ROUTE)
                                        FORTRAN_UNCARRIED_ROUTES(ROUTE_NAMES)};
/* ROUTE 0 families (commits) are listed too by CARRIED_ROUTE; they are skipped below. */
#define ROUTE_FLAG(E, lower, UPPER, ROUTE) ROUTE, ROUTE, ROUTE, ROUTE, ROUTE,
#define UNCARRIED_FLAG(lower, UPPER) 1, 1, 1, 1, 1,
static const unsigned char is_route[] = {FORTRAN_FAMILIES(ROUTE_FLAG)
                                             FORTRAN_UNCARRIED_ROUTES(UNCARRIED_FLAG)};
_Static_assert(sizeof names / sizeof *names == sizeof is_route, "a flag per name");

static const char *find_unseen(void)
{
    Dl_info mine, theirs;
    if (!dladdr((void *)&routes_all_seen, &mine))
        return names[0];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        if (!is_route[i])
            continue;
        void *found = dlsym(RTLD_DEFAULT, names[i]);
        if (!found)
            continue; /* memcomm not in the global scope (dlopen'ed locally): the binding's */
        if (!dladdr(found, &theirs) || theirs.dli_fbase != mine.dli_fbase)
            return names[i];
    }
    return NULL;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned long long checked_loads = 0; /* 0: never checked */
static const char *_Atomic unseen = NULL;

static void refresh(void)
{
    const unsigned long long loads = loaded_objects();
    if (loads == atomic_load_explicit(&checked_loads, memory_order_acquire))
        return;
    pthread_mutex_lock(&lock);
    if (loads != atomic_load_explicit(&checked_loads, memory_order_relaxed)) {
        atomic_store_explicit(&unseen, find_unseen(), memory_order_relaxed);
        atomic_store_explicit(&checked_loads, loads, memory_order_release);
    }
    pthread_mutex_unlock(&lock);
}

bool routes_all_seen(void)
{
    refresh();
    return atomic_load_explicit(&unseen, memory_order_relaxed) == NULL;
}

const char *routes_unseen(void)
{
    refresh();
    return atomic_load_explicit(&unseen, memory_order_relaxed);
}

void routes_fork_lock(void) { pthread_mutex_lock(&lock); }

void routes_fork_unlock(bool child) { forklock_release(&lock, child); }
