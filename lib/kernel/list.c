#include <stdint.h>
#include <string.h>

#include "kernel.h"

/* Block i of a list at `base`, to or from `packed`; returns the packed end. */
static inline __attribute__((always_inline)) char *
copy_block_at(const int64_t *offs, const int32_t *offs32, const int64_t *lens, int64_t i,
              char *base, char *packed, int64_t fixed_len, bool narrow, bool pack)
{
    const int64_t len = fixed_len ? fixed_len : lens[i];
    char *at = base + (narrow ? offs32[i] : offs[i]);
    if (pack)
        kernel_copy_block(packed, at, len);
    else
        kernel_copy_block(at, packed, len);
    return packed + len;
}

/* Blocks of a list at `base`: `len` is a compile-time constant where it is fixed (0: read
 * from `lens`), and so is `narrow`, whether offsets come from the int32 copy. The arrays are
 * passed as locals: stores through char pointers may alias anything, so the compiler would
 * otherwise reload them after every block. Both ends of the block `ahead` are prefetched (a
 * 24-byte block straddles two cache lines one time in three), unless `ahead` is `n`: blocks
 * near each other (plan_list's `far`). */
static inline __attribute__((always_inline)) char *
copy_blocks(const int64_t *offs, const int32_t *offs32, const int64_t *lens, int64_t n,
            char *base, char *packed, int64_t fixed_len, int64_t ahead, bool narrow, bool pack)
{
    const int64_t prefetched = n > ahead ? n - ahead : 0;
    int64_t i = 0;
    for (; i < prefetched; i++) {
        const char *next = base + (narrow ? offs32[i + ahead] : offs[i + ahead]);
        const char *last = next + (fixed_len ? fixed_len : lens[i + ahead]) - 1;
        __builtin_prefetch(next, pack ? 0 : 1, 1); /* unpack: to write, if the ISA can say */
        __builtin_prefetch(last, pack ? 0 : 1, 1);
        packed = copy_block_at(offs, offs32, lens, i, base, packed, fixed_len, narrow, pack);
    }
    for (; i < n; i++)
        packed = copy_block_at(offs, offs32, lens, i, base, packed, fixed_len, narrow, pack);
    return packed;
}

/* One run of equal blocks (plan_list), with a constant length where it is a common one
 * (basic types, particles of 3 floats or doubles, complex numbers). */
static inline __attribute__((always_inline)) char *copy_run(const plan_list *l, const plan_run *r,
                                                            char *base, char *packed,
                                                            bool narrow, bool pack)
{
    const int64_t *offs = l->offs + r->first, *lens = l->lens + r->first;
    const int32_t *offs32 = narrow ? l->offs32 + r->first : NULL;
    const int64_t n = r->n, ahead = r->far ? kernel_prefetch_distance(r->len, r->n) : n;
#define RUN_OF(LEN) copy_blocks(offs, offs32, lens, n, base, packed, LEN, ahead, narrow, pack)
    switch (r->len) {
    case 4: return RUN_OF(4);
    case 8: return RUN_OF(8);
    case 12: return RUN_OF(12);
    case 16: return RUN_OF(16);
    case 24: return RUN_OF(24);
    case 32: return RUN_OF(32);
    case 40: return RUN_OF(40);
    default: return RUN_OF(0);
    }
#undef RUN_OF
}

static inline __attribute__((always_inline)) void
walk(const plan *p, char *typed, int64_t count, char *packed, bool narrow, bool pack)
{
    const plan_list *l = &p->list;
    plan_strided s;
    plan_strided_for_count(p, count, &s);
    char *base = typed + s.off;
    int64_t idx[PLAN_MAX_DIMS + 1] = {0};
    const int64_t ahead = l->far ? kernel_prefetch_distance(l->mean_len, l->n) : l->n;
    for (;;) {
        if (l->runs)
            for (int r = 0; r < l->runs; r++)
                packed = copy_run(l, &l->run[r], base, packed, narrow, pack);
        else
            packed = copy_blocks(l->offs, l->offs32, l->lens, l->n, base, packed, 0, ahead,
                                 narrow, pack);
        if (!kernel_next_outer(&s, s.ndims - 1, idx, &base))
            return;
    }
}

/* The walk on the list's int32 offsets where it has them (`narrow` a constant in each). */
static inline __attribute__((always_inline)) void
walk_offsets(const plan *p, char *typed, int64_t count, char *packed, bool pack)
{
    if (p->list.offs32)
        walk(p, typed, count, packed, true, pack);
    else
        walk(p, typed, count, packed, false, pack);
}

void kernel_list_pack(const plan *p, char *typed, int64_t count, char *packed)
{
    walk_offsets(p, typed, count, packed, true);
}

void kernel_list_unpack(const plan *p, char *typed, int64_t count, char *packed)
{
    walk_offsets(p, typed, count, packed, false);
}
