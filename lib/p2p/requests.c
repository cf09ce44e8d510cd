#include "requests.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bufpool.h"

/* A list, oldest first. A handle has one entry at a time: completion calls hold the lock
 * from testing the MPI to forgetting what completed (requests.h). */
typedef struct entry {
    MPI_Request request;
    carried_request c;
    bool detached;  /* freed by the user, completed by memcomm */
    bool delivered; /* unpacked already, when MPI_Request_get_status saw it complete */
    struct entry *next;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *head, **tail = &head;
static atomic_int outstanding;

requests_entry *requests_reserve(void) { return malloc(sizeof(entry)); }

void requests_unreserve(requests_entry *e) { free(e); }

void requests_add(requests_entry *e, MPI_Request request, const carried_request *c)
{
    *e = (entry){request, *c, false, false, NULL};
    pthread_mutex_lock(&lock);
    *tail = e;
    tail = &e->next;
    atomic_fetch_add_explicit(&outstanding, 1, memory_order_relaxed);
    pthread_mutex_unlock(&lock);
}

bool requests_outstanding(void)
{
    return atomic_load_explicit(&outstanding, memory_order_relaxed) > 0;
}

/* The oldest entry for `request`; NULL if none. Under the lock. */
static entry *find_locked(MPI_Request request)
{
    for (entry *e = head; e; e = e->next)
        if (e->request == request)
            return e;
    return NULL;
}

/* Take `target` off the list. Under the lock. */
static entry *unlink_locked(entry *target)
{
    for (entry **link = &head; *link; link = &(*link)->next)
        if (*link == target) {
            *link = target->next;
            if (tail == &target->next)
                tail = link;
            atomic_fetch_sub_explicit(&outstanding, 1, memory_order_relaxed);
            return target;
        }
    return NULL;
}

static void release(entry *e)
{
    bufpool_give(e->c.packed);
    message_done(&e->c.m);
    free(e);
}

/* Unpack a finished receive (message_deliver says when it is not). */
static void deliver(const carried_request *c, int rc, const MPI_Status *status)
{
    if (c->receive)
        message_deliver(&c->m, c->packed, rc, status, c->buf);
}

void requests_lock(void) { pthread_mutex_lock(&lock); }

void requests_unlock(void) { pthread_mutex_unlock(&lock); }

void requests_fork_child(void) { pthread_mutex_init(&lock, NULL); }

void requests_complete_locked(MPI_Request before, int rc, const MPI_Status *status)
{
    if (before == MPI_REQUEST_NULL)
        return;
    entry *e = find_locked(before);
    if (!e)
        return;
    if (!e->delivered)
        deliver(&e->c, rc, status);
    e->delivered = false; /* a persistent receive unpacks again after its next start */
    if (!e->c.persistent)
        release(unlink_locked(e));
}

void requests_peeked_locked(MPI_Request request, int rc, const MPI_Status *status)
{
    entry *e = request == MPI_REQUEST_NULL ? NULL : find_locked(request);
    if (!e || e->delivered)
        return;
    deliver(&e->c, rc, status);
    e->delivered = true;
}

void requests_start(MPI_Request request)
{
    pthread_mutex_lock(&lock);
    entry *e = find_locked(request);
    if (e)
        e->delivered = false;
    if (e && e->c.persistent && !e->c.receive)
        e->c.m.analysis->plan.pack(&e->c.m.analysis->plan, e->c.buf, e->c.count, e->c.packed);
    pthread_mutex_unlock(&lock);
}

bool requests_free(MPI_Request *request)
{
    pthread_mutex_lock(&lock);
    entry *e = find_locked(*request);
    if (e)
        e->detached = true;
    pthread_mutex_unlock(&lock);
    if (!e)
        return false;
    *request = MPI_REQUEST_NULL;
    requests_progress(false);
    return true;
}

void requests_progress(bool wait)
{
    if (!requests_outstanding())
        return;
    pthread_mutex_lock(&lock);
    for (entry *e = head, *next; e; e = next) {
        next = e->next;
        if (!e->detached)
            continue;
        MPI_Status status;
        int done = 0, rc;
        do { /* at MPI_Finalize (wait), until it is done */
            rc = PMPI_Test(&e->request, &done, &status);
        } while (wait && !done && rc == MPI_SUCCESS);
        if (!done && rc == MPI_SUCCESS)
            continue;
        if (e->c.persistent && e->request != MPI_REQUEST_NULL)
            PMPI_Request_free(&e->request); /* now inactive */
        if (!e->delivered)
            deliver(&e->c, rc, &status);
        release(unlink_locked(e));
    }
    pthread_mutex_unlock(&lock);
}
