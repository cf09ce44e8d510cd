#include "bufpool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

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
static header *free_list; /* smallest first */
static int64_t kept_bytes, used_bytes;

void *bufpool_take(int64_t bytes)
{
    /* round up so that slightly different message sizes share buffers: small ones to a
     * power of two (many small messages in flight stay on few pages), larger by an eighth */
    int64_t capacity = bytes + bytes / 8;
    if (bytes <= 4096)
        for (capacity = 128; capacity < bytes; capacity *= 2) {
        }
    pthread_mutex_lock(&lock);
    header **link = &free_list;
    while (*link && (*link)->capacity < bytes)
        link = &(*link)->next;
    header *h = *link;
    if (h)
        capacity = h->capacity;
    bool within = capacity <= config_get()->inflight_bytes - used_bytes;
    if (within) {
        used_bytes += capacity;
        if (h) {
            *link = h->next;
            kept_bytes -= h->capacity;
            /* the next take's header: many small messages in flight cycle through more
             * buffers than the caches hold, and the walk above would wait on it */
            __builtin_prefetch(h->next, 1);
        }
    }
    pthread_mutex_unlock(&lock);
    if (!within)
        return NULL;
    if (!h) {
        h = mc_aligned_alloc(64, (size_t)((int64_t)sizeof(header) + capacity + 63) / 64 * 64);
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
    while (free_list && kept_bytes + h->capacity > bound) {
        header *smallest = free_list;
        free_list = smallest->next;
        kept_bytes -= smallest->capacity;
        smallest->next = evicted;
        evicted = smallest;
    }
    header **link = &free_list;
    while (*link && (*link)->capacity < h->capacity)
        link = &(*link)->next;
    h->next = *link;
    *link = h;
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
    pthread_mutex_lock(&lock);
    header *h = free_list;
    free_list = NULL;
    kept_bytes = 0;
    pthread_mutex_unlock(&lock);
    while (h) {
        header *next = h->next;
        free(h);
        h = next;
    }
}
