/* device: is a buffer GPU memory? memcomm's kernels read and write with the CPU, so a buffer
 * that a loaded CUDA or ROCm runtime reports as device memory goes to the MPI unchanged (a
 * GPU-aware MPI moves it; one that is not says what it would say without memcomm).
 *
 * No build dependency: the runtimes' pointer queries are looked up with dlsym among the
 * objects the process has loaded, again whenever it has loaded more (dl_iterate_phdr's
 * count of loaded objects, about 10 ns to read), and never loaded by memcomm. With no GPU
 * runtime in the process the answer is "no" after that one read. */
#ifndef MEMCOMM_DEVICE_H
#define MEMCOMM_DEVICE_H

#include <stdbool.h>

bool device_memory(const void *p);

/* Held across fork() (interpose/fork.c): dl_iterate_phdr's lock is not made anew in a child,
 * so no memcomm thread may be inside it when another forks. */
void device_fork_lock(void);
void device_fork_unlock(bool child);

#endif
