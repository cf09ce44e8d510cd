#include <stdint.h>
#include <string.h>

#include "kernel.h"

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
            kernel_copy_block(packed, at, len);
        else
            kernel_copy_block(at, packed, len);
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
    const int64_t ahead = kernel_prefetch_distance(p->list.mean_len, p->list.n);
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
