/* Throwaway: random 24-byte blocks (bench_pack's particles: half of 2^19 atoms of 3 doubles,
 * Fisher-Yates with its seed) gathered into a packed buffer, both sides flushed, by variants
 * of prefetch distance, hint and store kind. Prints the median of 21 in GB/s of packed bytes
 * and the ratio to a memcpy of the packed bytes measured alike.
 *   gcc -O2 -march=native gather.c -o gather && ./gather */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

enum { ATOMS = 1 << 19, N = ATOMS / 2, REPS = 31 };
static double *typed;
static char *packed, *copy_src;
static int32_t offs[N];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
static void flush(void *p, size_t n)
{
    for (size_t i = 0; i < n; i += 64)
        _mm_clflush((char *)p + i);
    _mm_mfence();
}
static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define VARIANT(NAME, AHEAD, HINT, BOTH, STORE)                                                \
    static void NAME(void)                                                                     \
    {                                                                                          \
        const char *base = (const char *)typed;                                                \
        char *out = packed;                                                                    \
        int64_t i = 0;                                                                         \
        for (; i < N - (AHEAD); i++) {                                                         \
            const char *next = base + offs[i + (AHEAD)];                                       \
            _mm_prefetch(next, HINT);                                                          \
            if (BOTH)                                                                          \
                _mm_prefetch(next + 23, HINT);                                                 \
            STORE(out, base + offs[i]);                                                        \
            out += 24;                                                                         \
        }                                                                                      \
        for (; i < N; i++) {                                                                   \
            STORE(out, base + offs[i]);                                                        \
            out += 24;                                                                         \
        }                                                                                      \
        _mm_sfence();                                                                          \
    }

#define CACHED(d, s) memcpy((d), (s), 24)
#define MOVNTI(d, s)                                                                           \
    do {                                                                                       \
        long long v0, v1, v2;                                                                  \
        memcpy(&v0, (s), 8);                                                                   \
        memcpy(&v1, (s) + 8, 8);                                                               \
        memcpy(&v2, (s) + 16, 8);                                                              \
        _mm_stream_si64((long long *)(void *)(d), v0);                                         \
        _mm_stream_si64((long long *)(void *)((d) + 8), v1);                                   \
        _mm_stream_si64((long long *)(void *)((d) + 16), v2);                                  \
    } while (0)

VARIANT(t2_128_both_nt, 128, _MM_HINT_T2, 1, MOVNTI)
VARIANT(t2_64_both_nt, 64, _MM_HINT_T2, 1, MOVNTI)
VARIANT(t2_32_both_nt, 32, _MM_HINT_T2, 1, MOVNTI)
VARIANT(t2_16_both_nt, 16, _MM_HINT_T2, 1, MOVNTI)
VARIANT(t2_256_both_nt, 256, _MM_HINT_T2, 1, MOVNTI)
VARIANT(t0_32_both_nt, 32, _MM_HINT_T0, 1, MOVNTI)
VARIANT(t0_64_both_nt, 64, _MM_HINT_T0, 1, MOVNTI)
VARIANT(nta_32_both_nt, 32, _MM_HINT_NTA, 1, MOVNTI)
VARIANT(t2_128_both_cached, 128, _MM_HINT_T2, 1, CACHED)
VARIANT(t2_32_both_cached, 32, _MM_HINT_T2, 1, CACHED)
VARIANT(none_nt, 0, _MM_HINT_T2, 0, MOVNTI)
VARIANT(none_cached, 0, _MM_HINT_T2, 0, CACHED)

/* Gathered into a 64-byte register line and streamed whole: 8 blocks = 3 lines */
static void lines_any(int64_t ahead, int stream, int straddle_only)
{
    const char *base = (const char *)typed;
    char *out = packed;
    int64_t i = 0;
    for (; i + 8 <= N; i += 8) {
        if (i + 8 + ahead < N)
            for (int k = 0; k < 8; k++) {
                const char *next = base + offs[i + ahead + k];
                _mm_prefetch(next, _MM_HINT_T2);
                if (!straddle_only || (((uintptr_t)next ^ ((uintptr_t)next + 23)) >> 6))
                    _mm_prefetch(next + 23, _MM_HINT_T2);
            }
        _Alignas(64) char line[192];
        for (int k = 0; k < 8; k++)
            memcpy(line + 24 * k, base + offs[i + k], 24);
        for (int l = 0; l < 3; l++)
            if (stream)
                _mm512_stream_si512((void *)(out + 64 * l), _mm512_load_si512(line + 64 * l));
            else
                _mm512_store_si512((void *)(out + 64 * l), _mm512_load_si512(line + 64 * l));
        out += 192;
    }
    _mm_sfence();
}
static void lines_128(void) { lines_any(128, 1, 0); }
static void lines_256(void) { lines_any(256, 1, 0); }
static void lines_64(void) { lines_any(64, 1, 0); }
static void lines_32(void) { lines_any(32, 1, 0); }
static void lines_128_cached(void) { lines_any(128, 0, 0); }
static void lines_128_straddle(void) { lines_any(128, 1, 1); }
static void lines_64_straddle(void) { lines_any(64, 1, 1); }

/* Blocks copied (cached) into an L1-resident 4 KiB bounce buffer, whose whole lines are
 * streamed out each time it fills; the tail (< 64 bytes) moved to its front. */
static void bounce_any(int64_t ahead)
{
    const char *base = (const char *)typed;
    char *out = packed;
    _Alignas(64) char buf[4096 + 64];
    int64_t fill = 0;
    for (int64_t i = 0; i < N; i++) {
        if (i + ahead < N) {
            const char *next = base + offs[i + ahead];
            _mm_prefetch(next, _MM_HINT_T2);
            _mm_prefetch(next + 23, _MM_HINT_T2);
        }
        memcpy(buf + fill, base + offs[i], 24);
        fill += 24;
        if (fill >= 4096) {
            int64_t whole = fill / 64 * 64;
            for (int64_t b = 0; b < whole; b += 64)
                _mm512_stream_si512((void *)(out + b), _mm512_load_si512(buf + b));
            out += whole;
            memcpy(buf, buf + whole, (size_t)(fill - whole));
            fill -= whole;
        }
    }
    memcpy(out, buf, (size_t)fill);
    _mm_sfence();
}
static void bounce_128(void) { bounce_any(128); }
static void bounce_64(void) { bounce_any(64); }

/* The bound of a gather in this order: one load from each block's first and last line, in
 * list order, nothing stored */
static volatile uint64_t sink;
static void reads_any(int64_t ahead)
{
    const char *base = (const char *)typed;
    uint64_t sum = 0;
    for (int64_t i = 0; i < N; i++) {
        if (ahead && i + ahead < N) {
            const char *next = base + offs[i + ahead];
            _mm_prefetch(next, _MM_HINT_T2);
            _mm_prefetch(next + 23, _MM_HINT_T2);
        }
        uint64_t a, b;
        memcpy(&a, base + offs[i], 8);
        memcpy(&b, base + offs[i] + 16, 8);
        sum += a ^ b;
    }
    sink = sum;
}
static void reads_0(void) { reads_any(0); }
static void reads_64(void) { reads_any(64); }
static void reads_128(void) { reads_any(128); }

/* The blocks walked in address order (source read as a stream), each stored at its place
 * in the packed buffer: by_addr[k] = the list index of the k-th block in address order */
static int32_t by_addr[N];
static void scatter_any(int64_t ahead)
{
    const char *base = (const char *)typed;
    for (int64_t k = 0; k < N; k++) {
        if (ahead && k + ahead < N) {
            char *w = packed + 24 * (int64_t)by_addr[k + ahead];
            _mm_prefetch(w, _MM_HINT_T2);
            _mm_prefetch(w + 23, _MM_HINT_T2);
        }
        const int64_t i = by_addr[k];
        memcpy(packed + 24 * i, base + offs[i], 24);
    }
}
static void scatter_0(void) { scatter_any(0); }
static void scatter_64(void) { scatter_any(64); }

static void copy(void) { memcpy(packed, copy_src, (size_t)N * 24); }

int main(int argc, char **argv)
{
    /* HUGE=1: the typed array on 2 MiB pages (madvise), to see what the TLB costs */
    typed = aligned_alloc(2 << 20, (size_t)ATOMS * 24 + (2 << 20));
    if (getenv("HUGE") && madvise(typed, (size_t)ATOMS * 24 + (2 << 20), MADV_HUGEPAGE))
        perror("madvise");
    packed = aligned_alloc(4096, (size_t)N * 24);
    copy_src = aligned_alloc(4096, (size_t)N * 24);
    for (int64_t i = 0; i < ATOMS * 3; i++)
        typed[i] = (double)i;
    memset(packed, 0, (size_t)N * 24);
    memset(copy_src, 1, (size_t)N * 24);
    int64_t *perm = malloc(sizeof *perm * ATOMS);
    for (int64_t i = 0; i < ATOMS; i++)
        perm[i] = i;
    uint64_t state = 12345;
    for (int64_t i = ATOMS - 1; i > 0; i--) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        int64_t j = (int64_t)((state >> 33) % (uint64_t)(i + 1)), tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    for (int64_t i = 0; i < N; i++)
        offs[i] = (int32_t)(perm[i] * 24);
    struct {
        const char *name;
        void (*f)(void);
    } v[] = {{"memcpy", copy},
             {"T2 128 both movnti (as built)", t2_128_both_nt},
             {"T2 256 both movnti", t2_256_both_nt},
             {"T2 64 both movnti", t2_64_both_nt},
             {"T2 32 both movnti", t2_32_both_nt},
             {"T2 16 both movnti", t2_16_both_nt},
             {"T0 64 both movnti", t0_64_both_nt},
             {"T0 32 both movnti", t0_32_both_nt},
             {"NTA 32 both movnti", nta_32_both_nt},
             {"T2 128 both cached", t2_128_both_cached},
             {"T2 32 both cached", t2_32_both_cached},
             {"none movnti", none_nt},
             {"none cached", none_cached},
             {"T2 128 lines zmm-stream", lines_128},
             {"T2 64 lines zmm-stream", lines_64},
             {"T2 32 lines zmm-stream", lines_32},
             {"T2 256 lines zmm-stream", lines_256},
             {"T2 128 lines zmm-cached", lines_128_cached},
             {"T2 128 lines zmm-stream straddle", lines_128_straddle},
             {"T2 64 lines zmm-stream straddle", lines_64_straddle},
             {"T2 128 bounce 4K", bounce_128},
             {"T2 64 bounce 4K", bounce_64},
             {"reads only, no prefetch", reads_0},
             {"reads only, T2 64", reads_64},
             {"reads only, T2 128", reads_128},
             {"address order, no prefetch", scatter_0},
             {"address order, T2 64 of packed", scatter_64}};
    {
        int64_t k = 0;
        int32_t *at = malloc(sizeof *at * ATOMS);
        for (int64_t a = 0; a < ATOMS; a++)
            at[a] = -1;
        for (int64_t i = 0; i < N; i++)
            at[perm[i]] = (int32_t)i;
        for (int64_t a = 0; a < ATOMS; a++)
            if (at[a] >= 0)
                by_addr[k++] = at[a];
        free(at);
    }
    const int nv = (int)(sizeof v / sizeof v[0]);
    /* argv: the variants' numbers (0 = memcpy, always run); all of them round robin in each
     * repetition, in reverse order every other one, so that a slow spell hits all alike */
    int pick[64], np = 0;
    pick[np++] = 0;
    for (int a = 1; a < argc; a++)
        pick[np++] = atoi(argv[a]);
    if (np == 1)
        for (int k = 1; k < nv; k++)
            pick[np++] = k;
    static double t[64][REPS];
    for (int r = -1; r < REPS; r++)
        for (int q = 0; q < np; q++) {
            const int k = pick[r % 2 ? np - 1 - q : q];
            flush(typed, (size_t)ATOMS * 24);
            flush(packed, (size_t)N * 24);
            flush(copy_src, (size_t)N * 24);
            double t0 = now();
            v[k].f();
            double dt = now() - t0;
            if (r >= 0)
                t[k][r] = dt;
        }
    double mem = 0;
    for (int q = 0; q < np; q++) {
        const int k = pick[q];
        qsort(t[k], REPS, sizeof(double), cmp);
        const double med = t[k][REPS / 2];
        if (k == 0)
            mem = med;
        printf("%2d %-34s %7.1f us  %5.2f GB/s  %4.0f%% of memcpy\n", k, v[k].name, med * 1e6,
               N * 24 / med / 1e9, 100 * mem / med);
    }
    return 0;
}
