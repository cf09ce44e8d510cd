#include "bufpool.h"

#include <pthread.h>
#include <stdlib.h>

#include "../core/config.h"

/* Each buffer carries its capacity in a header, so giving it back needs no size. The header
 * is 32 bytes, so payloads of the 64-byte aligned blocks are 32-byte aligned. */
typedef struct header {
    int64_t capacity;
    struct header *next; /* in the free list */
    int64_t unused[2];
} header;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static header *free_list; /* smallest first */
static int64_t kept_bytes;

void *bufpool_take(int64_t bytes)
{
    pthread_mutex_lock(&lock);
    header **link = &free_list;
    while (*link && (*link)->capacity < bytes)
        link = &(*link)->next;
    header *h = *link;
    if (h) {
        *link = h->next;
        kept_bytes -= h->capacity;
    }
    pthread_mutex_unlock(&lock);
    if (!h) {
        /* round up so that slightly different message sizes share buffers */
        int64_t capacity = bytes < 4096 ? 4096 : bytes + bytes / 8;
        h = aligned_alloc(64, (size_t)((int64_t)sizeof(header) + capacity + 63) / 64 * 64);
        if (!h)
            return NULL;
        h->capacity = capacity;
    }
    return h + 1;
}

void bufpool_give(void *buffer)
{
    if (!buffer)
        return;
    header *h = (header *)buffer - 1;
    pthread_mutex_lock(&lock);
    /* the latest buffer always stays; smaller kept ones make room for it, so a message
     * larger than the bound (a 4096^2 transpose is 128 MiB) reuses its buffer instead of
     * faulting in fresh pages on every call */
    header *evicted = NULL;
    while (free_list && kept_bytes + h->capacity > config_get()->pool_bytes) {
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
