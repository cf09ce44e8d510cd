#include <string.h>

#include "kernel.h"

/* One block. `block` is a constant in every instantiation but `any`, so the copy is a few
 * moves: as few as the block allows, because a gather of blocks that miss the cache keeps as
 * many of them in flight as the store queue holds their stores (MILC's 48-byte blocks copied
 * as two overlapping 32-byte halves, through the stack, ran 10-20% slower than three moves). */
static inline __attribute__((always_inline)) void copy_one(char *typed, char *packed,
                                                           int64_t block, bool pack)
{
    if (pack)
        memcpy(packed, typed, (size_t)block);
    else
        memcpy(typed, packed, (size_t)block);
}

/* Whether the walk's consecutive blocks are far enough apart that the hardware prefetchers
 * do not fetch them: strides beyond FAR_STRIDE (NAS LU's faces: 40 bytes every 5120) put
 * each block on a page of its own, where a stride prefetcher stops. There prefetching won
 * whether the lines came from L3 or from DRAM (LU's face: 79 us against 137 packed before,
 * 110 by a hand loop, from L3). Closer blocks (MILC's 768-byte stride, NAS MG's 1040) gained
 * 1.3-1.7x from DRAM but lost 10-20% from L3, where the out-of-order window alone keeps
 * enough misses in flight: not prefetched. (MPI_Pack of copies of each array in turn, medians
 * of 201; a throwaway program, not kept.) Short blocks only: long ones are streams the
 * prefetchers follow. */
enum { FAR_STRIDE = 2048, FAR_BLOCK = 256 };
static inline bool far_apart(int64_t block, int64_t stride)
{
    return block <= FAR_BLOCK && (stride >= FAR_STRIDE || stride <= -FAR_STRIDE);
}

/* The walk is written once; `block` and `pack` are compile-time constants in each
 * instantiation below, so memcpy of a fixed small size becomes a single move and the
 * direction test disappears. */
static inline __attribute__((always_inline)) void
walk(const plan_strided *s, char *typed, char *packed, int64_t block, bool pack)
{
    char *base = typed + s->off;
    if (s->ndims == 0) {
        copy_one(base, packed, block, pack);
        return;
    }
    const int inner = s->ndims - 1;
    const int64_t inner_count = s->count[inner], inner_stride = s->stride[inner];
    /* blocks far apart: prefetched ahead, as a list's (kernel_prefetch_distance) */
    const int64_t ahead = far_apart(block, inner_stride)
                              ? kernel_prefetch_distance(block, inner_count)
                              : inner_count;
    int64_t idx[PLAN_MAX_DIMS + 1] = {0};
    const int64_t prefetched = inner_count > ahead ? inner_count - ahead : 0;
    const int64_t ahead_bytes = ahead * inner_stride;
    for (;;) {
        /* bounded by the packed pointer: no counter to keep (a spilled one cost a store per
         * block, and gathers are bound by the stores in flight) */
        char *p = base, *stop = packed + prefetched * block, *end = packed + inner_count * block;
        for (; packed != stop; p += inner_stride, packed += block) {
            __builtin_prefetch(p + ahead_bytes, pack ? 0 : 1, 1);
            __builtin_prefetch(p + ahead_bytes + block - 1, pack ? 0 : 1, 1);
            copy_one(p, packed, block, pack);
        }
        for (; packed != end; p += inner_stride, packed += block)
            copy_one(p, packed, block, pack);
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
                    char *dst = packed + (o * n_i + ib) * block, *end = dst + (ie - ib) * block;
                    for (; dst != end; src += s_i, dst += block)
                        copy_one(src, dst, block, pack);
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
STRIDED_PAIR(b24, 24)
STRIDED_PAIR(b32, 32)
STRIDED_PAIR(b40, 40)
STRIDED_PAIR(b48, 48)
STRIDED_PAIR(b64, 64)
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
COUNTED(b24)
COUNTED(b32)
COUNTED(b40)
COUNTED(b48)
COUNTED(b64)
COUNTED(any)

plan_copy_fn kernel_strided_pack_for(int64_t block)
{
    switch (block) {
    case 1: return counted_pack_b1;
    case 2: return counted_pack_b2;
    case 4: return counted_pack_b4;
    case 8: return counted_pack_b8;
    case 16: return counted_pack_b16;
    case 24: return counted_pack_b24;
    case 32: return counted_pack_b32;
    case 40: return counted_pack_b40;
    case 48: return counted_pack_b48;
    case 64: return counted_pack_b64;
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
    case 24: return counted_unpack_b24;
    case 32: return counted_unpack_b32;
    case 40: return counted_unpack_b40;
    case 48: return counted_unpack_b48;
    case 64: return counted_unpack_b64;
    default: return counted_unpack_any;
    }
}
