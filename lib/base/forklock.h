/* forklock: the one way memcomm's modules make their mutexes safe across fork()
 * (interpose/fork.c takes every lock before the fork, in one order). After the fork the
 * parent unlocks; the child, whose one thread does not own the lock, makes it anew. */
#ifndef MEMCOMM_FORKLOCK_H
#define MEMCOMM_FORKLOCK_H

#include <pthread.h>
#include <stdbool.h>

static inline void forklock_release(pthread_mutex_t *lock, bool child)
{
    if (child)
        pthread_mutex_init(lock, NULL);
    else
        pthread_mutex_unlock(lock);
}

#endif
