/* Non-blocking and persistent point-to-point calls (MPI_Imrecv included), and the
 * completion calls.
 *
 * A carried message (lib/p2p/message.h) is started on a packed buffer and remembered by its
 * request (lib/p2p/requests.h); the completion calls go to lib/p2p/completion.h, which
 * unpacks receives and gives buffers back. With no carried request outstanding, they go to
 * the MPI after one atomic load. */
#include "../base/mpiutil.h"
#include "../core/config.h"
#include "../core/typecache.h"
#include "entry.h"
#include "../p2p/bufpool.h"
#include "../p2p/completion.h"
#include "../p2p/message.h"
#include "../p2p/own_path.h"
#include "../p2p/requests.h"

/* A carried message for a request, in the reserved `*slot`: packed now (`fill`) or a buffer
 * to land in; nothing given back yet. False when memcomm leaves the side to the MPI (also
 * when memory is short or requests_reserve says no). The path: the one blocking calls of the
 * type and size decided, or, for a call that is not persistent, its epoch's
 * (sendpath_epoch_path); a persistent request keeps the path decided so far. */
static inline __attribute__((always_inline)) bool
carry(const void *buf, int64_t count, MPI_Datatype type, int peer, bool receive,
      bool persistent, bool fill, carried_request *c, request_entry **slot)
{
    if (!persistent && own_path_passes(type, count, OWN_PATH_NONBLOCKING))
        return false;
    *c = (carried_request){0};
    const uint64_t generation = typecache_generation();
    if (!message_carries(buf, count, type, peer, receive, false, &c->m))
        return false;
    enum { UNDECIDED = -1 };
    const int undecided = message_undecided_path(&c->m);
    int path = sendpath_untimed(c->m.analysis, USE_POINT_TO_POINT, c->m.bytes, 2, UNDECIDED);
    if (path == UNDECIDED && persistent)
        path = sendpath_untimed(c->m.analysis, USE_NONBLOCKING, c->m.bytes, 2, undecided);
    else if (path == UNDECIDED)
        path = sendpath_epoch_path(c->m.analysis, c->m.bytes, undecided, PMPI_Wtime);
    if (path == SEND_BY_MPI && !persistent) {
        const bool fixed = config_get()->send_path == CONFIG_SEND_BY_MPI;
        own_path_remember(type, count, OWN_PATH_NONBLOCKING, generation,
                          fixed ? NULL
                                : sendpath_class_of(c->m.analysis, USE_NONBLOCKING, c->m.bytes),
                          fixed);
    }
    if (path == SEND_BY_MPI || !(*slot = requests_reserve())) {
        message_done(&c->m); /* the MPI's own path measured faster, or no request may start */
        return false;
    }
    c->receive = receive;
    c->persistent = persistent;
    c->buf = (void *)buf;
    c->count = count;
    c->packed = fill ? message_pack(&c->m, buf, count) : message_staging(&c->m, buf);
    if (c->packed)
        return true;
    requests_unreserve(*slot);
    message_done(&c->m);
    return false;
}

#define ISEND_SHIM(NAME, PNAME, PERSISTENT, COUNT_T)                                           \
    INTERPOSE(int, NAME,                                                                       \
              (const void *buf, COUNT_T count, MPI_Datatype type, int dest, int tag,           \
               MPI_Comm comm, MPI_Request *request))                                           \
    {                                                                                          \
        carried_request c;                                                                     \
        request_entry *slot;                                                                   \
        if (!carry(buf, count, type, dest, false, PERSISTENT, !(PERSISTENT), &c, &slot))       \
            return requests_passed(PNAME(buf, count, type, dest, tag, comm, request),          \
                                   request);                                                   \
        return requests_started(                                                               \
            PNAME(c.packed, (COUNT_T)c.m.bytes, MPI_PACKED, dest, tag, comm, request),         \
            request, &c, slot);                                                                \
    }

#define IRECV_SHIM(NAME, PNAME, PERSISTENT, COUNT_T)                                           \
    INTERPOSE(int, NAME,                                                                       \
              (void *buf, COUNT_T count, MPI_Datatype type, int source, int tag, MPI_Comm comm,\
               MPI_Request *request))                                                          \
    {                                                                                          \
        carried_request c;                                                                     \
        request_entry *slot;                                                                   \
        if (!carry(buf, count, type, source, true, PERSISTENT, false, &c, &slot))              \
            return requests_passed(PNAME(buf, count, type, source, tag, comm, request),        \
                                   request);                                                   \
        return requests_started(                                                               \
            PNAME(c.packed, (COUNT_T)c.m.bytes, MPI_PACKED, source, tag, comm, request),       \
            request, &c, slot);                                                                \
    }

/* A matched message has its source already: MPI_PROC_NULL comes as MPI_MESSAGE_NO_PROC. */
#define IMRECV_SHIM(NAME, PNAME, COUNT_T)                                                      \
    INTERPOSE(int, NAME,                                                                       \
              (void *buf, COUNT_T count, MPI_Datatype type, MPI_Message *msg,                  \
               MPI_Request *request))                                                          \
    {                                                                                          \
        carried_request c;                                                                     \
        request_entry *slot;                                                                   \
        if (!msg || *msg == MPI_MESSAGE_NO_PROC ||                                             \
            !carry(buf, count, type, 0, true, false, false, &c, &slot))                        \
            return requests_passed(PNAME(buf, count, type, msg, request), request);            \
        return requests_started(                                                               \
            PNAME(c.packed, (COUNT_T)c.m.bytes, MPI_PACKED, msg, request), request, &c, slot); \
    }

/* MPI_Isendrecv: the send side carried, the receive side left to the MPI. memcomm would learn
 * how many bytes arrived from the request's status, and MPICH 5.0.2 completes MPI_Isendrecv
 * with the status of an internal message (4 bytes, tag 14) between two ranks (not on
 * MPI_COMM_SELF, so no probe can tell). */
#define ISENDRECV_SHIM(NAME, PNAME, COUNT_T)                                                   \
    INTERPOSE(int, NAME,                                                                       \
              (const void *sendbuf, COUNT_T sendcount, MPI_Datatype sendtype, int dest,        \
               int sendtag, void *recvbuf, COUNT_T recvcount, MPI_Datatype recvtype,           \
               int source, int recvtag, MPI_Comm comm, MPI_Request *request))                  \
    {                                                                                          \
        carried_request c;                                                                     \
        request_entry *slot;                                                                   \
        if (!carry(sendbuf, sendcount, sendtype, dest, false, false, true, &c, &slot))         \
            return requests_passed(PNAME(sendbuf, sendcount, sendtype, dest, sendtag,          \
                                         recvbuf, recvcount, recvtype, source, recvtag, comm,  \
                                         request),                                             \
                                   request);                                                   \
        return requests_started(PNAME(c.packed, (COUNT_T)c.m.bytes, MPI_PACKED, dest,          \
                                      sendtag, recvbuf, recvcount, recvtype, source,           \
                                      recvtag, comm, request),                                 \
                                request, &c, slot);                                            \
    }

/* MPI_Isendrecv_replace goes to the MPI (for the status, as above): intercepted only so that
 * the handle it returns retires a stale entry. */
#define ISENDRECV_REPLACE_SHIM(NAME, PNAME, COUNT_T)                                           \
    INTERPOSE(int, NAME,                                                                       \
              (void *buf, COUNT_T count, MPI_Datatype type, int dest, int sendtag, int source, \
               int recvtag, MPI_Comm comm, MPI_Request *request))                              \
    {                                                                                          \
        return requests_passed(                                                                \
            PNAME(buf, count, type, dest, sendtag, source, recvtag, comm, request), request);  \
    }

/* Every starting call in one form: SUFFIX is empty (int counts) or _c (MPI_Count). */
#define STARTING_CALLS(SUFFIX, COUNT_T)                                                        \
    ISEND_SHIM(MPI_Isend##SUFFIX, PMPI_Isend##SUFFIX, false, COUNT_T)                          \
    ISEND_SHIM(MPI_Issend##SUFFIX, PMPI_Issend##SUFFIX, false, COUNT_T)                        \
    ISEND_SHIM(MPI_Irsend##SUFFIX, PMPI_Irsend##SUFFIX, false, COUNT_T)                        \
    ISEND_SHIM(MPI_Ibsend##SUFFIX, PMPI_Ibsend##SUFFIX, false, COUNT_T)                        \
    ISEND_SHIM(MPI_Send_init##SUFFIX, PMPI_Send_init##SUFFIX, true, COUNT_T)                   \
    ISEND_SHIM(MPI_Ssend_init##SUFFIX, PMPI_Ssend_init##SUFFIX, true, COUNT_T)                 \
    ISEND_SHIM(MPI_Rsend_init##SUFFIX, PMPI_Rsend_init##SUFFIX, true, COUNT_T)                 \
    ISEND_SHIM(MPI_Bsend_init##SUFFIX, PMPI_Bsend_init##SUFFIX, true, COUNT_T)                 \
    IRECV_SHIM(MPI_Irecv##SUFFIX, PMPI_Irecv##SUFFIX, false, COUNT_T)                          \
    IRECV_SHIM(MPI_Recv_init##SUFFIX, PMPI_Recv_init##SUFFIX, true, COUNT_T)                   \
    IMRECV_SHIM(MPI_Imrecv##SUFFIX, PMPI_Imrecv##SUFFIX, COUNT_T)

STARTING_CALLS(, int)
#if MEMCOMM_HAVE_LARGE_COUNT
STARTING_CALLS(_c, MPI_Count)
#endif
/* MPI-4's non-blocking send-receive, where the MPI declares it. */
#if MEMCOMM_HAVE_ISENDRECV
ISENDRECV_SHIM(MPI_Isendrecv, PMPI_Isendrecv, int)
ISENDRECV_REPLACE_SHIM(MPI_Isendrecv_replace, PMPI_Isendrecv_replace, int)
#if MEMCOMM_HAVE_LARGE_COUNT
ISENDRECV_SHIM(MPI_Isendrecv_c, PMPI_Isendrecv_c, MPI_Count)
ISENDRECV_REPLACE_SHIM(MPI_Isendrecv_replace_c, PMPI_Isendrecv_replace_c, MPI_Count)
#endif
#endif

void starting(int count, MPI_Request requests[])
{
    if (count > 0 && requests && requests_outstanding())
        requests_start(count, requests);
}

EXPORT int MPI_Start(MPI_Request *request)
{
    starting(1, request);
    return PMPI_Start(request);
}

EXPORT int MPI_Startall(int count, MPI_Request requests[])
{
    starting(count, requests);
    return PMPI_Startall(count, requests);
}

INTERPOSE(int, MPI_Request_free, (MPI_Request *request))
{
    int rc;
    if (request && requests_outstanding() && requests_free(request, &rc))
        return rc;
    return PMPI_Request_free(request);
}

/* ---- completion (lib/p2p/completion.h) ---- */

INTERPOSE(int, MPI_Wait, (MPI_Request *request, MPI_Status *status))
{
    sendpath_epoch_boundary();
    if (!request || !requests_outstanding())
        return PMPI_Wait(request, status);
    return completion_test(request, NULL, status, true);
}

INTERPOSE(int, MPI_Test, (MPI_Request *request, int *flag, MPI_Status *status))
{
    sendpath_epoch_boundary();
    if (!request || !flag || !requests_outstanding())
        return PMPI_Test(request, flag, status);
    return completion_test(request, flag, status, false);
}

INTERPOSE(int, MPI_Waitall, (int count, MPI_Request requests[], MPI_Status statuses[]))
{
    sendpath_epoch_boundary();
    if (count <= 0 || !requests || !requests_outstanding())
        return PMPI_Waitall(count, requests, statuses);
    return completion_testall(count, requests, NULL, statuses, true);
}

INTERPOSE(int, MPI_Testall, (int count, MPI_Request requests[], int *flag, MPI_Status statuses[]))
{
    sendpath_epoch_boundary();
    if (count <= 0 || !requests || !flag || !requests_outstanding())
        return PMPI_Testall(count, requests, flag, statuses);
    return completion_testall(count, requests, flag, statuses, false);
}

INTERPOSE(int, MPI_Waitany, (int count, MPI_Request requests[], int *index, MPI_Status *status))
{
    sendpath_epoch_boundary();
    if (count <= 0 || !requests || !index || !requests_outstanding())
        return PMPI_Waitany(count, requests, index, status);
    return completion_testany(count, requests, index, NULL, status, true);
}

INTERPOSE(int, MPI_Testany, (int count, MPI_Request requests[], int *index, int *flag,
                       MPI_Status *status))
{
    sendpath_epoch_boundary();
    if (count <= 0 || !requests || !index || !flag || !requests_outstanding())
        return PMPI_Testany(count, requests, index, flag, status);
    return completion_testany(count, requests, index, flag, status, false);
}

INTERPOSE(int, MPI_Waitsome, (int incount, MPI_Request requests[], int *outcount, int indices[],
                        MPI_Status statuses[]))
{
    sendpath_epoch_boundary();
    if (incount <= 0 || !requests || !outcount || !indices || !requests_outstanding())
        return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    return completion_testsome(incount, requests, outcount, indices, statuses, true);
}

INTERPOSE(int, MPI_Testsome, (int incount, MPI_Request requests[], int *outcount, int indices[],
                        MPI_Status statuses[]))
{
    sendpath_epoch_boundary();
    if (incount <= 0 || !requests || !outcount || !indices || !requests_outstanding())
        return PMPI_Testsome(incount, requests, outcount, indices, statuses);
    return completion_testsome(incount, requests, outcount, indices, statuses, false);
}

INTERPOSE(int, MPI_Request_get_status, (MPI_Request request, int *flag, MPI_Status *status))
{
    if (!flag || !requests_outstanding())
        return PMPI_Request_get_status(request, flag, status);
    return completion_peek(request, flag, status);
}

#if MEMCOMM_HAS_STATUS_ARRAYS
INTERPOSE(int, MPI_Request_get_status_any, (int count, REQUESTS_CONST MPI_Request requests[],
                                             int *index, int *flag, MPI_Status *status))
{
    if (count <= 0 || !requests || !index || !flag || !requests_outstanding())
        return PMPI_Request_get_status_any(count, requests, index, flag, status);
    return completion_peek_array('a', count, requests, index, flag, NULL, NULL, status);
}

INTERPOSE(int, MPI_Request_get_status_all, (int count, REQUESTS_CONST MPI_Request requests[],
                                             int *flag, MPI_Status statuses[]))
{
    if (count <= 0 || !requests || !flag || !requests_outstanding())
        return PMPI_Request_get_status_all(count, requests, flag, statuses);
    return completion_peek_array('l', count, requests, NULL, flag, NULL, NULL, statuses);
}

INTERPOSE(int, MPI_Request_get_status_some,
          (int count, REQUESTS_CONST MPI_Request requests[], int *outcount, int indices[],
           MPI_Status statuses[]))
{
    if (count <= 0 || !requests || !outcount || !indices || !requests_outstanding())
        return PMPI_Request_get_status_some(count, requests, outcount, indices, statuses);
    return completion_peek_array('s', count, requests, NULL, NULL, outcount, indices,
                                 statuses);
}
#endif
