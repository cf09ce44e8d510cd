/* device: is a buffer GPU memory? memcomm's kernels read and write with the CPU, so a buffer
 * that a loaded CUDA or ROCm runtime reports as device memory goes to the MPI unchanged (a
 * GPU-aware MPI moves it; one that is not says what it would say without memcomm).
 *
 * No build dependency: the runtimes' pointer queries are looked up with dlsym among the
 * objects the process has loaded, again whenever it has loaded more (loaded.h), and never
 * loaded by memcomm. With no GPU
 * runtime in the process the answer is "no" after that one read. */
#ifndef MEMCOMM_DEVICE_H
#define MEMCOMM_DEVICE_H

#include <stdbool.h>

bool device_memory(const void *p);

/* Whether a GPU runtime is loaded at all: a caller with many pointers to ask about (a
 * collective's blocks) asks this once, and device_memory only if so. */
bool device_runtime_loaded(void);

#endif
