#include "message.h"

#include <limits.h>
#include <stdatomic.h>
#include <string.h>

#include "../core/stats.h"
#include "../core/typecache.h"
#include "../kernel/kernel.h"
#include "bufpool.h"

/* Handles known to go to the MPI unchanged, direct-mapped. A stale entry (a freed handle
 * reused for another type) only sends that type through the MPI, which is always correct,
 * so entries are never invalidated. */
enum { PASS_SLOTS = 256 };
static _Atomic uint64_t passing[PASS_SLOTS];

static uint64_t key_of(MPI_Datatype type)
{
    uint64_t key = 0;
    memcpy(&key, &type, sizeof type < sizeof key ? sizeof type : sizeof key);
    return key + 1; /* 0 marks an empty slot */
}

static _Atomic uint64_t *pass_slot(uint64_t key)
{
    return &passing[(key * 0x9E3779B97F4A7C15ull) >> 56];
}

bool message_takes(const void *buf, int64_t count, MPI_Datatype type, message *m)
{
    if (count <= 0 || !buf)
        return false;
    const uint64_t key = key_of(type);
    if (atomic_load_explicit(pass_slot(key), memory_order_relaxed) == key)
        return false;
    analysis *a = typecache_acquire(type);
    if (!a) /* not committed (yet): the MPI judges it */
        return false;
    const plan *p = &a->plan;
    bool dense = p->kind == PLAN_CONTIG && p->strided.block == p->extent;
    if (!a->supported || dense || a->bounds.size == 0) {
        atomic_store_explicit(pass_slot(key), key, memory_order_relaxed);
        analysis_release(a);
        return false;
    }
    if (__builtin_mul_overflow(count, a->bounds.size, &m->bytes) || m->bytes > INT_MAX) {
        analysis_release(a);
        return false;
    }
    m->analysis = a;
    return true;
}

void *message_pack(const message *m, const void *buf, int64_t count)
{
    char *packed = bufpool_take(m->bytes);
    if (packed) {
        m->analysis->plan.pack(&m->analysis->plan, (char *)buf, count, packed);
        stats_handled(m->bytes);
    }
    return packed;
}

void message_unpack(const message *m, const void *packed, int64_t received, void *buf)
{
    const analysis *a = m->analysis;
    const int64_t whole = received / a->bounds.size, rest = received % a->bounds.size;
    if (whole > 0) /* kernels walk at least one instance */
        a->plan.unpack(&a->plan, buf, whole, (char *)packed);
    if (rest)
        kernel_tree_unpack_prefix(a->normal, (char *)buf + whole * a->bounds.extent,
                                  (const char *)packed + whole * a->bounds.size, rest);
    stats_handled(received);
}

void message_done(message *m)
{
    analysis_release(m->analysis);
    m->analysis = NULL;
}
