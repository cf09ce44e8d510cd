/* Whether a call's destination is in the caches, asked at the call (kernel_lines_cold).
 *
 * Streaming (non-temporal) stores skip the read-for-ownership of each destination line and
 * win where the lines are out of the caches; where they are in, they must first be evicted,
 * and plain stores win. Which holds depends on what the program did before the call, not on
 * its size: `bench pack` transposes of 384^2-640^2 doubles into a flushed destination ran
 * 2.5-3.0x faster streamed, and streamed into one a calibration had wrongly called cold ran
 * at 0.2x (2026-11-26, AMD EPYC VM). So from a quarter of the L2 size, below which the
 * probe's cost would weigh (lib/plan/plan.h), to the streaming threshold, above which the
 * destination cannot be cached anyway, the transposes look (at the source too, for its
 * prefetches, when the destination is cached); the long blocks of other strided walks look
 * at their typed side (kernel/strided.c). One line in each of SAMPLE_LINES consecutive rows,
 * spread across the bytes the call touches in them, is loaded, all together, and timed, one
 * time-stamp pair around them, against a threshold calibrated once per process; if they read
 * cold, so must SAMPLE_LINES rows from the middle.
 * Consecutive rows, not rows spread over the destination: their page-table entries share a
 * line, so the walks share its miss, where spread ones each paid their own (8 loads spread
 * over 24 MiB took 2,000-2,700 ticks from L3, against 500-620 from memory with the pages in
 * the TLB; throwaway program) and L3 read as memory. Even so, walks are paid before the timing
 * (page_primer). Loads, not prefetches: a prefetch retires before its line arrives. A line
 * not yet mapped faults and counts as cold, as it is. The probe costs four memory latencies
 * at most, primers included (about 1 us). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "kernel.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <x86intrin.h>

enum { SAMPLE_LINES = 8, CALIBRATION_ROUNDS = 12, CALIBRATION_ATTEMPTS = 3, ROW = 4096 };

/* The 4 KiB page `at` is in. */
static uintptr_t page_of(const void *at) { return (uintptr_t)at & ~(uintptr_t)(ROW - 1); }

/* A byte of `sample`'s 4 KiB page, inside the `row_bytes` the call touches from `row`, that is
 * neither the sampled line nor its 128-byte pair (which the adjacent-line prefetcher fetches
 * with it): the row's first byte in the page, or else the first line of the next pair. NULL
 * where there is none, or where `previous`, the primer of the sample before, is in that page
 * already (one access per page: the L2 streamer, seeing a run of them, could fetch the
 * samples ahead of their timing). */
static const char *page_primer(const char *row, int64_t row_bytes, const char *sample,
                               const char *previous)
{
    const uintptr_t page = page_of(sample), pair = ~(uintptr_t)127;
    if (previous && page_of(previous) == page)
        return NULL;
    const char *first = (uintptr_t)row > page ? row : (const char *)page;
    if (((uintptr_t)first & pair) != ((uintptr_t)sample & pair))
        return first;
    const char *after = (const char *)(((uintptr_t)sample & pair) + 128);
    if (after < row + row_bytes && page_of(after) == page)
        return after;
    return NULL;
}

/* Time-stamp ticks the loads of `line[0..SAMPLE_LINES)` take, issued together (their
 * misses overlap: one memory latency, not eight), after the loads of their pages' primers
 * (page_primer) have completed: on the Intel Xeon VM, from 2026-11-27 on, the page walks of
 * eight rows just written, 4 MiB of pages, took 1,100-1,400 ticks together, longer than a
 * memory latency with the pages in the TLB (450-1,000; throwaway program), so that a
 * destination in L3 read as one in memory and no calibration told the two apart. What the
 * stores are to choose depends on where the lines are, not their pages; the walk is paid
 * anyway, by the copy that follows. Not instrumented by AddressSanitizer: its shadow loads,
 * themselves missing the caches, would be timed too (the lines are the call's own bytes). */
__attribute__((no_sanitize_address)) static uint64_t
time_loads(const char *const line[SAMPLE_LINES], const char *const primer[SAMPLE_LINES])
{
    uint64_t sum = 0;
    for (int i = 0; i < SAMPLE_LINES; i++)
        if (primer[i])
            sum += *(const volatile unsigned char *)primer[i];
    _mm_lfence();
    const uint64_t start = __rdtsc();
    _mm_lfence();
    for (int i = 0; i < SAMPLE_LINES; i++)
        sum += *(const volatile unsigned char *)line[i];
    _mm_lfence();
    const uint64_t ticks = __rdtsc() - start;
    __asm__ volatile("" : : "r"(sum));
    return ticks;
}

/* Where in its row sample i lies: at (2i + 1) / 16 of the bytes the call touches there, on a
 * line boundary, not at the row's start. The rows' first lines, sampled before, read as
 * cached in a third to a half of the calls that found the rest of a flushed 1 MiB matrix in
 * memory (`bench pack --cache flushed`, 512^2 floats, after the hand-written transposes: pack
 * and unpack then ran cached into a destination in memory, at half speed); with samples 128
 * or 1024 bytes into the rows, none did, in the same launches. */
static int64_t sampled_offset(kernel_rows r, int i)
{
    const int64_t line = 64, offset = r.row_bytes * (2 * i + 1) / (2 * SAMPLE_LINES);
    return offset / line * line;
}

static int compare_ticks(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void kernel_fill_cached(char *buf, int64_t bytes, int value)
{
    const __m128i v = _mm_set1_epi8((char)value);
    int64_t i = 0;
    for (; i < bytes && (uintptr_t)(buf + i) % 16 != 0; i++)
        buf[i] = (char)value;
    for (; i + 16 <= bytes; i += 16) /* intrinsics: no compiler turns them back into memset */
        _mm_store_si128((__m128i *)(buf + i), v);
    for (; i < bytes; i++)
        buf[i] = (char)value;
}

static _Atomic uint64_t cold_ticks; /* 0: not calibrated, or no threshold found */

/* One and a half times the lower quartile of the sampled loads' time from L3, or halfway from
 * it to memory's fastest time if that is less, with the probe's geometry (sampled_offset in
 * consecutive 4 KiB rows, their pages primed); told apart when memory's time is above 1.4
 * times L3's. On the AMD EPYC VM 8 such loads took 130-180 ticks from L3 in most rounds and
 * 400-500 in some (a noisy moment of the VM), and 420-910 from memory, whose spread moved
 * from process to process (throwaway program). A threshold from L1's time and memory's
 * median (an earlier version) ranged 260-470 and called L3 cold in some processes, for all
 * their calls; halfway from L3 to memory's quartile (310-470) called flushed rows cached in
 * 3-6 of 11 unpacks of a 512^2 transpose (`bench pack --cache flushed`); L3's median, not its
 * quartile, rose to 400 in one process in about fifteen, and lines sampled at the rows'
 * starts, not where the probe samples, took 25-50 ticks longer from memory (DRAM banks). On
 * the Intel Xeon VM (2 MiB L2, a mesh L3) L3 took 170-260 ticks, primed, and memory 430-1,100;
 * memory's fastest time in a process ranged 430-610 (its pages, wherever the host put them),
 * so a threshold halfway to it, or at twice L3, reached 480-500 in one process in fifty,
 * inside the lower tail of the flushed rows of `unit.residency` (called cached in 11 of 21
 * rounds); L3's time varies less, and one and a half times it put thresholds at 250-430 and
 * all 21 flushed rounds cold, in 160 of 160 processes (throwaway runs, not kept). A
 * destination in L3 wants cached stores, one in memory streamed ones. Costs about 1 ms, once
 * per process that probes; true if the two were told apart. */
static bool calibrate_once(char *buf, size_t bytes)
{
    const kernel_rows rows = {buf, SAMPLE_LINES, ROW, ROW};
    uint64_t in_l3[CALIBRATION_ROUNDS], in_memory[CALIBRATION_ROUNDS];
    for (int r = 0; r < CALIBRATION_ROUNDS; r++) {
        const char *line[SAMPLE_LINES], *primer[SAMPLE_LINES];
        for (int i = 0; i < SAMPLE_LINES; i++) { /* a different line of the slot each round */
            const char *row = buf + (int64_t)i * ROW;
            line[i] = row + sampled_offset(rows, i) + (r % 4) * 64;
            primer[i] = page_primer(row, ROW, line[i], i ? primer[i - 1] : NULL);
        }
        /* the sampled rows are written first, and the rest of twice the L2 after them */
        kernel_fill_cached(buf, (int64_t)bytes, r);
        in_l3[r] = time_loads(line, primer);
        for (int i = 0; i < SAMPLE_LINES; i++)
            _mm_clflush(line[i]);
        _mm_mfence();
        in_memory[r] = time_loads(line, primer);
    }
    qsort(in_l3, CALIBRATION_ROUNDS, sizeof *in_l3, compare_ticks);
    qsort(in_memory, CALIBRATION_ROUNDS, sizeof *in_memory, compare_ticks);
    const uint64_t l3 = in_l3[CALIBRATION_ROUNDS / 4], memory = in_memory[0];
    if (5 * memory <= 7 * l3) /* the two are not told apart this time */
        return false;
    const uint64_t halfway = (l3 + memory) / 2;
    atomic_store(&cold_ticks, 3 * l3 / 2 < halfway ? 3 * l3 / 2 : halfway);
    return true;
}

/* A few attempts: one process in about seven found no separation in its single attempt (a
 * noisy moment of the VM), and went without the probe for all its calls. */
static void calibrate(void)
{
    const int64_t l2 = machine_get()->value[MACHINE_L2];
    size_t bytes = (size_t)(l2 > 0 && l2 <= (4 << 20) ? 2 * l2 : 8 << 20);
    if (bytes < (size_t)SAMPLE_LINES * ROW) /* the sampled rows at least, whatever L2_SIZE says */
        bytes = (size_t)SAMPLE_LINES * ROW;
    char *buf = aligned_alloc(ROW, bytes);
    if (!buf)
        return;
    for (int attempt = 0; attempt < CALIBRATION_ATTEMPTS; attempt++)
        if (calibrate_once(buf, bytes))
            break;
    free(buf);
}

static pthread_once_t calibrated = PTHREAD_ONCE_INIT;

int64_t kernel_cold_ticks(void)
{
    pthread_once(&calibrated, calibrate);
    return (int64_t)atomic_load(&cold_ticks);
}

bool kernel_lines_cold(kernel_rows r)
{
    const uint64_t threshold = (uint64_t)kernel_cold_ticks();
    if (!threshold || r.rows <= 0)
        return false;
    /* the first rows, then, if they are out, rows from the middle: a destination partly in
     * the caches keeps cached stores (streamed ones into its cached lines ran at a fifth of
     * their speed) */
    for (int64_t first = 0; first <= r.rows / 2; first += r.rows / 2 > 0 ? r.rows / 2 : 1) {
        const char *line[SAMPLE_LINES], *primer[SAMPLE_LINES];
        for (int i = 0; i < SAMPLE_LINES; i++) {
            const char *row = r.at + (first + i % (r.rows - first)) * r.pitch;
            line[i] = row + sampled_offset(r, i);
            primer[i] = page_primer(row, r.row_bytes, line[i], i ? primer[i - 1] : NULL);
        }
        if (time_loads(line, primer) <= threshold)
            return false;
    }
    return true;
}

#else /* no time-stamp counter to probe with: the size decides alone */

void kernel_fill_cached(char *buf, int64_t bytes, int value) { memset(buf, value, (size_t)bytes); }

int64_t kernel_cold_ticks(void) { return 0; }

bool kernel_lines_cold(kernel_rows r)
{
    (void)r;
    return false;
}

#endif

/* Set around a pack by kernel_pack_staging: the kernels' signature has no room for who reads
 * the packed bytes next, and only the probe's answer depends on it. */
static _Thread_local bool packing_staging;

bool kernel_destination_cold(kernel_rows dst)
{
    return !packing_staging && kernel_lines_cold(dst);
}

void kernel_pack_staging(const plan *p, char *typed, int64_t count, char *packed,
                         int64_t staging_bytes)
{
    packing_staging = staging_bytes <= p->l2_bytes / 2;
    p->pack(p, typed, count, packed);
    packing_staging = false;
}
