/* alloc: every heap allocation memcomm makes goes through these, so that tests can fail
 * each one in turn (MEMCOMM_FAIL_ALLOC=N fails the N-th of the process, counted from 1)
 * and check that the call still gets the MPI's answer (tests/mpi/fault_sweep.sh). Memory
 * from them is released with free(). */
#ifndef MEMCOMM_ALLOC_H
#define MEMCOMM_ALLOC_H

#include <stddef.h>

void *mc_malloc(size_t size);
void *mc_calloc(size_t n, size_t size);
void *mc_realloc(void *p, size_t size);
void *mc_aligned_alloc(size_t alignment, size_t size);

/* Allocations asked for so far (failed ones included). */
unsigned long long mc_allocations(void);

#endif
