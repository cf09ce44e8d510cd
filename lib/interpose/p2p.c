/* Blocking point-to-point calls (MPI_Mrecv included): a non-contiguous datatype memcomm handles travels as the
 * packed bytes of the MPI's own format (MPI_PACKED); everything else goes to the MPI as it
 * came (lib/p2p/message.h says which). */
#include "../base/mpiutil.h"
#include "../core/sendpath.h"
#include "../p2p/bufpool.h"
#include "../p2p/message.h"

/* Whether memcomm carries this side of a message; if so, `*packed` is its buffer (`fill`:
 * packed from `buf`), else the MPI gets the call as it came (also when memory is short).
 * `receive`: the buffer is received into. */
static bool carried(const void *buf, int count, MPI_Datatype type, int peer, bool fill,
                    bool receive, message *m, void **packed)
{
    if (!message_carries(buf, count, type, peer, receive, m))
        return false;
    *packed = fill ? message_pack(m, buf, count) : bufpool_take(m->bytes);
    if (!*packed)
        message_done(m);
    return *packed != NULL;
}

static bool packed_send(const void *buf, int count, MPI_Datatype type, int peer, message *m,
                        void **packed)
{
    return carried(buf, count, type, peer, true, false, m, packed);
}

static bool packed_receive(void *buf, int count, MPI_Datatype type, int peer, message *m,
                           void **packed)
{
    return carried(buf, count, type, peer, false, true, m, packed);
}

/* Blocking sends: packed, or the MPI's own datatype send, as lib/core/sendpath.h measures
 * per type and size (the first sends of each are timed trials of both). */
#define SEND_SHIM(NAME, PNAME)                                                                 \
    EXPORT int NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag,          \
                    MPI_Comm comm)                                                             \
    {                                                                                          \
        message m;                                                                             \
        if (!message_carries(buf, count, type, dest, false, &m))                               \
            return PNAME(buf, count, type, dest, tag, comm);                                   \
        send_choice choice = sendpath_choose(m.analysis, m.bytes);                             \
        const double start = choice.trial >= 0 ? PMPI_Wtime() : 0; /* timed trials only */     \
        void *packed = choice.path == SEND_PACKED ? message_pack(&m, buf, count) : NULL;       \
        int rc = packed ? PNAME(packed, (int)m.bytes, MPI_PACKED, dest, tag, comm)             \
                        : PNAME(buf, count, type, dest, tag, comm);                            \
        if (choice.trial >= 0 && rc == MPI_SUCCESS && (packed || choice.path == SEND_BY_MPI))  \
            sendpath_record(m.analysis, &choice, PMPI_Wtime() - start);                        \
        bufpool_give(packed);                                                                  \
        message_done(&m);                                                                      \
        return rc;                                                                             \
    }

SEND_SHIM(MPI_Send, PMPI_Send)
SEND_SHIM(MPI_Ssend, PMPI_Ssend)
SEND_SHIM(MPI_Rsend, PMPI_Rsend)
SEND_SHIM(MPI_Bsend, PMPI_Bsend)

/* After the MPI received into `packed`: unpack what arrived, give the buffer back. */
static void finish_receive(message *m, void *packed, int rc, const MPI_Status *status, void *buf)
{
    message_deliver(m, packed, rc, status, buf);
    bufpool_give(packed);
    message_done(m);
}

EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                    MPI_Status *status)
{
    message m;
    void *packed;
    if (!packed_receive(buf, count, type, source, &m, &packed))
        return PMPI_Recv(buf, count, type, source, tag, comm, status);
    MPI_Status own;
    MPI_Status *st = status_or(status, &own);
    int rc = PMPI_Recv(packed, (int)m.bytes, MPI_PACKED, source, tag, comm, st);
    finish_receive(&m, packed, rc, st, buf);
    return rc;
}

/* A matched message has its source already: MPI_PROC_NULL comes as MPI_MESSAGE_NO_PROC. */
EXPORT int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg,
                     MPI_Status *status)
{
    message m;
    void *packed;
    if (!msg || *msg == MPI_MESSAGE_NO_PROC || !packed_receive(buf, count, type, 0, &m, &packed))
        return PMPI_Mrecv(buf, count, type, msg, status);
    MPI_Status own;
    MPI_Status *st = status_or(status, &own);
    int rc = PMPI_Mrecv(packed, (int)m.bytes, MPI_PACKED, msg, st);
    finish_receive(&m, packed, rc, st, buf);
    return rc;
}

EXPORT int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                        int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                        int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    message out, in;
    void *packed_out = NULL, *packed_in = NULL;
    bool send_packed = packed_send(sendbuf, sendcount, sendtype, dest, &out, &packed_out);
    bool recv_packed = packed_receive(recvbuf, recvcount, recvtype, source, &in, &packed_in);
    MPI_Status own;
    MPI_Status *st = status_or(status, &own);
    int rc = PMPI_Sendrecv(send_packed ? packed_out : sendbuf,
                           send_packed ? (int)out.bytes : sendcount,
                           send_packed ? MPI_PACKED : sendtype, dest, sendtag,
                           recv_packed ? packed_in : recvbuf,
                           recv_packed ? (int)in.bytes : recvcount,
                           recv_packed ? MPI_PACKED : recvtype, source, recvtag, comm, st);
    if (send_packed) {
        bufpool_give(packed_out);
        message_done(&out);
    }
    if (recv_packed)
        finish_receive(&in, packed_in, rc, st, recvbuf);
    return rc;
}

EXPORT int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag,
                                int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    message m;
    void *packed;
    /* both directions use the one buffer: memcomm carries it only if it may for both */
    if (source == MPI_PROC_NULL || !carried(buf, count, type, dest, true, true, &m, &packed))
        return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm,
                                     status);
    MPI_Status own;
    MPI_Status *st = status_or(status, &own);
    int rc = PMPI_Sendrecv_replace(packed, (int)m.bytes, MPI_PACKED, dest, sendtag, source,
                                   recvtag, comm, st);
    finish_receive(&m, packed, rc, st, buf);
    return rc;
}
