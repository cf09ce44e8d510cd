#include "requests.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bufpool.h"

/* A list, oldest first: a handle the MPI completed and handed out again to another thread
 * may briefly have two entries; the older one is the request completing. */
typedef struct entry {
    MPI_Request request;
    carried_request c;
    bool detached; /* freed by the user, completed by memcomm */
    struct entry *next;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *head, **tail = &head;
static atomic_int outstanding;

void requests_add(MPI_Request request, const carried_request *c)
{
    entry *e = malloc(sizeof *e);
    if (!e) { /* cannot happen in practice; the data is still right, only the buffer leaks */
        return;
    }
    *e = (entry){request, *c, false, NULL};
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

/* The oldest entry for `request`, unlinked if `unlink`; NULL if none. Under the lock. */
static entry *find_locked(MPI_Request request, bool unlink)
{
    for (entry **link = &head; *link; link = &(*link)->next)
        if ((*link)->request == request) {
            entry *e = *link;
            if (unlink) {
                *link = e->next;
                if (tail == &e->next)
                    tail = link;
                atomic_fetch_sub_explicit(&outstanding, 1, memory_order_relaxed);
            }
            return e;
        }
    return NULL;
}

static void release(entry *e)
{
    bufpool_give(e->c.packed);
    message_done(&e->c.m);
    free(e);
}

/* Unpack a finished receive, unless it failed or was cancelled. */
static void deliver(const carried_request *c, int rc, const MPI_Status *status)
{
    int cancelled = 0, received = 0;
    if (!c->receive || rc != MPI_SUCCESS || status == MPI_STATUS_IGNORE)
        return;
    PMPI_Test_cancelled(status, &cancelled);
    if (!cancelled && PMPI_Get_count(status, MPI_PACKED, &received) == MPI_SUCCESS &&
        received > 0 && received <= c->m.bytes)
        message_unpack(&c->m, c->packed, received, c->buf);
}

void requests_complete(MPI_Request before, int rc, const MPI_Status *status)
{
    if (before == MPI_REQUEST_NULL)
        return;
    pthread_mutex_lock(&lock);
    entry *e = find_locked(before, false);
    bool persistent = e && e->c.persistent;
    if (e && !persistent)
        e = find_locked(before, true);
    pthread_mutex_unlock(&lock);
    if (!e)
        return;
    deliver(&e->c, rc, status);
    if (!persistent)
        release(e);
}

void requests_start(MPI_Request request)
{
    pthread_mutex_lock(&lock);
    entry *e = find_locked(request, false);
    pthread_mutex_unlock(&lock);
    if (e && e->c.persistent && !e->c.receive)
        e->c.m.analysis->plan.pack(&e->c.m.analysis->plan, e->c.buf, e->c.count, e->c.packed);
}

bool requests_free(MPI_Request *request)
{
    pthread_mutex_lock(&lock);
    entry *e = find_locked(*request, false);
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
    for (;;) {
        /* one detached entry at a time, unlinked while the MPI is asked about it */
        pthread_mutex_lock(&lock);
        entry *e = NULL;
        for (entry *x = head; x && !e; x = x->next)
            if (x->detached)
                e = x;
        if (e)
            e = find_locked(e->request, true);
        pthread_mutex_unlock(&lock);
        if (!e)
            return;
        MPI_Status status;
        int done = 1, rc;
        if (e->c.persistent) { /* an inactive persistent request, or one that will be */
            rc = wait ? PMPI_Wait(&e->request, &status) : PMPI_Test(&e->request, &done, &status);
            if (done && e->request != MPI_REQUEST_NULL)
                PMPI_Request_free(&e->request);
        } else {
            rc = wait ? PMPI_Wait(&e->request, &status) : PMPI_Test(&e->request, &done, &status);
        }
        if (!done) { /* still running: back on the list, look again later */
            pthread_mutex_lock(&lock);
            e->next = NULL;
            *tail = e;
            tail = &e->next;
            atomic_fetch_add_explicit(&outstanding, 1, memory_order_relaxed);
            pthread_mutex_unlock(&lock);
            return;
        }
        deliver(&e->c, rc, &status);
        release(e);
    }
}
