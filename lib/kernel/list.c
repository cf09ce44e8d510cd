#include <stdint.h>
#include <string.h>

#include "kernel.h"

/* One block of any length. Blocks up to 32 bytes (the fields of records, particles whose
 * neighbours the normalizer merged into longer blocks) are two moves that overlap inside the
 * block, first and last bytes, instead of a call to memcpy; no byte outside it is touched. */
static inline __attribute__((always_inline)) void copy_block(char *dst, const char *src,
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

/* How many blocks ahead to prefetch. Scattered small blocks (particles, LAMMPS atoms) are
 * latency-bound gathers: each costs a cache (and often a TLB) miss, and only many misses in
 * flight hide it. Measured on random 24-byte blocks of a 12.6 MB array (AMD EPYC, medians of
 * 15): prefetching 16 blocks ahead into L1 reached 30% of a memcpy, 64 ahead 45-55%; into L2
 * only (the "T2" hint: L2 tracks more misses than L1), 128 ahead reached 67-68%, and 256 no
 * more. Longer blocks keep about 3 KiB of packed bytes in flight. A list shorter than that
 * looks at most half of itself ahead. */
static inline int64_t prefetch_distance(int64_t mean_len, int64_t blocks_in_list)
{
    const int64_t in_flight_bytes = 3072, most = 128, least = 4;
    int64_t blocks = mean_len > 0 ? in_flight_bytes / mean_len : most;
    blocks = blocks > most ? most : blocks;
    blocks = blocks > blocks_in_list / 2 ? blocks_in_list / 2 : blocks;
    return blocks < least ? least : blocks;
}

/* One instance of the list at `base`; `len` is a compile-time constant where it is fixed.
 * The list is read into locals first: stores through char pointers may alias anything, so
 * the compiler would otherwise reload it after every block. Both ends of the block ahead are
 * prefetched: a 24-byte block straddles two cache lines one time in three. */
static inline __attribute__((always_inline)) char *copy_list(const plan_list *l, char *base,
                                                             char *packed, int64_t fixed_len,
                                                             int64_t ahead, bool pack)
{
    const int64_t n = l->n, *offs = l->offs, *lens = l->lens;
    for (int64_t i = 0; i < n; i++) {
        const int64_t len = fixed_len ? fixed_len : lens[i];
        char *at = base + offs[i];
        if (i + ahead < n) {
            const char *next = base + offs[i + ahead];
            const char *last = next + (fixed_len ? fixed_len : lens[i + ahead]) - 1;
            __builtin_prefetch(next, pack ? 0 : 1, 1); /* unpack: to write, if the ISA can say */
            __builtin_prefetch(last, pack ? 0 : 1, 1);
        }
        if (pack)
            copy_block(packed, at, len);
        else
            copy_block(at, packed, len);
        packed += len;
    }
    return packed;
}

static inline __attribute__((always_inline)) void
walk(const plan *p, char *typed, int64_t count, char *packed, int64_t fixed_len, bool pack)
{
    plan_strided s;
    plan_strided_for_count(p, count, &s);
    char *base = typed + s.off;
    int64_t idx[PLAN_MAX_DIMS + 1] = {0};
    const int64_t ahead = prefetch_distance(p->list.mean_len, p->list.n);
    for (;;) {
        packed = copy_list(&p->list, base, packed, fixed_len, ahead, pack);
        if (!kernel_next_outer(&s, s.ndims - 1, idx, &base))
            return;
    }
}

/* Lists of equal blocks (indexed types of basic types and of small tuples: particles of 3
 * doubles, complex numbers) get a constant length, so each block is a few fixed moves. */
#define LIST_ENTRY(NAME, PACK)                                                                 \
    void NAME(const plan *p, char *typed, int64_t count, char *packed)                         \
    {                                                                                          \
        switch (p->list.same_len) {                                                            \
        case 4: walk(p, typed, count, packed, 4, PACK); break;                                 \
        case 8: walk(p, typed, count, packed, 8, PACK); break;                                 \
        case 12: walk(p, typed, count, packed, 12, PACK); break;                               \
        case 16: walk(p, typed, count, packed, 16, PACK); break;                               \
        case 24: walk(p, typed, count, packed, 24, PACK); break;                               \
        case 32: walk(p, typed, count, packed, 32, PACK); break;                               \
        case 40: walk(p, typed, count, packed, 40, PACK); break;                               \
        default: walk(p, typed, count, packed, 0, PACK); break;                                \
        }                                                                                      \
    }

LIST_ENTRY(kernel_list_pack, true)
LIST_ENTRY(kernel_list_unpack, false)
