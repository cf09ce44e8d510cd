/* Non-blocking, persistent and matched point-to-point calls, and the completion calls.
 *
 * A carried message (lib/p2p/message.h) is started on a packed buffer and remembered by its
 * request (lib/p2p/requests.h); every completion call hands the handles it held before the
 * MPI completed them to the table, which unpacks receives and gives buffers back. With no
 * carried request outstanding, the completion calls go to the MPI after one atomic load. */
#include <sched.h>
#include <stdlib.h>

#include "../core/config.h"
#include "../p2p/bufpool.h"
#include "../p2p/message.h"
#include "../p2p/requests.h"
#include "../p2p/sendpath.h"

#define EXPORT __attribute__((visibility("default")))

/* A carried message: packed now for a send, a landing buffer for a receive, and (when `slot`
 * is given, for a request) the table entry that will remember it. */
static bool carry(const void *buf, int count, MPI_Datatype type, int peer, bool receive,
                  bool persistent, carried_request *c, requests_entry **slot)
{
    if (config_get()->disable || peer == MPI_PROC_NULL ||
        !message_takes(buf, count, type, receive, &c->m))
        return false;
    if (!receive && !persistent && sendpath_for_nonblocking(c->m.analysis, c->m.bytes) == SEND_BY_MPI) {
        message_done(&c->m); /* the MPI's datatype send measured faster for this type */
        return false;
    }
    c->receive = receive;
    c->persistent = persistent;
    c->buf = (void *)buf;
    c->count = count;
    c->packed = receive || persistent ? bufpool_take(c->m.bytes) : message_pack(&c->m, buf, count);
    if (c->packed && slot && !(*slot = requests_reserve())) {
        bufpool_give(c->packed);
        c->packed = NULL;
    }
    if (!c->packed)
        message_done(&c->m);
    return c->packed != NULL;
}

/* Started by the MPI (rc) on the packed buffer: remember it, or undo on failure. */
static int started(int rc, MPI_Request *request, carried_request *c, requests_entry *slot)
{
    if (rc == MPI_SUCCESS) {
        requests_add(slot, *request, c);
    } else {
        requests_unreserve(slot);
        bufpool_give(c->packed);
        message_done(&c->m);
    }
    return rc;
}

#define ISEND_SHIM(NAME, PNAME, PERSISTENT)                                                    \
    EXPORT int NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,          \
                    MPI_Comm comm, MPI_Request *request)                                       \
    {                                                                                          \
        carried_request c;                                                                     \
        requests_entry *slot;                                                                  \
        if (!carry(buf, count, type, dest, false, PERSISTENT, &c, &slot))                      \
            return PNAME(buf, count, type, dest, tag, comm, request);                          \
        return started(PNAME(c.packed, (int)c.m.bytes, MPI_PACKED, dest, tag, comm, request),  \
                       request, &c, slot);                                                     \
    }

ISEND_SHIM(MPI_Isend, PMPI_Isend, false)
ISEND_SHIM(MPI_Issend, PMPI_Issend, false)
ISEND_SHIM(MPI_Irsend, PMPI_Irsend, false)
ISEND_SHIM(MPI_Ibsend, PMPI_Ibsend, false)
ISEND_SHIM(MPI_Send_init, PMPI_Send_init, true)
ISEND_SHIM(MPI_Ssend_init, PMPI_Ssend_init, true)
ISEND_SHIM(MPI_Rsend_init, PMPI_Rsend_init, true)
ISEND_SHIM(MPI_Bsend_init, PMPI_Bsend_init, true)

#define IRECV_SHIM(NAME, PNAME, PERSISTENT)                                                    \
    EXPORT int NAME(void *buf, int count, MPI_Datatype type, int source, int tag,              \
                    MPI_Comm comm, MPI_Request *request)                                       \
    {                                                                                          \
        carried_request c;                                                                     \
        requests_entry *slot;                                                                  \
        if (!carry(buf, count, type, source, true, PERSISTENT, &c, &slot))                     \
            return PNAME(buf, count, type, source, tag, comm, request);                        \
        return started(PNAME(c.packed, (int)c.m.bytes, MPI_PACKED, source, tag, comm,          \
                             request),                                                         \
                       request, &c, slot);                                                     \
    }

IRECV_SHIM(MPI_Irecv, PMPI_Irecv, false)
IRECV_SHIM(MPI_Recv_init, PMPI_Recv_init, true)

/* A matched message has its source already: MPI_PROC_NULL comes as MPI_MESSAGE_NO_PROC. */
EXPORT int MPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg,
                      MPI_Request *request)
{
    carried_request c;
    requests_entry *slot;
    if (!msg || *msg == MPI_MESSAGE_NO_PROC ||
        !carry(buf, count, type, 0, true, false, &c, &slot))
        return PMPI_Imrecv(buf, count, type, msg, request);
    return started(PMPI_Imrecv(c.packed, (int)c.m.bytes, MPI_PACKED, msg, request), request, &c,
                   slot);
}

EXPORT int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg,
                     MPI_Status *status)
{
    carried_request c;
    if (!msg || *msg == MPI_MESSAGE_NO_PROC ||
        !carry(buf, count, type, 0, true, false, &c, NULL))
        return PMPI_Mrecv(buf, count, type, msg, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Mrecv(c.packed, (int)c.m.bytes, MPI_PACKED, msg, st);
    message_deliver(&c.m, c.packed, rc, st, buf);
    bufpool_give(c.packed);
    message_done(&c.m);
    return rc;
}

EXPORT int MPI_Start(MPI_Request *request)
{
    if (request && requests_outstanding())
        requests_start(*request);
    return PMPI_Start(request);
}

EXPORT int MPI_Startall(int count, MPI_Request requests[])
{
    if (requests && requests_outstanding())
        for (int i = 0; i < count; i++)
            requests_start(requests[i]);
    return PMPI_Startall(count, requests);
}

EXPORT int MPI_Request_free(MPI_Request *request)
{
    if (request && requests_outstanding() && requests_free(request))
        return MPI_SUCCESS;
    return PMPI_Request_free(request);
}

/* MPI_Request_get_status: a receive found complete is unpacked now (requests.h). */
EXPORT int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    if (!flag || !requests_outstanding())
        return PMPI_Request_get_status(request, flag, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    requests_lock();
    int rc = PMPI_Request_get_status(request, flag, st);
    if (*flag)
        requests_peeked_locked(request, rc, st);
    requests_unlock();
    return rc;
}

/* ---- completion ----
 *
 * With carried requests outstanding, each completion call polls the MPI's test call with the
 * request table locked, and hands over what completed before unlocking (requests.h says
 * why); between polls the lock is released and the thread yields, so other threads start
 * and complete their own requests. */

/* The handles of an array call before the MPI completes them, and statuses to read even when
 * the caller ignores them. Small calls use the stack. */
typedef struct {
    MPI_Request small_requests[16], *before;
    MPI_Status small_statuses[16], *statuses;
    bool own_statuses;
} held;

static bool hold(held *h, int count, MPI_Status *statuses)
{
    h->before = count <= 16 ? h->small_requests : malloc(sizeof(MPI_Request) * (size_t)count);
    h->own_statuses = statuses == MPI_STATUSES_IGNORE;
    h->statuses = !h->own_statuses ? statuses
                  : count <= 16    ? h->small_statuses
                                   : malloc(sizeof(MPI_Status) * (size_t)count);
    return h->before && h->statuses;
}

static void let_go(held *h)
{
    if (h->before != h->small_requests)
        free(h->before);
    if (h->own_statuses && h->statuses != h->small_statuses)
        free(h->statuses);
}

static void remember(held *h, int count, const MPI_Request requests[])
{
    for (int i = 0; i < count; i++)
        h->before[i] = requests[i];
}

/* The completion code of request i of an all/some call: with MPI_ERR_IN_STATUS, its own. */
static int status_code(int rc, const MPI_Status *status)
{
    return rc == MPI_ERR_IN_STATUS ? status->MPI_ERROR : rc;
}

/* Ends one poll: true when the call is over. */
static bool polled(bool over)
{
    requests_unlock();
    if (!over)
        sched_yield();
    return over;
}

/* Test (blocking: until done) one request. */
static int test_one(MPI_Request *request, int *flag, MPI_Status *status, bool blocking)
{
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc, done;
    do {
        requests_lock();
        MPI_Request before = *request;
        rc = PMPI_Test(request, &done, st);
        if (done || rc != MPI_SUCCESS)
            requests_complete_locked(before, rc, st);
    } while (!polled(!blocking || done || rc != MPI_SUCCESS));
    if (flag)
        *flag = done;
    requests_progress(false);
    return rc;
}

EXPORT int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (!request || !requests_outstanding())
        return PMPI_Wait(request, status);
    return test_one(request, NULL, status, true);
}

EXPORT int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (!request || !flag || !requests_outstanding())
        return PMPI_Test(request, flag, status);
    return test_one(request, flag, status, false);
}

/* Testall (blocking: until all are done). */
static int test_all(int count, MPI_Request requests[], int *flag, MPI_Status statuses[],
                    bool blocking)
{
    held h;
    if (!hold(&h, count, statuses)) {
        let_go(&h);
        return MPI_ERR_NO_MEM;
    }
    int rc, done;
    do {
        requests_lock();
        remember(&h, count, requests);
        rc = PMPI_Testall(count, requests, &done, h.statuses);
        for (int i = 0; (done || rc != MPI_SUCCESS) && i < count; i++) {
            int code = status_code(rc, &h.statuses[i]);
            if (code != MPI_ERR_PENDING)
                requests_complete_locked(h.before[i], code, &h.statuses[i]);
        }
    } while (!polled(!blocking || done || rc != MPI_SUCCESS));
    if (flag)
        *flag = done;
    let_go(&h);
    requests_progress(false);
    return rc;
}

EXPORT int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    if (count <= 0 || !requests || !requests_outstanding())
        return PMPI_Waitall(count, requests, statuses);
    return test_all(count, requests, NULL, statuses, true);
}

EXPORT int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    if (count <= 0 || !requests || !flag || !requests_outstanding())
        return PMPI_Testall(count, requests, flag, statuses);
    return test_all(count, requests, flag, statuses, false);
}

/* Testany (blocking: until one is done or none is active). */
static int test_any(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status,
                    bool blocking)
{
    held h;
    if (!hold(&h, count, MPI_STATUSES_IGNORE)) {
        let_go(&h);
        return MPI_ERR_NO_MEM;
    }
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &h.small_statuses[0] : status;
    int rc, done;
    do {
        requests_lock();
        remember(&h, count, requests);
        rc = PMPI_Testany(count, requests, index, &done, st);
        if (done && *index != MPI_UNDEFINED && *index >= 0 && *index < count)
            requests_complete_locked(h.before[*index], rc, st);
    } while (!polled(!blocking || done || rc != MPI_SUCCESS));
    if (flag)
        *flag = done;
    let_go(&h);
    requests_progress(false);
    return rc;
}

EXPORT int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    if (count <= 0 || !requests || !index || !requests_outstanding())
        return PMPI_Waitany(count, requests, index, status);
    return test_any(count, requests, index, NULL, status, true);
}

EXPORT int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
                       MPI_Status *status)
{
    if (count <= 0 || !requests || !index || !flag || !requests_outstanding())
        return PMPI_Testany(count, requests, index, flag, status);
    return test_any(count, requests, index, flag, status, false);
}

/* Testsome (blocking: until some are done or none is active); statuses are in completion
 * order, the k-th for indices[k]. */
static int test_some(int incount, MPI_Request requests[], int *outcount, int indices[],
                     MPI_Status statuses[], bool blocking)
{
    held h;
    if (!hold(&h, incount, statuses)) {
        let_go(&h);
        return MPI_ERR_NO_MEM;
    }
    int rc;
    do {
        requests_lock();
        remember(&h, incount, requests);
        rc = PMPI_Testsome(incount, requests, outcount, indices, h.statuses);
        for (int k = 0; *outcount != MPI_UNDEFINED && k < *outcount; k++) {
            int code = status_code(rc, &h.statuses[k]);
            if (code != MPI_ERR_PENDING && indices[k] >= 0 && indices[k] < incount)
                requests_complete_locked(h.before[indices[k]], code, &h.statuses[k]);
        }
    } while (!polled(!blocking || *outcount != 0 || rc != MPI_SUCCESS));
    let_go(&h);
    requests_progress(false);
    return rc;
}

EXPORT int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                        MPI_Status statuses[])
{
    if (incount <= 0 || !requests || !outcount || !indices || !requests_outstanding())
        return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    return test_some(incount, requests, outcount, indices, statuses, true);
}

EXPORT int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                        MPI_Status statuses[])
{
    if (incount <= 0 || !requests || !outcount || !indices || !requests_outstanding())
        return PMPI_Testsome(incount, requests, outcount, indices, statuses);
    return test_some(incount, requests, outcount, indices, statuses, false);
}

#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
/* The MPI-4.1 array forms, where the MPI has them. */
static int peek_array(int count, const MPI_Request requests[], int *flag, int *index,
                      int *outcount, int indices[], MPI_Status statuses[])
{
    held h;
    if (!hold(&h, count, statuses)) {
        let_go(&h);
        return MPI_ERR_NO_MEM;
    }
    requests_lock();
    int rc, done = 0;
    if (index) {
        rc = PMPI_Request_get_status_any(count, requests, index, flag, h.statuses);
        if (*flag && *index != MPI_UNDEFINED && *index >= 0 && *index < count)
            requests_peeked_locked(requests[*index], rc, &h.statuses[0]);
    } else if (indices) {
        rc = PMPI_Request_get_status_some(count, requests, outcount, indices, h.statuses);
        for (int k = 0; k < *outcount && *outcount != MPI_UNDEFINED; k++)
            requests_peeked_locked(requests[indices[k]], status_code(rc, &h.statuses[k]),
                                   &h.statuses[k]);
    } else {
        rc = PMPI_Request_get_status_all(count, requests, &done, h.statuses);
        *flag = done;
        for (int i = 0; done && i < count; i++)
            requests_peeked_locked(requests[i], status_code(rc, &h.statuses[i]), &h.statuses[i]);
    }
    requests_unlock();
    let_go(&h);
    return rc;
}

EXPORT int MPI_Request_get_status_any(int count, const MPI_Request requests[], int *index,
                                      int *flag, MPI_Status *status)
{
    if (count <= 0 || !requests || !index || !flag || !requests_outstanding())
        return PMPI_Request_get_status_any(count, requests, index, flag, status);
    return peek_array(count, requests, flag, index, NULL, NULL,
                      status == MPI_STATUS_IGNORE ? MPI_STATUSES_IGNORE : status);
}

EXPORT int MPI_Request_get_status_all(int count, const MPI_Request requests[], int *flag,
                                      MPI_Status statuses[])
{
    if (count <= 0 || !requests || !flag || !requests_outstanding())
        return PMPI_Request_get_status_all(count, requests, flag, statuses);
    return peek_array(count, requests, flag, NULL, NULL, NULL, statuses);
}

EXPORT int MPI_Request_get_status_some(int count, const MPI_Request requests[], int *outcount,
                                       int indices[], MPI_Status statuses[])
{
    if (count <= 0 || !requests || !outcount || !indices || !requests_outstanding())
        return PMPI_Request_get_status_some(count, requests, outcount, indices, statuses);
    return peek_array(count, requests, NULL, NULL, outcount, indices, statuses);
}
#endif
