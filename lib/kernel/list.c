#include <stdint.h>
#include <string.h>

#include "kernel.h"

#if MEMCOMM_X86
#include <immintrin.h>
#endif

/* Block `len` bytes long (a multiple of 4) to `dst` with non-temporal stores, which need no
 * read-for-ownership of the packed lines: 8 bytes at a time where `wide`, else 4. Consecutive
 * blocks fill whole lines in the write-combining buffers. Unrolled where `len` is a constant
 * (copy_run's, 40 bytes at most: 5 or 10 stores): gcc -O2 kept a loop of three stores per
 * 24-byte particle, and the particles' gather took 1.03-1.05x the time of the same walk
 * unrolled (5 alternated launches, Zen 5 VM). */
static inline __attribute__((always_inline)) void stream_block(char *dst, const char *src,
                                                               int64_t len, bool wide)
{
#if MEMCOMM_X86
    if (wide) {
#pragma GCC unroll 8
        for (int64_t b = 0; b < len; b += 8) {
            long long v;
            memcpy(&v, src + b, 8);
            _mm_stream_si64((long long *)(void *)(dst + b), v);
        }
    } else {
#pragma GCC unroll 10
        for (int64_t b = 0; b < len; b += 4) {
            int v;
            memcpy(&v, src + b, 4);
            _mm_stream_si32((int *)(void *)(dst + b), v);
        }
    }
#else
    (void)wide;
    kernel_copy_block(dst, src, len);
#endif
}

/* Block i of a list at `base`, to or from `packed`; returns the packed end. */
static inline __attribute__((always_inline)) char *
copy_block_at(const int64_t *offs, const int32_t *offs32, const int64_t *lens, int64_t i,
              char *base, char *packed, int64_t fixed_len, bool narrow, bool pack,
              int streamed_width)
{
    const int64_t len = fixed_len ? fixed_len : lens[i];
    char *at = base + (narrow ? offs32[i] : offs[i]);
    if (pack && streamed_width)
        stream_block(packed, at, len, streamed_width == 8);
    else if (pack)
        kernel_copy_block(packed, at, len);
    else
        kernel_copy_block(at, packed, len);
    return packed + len;
}

/* Blocks of a list at `base`: `len` is a compile-time constant where it is fixed (0: read
 * from `lens`), and so are `narrow`, whether offsets come from the int32 copy, and
 * `streamed_width`, the width of a pack's non-temporal stores (0: cached stores). The arrays
 * are passed as locals: stores through char pointers may alias anything, so the compiler
 * would otherwise reload them after every block. Both ends of the block `ahead` are
 * prefetched (a 24-byte block straddles two cache lines one time in three), and an unpack's
 * packed bytes KERNEL_PACKED_AHEAD_BYTES ahead, unless `ahead` is `n`: blocks near each other
 * (plan_list's `ahead` of 0). */
static inline __attribute__((always_inline)) char *
copy_blocks(const int64_t *offs, const int32_t *offs32, const int64_t *lens, int64_t n,
            char *base, char *packed, int64_t fixed_len, int64_t ahead, bool narrow, bool pack,
            int streamed_width)
{
    const int64_t prefetched = n > ahead ? n - ahead : 0;
    int64_t i = 0;
    for (; i < prefetched; i++) {
        const char *next = base + (narrow ? offs32[i + ahead] : offs[i + ahead]);
        const char *last = next + (fixed_len ? fixed_len : lens[i + ahead]) - 1;
        __builtin_prefetch(next, pack ? 0 : 1, 1); /* unpack: to write, if the ISA can say */
        __builtin_prefetch(last, pack ? 0 : 1, 1);
        if (!pack) /* one per block: every line of the packed stream at least once */
            __builtin_prefetch(packed + KERNEL_PACKED_AHEAD_BYTES, 0, 1);
        packed = copy_block_at(offs, offs32, lens, i, base, packed, fixed_len, narrow, pack,
                               streamed_width);
    }
    for (; i < n; i++)
        packed = copy_block_at(offs, offs32, lens, i, base, packed, fixed_len, narrow, pack,
                               streamed_width);
    return packed;
}

/* The width of non-temporal stores a run of `len`-byte blocks from `packed` on can take: 8
 * or 4 where the length and the position are multiples of it, else 0 (cached stores). */
static inline int stream_width(bool stream, int64_t len, const char *packed)
{
    const uintptr_t at = (uintptr_t)packed;
    if (!stream || len <= 0)
        return 0;
    if (len % 8 == 0 && at % 8 == 0)
        return 8;
    return len % 4 == 0 && at % 4 == 0 ? 4 : 0;
}

/* One run of equal blocks (plan_list), with a constant length where it is a common one
 * (basic types, particles of 3 floats or doubles, complex numbers); streamed where `stream`
 * and the length allows. */
static inline __attribute__((always_inline)) char *copy_run(const plan_list *l, const plan_run *r,
                                                            char *base, char *packed,
                                                            bool narrow, bool pack, bool stream)
{
    const int64_t *offs = l->offs + r->first, *lens = l->lens + r->first;
    const int32_t *offs32 = narrow ? l->offs32 + r->first : NULL;
    const int64_t n = r->n, ahead = r->ahead ? r->ahead : n;
    const int width = pack ? stream_width(stream, r->len, packed) : 0;
#define RUN_OF(LEN)                                                                            \
    (width == 8   ? copy_blocks(offs, offs32, lens, n, base, packed, LEN, ahead, narrow, pack, 8) \
     : width == 4 ? copy_blocks(offs, offs32, lens, n, base, packed, LEN, ahead, narrow, pack, 4) \
                  : copy_blocks(offs, offs32, lens, n, base, packed, LEN, ahead, narrow, pack, 0))
    switch (r->len) {
    case 4: return RUN_OF(4);
    case 8: return RUN_OF(8);
    case 12: return RUN_OF(12);
    case 16: return RUN_OF(16);
    case 24: return RUN_OF(24);
    case 32: return RUN_OF(32);
    case 40: return RUN_OF(40);
    default:
        return copy_blocks(offs, offs32, lens, n, base, packed, 0, ahead, narrow, pack, 0);
    }
#undef RUN_OF
}

/* Whether a pack of `bytes` streams its packed bytes (plan_list_stores_for). The packed lines'
 * reads for ownership otherwise compete with the gather's own misses: 24-byte particles over
 * 12.6 MB, both sides flushed, packed at 6.4-6.6 GB/s with cached stores and 9.1-10.5
 * streamed (memcpy of the same bytes 13-16; AMD EPYC VM, medians of 21, throwaway program). */
static bool streams(const plan *p, int64_t bytes, const char *packed)
{
    switch (plan_list_stores_for(p, bytes)) {
    case STORES_STREAMED: return MEMCOMM_X86;
    case STORES_PROBED:
        return MEMCOMM_X86 && kernel_destination_cold(kernel_rows_of_bytes(packed, bytes));
    case STORES_CACHED: break;
    }
    return false;
}

static inline __attribute__((always_inline)) void
walk(const plan *p, char *typed, int64_t count, char *packed, bool narrow, bool pack)
{
    const plan_list *l = &p->list;
    plan_strided s;
    plan_strided_for_count(p, count, &s);
    char *base = typed + s.off;
    int64_t idx[PLAN_MAX_DIMS + 1] = {0};
    const int64_t ahead = l->ahead ? l->ahead : l->n;
    const bool stream = pack && l->runs && streams(p, p->size * count, packed);
    for (;;) {
        if (l->runs)
            for (int r = 0; r < l->runs; r++)
                packed = copy_run(l, &l->run[r], base, packed, narrow, pack, stream);
        else
            packed = copy_blocks(l->offs, l->offs32, l->lens, l->n, base, packed, 0, ahead,
                                 narrow, pack, 0);
        if (!kernel_next_outer(&s, s.ndims - 1, idx, &base))
            break;
    }
#if MEMCOMM_X86
    if (stream)
        _mm_sfence(); /* order the streamed lines before anything the caller does next */
#endif
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
