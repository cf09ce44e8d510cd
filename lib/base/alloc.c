#include "alloc.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

static atomic_ullong asked;
static _Atomic long long fail_at = -1; /* -1: not read yet; 0: never */

/* Counts the allocation; false for the one MEMCOMM_FAIL_ALLOC names. */
static bool granted(void)
{
    const unsigned long long n = atomic_fetch_add_explicit(&asked, 1, memory_order_relaxed) + 1;
    long long at = atomic_load_explicit(&fail_at, memory_order_relaxed);
    if (at < 0) { /* two threads may both read it; they store the same */
        const char *v = getenv("MEMCOMM_FAIL_ALLOC");
        at = v ? atoll(v) : 0;
        atomic_store_explicit(&fail_at, at > 0 ? at : 0, memory_order_relaxed);
    }
    return at <= 0 || n != (unsigned long long)at;
}

void *mc_malloc(size_t size) { return granted() ? malloc(size) : NULL; }

void *mc_calloc(size_t n, size_t size) { return granted() ? calloc(n, size) : NULL; }

void *mc_realloc(void *p, size_t size) { return granted() ? realloc(p, size) : NULL; }

void *mc_aligned_alloc(size_t alignment, size_t size)
{
    return granted() ? aligned_alloc(alignment, size) : NULL;
}

unsigned long long mc_allocations(void) { return atomic_load(&asked); }
