/* Probes of the machine model's values that no register or file reports reliably (VMs hide
 * cpuid leaf 0x18 and invent cache sizes): TLB entries, the size above which streaming stores
 * beat plain ones, and copy bandwidth. Run on request (`memcomm machine --probe`), never
 * inside an MPI program: they take about a second.
 *
 * TLB: a Saavedra-style probe (after Byna et al. 2003, their ref. 17). A pointer chase visits
 * one line in each of N pages in random order; page i holds its line at offset
 * (i mod lines-per-page) so that the N lines spread over the cache sets and stay cached up to
 * N = L1 size / line size. The time per visit then only jumps when N pages no longer fit the
 * first-level data TLB.
 *
 * Streaming: the transposing kernel (the only one that streams) on S bytes into a
 * destination that was just written (a reused send buffer, in the caches as far as it fits),
 * with plain and with non-temporal stores; the threshold is the largest S below the sizes at
 * which streaming is faster, up to the largest measured. (A plain memcpy is no guide: its
 * sequential stores avoid most of what streaming saves a transpose.) It runs with the tile
 * the next probe chose.
 *
 * Tile rows: the same kernel, streamed, on 32 MiB matrices of doubles and of floats, with
 * tile rows of 512 B to 4 KiB; the row with the least total time wins. How long a tile row
 * runs decides how far the hardware prefetcher follows each input row before the walk turns
 * to the next, and no register reports it.
 *
 * Shuffle width: the transposing kernels of doubles of each SIMD width the CPU has, with that
 * tile row and cached stores, on square matrices of 1024^2 to 4096^2; the width with the
 * least total time wins. Whether a CPU runs its widest shuffles at full
 * rate is no feature flag either. */
#include "probe.h"

#include "kernel.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/alloc.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state >> 33;
}

/* Nanoseconds per step of a chase through one line in each of `pages` pages (median of 5). */
static double chase_ns(char *area, int64_t pages, int64_t page_size, int64_t line_size)
{
    int64_t *order = mc_malloc(sizeof *order * (size_t)pages);
    if (!order)
        return -1;
    for (int64_t i = 0; i < pages; i++)
        order[i] = i;
    uint64_t state = (uint64_t)pages * 7919u + 1;
    for (int64_t i = pages - 1; i > 0; i--) {
        int64_t j = (int64_t)(next_random(&state) % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    const int64_t lines_per_page = page_size / line_size;
#define SLOT(page) (area + (page) * page_size + ((page) % lines_per_page) * line_size)
    for (int64_t i = 0; i < pages; i++)
        *(char **)SLOT(order[i]) = SLOT(order[(i + 1) % pages]);
    char *p = SLOT(order[0]);
#undef SLOT
    free(order);
    const int64_t steps = 1 << 20;
    double times[5];
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now();
        for (int64_t i = 0; i < steps; i++)
            p = *(char **)p;
        times[rep] = (now() - t0) * 1e9 / (double)steps;
    }
    if (p == NULL) /* keeps the chase from being optimized away */
        return -1;
    qsort(times, 5, sizeof times[0], compare_doubles);
    return times[2];
}

static void copy_plain(char *dst, const char *src, int64_t bytes)
{
    memcpy(dst, src, (size_t)bytes);
}

/* Non-temporal copy of 16-byte aligned buffers (SSE2, which every x86-64 has). */
static void copy_streaming(char *dst, const char *src, int64_t bytes)
{
#if defined(__x86_64__)
    for (int64_t i = 0; i + 64 <= bytes; i += 64) {
        __m128i a = _mm_load_si128((const __m128i *)(src + i));
        __m128i b = _mm_load_si128((const __m128i *)(src + i + 16));
        __m128i c = _mm_load_si128((const __m128i *)(src + i + 32));
        __m128i d = _mm_load_si128((const __m128i *)(src + i + 48));
        _mm_stream_si128((__m128i *)(dst + i), a);
        _mm_stream_si128((__m128i *)(dst + i + 16), b);
        _mm_stream_si128((__m128i *)(dst + i + 32), c);
        _mm_stream_si128((__m128i *)(dst + i + 48), d);
    }
    _mm_sfence();
#else
    memcpy(dst, src, (size_t)bytes);
#endif
}

/* Median seconds of a copy of `bytes` into a destination just written with plain stores. */
static double copy_seconds(void (*copy)(char *, const char *, int64_t), char *dst,
                           const char *src, int64_t bytes)
{
    double times[5];
    for (int rep = 0; rep < 5; rep++) {
        kernel_fill_cached(dst, bytes, rep);
        double t0 = now();
        copy(dst, src, bytes);
        times[rep] = now() - t0;
    }
    qsort(times, 5, sizeof times[0], compare_doubles);
    return times[2];
}

/* The side of the largest square matrix of `elem`-byte elements within `bytes`, a multiple of
 * 16 (whole micro-tiles). */
static int64_t square_side(int64_t bytes, int64_t elem)
{
    int64_t n = 16;
    while ((n + 16) * (n + 16) * elem <= bytes)
        n += 16;
    return n;
}

/* Median seconds of an n x n transposing copy into a destination just written with plain
 * stores (a reused send buffer, as cached as it gets). */
static double transpose_seconds(plan_transpose_fn transpose, const char *src, char *dst,
                                int64_t n, int64_t elem, int64_t tile, plan_transpose_mode mode)
{
    double times[5];
    for (int rep = 0; rep < 5; rep++) {
        kernel_fill_cached(dst, n * n * elem, rep);
        double t0 = now();
        transpose(src, n * elem, dst, n * elem, n, n, tile, mode);
        times[rep] = now() - t0;
    }
    qsort(times, 5, sizeof times[0], compare_doubles);
    return times[2];
}

int machine_probe(int64_t page_size, int64_t line_size, int64_t simd_bytes,
                  machine_probe_result *out)
{
    memset(out, 0, sizeof *out);
    if (page_size < 256 || line_size < 16 || page_size % line_size)
        return -1;

    /* TLB: pages from 4 to 4096, in steps of about 1/8 */
    const int64_t max_pages = 4096;
    char *area = mc_aligned_alloc((size_t)page_size, (size_t)(max_pages * page_size));
    if (!area)
        return -1;
    memset(area, 0, (size_t)(max_pages * page_size)); /* map every page now */
    for (int64_t pages = 4; pages <= max_pages && out->tlb_points < MACHINE_PROBE_POINTS;
         pages += pages / 8 > 1 ? pages / 8 : 1) {
        out->tlb_pages[out->tlb_points] = pages;
        out->tlb_ns[out->tlb_points] = chase_ns(area, pages, page_size, line_size);
        out->tlb_points++;
    }
    free(area);
    /* the first knee: a step 30% above the mean of the smallest sizes, held by the next
     * point too (a single slow point is noise on a shared machine) */
    double base = (out->tlb_ns[0] + out->tlb_ns[1] + out->tlb_ns[2]) / 3;
    for (int i = 3; i + 1 < out->tlb_points; i++)
        if (out->tlb_ns[i] > 1.3 * base && out->tlb_ns[i + 1] > 1.3 * base) {
            out->tlb_entries = out->tlb_pages[i - 1];
            break;
        }

    /* tile rows, then the streaming threshold with them: the transposing kernel on square
     * matrices (n a multiple of 16) */
    const int64_t max_bytes = 128 << 20;
    char *src = mc_aligned_alloc(64, (size_t)max_bytes), *dst = mc_aligned_alloc(64, (size_t)max_bytes);
    if (!src || !dst) {
        free(src);
        free(dst);
        return -1;
    }
    memset(src, 1, (size_t)max_bytes);
    memset(dst, 0, (size_t)max_bytes);
    out->tile_bytes = page_size / 2;
    double best = 0;
    const bool simd = kernel_transpose_for(8, simd_bytes, simd_bytes) != NULL;
    for (int64_t row = 512; simd && row <= 4096 && row <= page_size; row *= 2) {
        int i = out->tile_points++;
        out->tile_sizes[i] = row;
        double total = 0;
        for (int e = 0; e < 2; e++) {
            const int64_t elem = e == 0 ? 8 : 4, n = square_side(32 << 20, elem);
            plan_transpose_fn transpose = kernel_transpose_for(elem, simd_bytes, simd_bytes);
            double seconds =
                transpose_seconds(transpose, src, dst, n, elem, row / elem, TRANSPOSE_STREAM_COLD);
            out->tile_gbps[i][e] = seconds > 0 ? (double)(n * n * elem) / seconds / 1e9 : 0;
            total += seconds;
        }
        if (total > 0 && (best == 0 || total < best)) {
            best = total;
            out->tile_bytes = row;
        }
    }
    /* shuffle width: each width the CPU has, widest first, with the tile just chosen */
    double fastest = 0;
    for (int64_t width = MACHINE_SIMD_AVX512; width >= MACHINE_SIMD_AVX2; width /= 2) {
        plan_transpose_fn transpose = kernel_transpose_for(8, simd_bytes, width);
        if (width > simd_bytes || !transpose)
            continue;
        int i = out->shuffle_points++;
        out->shuffle_widths[i] = width;
        double bytes = 0, seconds = 0;
        for (int64_t n = 1024; n <= 4096; n *= 2) {
            seconds +=
                transpose_seconds(transpose, src, dst, n, 8, out->tile_bytes / 8, TRANSPOSE_WARM);
            bytes += (double)(n * n * 8);
        }
        out->shuffle_gbps[i] = seconds > 0 ? bytes / seconds / 1e9 : 0;
        if (seconds > 0 && (fastest == 0 || seconds < fastest)) {
            fastest = seconds;
            out->shuffle_bytes = width;
        }
    }

    out->stream_bytes = INT64_MAX; /* never, unless streaming wins from some size on */
    plan_transpose_fn transpose =
        kernel_transpose_for(8, simd_bytes, out->shuffle_bytes ? out->shuffle_bytes : simd_bytes);
    for (int64_t bytes = 1 << 20; transpose && bytes <= max_bytes; bytes *= 2) {
        const int64_t n = square_side(bytes, 8), tile = out->tile_bytes / 8;
        int i = out->stream_points++;
        out->stream_sizes[i] = n * n * 8;
        const double gb = (double)(n * n * 8) / 1e9;
        out->plain_gbps[i] =
            gb / transpose_seconds(transpose, src, dst, n, 8, tile, TRANSPOSE_WARM);
        out->streaming_gbps[i] =
            gb / transpose_seconds(transpose, src, dst, n, 8, tile, TRANSPOSE_STREAM);
    }
    for (int i = out->stream_points - 1; i >= 0 && out->streaming_gbps[i] > out->plain_gbps[i]; i--)
        out->stream_bytes = i > 0 ? out->stream_sizes[i - 1] : 1;

    /* copy bandwidth: the better of plain and streaming copies of the largest size */
    double plain = (double)max_bytes / copy_seconds(copy_plain, dst, src, max_bytes);
    double streaming = (double)max_bytes / copy_seconds(copy_streaming, dst, src, max_bytes);
    out->copy_bytes_per_s = (int64_t)(plain > streaming ? plain : streaming);
    free(src);
    free(dst);
    return 0;
}
