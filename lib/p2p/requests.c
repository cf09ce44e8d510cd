#include "requests.h"
#include "routes.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "../base/alloc.h"
#include "../base/forklock.h"
#include "../base/mpiutil.h"
#include "../core/stats.h"
#include "../kernel/kernel.h"
#include "bufpool.h"

/* Chained hash table (entries are the chain links, so adding never allocates); the bucket
 * array doubles when entries outnumber buckets, and stays as it is if that allocation fails
 * (longer chains, still correct). */
enum { FIRST_BITS = 6 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static request_entry **buckets;
static int bits;
static size_t entries;
static request_entry *detached; /* freed by the user while active */
static request_entry *retired;  /* handed to the MPI at Finalize; buffers kept */
/* Entries given back, kept for the next requests: a program that keeps n requests in
 * flight allocates n entries once, not n per round (`memcomm bench lifecycle --only
 * "10000 columns"` shows what a malloc and free per entry cost). Never more than the
 * program had in flight at once, and at most SPARE_MAX (8.5 MiB of 136-byte entries). */
enum { SPARE_MAX = 65536 };
static request_entry *spare;
static int spares;
static atomic_long outstanding; /* entries in the table or detached */
static atomic_long detached_count;

static request_entry **bucket_of(MPI_Request request)
{
    return &buckets[handle_hash(handle_key(request), bits)];
}

/* Under the lock. */
static request_entry *find_locked(MPI_Request request)
{
    if (!buckets || request == MPI_REQUEST_NULL)
        return NULL;
    for (request_entry *e = *bucket_of(request); e; e = e->chain)
        if (e->request == request)
            return e;
    return NULL;
}

static void grow_locked(void)
{
    request_entry **fresh = mc_calloc((size_t)1 << (bits + 1), sizeof *fresh);
    if (!fresh)
        return;
    request_entry **old = buckets;
    const size_t old_n = (size_t)1 << bits;
    buckets = fresh;
    bits++;
    for (size_t i = 0; i < old_n; i++)
        for (request_entry *e = old[i], *next; e; e = next) {
            next = e->chain;
            request_entry **b = bucket_of(e->request);
            e->chain = *b;
            *b = e;
        }
    free(old);
}

static void insert_locked(request_entry *e)
{
    if (entries >= (size_t)1 << bits)
        grow_locked();
    request_entry **b = bucket_of(e->request);
    e->chain = *b;
    *b = e;
    e->in_table = true;
    entries++;
}

static void unlink_locked(request_entry *e)
{
    for (request_entry **link = bucket_of(e->request); *link; link = &(*link)->chain)
        if (*link == e) {
            *link = e->chain;
            e->in_table = false;
            entries--;
            return;
        }
}

/* An entry's memory back to the spares, or freed. */
static void recycle(request_entry *e)
{
    pthread_mutex_lock(&lock);
    const bool keep = spares < SPARE_MAX;
    if (keep) {
        e->chain = spare;
        spare = e;
        spares++;
    }
    pthread_mutex_unlock(&lock);
    if (!keep)
        free(e);
}

void carried_request_drop(carried_request *c)
{
    if (c->work_ops) {
        c->work_ops->drop(c->work);
        return;
    }
    bufpool_give(c->packed);
    message_done(&c->m);
}

/* Whether completing the request means unpacking something (once). */
static bool delivers(const carried_request *c) { return c->receive || c->work_ops; }

static void release(request_entry *e)
{
    atomic_fetch_sub_explicit(&outstanding, 1, memory_order_relaxed);
    carried_request_drop(&e->c);
    recycle(e);
}

/* The entry under `request` is stale unless claimed (its claimer releases it): take it out
 * of the table; returns it when the caller must release it. Under the lock. */
static request_entry *supersede_locked(MPI_Request request)
{
    request_entry *old = find_locked(request);
    if (!old)
        return NULL;
    unlink_locked(old);
    if (old->c.receive) /* a send's handle can be the MPI's shared handle of a done request */
        stats_stale_request();
    return old->claimed ? NULL : old;
}

static void deliver(request_entry *e, int rc, const MPI_Status *status);

/* A stale entry, taken out of the table: its request was complete when the MPI handed its
 * handle out again (a collective's exchange unpacks now, as at any completion; a receive's
 * status is lost and it is not unpacked), then it is released. */
static void retire_stale(request_entry *e)
{
    deliver(e, MPI_SUCCESS, MPI_STATUS_IGNORE);
    release(e);
}

bool requests_may_start(void)
{
    if (routes_all_seen())
        return true;
    stats_unseen_route();
    return false;
}

request_entry *requests_reserve(void)
{
    if (!requests_may_start())
        return NULL;
    pthread_mutex_lock(&lock);
    request_entry *e = spare;
    if (e) {
        spare = e->chain;
        spares--;
    } else if (!buckets && (buckets = mc_calloc((size_t)1 << FIRST_BITS, sizeof *buckets))) {
        bits = FIRST_BITS;
    }
    const bool ready = buckets != NULL;
    pthread_mutex_unlock(&lock);
    if (!e && ready)
        e = mc_malloc(sizeof *e);
    return e;
}

void requests_unreserve(request_entry *e) { recycle(e); }

request_entry *requests_reserve_for(carried_request *c)
{
    request_entry *slot = requests_reserve();
    if (!slot)
        carried_request_drop(c);
    return slot;
}

int requests_started(int rc, const MPI_Request *request, carried_request *c,
                     request_entry *slot)
{
    if (rc == MPI_SUCCESS) {
        requests_add(slot, *request, c);
    } else {
        requests_unreserve(slot);
        carried_request_drop(c);
    }
    return rc;
}

void requests_add(request_entry *e, MPI_Request request, const carried_request *c)
{
    /* a persistent request is inactive until started: freed before, it is freed at once,
     * with nothing to complete or unpack */
    *e = (request_entry){.request = request, .c = *c, .active = !c->persistent};
    atomic_fetch_add_explicit(&outstanding, 1, memory_order_relaxed);
    pthread_mutex_lock(&lock);
    request_entry *stale = supersede_locked(request);
    insert_locked(e);
    pthread_mutex_unlock(&lock);
    if (stale)
        retire_stale(stale);
}

int requests_passed(int rc, const MPI_Request *request)
{
    if (rc != MPI_SUCCESS || !request || *request == MPI_REQUEST_NULL ||
        !requests_outstanding())
        return rc;
    pthread_mutex_lock(&lock);
    request_entry *stale = supersede_locked(*request);
    pthread_mutex_unlock(&lock);
    if (stale)
        retire_stale(stale);
    return rc;
}

bool requests_outstanding(void)
{
    return atomic_load_explicit(&outstanding, memory_order_relaxed) > 0;
}

void requests_claim(int count, const MPI_Request requests[], request_claims *out)
{
    request_entry **tail = &out->first;
    out->first = NULL;
    out->with_status = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < count; i++) {
        request_entry *e = find_locked(requests[i]);
        if (!e || e->claimed)
            continue;
        e->claimed = true;
        e->index = i;
        e->next_claim = NULL;
        *tail = e;
        tail = &e->next_claim;
        out->with_status += carried_wants_status(&e->c);
    }
    pthread_mutex_unlock(&lock);
}

static void deliver(request_entry *e, int rc, const MPI_Status *status)
{
    /* an inactive persistent request completes at once, with nothing new to unpack (a
     * collective's staging holds the last round, which the user may have changed since) */
    if (e->delivered || !e->active)
        return;
    if (e->c.work_ops)
        e->c.work_ops->deliver(e->c.work, rc);
    else if (e->c.receive && e->c.file)
        message_deliver_read(&e->c.m, e->c.packed, rc, status, e->c.buf);
    else if (e->c.receive)
        message_deliver(&e->c.m, e->c.packed, rc, status, e->c.buf);
}

void requests_complete(request_entry *e, int rc, const MPI_Status *status)
{
    deliver(e, rc, status);
    e->delivered = false; /* a persistent receive unpacks again after its next start */
    e->active = false;
    e->completed = true;
}

void requests_return(request_claims *claims)
{
    request_entry *orphans = NULL;
    pthread_mutex_lock(&lock);
    for (request_entry *e = claims->first, *next; e; e = next) {
        next = e->next_claim;
        if (e->completed && !e->c.persistent && e->in_table)
            unlink_locked(e);
        e->claimed = e->completed = false;
        if (!e->in_table) { /* nobody else can reach it now */
            e->next_claim = orphans;
            orphans = e;
        }
    }
    pthread_mutex_unlock(&lock);
    claims->first = NULL;
    for (request_entry *e = orphans, *next; e; e = next) {
        next = e->next_claim;
        release(e);
    }
}

void requests_peeked(request_entry *e, int rc, const MPI_Status *status)
{
    deliver(e, rc, status);
    e->delivered = delivers(&e->c);
}

void requests_start(int count, const MPI_Request requests[])
{
    request_claims claims;
    requests_claim(count, requests, &claims);
    for (request_entry *e = claims.first; e; e = e->next_claim) {
        e->delivered = false;
        e->active = true;
        if (e->c.work_ops)
            e->c.work_ops->start(e->c.work);
        else if (e->c.persistent && !e->c.receive)
            kernel_pack_staging(&e->c.m.analysis->plan, e->c.buf, e->c.count, e->c.packed,
                                e->c.m.bytes);
    }
    requests_return(&claims);
}

bool requests_free(MPI_Request *request, int *rc)
{
    pthread_mutex_lock(&lock);
    request_entry *e = find_locked(*request);
    if (e && e->claimed) /* freed while another thread completes it: erroneous; the MPI's */
        e = NULL;
    const bool inactive = e && e->c.persistent && !e->active;
    if (e) {
        unlink_locked(e);
        if (!inactive) {
            e->next_detached = detached;
            detached = e;
            atomic_fetch_add_explicit(&detached_count, 1, memory_order_relaxed);
        }
    }
    pthread_mutex_unlock(&lock);
    if (!e)
        return false;
    *rc = inactive ? PMPI_Request_free(&e->request) : MPI_SUCCESS;
    if (inactive)
        release(e);
    *request = MPI_REQUEST_NULL;
    requests_progress();
    return true;
}

/* Test each detached request once: finish those done, return the others. */
static request_entry *test_detached(request_entry *list)
{
    request_entry *pending = NULL;
    for (request_entry *e = list, *next; e; e = next) {
        next = e->next_detached;
        int done = 0;
        MPI_Status status;
        const int rc = PMPI_Test(&e->request, &done, &status);
        if (!done && rc == MPI_SUCCESS) {
            e->next_detached = pending;
            pending = e;
            continue;
        }
        if (e->c.persistent && e->request != MPI_REQUEST_NULL)
            PMPI_Request_free(&e->request); /* now inactive */
        deliver(e, rc, &status);
        atomic_fetch_sub_explicit(&detached_count, 1, memory_order_relaxed);
        release(e);
    }
    return pending;
}

/* Take the detached list (tested without the lock, by one thread at a time). */
static request_entry *take_detached(void)
{
    pthread_mutex_lock(&lock);
    request_entry *list = detached;
    detached = NULL;
    pthread_mutex_unlock(&lock);
    return list;
}

static void put_back_detached(request_entry *list)
{
    if (!list)
        return;
    pthread_mutex_lock(&lock);
    request_entry *last = list;
    while (last->next_detached)
        last = last->next_detached;
    last->next_detached = detached;
    detached = list;
    pthread_mutex_unlock(&lock);
}

void requests_progress(void)
{
    if (atomic_load_explicit(&detached_count, memory_order_relaxed) > 0)
        put_back_detached(test_detached(take_detached()));
}

void requests_finalize(void)
{
    pthread_mutex_lock(&lock);
    request_entry *kept = spare;
    spare = NULL;
    spares = 0;
    pthread_mutex_unlock(&lock);
    for (request_entry *e = kept, *next; e; e = next) {
        next = e->chain;
        free(e);
    }
    if (atomic_load_explicit(&detached_count, memory_order_relaxed) == 0)
        return;
    for (request_entry *e = test_detached(take_detached()), *next; e; e = next) {
        next = e->next_detached;
        PMPI_Request_free(&e->request); /* the MPI finishes it, as it would the user's */
        e->next_detached = retired;
        retired = e;
    }
}

void requests_fork_lock(void) { pthread_mutex_lock(&lock); }

void requests_fork_unlock(bool child) { forklock_release(&lock, child); }
