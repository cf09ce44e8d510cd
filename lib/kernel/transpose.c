/* Transposing copies: dst[c][r] = src[r][c] for 4-, 8- and 16-byte elements (floats,
 * doubles, complex doubles), through SIMD registers.
 *
 * A strided walk whose outer step is one element and whose inner step is a row pitch (a
 * matrix transpose, an FFT redistribution) touches one element per cache line and one line
 * per page in its inner loop. Here a micro-tile of rows is loaded with full-width loads,
 * transposed in registers, and stored as whole 64-byte output lines, so every line is read
 * and written once. Micro-tiles are walked in bands of `tile` rows (plan_transpose_for: pages
 * few enough for the TLB), each band strip by strip (see TRANSPOSE_WALK).
 * With TRANSPOSE_STREAM(_COLD), the output lines go out with non-temporal stores: they bypass
 * the caches and skip the read-for-ownership, which is what memcpy does for large copies.
 *
 * Edges (rows before the first aligned output line, the last partial micro-tiles) are copied
 * element by element. Instruction sets are chosen at run time (machine SIMD width); each
 * kernel is compiled for its own target, so one binary runs on any x86-64. */
#include <stdint.h>
#include <string.h>

#include "kernel.h"

#if MEMCOMM_X86
#include <immintrin.h>
#endif

/* Rows [r0, r1) x cols [c0, c1), one element at a time. */
static inline __attribute__((always_inline)) void
edge(const char *src, int64_t sp, char *dst, int64_t dp, int64_t r0, int64_t r1, int64_t c0,
     int64_t c1, int64_t elem)
{
    for (int64_t r = r0; r < r1; r++)
        for (int64_t c = c0; c < c1; c++)
            memcpy(dst + c * dp + r * elem, src + r * sp + c * elem, (size_t)elem);
}

#if MEMCOMM_X86

/* How a walk's output lines go out: whole at line-aligned addresses, streamed (`nt`) or
 * cached; or `composed`, where the output rows start part way into a line (a
 * row pitch that is a multiple of 4 bytes but not of 64: 1000 or 1001 floats, 1001 or 1004
 * doubles, 1002 complex doubles), so that each micro-tile's 64 bytes of an output column
 * straddle two lines. Then the line holding the end of the micro-tile above and the start of
 * this one is put together from the bytes the one above left in `carry` (window_avx2), and
 * streamed whole; only the part lines at a band's top and bottom are stored cached. A
 * streamed store of part of a line costs a partial write to memory, and cached stores a
 * read for ownership: on the AMD Zen 3 VM (caches flushed) 1000^2 floats, whose rows are
 * half a line off, packed at 1.2-1.7 GB/s with cached stores and 3.4-4.7 composed, against
 * 5.1-5.9 for 1008^2, whose rows are whole lines (a throwaway program, alternated). The
 * AVX-512 kernels compose by 32-byte halves too (put_line_avx512): on the AMD EPYC Zen 5 VM
 * (`bench pack --cache flushed`, six alternated rounds) 1000^2-2001^2 floats packed 2.1-2.6x
 * faster than with such rows stored cached. */
typedef struct {
    bool nt, composed;
    bool band_top;       /* composed: the band's first micro-tile row, nothing carried yet */
    __m256d (*carry)[2]; /* composed: per output column of the strip, the 64 bytes above */
    int64_t column;      /* composed: the strip column of the micro-tile's first output column */
} line_out;

/* One output line of 64 bytes as two 32-byte halves, back to back. */
__attribute__((target("avx2"), always_inline)) static inline void
store_line_avx2(char *at, __m256d first, __m256d second, bool nt)
{
    double *line = (double *)at;
    if (nt) {
        _mm256_stream_pd(line, first);
        _mm256_stream_pd(line + 4, second);
    } else {
        _mm256_storeu_pd(line, first);
        _mm256_storeu_pd(line + 4, second);
    }
}

/* The 64 bytes that start `shift` bytes (a multiple of 4, 4-60) before the end of `above` and
 * run on into `here`: a window of 16 dwords on the 32 of the two lines, in two halves. The window
 * touches three of the four registers, and each half spans two of those, from the same place
 * in each: one permute of each and a blend. */
__attribute__((target("avx2"), always_inline)) static inline void
window_avx2(const __m256d above[2], const __m256d here[2], int shift, __m256d out[2])
{
    const int start = 16 - shift / 4, k = start / 8, o = start % 8;
    /* k is 0 or 1: the three registers the window spans, chosen without an indexed array
     * (which the compiler keeps on the stack) */
    const __m256 lines[3] = {_mm256_castpd_ps(k ? above[1] : above[0]),
                             _mm256_castpd_ps(k ? here[0] : above[1]),
                             _mm256_castpd_ps(k ? here[1] : here[0])};
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i from = _mm256_and_si256(_mm256_add_epi32(iota, _mm256_set1_epi32(o)),
                                          _mm256_set1_epi32(7));
    const __m256 next = _mm256_castsi256_ps(_mm256_cmpgt_epi32(iota, _mm256_set1_epi32(7 - o)));
    for (int h = 0; h < 2; h++)
        out[h] = _mm256_castps_pd(_mm256_blendv_ps(_mm256_permutevar8x32_ps(lines[h], from),
                                                   _mm256_permutevar8x32_ps(lines[h + 1], from),
                                                   next));
}

/* One micro-tile's 64 bytes of output column k at `at`, by `o` (line_out, above): stored whole,
 * or composed with the bytes the micro-tile above left for that column. */
__attribute__((target("avx2"), always_inline)) static inline void
put_line_avx2(const line_out *o, int k, char *at, __m256d first, __m256d second)
{
    const int shift = o->composed ? (int)((uintptr_t)at % 64) : 0;
    if (!shift) {
        store_line_avx2(at, first, second, o->nt);
        return;
    }
    __m256d *above = o->carry[o->column + k];
    const __m256d here[2] = {first, second};
    if (o->band_top) { /* the line's start is the band above's: both store their part cached */
        memcpy(at, here, (size_t)(64 - shift));
    } else {
        __m256d line[2];
        window_avx2(above, here, shift, line);
        store_line_avx2(at - shift, line[0], line[1], true);
    }
    above[0] = first;
    above[1] = second;
}

/* The end of a band, composed: each output column's last bytes the line below would have
 * taken, stored cached (`at`: the column's 64 bytes of the band's last micro-tile). */
__attribute__((target("avx2"), always_inline)) static inline void
finish_column_avx2(char *at, const __m256d above[2])
{
    const int shift = (int)((uintptr_t)at % 64);
    memcpy(at + 64 - shift, (const char *)above + 64 - shift, (size_t)shift);
}

/* One micro-tile's output line k held in one 512-bit register, by `o`: stored by one store
 * (one write-combining fill where streamed), or composed through put_line_avx2 by halves. */
__attribute__((target("avx512f"), always_inline)) static inline void
put_line_avx512(const line_out *o, int k, char *at, __m512d v)
{
    if (o->composed)
        put_line_avx2(o, k, at, _mm512_castpd512_pd256(v), _mm512_extractf64x4_pd(v, 1));
    else if (o->nt)
        _mm512_stream_pd((double *)at, v);
    else
        _mm512_storeu_pd(at, v);
}

/* 8 rows x 8 doubles -> 8 output lines of 8 (AVX-512). */
__attribute__((target("avx512f"), always_inline)) static inline void
micro_d8x8_avx512(const char *s, int64_t sp, char *d, int64_t dp, const line_out *o)
{
    __m512d r[8], t[8], u[8];
    for (int i = 0; i < 8; i++)
        r[i] = _mm512_loadu_pd(s + i * sp);
    for (int i = 0; i < 8; i += 2) { /* pairs of rows interleaved */
        t[i] = _mm512_unpacklo_pd(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_pd(r[i], r[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) { /* 128-bit lanes of row pairs */
        u[i] = _mm512_shuffle_f64x2(t[i], t[i + 2], 0x88);
        u[i + 1] = _mm512_shuffle_f64x2(t[i + 1], t[i + 3], 0x88);
        u[i + 2] = _mm512_shuffle_f64x2(t[i], t[i + 2], 0xdd);
        u[i + 3] = _mm512_shuffle_f64x2(t[i + 1], t[i + 3], 0xdd);
    }
    for (int i = 0; i < 4; i++) { /* column i and column i + 4 */
        put_line_avx512(o, i, d + i * dp, _mm512_shuffle_f64x2(u[i], u[i + 4], 0x88));
        put_line_avx512(o, i + 4, d + (i + 4) * dp, _mm512_shuffle_f64x2(u[i], u[i + 4], 0xdd));
    }
}

/* 16 rows x 16 floats -> 16 output lines of 16 (AVX-512): every input line is loaded whole
 * once, so rows a power-of-two pitch apart, which share an L1 set, never evict a line before
 * its second half is used (as 8-float AVX2 loads of 16 such rows would in a 12-way L1). */
__attribute__((target("avx512f"), always_inline)) static inline void
micro_f16x16_avx512(const char *s, int64_t sp, char *d, int64_t dp, const line_out *o)
{
    __m512 r[16], t[16], u[16];
    for (int i = 0; i < 16; i++)
        r[i] = _mm512_loadu_ps((const float *)(s + i * sp));
    for (int i = 0; i < 16; i += 2) { /* per 128-bit lane: (a0 b0 a1 b1), (a2 b2 a3 b3) */
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) { /* per lane: column k of rows i..i+3 in u[i + k] */
        u[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
        u[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xee);
        u[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        u[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xee);
    }
    for (int k = 0; k < 4; k++) { /* output row 4 L + k gathers lane L of u[k], u[4+k], ... */
        __m512 even01 = _mm512_shuffle_f32x4(u[k], u[4 + k], 0x88);
        __m512 odd01 = _mm512_shuffle_f32x4(u[k], u[4 + k], 0xdd);
        __m512 even23 = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0x88);
        __m512 odd23 = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0xdd);
        __m512 row[4] = {_mm512_shuffle_f32x4(even01, even23, 0x88),
                         _mm512_shuffle_f32x4(odd01, odd23, 0x88),
                         _mm512_shuffle_f32x4(even01, even23, 0xdd),
                         _mm512_shuffle_f32x4(odd01, odd23, 0xdd)};
        for (int lane = 0; lane < 4; lane++)
            put_line_avx512(o, 4 * lane + k, d + (4 * lane + k) * dp, _mm512_castps_pd(row[lane]));
    }
}

/* 4 rows x 4 doubles, transposed in registers (AVX2). */
__attribute__((target("avx2"), always_inline)) static inline void
transpose_d4x4_avx2(const char *s, int64_t sp, __m256d out[4])
{
    __m256d r0 = _mm256_loadu_pd((const double *)s), r1 = _mm256_loadu_pd((const double *)(s + sp));
    __m256d r2 = _mm256_loadu_pd((const double *)(s + 2 * sp));
    __m256d r3 = _mm256_loadu_pd((const double *)(s + 3 * sp));
    __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    out[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    out[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    out[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    out[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

/* 8 rows x 4 doubles -> 4 output lines of 8: two 4x4 transposes, each line stored whole
 * (its two halves back to back, which keeps write-combining buffers from splitting it). */
__attribute__((target("avx2"), always_inline)) static inline void
micro_d8x4_avx2(const char *s, int64_t sp, char *d, int64_t dp, const line_out *o)
{
    __m256d top[4], bottom[4];
    transpose_d4x4_avx2(s, sp, top);
    transpose_d4x4_avx2(s + 4 * sp, sp, bottom);
    for (int i = 0; i < 4; i++)
        put_line_avx2(o, i, d + i * dp, top[i], bottom[i]);
}

/* 8 rows x 8 floats, transposed in registers (AVX2). */
__attribute__((target("avx2"), always_inline)) static inline void
transpose_f8x8_avx2(const char *s, int64_t sp, __m256 out[8])
{
    __m256 r[8], t[8], u[8];
    for (int i = 0; i < 8; i++)
        r[i] = _mm256_loadu_ps((const float *)(s + i * sp));
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {
        u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
        u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee);
        u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
    }
    for (int i = 0; i < 4; i++) {
        out[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
        out[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
    }
}

/* 16 rows x 8 floats -> 8 output lines of 16. */
__attribute__((target("avx2"), always_inline)) static inline void
micro_f16x8_avx2(const char *s, int64_t sp, char *d, int64_t dp, const line_out *o)
{
    __m256 top[8], bottom[8];
    transpose_f8x8_avx2(s, sp, top);
    transpose_f8x8_avx2(s + 8 * sp, sp, bottom);
    for (int i = 0; i < 8; i++)
        put_line_avx2(o, i, d + i * dp, _mm256_castps_pd(top[i]), _mm256_castps_pd(bottom[i]));
}

/* 8 rows x 8 floats from 16-byte loads: each register holds a quarter of row i in its low
 * lane and the same quarter of row i + 4 in its high lane, so one 4 x 4 transpose per lane
 * (8 unpacks, 8 shuffles) leaves column c of rows 0..7 in out[c]. Half the shuffles of the
 * 8 x 8 with 32-byte loads; the lane inserts take loads, not the shuffle units. */
__attribute__((target("avx512f,avx512vl"), always_inline)) static inline void
transpose_f8x8_lanes(const char *s, int64_t sp, __m256 out[8])
{
    __m256 a[8], t[8];
    for (int q = 0; q < 2; q++) /* columns 4q .. 4q + 3 */
        for (int i = 0; i < 4; i++)
            a[4 * q + i] = _mm256_insertf128_ps(
                _mm256_castps128_ps256(_mm_loadu_ps((const float *)(s + i * sp + 16 * q))),
                _mm_loadu_ps((const float *)(s + (i + 4) * sp + 16 * q)), 1);
    for (int q = 0; q < 8; q += 4) {
        t[q] = _mm256_unpacklo_ps(a[q], a[q + 1]);
        t[q + 1] = _mm256_unpackhi_ps(a[q], a[q + 1]);
        t[q + 2] = _mm256_unpacklo_ps(a[q + 2], a[q + 3]);
        t[q + 3] = _mm256_unpackhi_ps(a[q + 2], a[q + 3]);
        out[q] = _mm256_shuffle_ps(t[q], t[q + 2], 0x44);
        out[q + 1] = _mm256_shuffle_ps(t[q], t[q + 2], 0xee);
        out[q + 2] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0x44);
        out[q + 3] = _mm256_shuffle_ps(t[q + 1], t[q + 3], 0xee);
    }
}

/* 16 rows x 16 floats -> 16 output lines of 16 with 256-bit shuffles (the machine's
 * SHUFFLE_BYTES: Zen 4 splits each 512-bit shuffle in two, and there this kernel packs
 * 1.1-1.5x faster than micro_f16x16_avx512, 512^2 to 4096^2), as four 8 x 8 blocks: rows 0..7 of both
 * column halves first, so at most 8 input lines (a power-of-two pitch apart: one L1 set) are
 * in use at once, then rows 8..15, each output line stored whole. 32 registers hold the
 * halves waiting for their other half (AVX-512VL). */
__attribute__((target("avx512f,avx512vl"), always_inline)) static inline void
micro_f16x16_lanes(const char *s, int64_t sp, char *d, int64_t dp, const line_out *o)
{
    __m256 left[8], right[8], bottom[8];
    transpose_f8x8_lanes(s, sp, left);
    transpose_f8x8_lanes(s + 32, sp, right);
    for (int half = 0; half < 2; half++) {
        transpose_f8x8_lanes(s + 8 * sp + 32 * half, sp, bottom);
        const __m256 *top = half ? right : left;
        for (int i = 0; i < 8; i++)
            put_line_avx2(o, 8 * half + i, d + (8 * half + i) * dp, _mm256_castps_pd(top[i]),
                          _mm256_castps_pd(bottom[i]));
    }
}

/* 4 rows x 4 16-byte elements (complex doubles) -> 4 output lines of 4 (AVX2): each 2 x 2
 * block of elements swaps its off-diagonal halves, one 128-bit permute per half line. */
__attribute__((target("avx2"), always_inline)) static inline void
micro_z4x4_avx2(const char *s, int64_t sp, char *d, int64_t dp, const line_out *o)
{
    __m256d r[4][2]; /* row i, columns 2h and 2h + 1 in r[i][h] */
    for (int i = 0; i < 4; i++) {
        r[i][0] = _mm256_loadu_pd((const double *)(s + i * sp));
        r[i][1] = _mm256_loadu_pd((const double *)(s + i * sp + 32));
    }
    for (int h = 0; h < 2; h++) { /* output lines 2h and 2h + 1: those columns of rows 0..3 */
        put_line_avx2(o, 2 * h, d + 2 * h * dp, _mm256_permute2f128_pd(r[0][h], r[1][h], 0x20),
                      _mm256_permute2f128_pd(r[2][h], r[3][h], 0x20));
        put_line_avx2(o, 2 * h + 1, d + (2 * h + 1) * dp,
                      _mm256_permute2f128_pd(r[0][h], r[1][h], 0x31),
                      _mm256_permute2f128_pd(r[2][h], r[3][h], 0x31));
    }
}

/* 4 rows x 4 16-byte elements -> 4 output lines of 4 (AVX-512): each input line in one
 * register, two rounds of 128-bit lane shuffles, each output line stored whole by one store
 * (one write-combining fill where streamed). From memory (`bench pack --cache flushed`,
 * 512^2-2048^2 complex doubles, AMD EPYC VM, three alternations) 12.6-13.9 GB/s, against
 * 9.4-10.6 with micro_z4x4_avx2 (`MEMCOMM_SIMD_BYTES=32`). */
__attribute__((target("avx512f"), always_inline)) static inline void
micro_z4x4_avx512(const char *s, int64_t sp, char *d, int64_t dp, const line_out *o)
{
    __m512d r[4];
    for (int i = 0; i < 4; i++)
        r[i] = _mm512_loadu_pd((const double *)(s + i * sp));
    /* columns 0, 1 (t[0], t[2]) and 2, 3 (t[1], t[3]) of rows 0, 1 and of rows 2, 3 */
    const __m512d t[4] = {
        _mm512_shuffle_f64x2(r[0], r[1], 0x44), _mm512_shuffle_f64x2(r[0], r[1], 0xee),
        _mm512_shuffle_f64x2(r[2], r[3], 0x44), _mm512_shuffle_f64x2(r[2], r[3], 0xee)};
    for (int h = 0; h < 2; h++) { /* output lines 2h (even lanes) and 2h + 1 (odd lanes) */
        put_line_avx512(o, 2 * h, d + 2 * h * dp, _mm512_shuffle_f64x2(t[h], t[h + 2], 0x88));
        put_line_avx512(o, 2 * h + 1, d + (2 * h + 1) * dp,
                        _mm512_shuffle_f64x2(t[h], t[h + 2], 0xdd));
    }
}

/* Whether output rows `pitch` bytes apart start part way into a line at a 4-byte boundary:
 * the rows whose lines the AVX2 kernels compose (line_out). */
static inline bool rows_composable(int64_t pitch) { return pitch % 64 != 0 && pitch % 4 == 0; }

/* The first of `n` elements from `base` (elements `elem` bytes, rows `pitch` apart) at which
 * every row is 64-byte aligned; 0 when rows cannot all be aligned. */
static inline int64_t first_aligned(const char *base, int64_t pitch, int64_t elem, int64_t n)
{
    if (pitch % 64 != 0 || (uintptr_t)base % (uintptr_t)elem != 0)
        return 0;
    int64_t k = (int64_t)((64 - (uintptr_t)base % 64) % 64) / elem;
    return k < n ? k : n;
}

/* The walk goes down strips of input columns: a strip is a few input lines wide, so its
 * output is that many lines' worth of output rows, each written front to back (a few streams
 * the hardware follows). How wide a strip is, the plan says (plan_transpose_strip_lines).
 * The input rows, one per micro-tile row and more than the prefetchers follow, are
 * prefetched by hand PREFETCH_TILES micro-tiles down, into L2, unless the plan or its probe
 * found them in the caches (TRANSPOSE_WARM; plan.h). Floats prefetch then too: with the
 * caches as the run before left them (some of it in L3), 384^2 floats packed at 18.7-19.3
 * GB/s without (an uncommitted variant, not kept), 21.5-21.9 with (two alternations). With cached stores into a destination in
 * the caches and a source out of them (TRANSPOSE_COLD), the prefetch is what moves the
 * source: on the AMD EPYC (Zen 5) VM, `bench pack --cache flushed` at commit b24780e, where
 * calls below the L2 size stored cached whatever their destination, 192^2 and 256^2 doubles
 * ran at 6.2-7.4 GB/s with it and 4.5-4.9 without (medians of 21, two alternations). Not
 * prefetched: the output lines (prefetcht0 of the lines two micro-tiles down gained nothing
 * measurable on the cached stores' reads-for-ownership, two alternations of a throwaway
 * switch, not kept), and nothing 4
 * micro-tiles down instead of 2, or into L1 (a throwaway program, not kept). */
#define PREFETCH_TILES 2

/* The walk around one micro-kernel (MR rows x MC cols of ELEM-byte elements, whose output
 * lines are MR * ELEM = 64 bytes; FETCH_WARM: the input prefetched in TRANSPOSE_WARM too):
 * bands of `tile` rows, each walked strip
 * by strip.
 * Micro-tiles start at the first column whose input rows are line-aligned (a wide load that
 * splits two lines costs two) and, when streaming, at the first row whose output lines are
 * aligned, as non-temporal stores need, or at row 0 where the lines are composed (line_out);
 * the rows and columns before those, and the partial micro-tiles at the ends, are edges.
 * Prefetches never fault, so past the last row or column is harmless. */

#define TRANSPOSE_WALK(NAME, TARGET, ELEM, MR, MC, MICRO, FETCH_WARM)                          \
    __attribute__((target(TARGET))) static void NAME(const char *src, int64_t sp, char *dst,   \
                                                     int64_t dp, int64_t rows, int64_t cols,   \
                                                     int64_t tile, plan_transpose_mode mode)   \
    {                                                                                          \
        tile = tile < (MR) ? (MR) : tile / (MR) * (MR); /* whole micro-tiles */               \
        const int64_t line = 64 / (ELEM);               /* elements per input line */          \
        const int64_t r_lo = first_aligned(dst, dp, (ELEM), rows);                             \
        const int64_t c_lo = first_aligned(src, sp, (ELEM), cols);                             \
        const bool streaming = mode == TRANSPOSE_STREAM || mode == TRANSPOSE_STREAM_COLD;      \
        const bool composed = streaming && rows_composable(dp) &&                              \
                              (uintptr_t)dst % 4 == 0;                                         \
        const bool nt = streaming && ((dp % 64 == 0 && (uintptr_t)dst % (ELEM) == 0) || composed); \
        const bool fetch = mode != TRANSPOSE_WARM || (FETCH_WARM);                             \
        const int64_t strip = line * (nt ? plan_transpose_strip_lines(mode, (ELEM), dp) : 1);  \
        const int64_t r_hi = r_lo + (rows - r_lo) / (MR) * (MR);                               \
        const int64_t c_hi = c_lo + (cols - c_lo) / (MC) * (MC);                               \
        static const line_out streamed = {.nt = true}, cached = {.nt = false};                 \
        __m256d carry[16 * 64 / (ELEM)][2]; /* the widest strip's columns */               \
        line_out composing = {.nt = true, .composed = true, .carry = carry};                   \
        for (int64_t r0 = r_lo; r0 < r_hi; r0 += tile) {                                       \
            const int64_t r1 = r0 + tile < r_hi ? r0 + tile : r_hi;                            \
            for (int64_t c0 = c_lo; c0 < c_hi; c0 += strip) {                                  \
                const int64_t c1 = c0 + strip < c_hi ? c0 + strip : c_hi;                      \
                for (int64_t r = r0; r < r1; r += (MR)) {                                      \
                    composing.band_top = r == r0;                                              \
                    for (int64_t c = c0; c < c1; c += (MC)) {                                  \
                        const char *s = src + r * sp + c * (ELEM);                             \
                        char *d = dst + c * dp + r * (ELEM);                                   \
                        if (fetch && (c - c0) % line == 0) /* each input line */               \
                            for (int q = 0; q < (MR); q++)                                     \
                                _mm_prefetch(s + (PREFETCH_TILES * (MR) + q) * sp, _MM_HINT_T1); \
                        composing.column = c - c0;                                             \
                        if (composed) /* each way its own copy: the others' stores are fixed */ \
                            MICRO(s, sp, d, dp, &composing);                                   \
                        else if (nt)                                                           \
                            MICRO(s, sp, d, dp, &streamed);                                    \
                        else                                                                   \
                            MICRO(s, sp, d, dp, &cached);                                      \
                    }                                                                          \
                }                                                                              \
                for (int64_t c = c0; c < c1 && composed; c++)                                  \
                    finish_column_avx2(dst + c * dp + (r1 - (MR)) * (ELEM), carry[c - c0]);    \
            }                                                                                  \
        }                                                                                      \
        if (nt)                                                                                \
            _mm_sfence(); /* order the streamed lines before anything the caller does next */  \
        edge(src, sp, dst, dp, 0, r_lo, 0, cols, (ELEM));                                      \
        edge(src, sp, dst, dp, r_hi, rows, 0, cols, (ELEM));                                   \
        edge(src, sp, dst, dp, r_lo, r_hi, 0, c_lo, (ELEM));                                   \
        edge(src, sp, dst, dp, r_lo, r_hi, c_hi, cols, (ELEM));                                \
    }

TRANSPOSE_WALK(transpose_d_avx512, "avx512f", 8, 8, 8, micro_d8x8_avx512, false)
TRANSPOSE_WALK(transpose_d_avx2, "avx2", 8, 8, 4, micro_d8x4_avx2, false)
TRANSPOSE_WALK(transpose_f_avx2, "avx2", 4, 16, 8, micro_f16x8_avx2, true)
TRANSPOSE_WALK(transpose_f_avx512, "avx512f", 4, 16, 16, micro_f16x16_avx512, true)
TRANSPOSE_WALK(transpose_f_lanes, "avx512f,avx512vl", 4, 16, 16, micro_f16x16_lanes, true)
TRANSPOSE_WALK(transpose_z_avx2, "avx2", 16, 4, 4, micro_z4x4_avx2, false)
TRANSPOSE_WALK(transpose_z_avx512, "avx512f", 16, 4, 4, micro_z4x4_avx512, false)

#endif /* MEMCOMM_X86 */

plan_transpose_fn kernel_transpose_for(int64_t elem, int64_t simd_bytes, int64_t shuffle_bytes)
{
#if MEMCOMM_X86
    const int64_t width = shuffle_bytes < simd_bytes ? shuffle_bytes : simd_bytes;
    if (elem == 8 && width >= MACHINE_SIMD_AVX512)
        return transpose_d_avx512;
    if (elem == 8 && width >= MACHINE_SIMD_AVX2)
        return transpose_d_avx2;
    if (elem == 4 && width >= MACHINE_SIMD_AVX512)
        return transpose_f_avx512;
    if (elem == 4 && width >= MACHINE_SIMD_AVX2) /* SIMD_BYTES 64 has AVX-512VL */
        return simd_bytes >= MACHINE_SIMD_AVX512 ? transpose_f_lanes : transpose_f_avx2;
    if (elem == 16 && width >= MACHINE_SIMD_AVX512)
        return transpose_z_avx512;
    if (elem == 16 && width >= MACHINE_SIMD_AVX2)
        return transpose_z_avx2;
#else
    (void)elem;
    (void)simd_bytes;
    (void)shuffle_bytes;
#endif
    return NULL;
}

bool kernel_transpose_composes(int64_t elem, int64_t simd_bytes, int64_t pitch)
{
#if MEMCOMM_X86
    return rows_composable(pitch) && kernel_transpose_for(elem, simd_bytes, simd_bytes) != NULL;
#else
    (void)elem;
    (void)simd_bytes;
    (void)pitch;
    return false;
#endif
}
