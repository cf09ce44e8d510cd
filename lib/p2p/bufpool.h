/* bufpool: the temporary buffers that carry packed messages.
 *
 * A non-contiguous send packs into one of these and a non-contiguous receive lands in one,
 * so they are taken and given back on every such call. Both bounds are strict:
 * - buffers in use: at most MEMCOMM_INFLIGHT_BYTES in all (default 1 GiB); beyond it
 *   bufpool_take says no, and the call goes to the MPI's own datatype path;
 * - free buffers kept for reuse: at most MEMCOMM_POOL_BYTES in all (lib/core/config.c); the
 *   smallest kept ones are freed to make room for the one given back, and one larger than
 *   the bound is freed (a message that large then faults its buffer in on every call).
 * Payloads are 64-byte aligned (whole cache lines, and aligned SIMD and streaming stores);
 * buffers of 64 KiB and more are whole 2 MiB pages, which both bounds count as such
 * (bufpool.c says why).
 * Thread-safe. */
#ifndef MEMCOMM_BUFPOOL_H
#define MEMCOMM_BUFPOOL_H

#include <stdbool.h>
#include <stdint.h>

/* A buffer of at least `bytes` (> 0), or NULL when memory is short or the buffers in use
 * would exceed their bound. */
void *bufpool_take(int64_t bytes);

/* Give back a buffer from bufpool_take (NULL is ignored). */
void bufpool_give(void *buffer);

/* Free every kept buffer (at MPI_Finalize). */
void bufpool_drain(void);

/* Held across fork() (interpose/fork.c). */
void bufpool_fork_lock(void);
void bufpool_fork_unlock(bool child);

#endif
