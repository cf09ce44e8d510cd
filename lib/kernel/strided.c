#include <string.h>

#include "kernel.h"

/* The walk is written once; `block` and `pack` are compile-time constants in each
 * instantiation below, so memcpy of a fixed small size becomes a single move and the
 * direction test disappears. */
static inline __attribute__((always_inline)) void
walk(const plan_strided *s, char *typed, char *packed, int64_t block, bool pack)
{
    char *base = typed + s->off;
    if (s->ndims == 0) {
        if (pack)
            memcpy(packed, base, (size_t)block);
        else
            memcpy(base, packed, (size_t)block);
        return;
    }
    const int inner = s->ndims - 1;
    const int64_t inner_count = s->count[inner], inner_stride = s->stride[inner];
    int64_t idx[PLAN_MAX_DIMS + 1] = {0};
    for (;;) {
        char *p = base;
        for (int64_t i = 0; i < inner_count; i++) {
            if (pack)
                memcpy(packed, p, (size_t)block);
            else
                memcpy(p, packed, (size_t)block);
            p += inner_stride;
            packed += block;
        }
        if (!kernel_next_outer(s, inner - 1, idx, &base))
            return;
    }
}

/* The same walk with the innermost two dims cache-blocked (plan_tiles_for): `rows`
 * inner-dim references (as many pages as half the TLB maps) are visited across `cols`
 * outer-dim steps before moving on, so every page and cache line fetched is used whole
 * while it is still mapped. Outer dims beyond the two iterate as in walk(). */
static inline __attribute__((always_inline)) void
walk_blocked(const plan_strided *s, const plan_tiles *t, char *typed, char *packed, int64_t block,
             bool pack)
{
    const int k = s->ndims;
    const int64_t n_o = s->count[k - 2], s_o = s->stride[k - 2];
    const int64_t n_i = s->count[k - 1], s_i = s->stride[k - 1];
    char *base = typed + s->off;
    int64_t idx[PLAN_MAX_DIMS + 1] = {0};
    for (;;) {
        for (int64_t ib = 0; ib < n_i; ib += t->rows) {
            const int64_t ie = ib + t->rows < n_i ? ib + t->rows : n_i;
            for (int64_t ob = 0; ob < n_o; ob += t->cols) {
                const int64_t oe = ob + t->cols < n_o ? ob + t->cols : n_o;
                for (int64_t o = ob; o < oe; o++) {
                    char *src = base + o * s_o + ib * s_i;
                    char *dst = packed + (o * n_i + ib) * block;
                    for (int64_t i = ib; i < ie; i++, src += s_i, dst += block) {
                        if (pack)
                            memcpy(dst, src, (size_t)block);
                        else
                            memcpy(src, dst, (size_t)block);
                    }
                }
            }
        }
        packed += n_o * n_i * block;
        if (!kernel_next_outer(s, k - 3, idx, &base))
            return;
    }
}

/* A transpose-like walk through the plan's SIMD kernel: for each step of the outer dims, one
 * transposing copy of the innermost two (packed order is outer-dim-major). */
static void walk_transpose(const plan *p, const plan_strided *s, const plan_transpose *t,
                           char *typed, char *packed, bool pack)
{
    const int k = s->ndims;
    const int64_t n_o = s->count[k - 2], n_i = s->count[k - 1], s_i = s->stride[k - 1];
    const int64_t packed_pitch = n_i * s->block;
    char *base = typed + s->off;
    int64_t idx[PLAN_MAX_DIMS + 1] = {0};
    for (;;) {
        if (pack)
            p->transpose(base, s_i, packed, packed_pitch, n_i, n_o, t->tile, t->stream);
        else
            p->transpose(packed, packed_pitch, base, s_i, n_o, n_i, t->tile, t->stream);
        packed += n_o * packed_pitch;
        if (!kernel_next_outer(s, k - 3, idx, &base))
            return;
    }
}

#define STRIDED_PAIR(NAME, BLOCK)                                                              \
    static void pack_##NAME(const plan_strided *s, char *typed, char *packed)                 \
    {                                                                                          \
        walk(s, typed, packed, (BLOCK), true);                                                 \
    }                                                                                          \
    static void unpack_##NAME(const plan_strided *s, char *typed, char *packed)               \
    {                                                                                          \
        walk(s, typed, packed, (BLOCK), false);                                                \
    }                                                                                          \
    static void blocked_pack_##NAME(const plan_strided *s, const plan_tiles *t, char *typed,   \
                                    char *packed)                                              \
    {                                                                                          \
        walk_blocked(s, t, typed, packed, (BLOCK), true);                                      \
    }                                                                                          \
    static void blocked_unpack_##NAME(const plan_strided *s, const plan_tiles *t, char *typed, \
                                      char *packed)                                            \
    {                                                                                          \
        walk_blocked(s, t, typed, packed, (BLOCK), false);                                     \
    }

STRIDED_PAIR(b1, 1)
STRIDED_PAIR(b2, 2)
STRIDED_PAIR(b4, 4)
STRIDED_PAIR(b8, 8)
STRIDED_PAIR(b16, 16)
STRIDED_PAIR(any, s->block)

/* plan_copy_fn entry points: add the call's count as the outermost dimension, then transpose
 * through SIMD registers, or walk blocked or plain as the TLB model says for this count. */
typedef void (*plain_walk_fn)(const plan_strided *s, char *typed, char *packed);
typedef void (*blocked_walk_fn)(const plan_strided *s, const plan_tiles *t, char *typed,
                                char *packed);

static inline __attribute__((always_inline)) void
counted(const plan *p, char *typed, int64_t count, char *packed, bool pack, plain_walk_fn plain,
        blocked_walk_fn blocked)
{
    plan_strided s;
    plan_tiles t;
    plan_transpose tr;
    plan_strided_for_count(p, count, &s);
    if (plan_transpose_for(p, &s, &tr))
        walk_transpose(p, &s, &tr, typed, packed, pack);
    else if (plan_tiles_for(&s, p->page_size, p->tlb_entries, p->line_size, &t))
        blocked(&s, &t, typed, packed);
    else
        plain(&s, typed, packed);
}

#define COUNTED(NAME)                                                                          \
    static void counted_pack_##NAME(const plan *p, char *typed, int64_t count, char *packed)   \
    {                                                                                          \
        counted(p, typed, count, packed, true, pack_##NAME, blocked_pack_##NAME);              \
    }                                                                                          \
    static void counted_unpack_##NAME(const plan *p, char *typed, int64_t count, char *packed) \
    {                                                                                          \
        counted(p, typed, count, packed, false, unpack_##NAME, blocked_unpack_##NAME);         \
    }

COUNTED(b1)
COUNTED(b2)
COUNTED(b4)
COUNTED(b8)
COUNTED(b16)
COUNTED(any)

plan_copy_fn kernel_strided_pack_for(int64_t block)
{
    switch (block) {
    case 1: return counted_pack_b1;
    case 2: return counted_pack_b2;
    case 4: return counted_pack_b4;
    case 8: return counted_pack_b8;
    case 16: return counted_pack_b16;
    default: return counted_pack_any;
    }
}

plan_copy_fn kernel_strided_unpack_for(int64_t block)
{
    switch (block) {
    case 1: return counted_unpack_b1;
    case 2: return counted_unpack_b2;
    case 4: return counted_unpack_b4;
    case 8: return counted_unpack_b8;
    case 16: return counted_unpack_b16;
    default: return counted_unpack_any;
    }
}
