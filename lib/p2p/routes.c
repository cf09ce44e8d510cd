#define _GNU_SOURCE
#include "routes.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "../base/forklock.h"
#include "../base/fortran_names.h"
#include "../core/loaded.h"

/* The C entry points of the same families. A tool preloaded before memcomm that defines one
 * (a profiler's MPI_Wait) hands the call to PMPI_Wait, past memcomm. */
#define C_ROUTES(X)                                                                            \
    X(MPI_Wait) X(MPI_Test) X(MPI_Waitall) X(MPI_Testall) X(MPI_Waitany) X(MPI_Testany)        \
    X(MPI_Waitsome) X(MPI_Testsome) X(MPI_Request_get_status) X(MPI_Request_get_status_any)    \
    X(MPI_Request_get_status_all) X(MPI_Request_get_status_some) X(MPI_Request_free)           \
    X(MPI_Start) X(MPI_Startall) X(MPI_Finalize)

/* Every exported name of each family that completes, starts or frees requests. */
#define ROUTE_NAMES(lower, UPPER) #lower "_", #lower, #lower "__", #UPPER, #lower "_f08_",
#define CARRIED_ROUTE(E, lower, UPPER, ROUTE) ROUTE_NAMES(lower, UPPER)
#define C_NAME(name) #name,
static const char *const names[] = {FORTRAN_FAMILIES(CARRIED_ROUTE)
                                        FORTRAN_UNCARRIED_ROUTES(ROUTE_NAMES) C_ROUTES(C_NAME)};
/* ROUTE 0 families (commits) are listed too by CARRIED_ROUTE; they are skipped below. */
#define ROUTE_FLAG(E, lower, UPPER, ROUTE) ROUTE, ROUTE, ROUTE, ROUTE, ROUTE,
#define UNCARRIED_FLAG(lower, UPPER) 1, 1, 1, 1, 1,
#define C_FLAG(name) 1,
static const unsigned char is_route[] = {
    FORTRAN_FAMILIES(ROUTE_FLAG) FORTRAN_UNCARRIED_ROUTES(UNCARRIED_FLAG) C_ROUTES(C_FLAG)};
_Static_assert(sizeof names / sizeof *names == sizeof is_route, "a flag per name");

/* The MPI-IO split collectives' second halves (the end of a read unpacks what its begin
 * staged), in every mangling and binding: memcomm defines them for Open MPI's bindings
 * (fortran.c), not for MPICH's or the TS 29113 names, so where one of those is defined first
 * the process has an end that memcomm cannot see. */
#define SPLIT_END_NAMES(lower, UPPER, C) ROUTE_NAMES(lower, UPPER) #lower "_f08ts_", #C,
static const char *const split_end_names[] = {
    SPLIT_END_NAMES(mpi_file_read_all_end, MPI_FILE_READ_ALL_END, MPI_File_read_all_end)
    SPLIT_END_NAMES(mpi_file_write_all_end, MPI_FILE_WRITE_ALL_END, MPI_File_write_all_end)
    SPLIT_END_NAMES(mpi_file_read_at_all_end, MPI_FILE_READ_AT_ALL_END,
                    MPI_File_read_at_all_end)
    SPLIT_END_NAMES(mpi_file_write_at_all_end, MPI_FILE_WRITE_AT_ALL_END,
                    MPI_File_write_at_all_end)
    SPLIT_END_NAMES(mpi_file_read_ordered_end, MPI_FILE_READ_ORDERED_END,
                    MPI_File_read_ordered_end)
    SPLIT_END_NAMES(mpi_file_write_ordered_end, MPI_FILE_WRITE_ORDERED_END,
                    MPI_File_write_ordered_end)};

/* The first of `n` names (those flagged, all without flags) whose definition is not memcomm's,
 * with the file that defines it, or NULL. */
static const char *find_unseen(const char *const names_of[], const unsigned char *flags,
                               size_t n, const char **file)
{
    Dl_info mine, theirs;
    *file = NULL;
    if (!dladdr((void *)&routes_all_seen, &mine))
        return names_of[0];
    for (size_t i = 0; i < n; i++) {
        if (flags && !flags[i])
            continue;
        void *found = dlsym(RTLD_DEFAULT, names_of[i]);
        if (!found)
            continue; /* memcomm not in the global scope (dlopen'ed locally): the binding's */
        if (!dladdr(found, &theirs))
            return names_of[i];
        if (theirs.dli_fbase != mine.dli_fbase) {
            *file = theirs.dli_fname;
            return names_of[i];
        }
    }
    return NULL;
}

/* One answer per set of names, looked up again whenever a library has been loaded since. */
typedef struct {
    const char *const *names;
    const unsigned char *flags;
    size_t n;
    _Atomic unsigned long long checked_loads; /* 0: never checked */
    const char *_Atomic unseen;
    const char *unseen_file; /* written under the lock with `unseen` */
} route_set;

static route_set requests_set = {names, is_route, sizeof names / sizeof *names, 0, NULL, NULL};
static route_set split_set = {split_end_names, NULL,
                              sizeof split_end_names / sizeof *split_end_names, 0, NULL, NULL};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static const char *unseen_of(route_set *set)
{
    const unsigned long long loads = loaded_objects();
    if (loads != atomic_load_explicit(&set->checked_loads, memory_order_acquire)) {
        pthread_mutex_lock(&lock);
        if (loads != atomic_load_explicit(&set->checked_loads, memory_order_relaxed)) {
            atomic_store_explicit(&set->unseen,
                                  find_unseen(set->names, set->flags, set->n, &set->unseen_file),
                                  memory_order_relaxed);
            atomic_store_explicit(&set->checked_loads, loads, memory_order_release);
        }
        pthread_mutex_unlock(&lock);
    }
    return atomic_load_explicit(&set->unseen, memory_order_relaxed);
}

bool routes_all_seen(void) { return unseen_of(&requests_set) == NULL; }

const char *routes_unseen(char *text, size_t size)
{
    const char *name = unseen_of(&requests_set);
    if (!name)
        return NULL;
    pthread_mutex_lock(&lock);
    const char *file = requests_set.unseen_file;
    snprintf(text, size, file && *file ? "%s of %s" : "%s", name, file);
    pthread_mutex_unlock(&lock);
    return text;
}

bool routes_split_ends_seen(void) { return unseen_of(&split_set) == NULL; }

void routes_fork_lock(void) { pthread_mutex_lock(&lock); }

void routes_fork_unlock(bool child) { forklock_release(&lock, child); }
