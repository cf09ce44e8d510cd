#include "split.h"

#include <pthread.h>
#include <stdint.h>

#include "../base/forklock.h"
#include "../base/mpiutil.h"

struct split_slot {
    bool used, begun;
    uint64_t key; /* the file handle's */
    file_access f;
    void *buf;
};

static split_slot slots[SPLIT_MAX];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static split_slot *find_locked(uint64_t key)
{
    for (int i = 0; i < SPLIT_MAX; i++)
        if (slots[i].used && slots[i].key == key)
            return &slots[i];
    return NULL;
}

split_slot *split_reserve(MPI_File fh)
{
    const uint64_t key = handle_key(fh);
    split_slot *slot = NULL;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < SPLIT_MAX && !slot && !find_locked(key); i++)
        if (!slots[i].used)
            slot = &slots[i];
    if (slot)
        *slot = (split_slot){.used = true, .key = key};
    pthread_mutex_unlock(&lock);
    return slot;
}

void split_unreserve(split_slot *slot)
{
    pthread_mutex_lock(&lock);
    slot->used = false;
    pthread_mutex_unlock(&lock);
}

void split_begun(split_slot *slot, const file_access *f, void *buf)
{
    pthread_mutex_lock(&lock);
    slot->f = *f;
    slot->buf = buf;
    slot->begun = true;
    pthread_mutex_unlock(&lock);
}

bool split_take(MPI_File fh, file_access *f, void **buf)
{
    pthread_mutex_lock(&lock);
    split_slot *slot = find_locked(handle_key(fh));
    const bool found = slot && slot->begun;
    if (found) {
        *f = slot->f;
        *buf = slot->buf;
        slot->used = false;
    }
    pthread_mutex_unlock(&lock);
    return found;
}

void split_forget(MPI_File fh)
{
    file_access f;
    void *buf;
    if (split_take(fh, &f, &buf))
        file_drop(&f);
}

void split_fork_lock(void) { pthread_mutex_lock(&lock); }

void split_fork_unlock(bool child) { forklock_release(&lock, child); }
