/* The staging buffers' pool (lib/p2p/bufpool.c): sizes, alignment, reuse and the two bounds,
 * with a small pool (MEMCOMM_POOL_BYTES=1 MiB, MEMCOMM_INFLIGHT_BYTES=4 MiB, no huge pages:
 * the ctest's environment). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "p2p/bufpool.h"

enum { SMALL = 2000 };

/* a buffer of `bytes`: aligned, writable to its end (a sanitizer build checks the bounds) */
static char *take(int64_t bytes)
{
    char *p = bufpool_take(bytes);
    CHECK(p != NULL && (uintptr_t)p % 64 == 0);
    if (p)
        memset(p, 0x5a, (size_t)bytes);
    return p;
}

static void test_reuse(void)
{
    char *a = take(100);
    bufpool_give(a);
    CHECK(take(120) == a); /* the same 128-byte buffer */
    bufpool_give(a);
}

/* Many small buffers kept, then larger messages: kept large buffers are found again, and a
 * kept buffer too small for the message is never handed out. */
static void test_large_after_many_small(void)
{
    static char *small[SMALL];
    for (int i = 0; i < SMALL; i++)
        small[i] = take(64);
    for (int i = 0; i < SMALL; i++)
        bufpool_give(small[i]);
    char *large = take(32768);
    for (int i = 0; i < SMALL; i++)
        CHECK(large != small[i]);
    bufpool_give(large);
    CHECK(take(32000) == large);
    bufpool_give(large);
    char *forty = take(40000); /* capacity 45,000: in the bin of 32-64 KiB */
    bufpool_give(forty);
    char *fifty = take(50000); /* the same bin, but the kept one is too small */
    CHECK(fifty != forty);
    bufpool_give(fifty);
    bufpool_drain();
}

/* Kept buffers stay within MEMCOMM_POOL_BYTES, the latest kept; buffers in use within
 * MEMCOMM_INFLIGHT_BYTES. */
static void test_bounds(void)
{
    char *b[16];
    for (int i = 0; i < 16; i++)
        b[i] = take(100000); /* 112,500 bytes each: 1.8 MB in all */
    for (int i = 0; i < 16; i++)
        bufpool_give(b[i]);
    CHECK(take(100000) == b[15]);
    bufpool_give(b[15]);
    char *most = take(3 << 20);
    CHECK(bufpool_take(1 << 20) == NULL); /* 3 MiB + 1 MiB + an eighth: over 4 MiB */
    bufpool_give(most);
    char *after = take(1 << 20);
    bufpool_give(after);
    bufpool_drain();
}

int main(void)
{
    test_reuse();
    test_large_after_many_small();
    test_bounds();
    return check_summary("test_bufpool");
}
