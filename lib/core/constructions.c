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

/* The fingerprint of a type whose construction was read, and the analysis it was built
 * into: NULL once two analyses had one fingerprint (it recognises nothing then). An entry
 * holds an analysis only while an entry above does (drop_locked), so it adds no memory. */
typedef struct {
    fingerprint print; /* print.hash == 0: empty */
    analysis *value;
    unsigned recognitions;
    uint64_t used_at;
} recognition;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry sets[CONSTRUCTIONS_SETS][CONSTRUCTIONS_WAYS];
static recognition prints[CONSTRUCTIONS_SETS][CONSTRUCTIONS_WAYS];
static uint64_t clock_now;
static size_t bytes_held;

static void forget_print_locked(recognition *r)
{
    analysis_release(r->value);
    memset(r, 0, sizeof *r);
}

/* what an entry holds: the analysis and its key (a large indexed type's key is its list) */
static size_t bytes_of(const analysis *a, const construction *key)
{
    return sizeof *a + a->arena.used + key->len;
}

static void drop_locked(entry *e)
{
    for (int p = 0; p < CONSTRUCTIONS_SETS; p++) /* rare: a full table gives an entry up */
        for (int w = 0; w < CONSTRUCTIONS_WAYS; w++)
            if (prints[p][w].value == e->value)
                forget_print_locked(&prints[p][w]);
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

/* Keep `a` (a new reference) under `c` (taken over, moved out of its caller's scratch);
 * false if it is not kept. */
static bool insert_locked(construction *c, analysis *a)
{
    const size_t bytes = bytes_of(a, c);
    if (bytes > CONSTRUCTIONS_MAX_BYTES || !construction_keep(c)) {
        construction_free(c);
        return false;
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
    return true;
}

static recognition *find_print_locked(const fingerprint *print)
{
    recognition *set = prints[print->hash % CONSTRUCTIONS_SETS];
    for (int w = 0; w < CONSTRUCTIONS_WAYS; w++)
        if (set[w].print.hash && fingerprint_equal(&set[w].print, print))
            return &set[w];
    return NULL;
}

/* `a`, kept above, is what a type of this fingerprint was built into. */
static void note_print_locked(const fingerprint *print, analysis *a)
{
    recognition *r = find_print_locked(print);
    if (r) {
        if (r->value != a) { /* another construction with this fingerprint */
            analysis_release(r->value);
            r->value = NULL;
        }
        r->used_at = ++clock_now;
        return;
    }
    recognition *set = prints[print->hash % CONSTRUCTIONS_SETS];
    r = &set[0];
    for (int w = 0; w < CONSTRUCTIONS_WAYS && r->print.hash; w++)
        if (!set[w].print.hash || set[w].used_at < r->used_at)
            r = &set[w];
    forget_print_locked(r);
    analysis_retain(a);
    *r = (recognition){.print = *print, .value = a, .used_at = ++clock_now};
}

analysis *constructions_recognise(const fingerprint *print)
{
    pthread_mutex_lock(&lock);
    recognition *r = find_print_locked(print);
    analysis *a = r && r->value && ++r->recognitions % CONSTRUCTIONS_READ_EVERY ? r->value : NULL;
    if (a) {
        analysis_retain(a);
        r->used_at = ++clock_now;
    }
    pthread_mutex_unlock(&lock);
    if (a)
        stats_recognised();
    return a;
}

/* The analysis that `c` (taken over) names, made now if none does (NULL when memory is
 * short); noted under `print` when kept. */
static analysis *analysis_of(MPI_Datatype type, construction *c, const fingerprint *print)
{
    pthread_mutex_lock(&lock);
    entry *e = find_locked(c);
    analysis *a = e ? e->value : NULL;
    if (a) {
        analysis_retain(a);
        e->used_at = ++clock_now;
        if (print)
            note_print_locked(print, a);
    }
    pthread_mutex_unlock(&lock);
    if (a) {
        construction_free(c);
        stats_reused();
        return a;
    }
    /* analysed outside the lock; a thread that analysed the same construction meanwhile
     * wins, and this one's copy serves its caller only */
    a = analysis_create(type);
    if (!a) {
        construction_free(c);
        return NULL;
    }
    pthread_mutex_lock(&lock);
    if (find_locked(c))
        construction_free(c);
    else if (insert_locked(c, a) && print)
        note_print_locked(print, a);
    pthread_mutex_unlock(&lock);
    return a;
}

analysis *constructions_analysis(MPI_Datatype type, const fingerprint *print)
{
    unsigned char scratch[CONSTRUCTION_SCRATCH_BYTES];
    construction c;
    /* too long to key: analysed for this handle alone */
    if (!construction_of(type, scratch, sizeof scratch, &c))
        return analysis_create(type);
    return analysis_of(type, &c, print);
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
    for (int s = 0; s < CONSTRUCTIONS_SETS; s++)
        for (int w = 0; w < CONSTRUCTIONS_WAYS; w++)
            forget_print_locked(&prints[s][w]);
    pthread_mutex_unlock(&lock);
}
