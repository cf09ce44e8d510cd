/* Non-blocking and persistent point-to-point calls (MPI_Imrecv included), and the
 * completion calls.
 *
 * A carried message (lib/p2p/message.h) is started on a packed buffer and remembered by its
 * request (lib/p2p/requests.h); the completion calls go to lib/p2p/completion.h, which
 * unpacks receives and gives buffers back. With no carried request outstanding, they go to
 * the MPI after one atomic load. */
#include "../base/mpiutil.h"
#include "../core/sendpath.h"
#include "../p2p/bufpool.h"
#include "../p2p/completion.h"
#include "../p2p/message.h"
#include "../p2p/requests.h"

/* A carried request: packed now for a send, a landing buffer for a receive, and the table
 * entry that will remember it. */
static bool carry(const void *buf, int count, MPI_Datatype type, int peer, bool receive,
                  bool persistent, carried_request *c, request_entry **slot)
{
    if (!message_carries(buf, count, type, peer, receive, &c->m))
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
    if (c->packed && !(*slot = requests_reserve())) {
        bufpool_give(c->packed);
        c->packed = NULL;
    }
    if (!c->packed)
        message_done(&c->m);
    return c->packed != NULL;
}

/* A call passed to the MPI unchanged: a handle it returns may retire a stale entry. */
static int passed(int rc, const MPI_Request *request)
{
    if (rc == MPI_SUCCESS)
        requests_forget_stale(*request);
    return rc;
}

/* Started by the MPI (rc) on the packed buffer: remember it, or undo on failure. */
static int started(int rc, MPI_Request *request, carried_request *c, request_entry *slot)
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
        request_entry *slot;                                                                  \
        if (!carry(buf, count, type, dest, false, PERSISTENT, &c, &slot))                      \
            return passed(PNAME(buf, count, type, dest, tag, comm, request), request);         \
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
        request_entry *slot;                                                                  \
        if (!carry(buf, count, type, source, true, PERSISTENT, &c, &slot))                     \
            return passed(PNAME(buf, count, type, source, tag, comm, request), request);       \
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
    request_entry *slot;
    if (!msg || *msg == MPI_MESSAGE_NO_PROC ||
        !carry(buf, count, type, 0, true, false, &c, &slot))
        return passed(PMPI_Imrecv(buf, count, type, msg, request), request);
    return started(PMPI_Imrecv(c.packed, (int)c.m.bytes, MPI_PACKED, msg, request), request, &c,
                   slot);
}

EXPORT int MPI_Start(MPI_Request *request)
{
    if (request && requests_outstanding())
        requests_start(1, request);
    return PMPI_Start(request);
}

EXPORT int MPI_Startall(int count, MPI_Request requests[])
{
    if (count > 0 && requests && requests_outstanding())
        requests_start(count, requests);
    return PMPI_Startall(count, requests);
}

EXPORT int MPI_Request_free(MPI_Request *request)
{
    int rc;
    if (request && requests_outstanding() && requests_free(request, &rc))
        return rc;
    return PMPI_Request_free(request);
}

/* ---- completion (lib/p2p/completion.h) ---- */

EXPORT int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (!request || !requests_outstanding())
        return PMPI_Wait(request, status);
    return completion_test(request, NULL, status, true);
}

EXPORT int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (!request || !flag || !requests_outstanding())
        return PMPI_Test(request, flag, status);
    return completion_test(request, flag, status, false);
}

EXPORT int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    if (count <= 0 || !requests || !requests_outstanding())
        return PMPI_Waitall(count, requests, statuses);
    return completion_testall(count, requests, NULL, statuses, true);
}

EXPORT int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    if (count <= 0 || !requests || !flag || !requests_outstanding())
        return PMPI_Testall(count, requests, flag, statuses);
    return completion_testall(count, requests, flag, statuses, false);
}

EXPORT int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    if (count <= 0 || !requests || !index || !requests_outstanding())
        return PMPI_Waitany(count, requests, index, status);
    return completion_testany(count, requests, index, NULL, status, true);
}

EXPORT int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
                       MPI_Status *status)
{
    if (count <= 0 || !requests || !index || !flag || !requests_outstanding())
        return PMPI_Testany(count, requests, index, flag, status);
    return completion_testany(count, requests, index, flag, status, false);
}

EXPORT int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                        MPI_Status statuses[])
{
    if (incount <= 0 || !requests || !outcount || !indices || !requests_outstanding())
        return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    return completion_testsome(incount, requests, outcount, indices, statuses, true);
}

EXPORT int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                        MPI_Status statuses[])
{
    if (incount <= 0 || !requests || !outcount || !indices || !requests_outstanding())
        return PMPI_Testsome(incount, requests, outcount, indices, statuses);
    return completion_testsome(incount, requests, outcount, indices, statuses, false);
}

EXPORT int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    if (!flag || !requests_outstanding())
        return PMPI_Request_get_status(request, flag, status);
    return completion_peek(request, flag, status);
}

#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
/* The MPI-4.1 array forms, where the MPI has them. */
EXPORT int MPI_Request_get_status_any(int count, const MPI_Request requests[], int *index,
                                      int *flag, MPI_Status *status)
{
    if (count <= 0 || !requests || !index || !flag || !requests_outstanding())
        return PMPI_Request_get_status_any(count, requests, index, flag, status);
    return completion_peek_array('a', count, requests, index, flag, NULL, NULL, status);
}

EXPORT int MPI_Request_get_status_all(int count, const MPI_Request requests[], int *flag,
                                      MPI_Status statuses[])
{
    if (count <= 0 || !requests || !flag || !requests_outstanding())
        return PMPI_Request_get_status_all(count, requests, flag, statuses);
    return completion_peek_array('l', count, requests, NULL, flag, NULL, NULL, statuses);
}

EXPORT int MPI_Request_get_status_some(int count, const MPI_Request requests[], int *outcount,
                                       int indices[], MPI_Status statuses[])
{
    if (count <= 0 || !requests || !outcount || !indices || !requests_outstanding())
        return PMPI_Request_get_status_some(count, requests, outcount, indices, statuses);
    return completion_peek_array('s', count, requests, NULL, NULL, outcount, indices,
                                 statuses);
}
#endif
