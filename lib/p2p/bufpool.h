/* bufpool: the temporary buffers that carry packed messages.
 *
 * A non-contiguous send packs into one of these and a non-contiguous receive lands in one,
 * so they are taken and given back on every such call. Free buffers are kept for reuse, up
 * to MEMCOMM_POOL_BYTES in all (default 64 MiB). The buffer given back last is always kept,
 * however large; the smallest kept ones are freed to make room for it.
 * Thread-safe. */
#ifndef MEMCOMM_BUFPOOL_H
#define MEMCOMM_BUFPOOL_H

#include <stdint.h>

/* A buffer of at least `bytes` (> 0), or NULL when memory is short. */
void *bufpool_take(int64_t bytes);

/* Give back a buffer from bufpool_take (NULL is ignored). */
void bufpool_give(void *buffer);

/* Free every kept buffer (at MPI_Finalize). */
void bufpool_drain(void);

#endif
