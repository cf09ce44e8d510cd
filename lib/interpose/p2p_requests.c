/* Non-blocking, persistent and matched point-to-point calls, and the completion calls.
 *
 * A carried message (lib/p2p/message.h) is started on a packed buffer and remembered by its
 * request (lib/p2p/requests.h); every completion call hands the handles it held before the
 * MPI completed them to the table, which unpacks receives and gives buffers back. With no
 * carried request outstanding, the completion calls go to the MPI after one atomic load. */
#include <stdlib.h>

#include "../core/config.h"
#include "../p2p/bufpool.h"
#include "../p2p/message.h"
#include "../p2p/requests.h"

#define EXPORT __attribute__((visibility("default")))

/* A carried message's request: packed now for a send, a landing buffer for a receive. */
static bool carry(const void *buf, int count, MPI_Datatype type, int peer, bool receive,
                  bool persistent, carried_request *c)
{
    if (config_get()->disable || peer == MPI_PROC_NULL ||
        !message_takes(buf, count, type, &c->m))
        return false;
    c->receive = receive;
    c->persistent = persistent;
    c->buf = (void *)buf;
    c->count = count;
    c->packed = receive || persistent ? bufpool_take(c->m.bytes) : message_pack(&c->m, buf, count);
    if (!c->packed)
        message_done(&c->m);
    return c->packed != NULL;
}

/* Started by the MPI (rc) on the packed buffer: remember it, or undo on failure. */
static int started(int rc, MPI_Request *request, carried_request *c)
{
    if (rc == MPI_SUCCESS) {
        requests_add(*request, c);
    } else {
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
        if (!carry(buf, count, type, dest, false, PERSISTENT, &c))                             \
            return PNAME(buf, count, type, dest, tag, comm, request);                          \
        return started(PNAME(c.packed, (int)c.m.bytes, MPI_PACKED, dest, tag, comm, request),  \
                       request, &c);                                                           \
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
        if (!carry(buf, count, type, source, true, PERSISTENT, &c))                            \
            return PNAME(buf, count, type, source, tag, comm, request);                        \
        return started(PNAME(c.packed, (int)c.m.bytes, MPI_PACKED, source, tag, comm,          \
                             request),                                                         \
                       request, &c);                                                           \
    }

IRECV_SHIM(MPI_Irecv, PMPI_Irecv, false)
IRECV_SHIM(MPI_Recv_init, PMPI_Recv_init, true)

/* A matched message has its source already: MPI_PROC_NULL comes as MPI_MESSAGE_NO_PROC. */
EXPORT int MPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg,
                      MPI_Request *request)
{
    carried_request c;
    if (!msg || *msg == MPI_MESSAGE_NO_PROC || !carry(buf, count, type, 0, true, false, &c))
        return PMPI_Imrecv(buf, count, type, msg, request);
    return started(PMPI_Imrecv(c.packed, (int)c.m.bytes, MPI_PACKED, msg, request), request, &c);
}

EXPORT int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg,
                     MPI_Status *status)
{
    carried_request c;
    if (!msg || *msg == MPI_MESSAGE_NO_PROC || !carry(buf, count, type, 0, true, false, &c))
        return PMPI_Mrecv(buf, count, type, msg, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Mrecv(c.packed, (int)c.m.bytes, MPI_PACKED, msg, st);
    int received = 0;
    if (rc == MPI_SUCCESS && PMPI_Get_count(st, MPI_PACKED, &received) == MPI_SUCCESS &&
        received > 0)
        message_unpack(&c.m, c.packed, received, buf);
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

/* ---- completion ---- */

EXPORT int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (!request || !requests_outstanding())
        return PMPI_Wait(request, status);
    MPI_Request before = *request;
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Wait(request, st);
    requests_complete(before, rc, st);
    requests_progress(false);
    return rc;
}

EXPORT int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (!request || !flag || !requests_outstanding())
        return PMPI_Test(request, flag, status);
    MPI_Request before = *request;
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Test(request, flag, st);
    if (*flag)
        requests_complete(before, rc, st);
    requests_progress(false);
    return rc;
}

/* The handles of an array call before the MPI completes them, and statuses to read even when
 * the caller ignores them. Small calls use the stack. */
typedef struct {
    MPI_Request small_requests[16], *before;
    MPI_Status small_statuses[16], *statuses;
    bool own_statuses;
} held;

static bool hold(held *h, int count, const MPI_Request requests[], MPI_Status *statuses)
{
    h->before = count <= 16 ? h->small_requests : malloc(sizeof(MPI_Request) * (size_t)count);
    h->own_statuses = statuses == MPI_STATUSES_IGNORE;
    h->statuses = !h->own_statuses ? statuses
                  : count <= 16    ? h->small_statuses
                                   : malloc(sizeof(MPI_Status) * (size_t)count);
    if (!h->before || !h->statuses)
        return false;
    for (int i = 0; i < count; i++)
        h->before[i] = requests[i];
    return true;
}

static void let_go(held *h)
{
    if (h->before != h->small_requests)
        free(h->before);
    if (h->own_statuses && h->statuses != h->small_statuses)
        free(h->statuses);
}

/* Whether request i of an all-call is complete: all are on success; with MPI_ERR_IN_STATUS,
 * those whose status is not MPI_ERR_PENDING. */
static int status_code(int rc, const MPI_Status *status)
{
    return rc == MPI_ERR_IN_STATUS ? status->MPI_ERROR : rc;
}

/* After an all-call completed the first `count` held requests (rc its return code). */
static void completed_all(held *h, int count, int rc)
{
    for (int i = 0; i < count; i++) {
        int code = status_code(rc, &h->statuses[i]);
        if (code != MPI_ERR_PENDING)
            requests_complete(h->before[i], code, &h->statuses[i]);
    }
    let_go(h);
    requests_progress(false);
}

EXPORT int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    held h;
    if (count <= 0 || !requests || !requests_outstanding())
        return PMPI_Waitall(count, requests, statuses);
    if (!hold(&h, count, requests, statuses)) {
        let_go(&h);
        return PMPI_Waitall(count, requests, statuses); /* out of memory: cannot track */
    }
    int rc = PMPI_Waitall(count, requests, h.statuses);
    completed_all(&h, count, rc);
    return rc;
}

EXPORT int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    held h;
    if (count <= 0 || !requests || !flag || !requests_outstanding())
        return PMPI_Testall(count, requests, flag, statuses);
    if (!hold(&h, count, requests, statuses)) {
        let_go(&h);
        return PMPI_Testall(count, requests, flag, statuses);
    }
    int rc = PMPI_Testall(count, requests, flag, h.statuses);
    completed_all(&h, *flag ? count : 0, rc);
    return rc;
}

EXPORT int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    held h;
    if (count <= 0 || !requests || !index || !requests_outstanding())
        return PMPI_Waitany(count, requests, index, status);
    if (!hold(&h, count, requests, MPI_STATUSES_IGNORE)) {
        let_go(&h);
        return PMPI_Waitany(count, requests, index, status);
    }
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &h.small_statuses[0] : status;
    int rc = PMPI_Waitany(count, requests, index, st);
    if (*index != MPI_UNDEFINED && *index >= 0 && *index < count)
        requests_complete(h.before[*index], rc, st);
    let_go(&h);
    requests_progress(false);
    return rc;
}

EXPORT int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
                       MPI_Status *status)
{
    held h;
    if (count <= 0 || !requests || !index || !flag || !requests_outstanding())
        return PMPI_Testany(count, requests, index, flag, status);
    if (!hold(&h, count, requests, MPI_STATUSES_IGNORE)) {
        let_go(&h);
        return PMPI_Testany(count, requests, index, flag, status);
    }
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &h.small_statuses[0] : status;
    int rc = PMPI_Testany(count, requests, index, flag, st);
    if (*flag && *index != MPI_UNDEFINED && *index >= 0 && *index < count)
        requests_complete(h.before[*index], rc, st);
    let_go(&h);
    requests_progress(false);
    return rc;
}

/* Waitsome and Testsome: statuses are in completion order, k-th for indices[k]. */
#define SOME_SHIM(NAME, PNAME)                                                                 \
    EXPORT int NAME(int incount, MPI_Request requests[], int *outcount, int indices[],         \
                    MPI_Status statuses[])                                                     \
    {                                                                                          \
        held h;                                                                                \
        if (incount <= 0 || !requests || !outcount || !indices || !requests_outstanding())     \
            return PNAME(incount, requests, outcount, indices, statuses);                      \
        if (!hold(&h, incount, requests, statuses)) {                                          \
            let_go(&h);                                                                        \
            return PNAME(incount, requests, outcount, indices, statuses);                      \
        }                                                                                      \
        int rc = PNAME(incount, requests, outcount, indices, h.statuses);                      \
        for (int k = 0; *outcount != MPI_UNDEFINED && k < *outcount; k++) {                    \
            int code = status_code(rc, &h.statuses[k]);                                        \
            if (code != MPI_ERR_PENDING && indices[k] >= 0 && indices[k] < incount)            \
                requests_complete(h.before[indices[k]], code, &h.statuses[k]);                 \
        }                                                                                      \
        let_go(&h);                                                                            \
        requests_progress(false);                                                              \
        return rc;                                                                             \
    }

SOME_SHIM(MPI_Waitsome, PMPI_Waitsome)
SOME_SHIM(MPI_Testsome, PMPI_Testsome)
