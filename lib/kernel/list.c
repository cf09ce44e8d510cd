#include <string.h>

#include "kernel.h"

/* One block; the common small lengths as single moves (records of basic types), others
 * through memcpy. */
static inline __attribute__((always_inline)) void copy_block(char *dst, const char *src,
                                                             int64_t len)
{
    switch (len) {
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 16: memcpy(dst, src, 16); break;
    default: memcpy(dst, src, (size_t)len); break;
    }
}

/* One instance of the list at `base`; `len` is a compile-time constant where it is fixed. */
static inline __attribute__((always_inline)) void
copy_list(const plan_list *l, char *base, char **packed, int64_t fixed_len, bool pack)
{
    for (int64_t i = 0; i < l->n; i++) {
        const int64_t len = fixed_len ? fixed_len : l->lens[i];
        char *at = base + l->offs[i];
        if (pack)
            copy_block(*packed, at, len);
        else
            copy_block(at, *packed, len);
        *packed += len;
    }
}

static inline __attribute__((always_inline)) void
walk(const plan *p, char *typed, int64_t count, char *packed, int64_t fixed_len, bool pack)
{
    plan_strided s;
    plan_strided_for_count(p, count, &s);
    char *base = typed + s.off;
    int64_t idx[PLAN_MAX_DIMS + 1] = {0};
    for (;;) {
        copy_list(&p->list, base, &packed, fixed_len, pack);
        if (!kernel_next_outer(&s, s.ndims - 1, idx, &base))
            return;
    }
}

/* Lists of equal 4- or 8-byte blocks (indexed types of int/double) get a constant length. */
void kernel_list_pack(const plan *p, char *typed, int64_t count, char *packed)
{
    switch (p->list.same_len) {
    case 4: walk(p, typed, count, packed, 4, true); break;
    case 8: walk(p, typed, count, packed, 8, true); break;
    default: walk(p, typed, count, packed, 0, true); break;
    }
}

void kernel_list_unpack(const plan *p, char *typed, int64_t count, char *packed)
{
    switch (p->list.same_len) {
    case 4: walk(p, typed, count, packed, 4, false); break;
    case 8: walk(p, typed, count, packed, 8, false); break;
    default: walk(p, typed, count, packed, 0, false); break;
    }
}
