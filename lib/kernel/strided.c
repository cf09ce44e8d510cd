#include <string.h>

#include "kernel.h"

#if MEMCOMM_X86
#include <immintrin.h>
#endif

/* A block of any size front to back in 64-byte moves (the last overlapping the one before
 * it; writing the overlap again writes the same bytes), each line of the next block
 * (`next`, on the typed side) prefetched as its counterpart here is copied. glibc's memcpy
 * loads a block's last lines first and then walks it from the start, where the prefetchers
 * do not follow. 2 KiB blocks 16 KiB apart (an FFT
 * slab) from memory: glibc 5.6-6.3 GB/s, 64-byte moves alone 8.5-9.0, with the next block
 * prefetched 8.2-11.3; from the caches 34-40, 36-43, 42.5-45. 2 KiB blocks 512 KiB apart
 * (the y face of 256^3): from memory 4.9-5.9, 7.0-9.7, 8.2-10.3; from the caches glibc
 * stays ahead, 35-42 against 29-32. With 32-byte moves the loop lost to glibc from the
 * caches (26-28 against 32-42). AMD EPYC VM, medians of 21, a throwaway program. So on
 * AVX-512 machines blocks of other sizes are copied so when the typed side is out of the
 * caches (counted_pack_any_probed); elsewhere, and from the caches, by memcpy; packs past the
 * streaming threshold by copy_streamed, wherever the typed side is. */
static inline __attribute__((always_inline)) void copy_forward(char *dst, const char *src,
                                                               int64_t n, const char *next)
{
    if (n < 64) {
        memcpy(dst, src, (size_t)n);
        return;
    }
    int64_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __builtin_prefetch(next + i, 0, 3);
        memcpy(dst + i, src + i, 64);
    }
    if (i < n)
        memcpy(dst + n - 64, src + n - 64, 64);
}

/* copy_forward storing the lines `dst` covers whole non-temporally, and the partial lines at
 * either end as usual (the packed blocks before and after write the rest of them; a line
 * stored both ways could take either's bytes last). Blocks of at least STREAMED_BLOCK bytes
 * (packs_streamed): shorter ones cover too few whole lines, and one shorter than its head
 * would be overrun. Not always_inline: the instantiations without AVX-512 keep a (dead) call
 * to it. */
enum { STREAMED_BLOCK = 128 };
#if MEMCOMM_X86
__attribute__((target("avx512f"))) static inline void copy_streamed(char *dst, const char *src,
                                                                    int64_t n, const char *next)
{
    const int64_t head = (int64_t)(-(uintptr_t)dst & 63), lines = (n - head) / 64 * 64;
    memcpy(dst, src, (size_t)head);
    for (int64_t i = head; i < head + lines; i += 64) {
        __builtin_prefetch(next + i, 0, 3);
        _mm512_stream_si512((__m512i *)(dst + i), _mm512_loadu_si512(src + i));
    }
    memcpy(dst + head + lines, src + head + lines, (size_t)(n - head - lines));
}
#endif

/* How a walk copies its blocks: glibc's memcpy, copy_forward, or copy_forward storing the
 * packed bytes non-temporally (copy_streamed, blocks of STREAMED_BLOCK bytes and more; the
 * others as copy_forward). */
typedef enum { COPY_MEMCPY, COPY_FORWARD, COPY_STREAMED } copy_style;

/* One block. `block` is a constant in every instantiation but `any`, so the copy is a few
 * moves: as few as the block allows, because a gather of blocks that miss the cache keeps as
 * many of them in flight as the store queue holds their stores (MILC's 48-byte blocks copied
 * as two overlapping 32-byte halves, through the stack, ran 10-20% slower than three moves). */
static inline __attribute__((always_inline)) void copy_one(char *typed, char *packed,
                                                           int64_t block, bool pack,
                                                           copy_style style, const char *next)
{
#if MEMCOMM_X86
    if (style == COPY_STREAMED && pack && block >= STREAMED_BLOCK) {
        copy_streamed(packed, typed, block, next);
        return;
    }
#endif
    if (style != COPY_MEMCPY && pack)
        copy_forward(packed, typed, block, next);
    else if (style != COPY_MEMCPY)
        copy_forward(typed, packed, block, next);
    else if (pack)
        memcpy(packed, typed, (size_t)block);
    else
        memcpy(typed, packed, (size_t)block);
}

/* Packing blocks of 4 or 8 bytes, a group of them fills one 32-byte store. A gather of
 * blocks that miss the cache is bound by the stores in flight (above), and one store per
 * group instead of one per block keeps several times the blocks in flight. memcomm_pack of
 * 1 MiB of blocks, against the store per block (AMD EPYC VM, medians of 41; a throwaway
 * program, not kept; bench pack's column rows are the kept figures): 8-byte blocks 256 B
 * apart 5.8 GB/s against 3.2, 16 B apart 36 against 31, 64-1024 B apart 1.0-1.2x; 4-byte
 * blocks 1.3-2.5x at 16-256 B, level beyond. 16-byte blocks, two to a store, ran 2-9%
 * slower at 64-256 B: they keep a store each. GATHER_GROUP(block): blocks per store, 1
 * where no group applies. */
#define GATHER_GROUP(block) ((block) == 4 || (block) == 8 ? 32 / (block) : 1)

#if MEMCOMM_X86
__attribute__((target("avx2"))) static inline uint32_t load4(const char *at)
{
    uint32_t v;
    memcpy(&v, at, 4);
    return v;
}

__attribute__((target("avx2"))) static inline __m128i gather4x4(const char *p, int64_t stride)
{
    return _mm_set_epi32((int)load4(p + 3 * stride), (int)load4(p + 2 * stride),
                         (int)load4(p + stride), (int)load4(p));
}

/* Two 8-byte blocks into one register through movlpd/movhpd (builtins: no misaligned double
 * is dereferenced in C). */
__attribute__((target("avx2"))) static inline __m128d gather8x2(const char *p, int64_t stride)
{
    return _mm_loadh_pd(_mm_loadl_pd(_mm_setzero_pd(), (const double *)p),
                        (const double *)(p + stride));
}

/* One group into one store. Not always_inline: the instantiations without AVX2 keep a
 * (dead) call to it, and only the AVX2 ones may inline it. */
__attribute__((target("avx2"))) static inline void
gather_store(const char *p, int64_t stride, char *packed, int64_t block)
{
    __m256i v;
    if (block == 8)
        v = _mm256_castpd_si256(
            _mm256_set_m128d(gather8x2(p + 2 * stride, stride), gather8x2(p, stride)));
    else
        v = _mm256_set_m128i(gather4x4(p + 4 * stride, stride), gather4x4(p, stride));
    _mm256_storeu_si256((__m256i *)packed, v);
}
#endif

/* Whether a walk prefetches its blocks ahead (plan_prefetch_distance): short blocks (up to
 * FAR_BLOCK; long ones are streams the prefetchers follow) at least `least` bytes apart:
 * - FAR_STRIDE always: blocks that far apart sit each on a page of its own, where a stride
 *   prefetcher stops (NAS LU's faces: 40 bytes every 5120). There prefetching won whether
 *   the lines came from L3 or from DRAM (LU's face: 79 us against 137 packed before, 110 by a
 *   hand loop, from L3). Closer blocks (MILC's 768-byte stride, NAS MG's 1040) gained
 *   1.3-1.7x from DRAM but lost 10-20% from L3, where the out-of-order window alone keeps
 *   enough misses in flight. (MPI_Pack of copies of each array in turn, medians of 201; a
 *   throwaway program, not kept.)
 * - CLOSE_STRIDE in an unpack whose typed side the residency probe found out of the caches:
 *   one block per line or fewer, each store a read for ownership from memory, and the stores
 *   in flight too few to cover them. Columns of 131072 doubles, both sides flushed, unpacked
 *   at 0.58-0.60 GB/s at a 128-byte stride and 0.87-0.90 prefetched 8 to 128 blocks ahead,
 *   0.34 and 0.40-0.45 at 512 bytes; their packs gained nothing (0.95 -> 0.92; Intel Xeon VM,
 *   medians of 11, throwaway program). */
enum { FAR_STRIDE = 2048, FAR_BLOCK = 256, CLOSE_STRIDE = 128 };
static inline bool prefetched_apart(int64_t block, int64_t stride, int64_t least)
{
    return block <= FAR_BLOCK && (stride >= least || stride <= -least);
}

/* The blocks from `*p` (`stride` apart) until the packed pointer reaches `stop`, bounded by
 * that pointer: no counter to keep (a spilled one cost a store per block, and gathers are
 * bound by the stores in flight). Whole groups first (GATHER_GROUP), then the blocks left;
 * with `prefetch`, each block is prefetched `ahead` bytes on. */
static inline __attribute__((always_inline)) void
copy_run(char **p, char **packed, char *stop, int64_t stride, int64_t block, bool pack,
         int64_t group, bool prefetch, int64_t ahead, copy_style style)
{
    char *at = *p, *out = *packed;
#if MEMCOMM_X86
    if (group > 1) {
        char *stop_groups = out + (stop - out) / (group * block) * group * block;
        for (; out != stop_groups; at += group * stride, out += group * block) {
            if (prefetch)
                for (int64_t g = 0; g < group; g++)
                    __builtin_prefetch(at + ahead + g * stride, 0, 1);
            gather_store(at, stride, out, block);
        }
    }
#endif
    for (; out != stop; at += stride, out += block) {
        if (prefetch) {
            __builtin_prefetch(at + ahead, pack ? 0 : 1, 1);
            __builtin_prefetch(at + ahead + block - 1, pack ? 0 : 1, 1);
        }
        copy_one(at, out, block, pack, style, at + stride);
    }
    *p = at;
    *packed = out;
}

/* The walk is written once; `block`, `pack`, `grouped`, `style` and `cold` are
 * compile-time constants in each instantiation below, so memcpy of a fixed small size
 * becomes a single move and the direction test disappears. `grouped`: packs fill 32-byte
 * stores from GATHER_GROUP blocks (AVX2); `style`: how blocks are copied (copy_style; other
 * than COPY_MEMCPY on AVX-512 only); `cold`: the typed side is out of the caches
 * (prefetched_apart). */
static inline __attribute__((always_inline)) void walk(const plan_strided *s, char *typed,
                                                       char *packed, int64_t block, bool pack,
                                                       bool grouped, copy_style style, bool cold)
{
    char *base = typed + s->off;
    if (s->ndims == 0) {
        copy_one(base, packed, block, pack, style, base);
        return;
    }
    const int inner = s->ndims - 1;
    const int64_t inner_count = s->count[inner], inner_stride = s->stride[inner];
    /* blocks far apart: prefetched ahead, as a list's beyond the STLB's reach */
    const bool prefetched_ahead =
        prefetched_apart(block, inner_stride, cold ? CLOSE_STRIDE : FAR_STRIDE);
    const int64_t ahead =
        prefetched_ahead ? plan_prefetch_distance(block, inner_count, false) : inner_count;
    const int64_t group = grouped && pack ? GATHER_GROUP(block) : 1;
    int64_t idx[PLAN_MAX_DIMS + 1] = {0};
    const int64_t prefetched = inner_count > ahead ? inner_count - ahead : 0;
    const int64_t ahead_bytes = ahead * inner_stride;
    for (;;) { /* the blocks prefetched ahead, then the last `ahead`, which are not */
        char *p = base, *end = packed + inner_count * block;
        copy_run(&p, &packed, packed + prefetched * block, inner_stride, block, pack, group,
                 true, ahead_bytes, style);
        copy_run(&p, &packed, end, inner_stride, block, pack, group, false, 0, style);
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
             bool pack, copy_style style)
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
                        copy_one(src, dst, block, pack, style, src + s_i);
                }
            }
        }
        packed += n_o * n_i * block;
        if (!kernel_next_outer(s, k - 3, idx, &base))
            return;
    }
}

/* How a transpose stores and prefetches (plan_transpose_mode): streamed by size, or where the
 * plan says to probe, when the first copy's destination is out of the caches; then, whether
 * its source is out of them too: prefetches with cached stores, and with streamed ones wider
 * strips where the destination is out as well (plan_transpose_strip_lines). */
static plan_transpose_mode transpose_mode(const plan_transpose *t, kernel_rows src,
                                          kernel_rows dst)
{
    if (!t->stream && !t->probe)
        return TRANSPOSE_WARM;
    const bool cold_destination = kernel_destination_cold(dst);
    if (t->stream && !cold_destination) /* the source's state changes nothing here */
        return TRANSPOSE_STREAM;
    const bool cold_source = kernel_lines_cold(src);
    if (cold_destination)
        return cold_source ? TRANSPOSE_STREAM_COLD : TRANSPOSE_STREAM;
    return cold_source ? TRANSPOSE_COLD : TRANSPOSE_WARM;
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
    /* typed rows hold n_o elements each, packed rows n_i */
    const kernel_rows typed_rows = {base, n_i, s_i, n_o * s->block},
                      packed_rows = {packed, n_o, packed_pitch, packed_pitch};
    const plan_transpose_mode mode = pack ? transpose_mode(t, typed_rows, packed_rows)
                                          : transpose_mode(t, packed_rows, typed_rows);
    int64_t idx[PLAN_MAX_DIMS + 1] = {0};
    for (;;) {
        if (pack)
            p->transpose(base, s_i, packed, packed_pitch, n_i, n_o, t->tile, mode);
        else
            p->transpose(packed, packed_pitch, base, s_i, n_o, n_i, t->tile, mode);
        packed += n_o * packed_pitch;
        if (!kernel_next_outer(s, k - 3, idx, &base))
            return;
    }
}

/* `ATTR`: the instantiation's target attributes (empty, or AVX-512 for COPY_FORWARD). */
#define STRIDED_PAIR_WITH(NAME, BLOCK, ATTR, STYLE)                                            \
    ATTR static void pack_##NAME(const plan_strided *s, char *typed, char *packed)            \
    {                                                                                          \
        walk(s, typed, packed, (BLOCK), true, false, (STYLE), false);                          \
    }                                                                                          \
    ATTR static void unpack_##NAME(const plan_strided *s, char *typed, char *packed)          \
    {                                                                                          \
        walk(s, typed, packed, (BLOCK), false, false, (STYLE), false);                         \
    }                                                                                          \
    ATTR static void blocked_pack_##NAME(const plan_strided *s, const plan_tiles *t,           \
                                         char *typed, char *packed)                            \
    {                                                                                          \
        walk_blocked(s, t, typed, packed, (BLOCK), true, (STYLE));                             \
    }                                                                                          \
    ATTR static void blocked_unpack_##NAME(const plan_strided *s, const plan_tiles *t,         \
                                           char *typed, char *packed)                          \
    {                                                                                          \
        walk_blocked(s, t, typed, packed, (BLOCK), false, (STYLE));                            \
    }
/* The unpack for a typed side out of the caches (prefetched_apart), with the pair. */
#define STRIDED_PAIR(NAME, BLOCK)                                                              \
    STRIDED_PAIR_WITH(NAME, BLOCK, , COPY_MEMCPY)                                              \
    static void unpack_cold_##NAME(const plan_strided *s, char *typed, char *packed)           \
    {                                                                                          \
        walk(s, typed, packed, (BLOCK), false, false, COPY_MEMCPY, true);                      \
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
#if MEMCOMM_X86
STRIDED_PAIR_WITH(any_forward, s->block, __attribute__((target("avx512f"))), COPY_FORWARD)
/* A pack past the streaming threshold, its packed bytes stored non-temporally (the lines'
 * reads for ownership spared), fenced so that they are in order before what follows. */
__attribute__((target("avx512f"))) static void pack_any_streamed(const plan_strided *s,
                                                                 char *typed, char *packed)
{
    walk(s, typed, packed, s->block, true, false, COPY_STREAMED, false);
    _mm_sfence();
}
#endif

#if MEMCOMM_X86
#define GROUPED_PACK(NAME, BLOCK)                                                              \
    __attribute__((target("avx2"))) static void pack_grouped_##NAME(const plan_strided *s,     \
                                                                    char *typed, char *packed) \
    {                                                                                          \
        walk(s, typed, packed, (BLOCK), true, true, COPY_MEMCPY, false);                       \
    }
GROUPED_PACK(b4, 4)
GROUPED_PACK(b8, 8)
#endif

/* plan_copy_fn entry points: add the call's count as the outermost dimension, then transpose
 * through SIMD registers, or walk blocked or plain as the TLB model says for this count. */
typedef void (*plain_walk_fn)(const plan_strided *s, char *typed, char *packed);
typedef void (*blocked_walk_fn)(const plan_strided *s, const plan_tiles *t, char *typed,
                                char *packed);

/* With `plain_cold` and `blocked_cold` (else NULL), the walks for a typed side the residency
 * probe finds out of the caches, in calls the plan probes (plan_probes). */
static inline __attribute__((always_inline)) void
counted_by_residency(const plan *p, char *typed, int64_t count, char *packed, bool pack,
                     plain_walk_fn plain, blocked_walk_fn blocked, plain_walk_fn plain_cold,
                     blocked_walk_fn blocked_cold)
{
    plan_strided s;
    plan_tiles t;
    plan_transpose tr;
    plan_strided_for_count(p, count, &s);
    if (plan_transpose_for(p, &s, &tr)) {
        walk_transpose(p, &s, &tr, typed, packed, pack);
        return;
    }
    if (plain_cold && plan_probes(p, p->size * count)) {
        const int inner = s.ndims - 1;
        const kernel_rows blocks =
            inner < 0 ? kernel_rows_of_bytes(typed + s.off, s.block)
                      : (kernel_rows){typed + s.off, s.count[inner], s.stride[inner], s.block};
        const bool cold = kernel_lines_cold(blocks);
        if (cold)
            plain = plain_cold, blocked = blocked_cold;
    }
    if (plan_tiles_for(&s, p->page_size, p->tlb_entries, p->line_size, &t))
        blocked(&s, &t, typed, packed);
    else
        plain(&s, typed, packed);
}

static inline __attribute__((always_inline)) void
counted(const plan *p, char *typed, int64_t count, char *packed, bool pack, plain_walk_fn plain,
        blocked_walk_fn blocked)
{
    counted_by_residency(p, typed, count, packed, pack, plain, blocked, NULL, NULL);
}

#define COUNTED(NAME)                                                                          \
    static void counted_pack_##NAME(const plan *p, char *typed, int64_t count, char *packed)   \
    {                                                                                          \
        counted(p, typed, count, packed, true, pack_##NAME, blocked_pack_##NAME);              \
    }                                                                                          \
    static void counted_unpack_##NAME(const plan *p, char *typed, int64_t count, char *packed) \
    {                                                                                          \
        counted_by_residency(p, typed, count, packed, false, unpack_##NAME,                    \
                             blocked_unpack_##NAME, unpack_cold_##NAME, blocked_unpack_##NAME); \
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
#if MEMCOMM_X86
/* Whether a pack of `bytes` streams its packed bytes (pack_any_streamed). */
static bool packs_streamed(const plan *p, int64_t bytes)
{
    return p->strided.block >= STREAMED_BLOCK && plan_stores_for(p, bytes) == STORES_STREAMED;
}

/* Blocks of other sizes: copy_forward when the typed side is out of the caches, glibc's
 * memcpy when it is in (the y face of 256^3 from L3: 40 GB/s by memcpy against 31 forward;
 * from memory 5.1-5.8 against 8.1-8.2), asked as the transposes ask (residency.c) in calls
 * the plan probes (plan_probes); smaller ones keep memcpy. Past the streaming threshold the
 * packed bytes cannot stay in a cache wherever the typed side is, and are stored
 * non-temporally: MPICH's Alltoallw of x- to z-slabs of 256^3 (1 KiB runs 2 KiB apart, 33.5
 * MB packed per peer and 33.5 MB copied into the rank's own slab) took 20.5 ms a call, 18.1-18.6
 * streamed (Intel Xeon VM, 2 ranks, means of 80 calls, two launches; a throwaway program).
 * The x- to y-slabs' typed side (runs of 1 MiB of 512^3) was found in the caches when the
 * call before had read it (the bench's methods in turn): memcpy there took 16.6 ms a call
 * of 256^3 and 133.5 of 512^3 (MPICH), streamed 12.7 and 110.9 (bench_collectives --slabs
 * 256,512, the same binary both ways by a throwaway switch, one launch each; two more
 * launches at 512^3 alike). */
static void counted_pack_any_probed(const plan *p, char *typed, int64_t count, char *packed)
{
    const bool streamed = packs_streamed(p, p->size * count);
    counted_by_residency(p, typed, count, packed, true, streamed ? pack_any_streamed : pack_any,
                         blocked_pack_any, streamed ? pack_any_streamed : pack_any_forward,
                         blocked_pack_any_forward);
}

static void counted_unpack_any_probed(const plan *p, char *typed, int64_t count, char *packed)
{
    counted_by_residency(p, typed, count, packed, false, unpack_any, blocked_unpack_any,
                         unpack_any_forward, blocked_unpack_any_forward);
}
#endif

#if MEMCOMM_X86
#define COUNTED_GROUPED(NAME)                                                                  \
    static void counted_pack_grouped_##NAME(const plan *p, char *typed, int64_t count,         \
                                            char *packed)                                      \
    {                                                                                          \
        counted(p, typed, count, packed, true, pack_grouped_##NAME, blocked_pack_##NAME);      \
    }
COUNTED_GROUPED(b4)
COUNTED_GROUPED(b8)
#endif

plan_copy_fn kernel_strided_pack_for(int64_t block, int64_t simd_bytes)
{
#if MEMCOMM_X86
    if (simd_bytes >= MACHINE_SIMD_AVX2 && GATHER_GROUP(block) > 1)
        return block == 4 ? counted_pack_grouped_b4 : counted_pack_grouped_b8;
#else
    (void)simd_bytes;
#endif
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
    default:
#if MEMCOMM_X86
        if (simd_bytes >= MACHINE_SIMD_AVX512)
            return counted_pack_any_probed;
#endif
        return counted_pack_any;
    }
}

kernel_strided_prefetch kernel_strided_prefetch_for(int64_t block, int64_t stride)
{
    if (prefetched_apart(block, stride, FAR_STRIDE))
        return STRIDED_PREFETCHED;
    return prefetched_apart(block, stride, CLOSE_STRIDE) ? STRIDED_PREFETCHED_COLD_UNPACK
                                                         : STRIDED_NOT_PREFETCHED;
}

bool kernel_strided_streams(const plan *p, int64_t bytes)
{
#if MEMCOMM_X86
    return p->pack == counted_pack_any_probed && packs_streamed(p, bytes);
#else
    (void)p, (void)bytes;
    return false;
#endif
}

plan_copy_fn kernel_strided_unpack_for(int64_t block, int64_t simd_bytes)
{
#if !MEMCOMM_X86
    (void)simd_bytes;
#endif
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
    default:
#if MEMCOMM_X86
        if (simd_bytes >= MACHINE_SIMD_AVX512)
            return counted_unpack_any_probed;
#endif
        return counted_unpack_any;
    }
}
