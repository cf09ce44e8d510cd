/* loaded: how many objects the process has loaded so far (dl_iterate_phdr's count, about
 * 10 ns to read), so that what memcomm looks up among them (GPU runtimes, Fortran bindings)
 * is looked up again only when it may have changed. */
#ifndef MEMCOMM_LOADED_H
#define MEMCOMM_LOADED_H

#include <stdbool.h>

unsigned long long loaded_objects(void);

/* Held across fork() (interpose/fork.c): dl_iterate_phdr's lock is not made anew in a child,
 * so no memcomm thread may be inside it when another forks. */
void loaded_fork_lock(void);
void loaded_fork_unlock(bool child);

#endif
