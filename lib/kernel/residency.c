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
 * line, so the loads pay at most one page walk, where spread ones each paid their own (8
 * loads spread over 24 MiB took 2,000-2,700 ticks from L3, against 500-620 from memory with
 * the pages in the TLB; throwaway program) and L3 read as memory. Loads, not prefetches: a
 * prefetch retires before its line arrives. A line not yet mapped faults and counts as cold,
 * as it is. The probe costs two memory latencies at most (about 0.4 us). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "kernel.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <x86intrin.h>

enum { SAMPLE_LINES = 8, CALIBRATION_ROUNDS = 12, CALIBRATION_ATTEMPTS = 3, ROW = 4096 };

/* Time-stamp ticks the loads of `line[0..SAMPLE_LINES)` take, issued together (their
 * misses overlap: one memory latency, not eight). */
static uint64_t time_loads(const char *const line[SAMPLE_LINES])
{
    uint64_t sum = 0;
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

/* Twice the lower quartile of the sampled loads' time from L3, or halfway from it to the time
 * of memory's second fastest load if that is less, with the probe's geometry (sampled_offset
 * in consecutive 4 KiB rows); told apart when memory's time is above 1.4 times L3's. On the
 * AMD EPYC VM 8 such loads took 130-180 ticks from L3 in most rounds and 400-500 in some (a
 * noisy moment of the VM), and 420-910 from memory, whose spread moved from process to
 * process (throwaway program). A threshold from L1's time and memory's median (an earlier
 * version) ranged 260-470 and called L3 cold in some processes, for all their calls; halfway
 * from L3 to memory's quartile (310-470) called flushed rows cached in 3-6 of 11 unpacks of a
 * 512^2 transpose (`bench pack --cache flushed`); L3's median, not its quartile, rose to 400
 * in one process in about fifteen and put the threshold at 416-468, inside memory's lower
 * tail, and lines sampled at the rows' starts, not where the probe samples, took 25-50 ticks
 * longer from memory (DRAM banks) and set it higher still: the probe then called a flushed
 * destination cached in up to 13 of 21 calls of such a process (`unit.residency` failed one
 * run in fifteen). On the Intel Xeon VM (2 MiB L2, a mesh L3) L3 is slower against memory:
 * 230-340 ticks in most rounds against 420-1100, and in a third of the rounds the rows read
 * as from memory though written only 4 MiB before (the L2 writes some victims past L3);
 * memory's time right after the flush also varies from process to process (its quartile
 * 430-770), and set thresholds up to 577 where its fastest loads stay at 420-440. "Memory above
 * twice L3", the test before, never held there, and the probe stayed off. As now: thresholds
 * 325-424, `unit.residency` 150 of 150 (throwaway prints and runs, not kept). A destination in
 * L3 wants cached stores, one in memory streamed ones. Costs about 1 ms, once per process
 * that probes; true if the two were told apart. */
static bool calibrate_once(char *buf, size_t bytes)
{
    const kernel_rows rows = {buf, SAMPLE_LINES, ROW, ROW};
    uint64_t in_l3[CALIBRATION_ROUNDS], in_memory[CALIBRATION_ROUNDS];
    for (int r = 0; r < CALIBRATION_ROUNDS; r++) {
        const char *line[SAMPLE_LINES];
        for (int i = 0; i < SAMPLE_LINES; i++) /* a different line of the probe's slot each round */
            line[i] = buf + (int64_t)i * ROW + sampled_offset(rows, i) + (r % 4) * 64;
        /* the sampled rows are written first, and the rest of twice the L2 after them */
        kernel_fill_cached(buf, (int64_t)bytes, r);
        in_l3[r] = time_loads(line);
        for (int i = 0; i < SAMPLE_LINES; i++)
            _mm_clflush(line[i]);
        _mm_mfence();
        in_memory[r] = time_loads(line);
    }
    qsort(in_l3, CALIBRATION_ROUNDS, sizeof *in_l3, compare_ticks);
    qsort(in_memory, CALIBRATION_ROUNDS, sizeof *in_memory, compare_ticks);
    const uint64_t l3 = in_l3[CALIBRATION_ROUNDS / 4], memory = in_memory[1];
    if (5 * memory <= 7 * l3) /* the two are not told apart this time */
        return false;
    const uint64_t halfway = (l3 + memory) / 2;
    atomic_store(&cold_ticks, 2 * l3 < halfway ? 2 * l3 : halfway);
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
        const char *line[SAMPLE_LINES];
        for (int i = 0; i < SAMPLE_LINES; i++)
            line[i] = r.at + (first + i % (r.rows - first)) * r.pitch + sampled_offset(r, i);
        if (time_loads(line) <= threshold)
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
