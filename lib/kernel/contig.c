#include <string.h>

#include "kernel.h"

static inline __attribute__((always_inline)) void
copy(const plan *p, char *typed, int64_t count, char *packed, bool pack)
{
    const int64_t block = p->strided.block;
    char *at = typed + p->strided.off;
    if (block == p->extent) { /* instances are back to back: one copy */
        if (pack)
            memcpy(packed, at, (size_t)(block * count));
        else
            memcpy(at, packed, (size_t)(block * count));
        return;
    }
    for (int64_t i = 0; i < count; i++, at += p->extent, packed += block) {
        if (pack)
            memcpy(packed, at, (size_t)block);
        else
            memcpy(at, packed, (size_t)block);
    }
}

void kernel_contig_pack(const plan *p, char *typed, int64_t count, char *packed)
{
    copy(p, typed, count, packed, true);
}

void kernel_contig_unpack(const plan *p, char *typed, int64_t count, char *packed)
{
    copy(p, typed, count, packed, false);
}
