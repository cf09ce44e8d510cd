/* kernel: the loops that move bytes, chosen by the planner.
 *
 * All kernels have the plan_copy_fn shape: (plan, typed buffer, count, packed buffer); the
 * pack variant reads the typed buffer, the unpack variant writes it. */
#ifndef MEMCOMM_KERNEL_H
#define MEMCOMM_KERNEL_H

#include <stdint.h>
#include <string.h>

#include "../plan/plan.h"

/* Whether the x86-64 paths (SIMD kernels, streamed stores, the residency probe) are built. */
#if defined(__x86_64__)
#define MEMCOMM_X86 1
#else
#define MEMCOMM_X86 0
#endif

/* Bind the kernels that run a built plan (plan_build): pack, unpack, the transposing copy and
 * the records shuffles where the machine's SIMD has them, and the kernel's name. */
void kernel_select(plan *p);

/* The register width the plan's transposes use: for 8-byte elements the machine's shuffle
 * width (machine.h), never wider than its SIMD width; for others the SIMD width. */
int64_t kernel_transpose_bytes(const plan *p);

/* The records kernel's shuffles for a list, if its fields fit. */
bool kernel_records_for(const plan_list *l, plan_records *out);

/* Steps an odometer over dims [0, last] of a strided form, moving `*base` with it; false once
 * it wraps around (the walk is done). Shared by the strided and list walks. */
static inline __attribute__((always_inline)) bool kernel_next_outer(const plan_strided *s, int last,
                                                                    int64_t *idx, char **base)
{
    for (int d = last; d >= 0; d--) {
        *base += s->stride[d];
        if (++idx[d] < s->count[d])
            return true;
        *base -= s->stride[d] * s->count[d];
        idx[d] = 0;
    }
    return false;
}

/* One block of any length. Blocks up to 32 bytes (the fields of records, particles whose
 * neighbours the normalizer merged into longer blocks) are two moves that overlap inside the
 * block, first and last bytes, instead of a call to memcpy; no byte outside it is touched. */
static inline __attribute__((always_inline)) void kernel_copy_block(char *dst, const char *src,
                                                                    int64_t len)
{
    if (len > 32) {
        memcpy(dst, src, (size_t)len);
    } else if (len >= 16) {
        char head[16], tail[16];
        memcpy(head, src, 16);
        memcpy(tail, src + len - 16, 16);
        memcpy(dst, head, 16);
        memcpy(dst + len - 16, tail, 16);
    } else if (len >= 8) {
        uint64_t head, tail;
        memcpy(&head, src, 8);
        memcpy(&tail, src + len - 8, 8);
        memcpy(dst, &head, 8);
        memcpy(dst + len - 8, &tail, 8);
    } else if (len >= 4) {
        uint32_t head, tail;
        memcpy(&head, src, 4);
        memcpy(&tail, src + len - 4, 4);
        memcpy(dst, &head, 4);
        memcpy(dst + len - 4, &tail, 4);
    } else {
        for (int64_t i = 0; i < len; i++)
            dst[i] = src[i];
    }
}

/* How far ahead of its reads an unpack of far blocks (plan_list) prefetches its packed bytes
 * into L2. The random read-for-ownership of the typed side's lines fills the miss queues, and
 * the hardware prefetcher then runs too few lines ahead on the packed stream: 24-byte
 * particles over 12.6 MB, both sides flushed, unpacked at 7.3-7.6 GB/s without, 7.8-9.8 with
 * 4-8 KiB (1.5-32 KiB tried; AMD EPYC VM, medians of 21, throwaway program). */
enum { KERNEL_PACKED_AHEAD_BYTES = 4096 };

/* One block per instance: a single memcpy when instances are back to back. */
void kernel_contig_pack(const plan *p, char *typed, int64_t count, char *packed);
void kernel_contig_unpack(const plan *p, char *typed, int64_t count, char *packed);

/* Strided form; the innermost copy is specialized for blocks of 1, 2, 4, 8, 16, 24, 32, 40, 48
 * and 64 bytes; with AVX2 (`simd_bytes`), packs of 4- and 8-byte blocks fill 32-byte stores,
 * and with AVX-512 blocks of other sizes are copied front to back in 64-byte moves. */
plan_copy_fn kernel_strided_pack_for(int64_t block, int64_t simd_bytes);
plan_copy_fn kernel_strided_unpack_for(int64_t block, int64_t simd_bytes);

/* Which blocks of a plain strided walk (`block` bytes, `stride` apart in its innermost dim)
 * are prefetched ahead (strided.c, prefetched_apart): always, only by an unpack whose typed
 * side the residency probe finds out of the caches, or never. For `memcomm explain`. */
typedef enum {
    STRIDED_NOT_PREFETCHED,
    STRIDED_PREFETCHED_COLD_UNPACK,
    STRIDED_PREFETCHED
} kernel_strided_prefetch;
kernel_strided_prefetch kernel_strided_prefetch_for(int64_t block, int64_t stride);

/* Whether a plain strided pack of `bytes` stores its packed bytes non-temporally (strided.c,
 * packs_streamed). For `memcomm explain`. */
bool kernel_strided_streams(const plan *p, int64_t bytes);

/* The SIMD transposing copy for `elem`-byte elements (plan_transpose_fn) that shuffles in
 * registers of `shuffle_bytes` with the instructions of `simd_bytes` (plan's SIMD_BYTES: 64
 * lets a 32-byte float transpose use AVX-512VL's 32 registers), NULL when the width has none. */
plan_transpose_fn kernel_transpose_for(int64_t elem, int64_t simd_bytes, int64_t shuffle_bytes);

/* Whether that kernel streams output rows `pitch` bytes apart by composing their lines across
 * micro-tiles: rows a multiple of 4 bytes but not of 64 apart (kernel/transpose.c's
 * line_out), in every SIMD transposer. */
bool kernel_transpose_composes(int64_t elem, int64_t simd_bytes, int64_t pitch);

/* Where a call reads or writes: `rows` rows `pitch` bytes apart from `at`, of which it
 * touches the first `row_bytes` each. */
typedef struct {
    const char *at;
    int64_t rows, pitch, row_bytes;
} kernel_rows;

/* Whether those rows are out of the caches: one line in each of 8 consecutive rows at their
 * start, and then of 8 from their middle, spread across the bytes the call touches in them,
 * each group loaded together and timed against kernel_cold_ticks (residency.c). False where
 * that cannot be told. */
bool kernel_lines_cold(kernel_rows r);

/* Whether a pack's destination is out of the caches, as kernel_lines_cold, but never while this
 * thread packs a staging buffer that fits the caches (kernel_pack_staging). */
bool kernel_destination_cold(kernel_rows dst);

/* p->pack into a message's staging buffer, `staging_bytes` in all, which the MPI reads next
 * (the peer's copy, or its own): one of up to half the L2 keeps its stores cached, whatever
 * the residency probe finds (kernel_destination_cold), since that copy then reads it from this
 * core's caches. A 256^2 transpose's carried send on MPICH took 112-141 us one way when the
 * probe found its staging cold and the transpose streamed, 84-92 with the stores cached
 * (ping-pong, Intel Xeon VM; a memcpy streamed before the send made it 111 against 74). Kept
 * cached at 8 MiB as well, the 1024^2 transpose fell from 13.3x MPICH's send to 8.5x. */
void kernel_pack_staging(const plan *p, char *typed, int64_t count, char *packed,
                         int64_t staging_bytes);

/* A contiguous region of `bytes` as the probe reads it: rows of 4 KiB, so that the sampled
 * lines of a group lie in consecutive pages (one page walk), not spread over the region. */
static inline kernel_rows kernel_rows_of_bytes(const char *at, int64_t bytes)
{
    enum { ROW = 4096 };
    return (kernel_rows){at, bytes > ROW ? bytes / ROW : 1, ROW, bytes < ROW ? bytes : ROW};
}

/* `bytes` at `buf` set to `value` with plain stores, which leave the lines in the caches as far
 * as they fit: what a program's own writes do. memset is no stand-in: glibc sends buffers
 * past 2 KiB to `rep stosb`, which on the Intel Xeon VM (glibc 2.36) left 4 MiB and more
 * out of the caches (8 of its lines read back in 700-1000 ticks, slower than from memory
 * after clflush, 450-550; written with plain stores, 190-270; throwaway program). */
void kernel_fill_cached(char *buf, int64_t bytes, int value);

/* The time-stamp ticks above which those loads came from memory, calibrated at the first
 * call; 0 where the caches and memory are not told apart (no probing then). */
int64_t kernel_cold_ticks(void);

/* Flattened list of blocks inside strided dims (the call's count outermost). */
void kernel_list_pack(const plan *p, char *typed, int64_t count, char *packed);
void kernel_list_unpack(const plan *p, char *typed, int64_t count, char *packed);

/* Records of at most 16 bytes through one byte shuffle each (pack: SSSE3; unpack:
 * AVX-512BW masked stores); other walks go to the list kernel. */
void kernel_records_pack(const plan *p, char *typed, int64_t count, char *packed);
void kernel_records_unpack(const plan *p, char *typed, int64_t count, char *packed);

/* Tree interpreter for any normalized tree. */
void kernel_tree_pack(const plan *p, char *typed, int64_t count, char *packed);
void kernel_tree_unpack(const plan *p, char *typed, int64_t count, char *packed);

/* The first `bytes` (fewer than one instance holds) of one instance at `typed`, in typemap
 * order: how a receive that ends inside an element fills it. */
void kernel_tree_unpack_prefix(const ir_node *normal, char *typed, const char *packed,
                               int64_t bytes);

#endif
