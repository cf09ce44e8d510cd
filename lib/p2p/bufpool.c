#include "bufpool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "../base/alloc.h"
#include "../base/forklock.h"
#include "../core/config.h"

/* Each buffer carries its capacity in a header, so giving it back needs no size. The header
 * is one 64-byte line, so payloads of the 64-byte aligned blocks are 64-byte aligned. */
typedef struct header {
    int64_t capacity;
    struct header *next; /* in the free list */
    char pad[48];
} header;
_Static_assert(sizeof(header) == 64, "payloads start on a cache line");

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Buffers of HUGE_FROM bytes or more are made of whole huge pages (where the kernel gives
 * them on request: transparent huge pages in "madvise" mode, Debian's default; elsewhere the
 * advice is ignored and the buffer is made of small pages). The MPIs' shared-memory
 * transports move a large message by one copy from the sender's pages, which the kernel
 * looks up page by page (MPICH: process_vm_readv), and the pack writes the buffer through the
 * TLB: on the AMD EPYC VM, MPICH's ping-pong of the 256^2 transpose took 25 us carried with
 * its staging in 2 MiB pages against 49 us in 4 KiB pages, the 1024^2 one 0.69-0.79 ms
 * against 1.25-1.37, and ddtbench's micro-apps of 73 KB (WRF) to 1 MB moved 1.24-2.14x faster
 * than the hand loop plus send where they were 0.89-1.18x (two builds alternated, three
 * launches, a throwaway comparison, not kept; bench pingpong's rows are the kept figures).
 * A buffer larger than the pool keeps is faulted in anew by every call: 256 MiB took 91-101
 * ms in 4 KiB pages, 21-30 in 2 MiB pages. A buffer rounds up to whole huge pages, and its
 * capacity says so: the pool's bounds count what it holds, and a smaller message reuses it.
 * MEMCOMM_HUGE_PAGES=0 turns this off (where the kernel stalls to find free 2 MiB pages). */
enum { HUGE_PAGE = 2 << 20, HUGE_FROM = 64 << 10 };

/* Whether a buffer of this capacity is made of huge pages. */
static bool in_huge_pages(int64_t capacity)
{
    return capacity >= HUGE_FROM && config_get()->huge_pages;
}

/* The capacity of a fresh buffer for `bytes`: slightly different message sizes share
 * buffers, small ones rounded to a power of two (many small messages in flight stay on few
 * pages), larger by an eighth, and from HUGE_FROM on, to whole huge pages. */
static int64_t capacity_for(int64_t bytes)
{
    if (bytes <= 4096) {
        int64_t capacity = 128;
        while (capacity < bytes)
            capacity *= 2;
        return capacity;
    }
    const int64_t capacity = bytes + bytes / 8;
    if (!in_huge_pages(capacity))
        return capacity;
    return ((int64_t)sizeof(header) + capacity + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE -
           (int64_t)sizeof(header);
}

static header *fresh_buffer(int64_t capacity)
{
    const size_t bytes = (size_t)((int64_t)sizeof(header) + capacity + 63) / 64 * 64;
    if (!in_huge_pages(capacity))
        return mc_aligned_alloc(64, bytes);
    header *h = mc_aligned_alloc(HUGE_PAGE, bytes); /* whole huge pages: capacity_for */
#ifdef MADV_HUGEPAGE
    if (h)
        madvise(h, bytes, MADV_HUGEPAGE);
#endif
    return h;
}

/* Kept buffers in bins by capacity, bin b holding capacities in [2^b, 2^(b+1)), each a list
 * with the latest first. One list sorted by size was walked from the smallest: after a
 * program's 2,000 small messages in flight, every take and give of a 32 KiB buffer walked
 * past their 2,000 headers (cache misses), and 64 such messages each way took 3.7 ms a round
 * packed where they took 1.6 ms with an empty pool (MPICH, 64 columns of 4,096 doubles). */
enum { BINS = 64, FIT_TRIES = 8 };
static header *bins[BINS];
static int64_t kept_bytes, used_bytes;

static int bin_of(int64_t capacity) { return 63 - __builtin_clzll((unsigned long long)capacity); }

/* Under the lock: a kept buffer of at least `bytes`, out of its bin; NULL if none. In the
 * bin of `bytes` a few of the latest are tried (a large message's capacities differ within a
 * bin); any buffer of a higher bin is large enough. */
static header *take_kept(int64_t bytes)
{
    const int first = bin_of(bytes);
    header **link = &bins[first];
    for (int tries = 0; *link && tries < FIT_TRIES; tries++, link = &(*link)->next)
        if ((*link)->capacity >= bytes) {
            header *h = *link;
            *link = h->next;
            return h;
        }
    for (int b = first + 1; b < BINS; b++)
        if (bins[b]) {
            header *h = bins[b];
            bins[b] = h->next;
            return h;
        }
    return NULL;
}

void *bufpool_take(int64_t bytes)
{
    int64_t capacity = capacity_for(bytes);
    pthread_mutex_lock(&lock);
    header *h = take_kept(bytes);
    if (h)
        capacity = h->capacity;
    bool within = capacity <= config_get()->inflight_bytes - used_bytes;
    if (within) {
        used_bytes += capacity;
        if (h)
            kept_bytes -= h->capacity;
    } else if (h) { /* not taken: back where it was */
        h->next = bins[bin_of(h->capacity)];
        bins[bin_of(h->capacity)] = h;
    }
    pthread_mutex_unlock(&lock);
    if (!within)
        return NULL;
    if (!h) {
        h = fresh_buffer(capacity);
        if (!h) {
            pthread_mutex_lock(&lock);
            used_bytes -= capacity;
            pthread_mutex_unlock(&lock);
            return NULL;
        }
        h->capacity = capacity;
    }
    return h + 1;
}

void bufpool_give(void *buffer)
{
    if (!buffer)
        return;
    header *h = (header *)buffer - 1;
    const int64_t bound = config_get()->pool_bytes;
    pthread_mutex_lock(&lock);
    used_bytes -= h->capacity;
    if (h->capacity > bound) { /* never kept */
        pthread_mutex_unlock(&lock);
        free(h);
        return;
    }
    /* smaller kept ones make room for the latest, which is the likeliest to be asked for */
    header *evicted = NULL;
    for (int b = 0; b < BINS && kept_bytes + h->capacity > bound; b++)
        while (bins[b] && kept_bytes + h->capacity > bound) {
            header *smallest = bins[b];
            bins[b] = smallest->next;
            kept_bytes -= smallest->capacity;
            smallest->next = evicted;
            evicted = smallest;
        }
    h->next = bins[bin_of(h->capacity)];
    bins[bin_of(h->capacity)] = h;
    kept_bytes += h->capacity;
    pthread_mutex_unlock(&lock);
    while (evicted) {
        header *next = evicted->next;
        free(evicted);
        evicted = next;
    }
}

void bufpool_fork_lock(void) { pthread_mutex_lock(&lock); }

void bufpool_fork_unlock(bool child) { forklock_release(&lock, child); }

void bufpool_drain(void)
{
    header *all = NULL;
    pthread_mutex_lock(&lock);
    for (int b = 0; b < BINS; b++)
        while (bins[b]) {
            header *h = bins[b];
            bins[b] = h->next;
            h->next = all;
            all = h;
        }
    kept_bytes = 0;
    pthread_mutex_unlock(&lock);
    while (all) {
        header *next = all->next;
        free(all);
        all = next;
    }
}
