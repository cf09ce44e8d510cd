#include "constructions.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../base/forklock.h"
#include "../decode/construction.h"
#include "stats.h"

/* Set-associative: a construction's hash picks a set of CONSTRUCTIONS_WAYS entries, and a
 * full one gives up its least recently used. */
typedef struct {
    construction key; /* key.bytes == NULL: empty */
    analysis *value;
    uint64_t used_at;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry sets[CONSTRUCTIONS_SETS][CONSTRUCTIONS_WAYS];
static uint64_t clock_now;
static size_t bytes_held;

/* what an entry holds: the analysis and its key (a large indexed type's key is its list) */
static size_t bytes_of(const analysis *a, const construction *key)
{
    return sizeof *a + a->arena.used + key->len;
}

static void drop_locked(entry *e)
{
    bytes_held -= bytes_of(e->value, &e->key);
    analysis_release(e->value);
    construction_free(&e->key);
    memset(e, 0, sizeof *e);
}

static entry *find_locked(const construction *c)
{
    entry *set = sets[c->hash % CONSTRUCTIONS_SETS];
    for (int w = 0; w < CONSTRUCTIONS_WAYS; w++)
        if (set[w].key.bytes && set[w].key.hash == c->hash && set[w].key.len == c->len &&
            memcmp(set[w].key.bytes, c->bytes, c->len) == 0)
            return &set[w];
    return NULL;
}

/* The oldest entry anywhere, to make room under the byte bound. */
static entry *oldest_locked(void)
{
    entry *oldest = NULL;
    for (int s = 0; s < CONSTRUCTIONS_SETS; s++)
        for (int w = 0; w < CONSTRUCTIONS_WAYS; w++)
            if (sets[s][w].key.bytes && (!oldest || sets[s][w].used_at < oldest->used_at))
                oldest = &sets[s][w];
    return oldest;
}

/* Keep `a` (a new reference) under `c` (taken over, moved out of its caller's scratch). */
static void insert_locked(construction *c, analysis *a)
{
    const size_t bytes = bytes_of(a, c);
    if (bytes > CONSTRUCTIONS_MAX_BYTES || !construction_keep(c)) {
        construction_free(c);
        return;
    }
    entry *set = sets[c->hash % CONSTRUCTIONS_SETS], *slot = &set[0];
    for (int w = 0; w < CONSTRUCTIONS_WAYS; w++) {
        if (!set[w].key.bytes) {
            slot = &set[w];
            break;
        }
        if (set[w].used_at < slot->used_at)
            slot = &set[w];
    }
    if (slot->key.bytes)
        drop_locked(slot);
    for (entry *old; bytes_held + bytes > CONSTRUCTIONS_MAX_BYTES && (old = oldest_locked());)
        drop_locked(old);
    analysis_retain(a);
    slot->key = *c;
    slot->value = a;
    slot->used_at = ++clock_now;
    bytes_held += bytes;
}

analysis *constructions_analysis(MPI_Datatype type)
{
    unsigned char scratch[CONSTRUCTION_SCRATCH_BYTES];
    construction c;
    /* too long to key: analysed for this handle alone */
    if (!construction_of(type, scratch, sizeof scratch, &c))
        return analysis_create(type);
    pthread_mutex_lock(&lock);
    entry *e = find_locked(&c);
    analysis *a = e ? e->value : NULL;
    if (a) {
        analysis_retain(a);
        e->used_at = ++clock_now;
    }
    pthread_mutex_unlock(&lock);
    if (a) {
        construction_free(&c);
        stats_reused();
        return a;
    }
    /* analysed outside the lock; a thread that analysed the same construction meanwhile
     * wins, and this one's copy serves its caller only */
    a = analysis_create(type);
    if (!a) {
        construction_free(&c);
        return NULL;
    }
    pthread_mutex_lock(&lock);
    if (find_locked(&c))
        construction_free(&c);
    else
        insert_locked(&c, a);
    pthread_mutex_unlock(&lock);
    return a;
}

void constructions_fork_lock(void) { pthread_mutex_lock(&lock); }

void constructions_fork_unlock(bool child) { forklock_release(&lock, child); }

void constructions_shutdown(void)
{
    pthread_mutex_lock(&lock);
    for (int s = 0; s < CONSTRUCTIONS_SETS; s++)
        for (int w = 0; w < CONSTRUCTIONS_WAYS; w++)
            if (sets[s][w].key.bytes)
                drop_locked(&sets[s][w]);
    pthread_mutex_unlock(&lock);
}
