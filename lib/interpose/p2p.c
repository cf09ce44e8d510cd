/* Blocking point-to-point calls (MPI_Mrecv included): a non-contiguous datatype memcomm handles
 * travels as the packed bytes of the MPI's own format (MPI_PACKED); everything else goes to the
 * MPI as it came (lib/p2p/message.h says which).
 *
 * One definition per call, instantiated for the int form and, where the MPI declares them, the
 * MPI-4 large-count form (`_c`, MPI_Count counts). A packed message always fits an int count
 * (message.h), so both forms send the same packed call. */
#include "../base/mpiutil.h"
#include "../core/sendpath.h"
#include "../core/typecache.h"
#include "../p2p/bufpool.h"
#include "../p2p/message.h"
#include "../p2p/own_path.h"
#include "entry.h"

/* For a message memcomm carries, in a call that is not timed: its path is the one measured
 * (packed until there is one). If packed, `*packed` is its buffer (`fill`: packed from
 * `buf`); otherwise the MPI gets the call as it came (also when memory is short) and the
 * message is let go. */
static bool pack_if_decided(message *m, const void *buf, int64_t count, bool fill, void **packed)
{
    if (message_left_to_mpi(m, USE_POINT_TO_POINT)) {
        message_done(m);
        return false;
    }
    *packed = fill ? message_pack(m, buf, count) : message_staging(m, buf);
    if (!*packed)
        message_done(m);
    return *packed != NULL;
}

/* Whether memcomm carries this side of a message, in a call that is not timed, and packs it
 * (pack_if_decided). `receive`: the buffer is received into. */
static bool carried(const void *buf, int64_t count, MPI_Datatype type, int peer, bool fill,
                    bool receive, message *m, void **packed)
{
    return message_carries(buf, count, type, peer, receive, false, m) &&
           pack_if_decided(m, buf, count, fill, packed);
}

static bool packed_receive(void *buf, int64_t count, MPI_Datatype type, int peer, message *m,
                           void **packed)
{
    return carried(buf, count, type, peer, false, true, m, packed);
}

/* After the MPI received into `packed`: unpack what arrived, give the buffer back. */
static void finish_receive(message *m, void *packed, int rc, const MPI_Status *status, void *buf)
{
    message_deliver(m, packed, rc, status, buf);
    bufpool_give(packed);
    message_done(m);
}

/* The entry of a blocking call: one it will not carry goes to the MPI as a tail call, before
 * any frame of memcomm's own (what that leaves on an 8-byte MPI_DOUBLE send is counted by
 * `memcomm bench pingpong --simulate`); the rest goes to NAME##_carried. */
#define PASS_FIRST(NAME, PNAME, TYPE, PEER, PARAMS, ARGS)                                      \
    INTERPOSE(int, NAME, PARAMS)                                                               \
    {                                                                                          \
        if (message_passes_at_once(TYPE, PEER))                                                \
            return PNAME ARGS;                                                                 \
        return NAME##_carried ARGS;                                                            \
    }

/* After a blocking call that went to the MPI's own path by a decision, not timed
 * (lib/p2p/own_path.h); `generation`: read before the type was looked up. */
static void memo_remember(const message *m, int64_t count, MPI_Datatype type, int kind,
                          uint64_t generation, const send_choice *c)
{
    if (c->timed || c->trial >= 0 || c->path != SEND_BY_MPI)
        return;
    const bool fixed = config_get()->send_path == CONFIG_SEND_BY_MPI;
    own_path_remember(type, count, kind, generation,
                      fixed ? NULL : sendpath_class_of(m->analysis, USE_POINT_TO_POINT, m->bytes),
                      fixed);
}

/* The path of a blocking send or receive (lib/core/sendpath.h), timed when it is a trial or
 * a sample. */
typedef struct {
    send_choice choice;
    double start;
} timed_path;

static timed_path path_begin(const message *m, int side)
{
    timed_path t = {sendpath_choose(m->analysis, USE_POINT_TO_POINT, m->bytes, 2, side), 0};
    if (t.choice.timed)
        t.start = PMPI_Wtime();
    return t;
}

/* After the call (rc): record a timed call that ran the path it was given (`packed`: whether the
 * call was packed, which it may not be for want of memory), and let the message go. */
static void path_end(message *m, const timed_path *t, int rc, bool packed, void *buffer)
{
    if (t->choice.timed && rc == MPI_SUCCESS && packed == (t->choice.path == SEND_PACKED))
        sendpath_record(m->analysis, &t->choice, PMPI_Wtime() - t->start);
    bufpool_give(buffer);
    message_done(m);
}

/* Blocking sends and receives: packed, or the MPI's own datatype path, as measured per type
 * and size (the first calls of each are timed trials of both). */
#define SEND_SHIM(NAME, PNAME, COUNT_T)                                                        \
    static __attribute__((noinline)) int NAME##_carried(const void *buf, COUNT_T count,        \
                                                        MPI_Datatype type, int dest, int tag,  \
                                                        MPI_Comm comm)                         \
    {                                                                                          \
        if (own_path_passes(type, count, TRIAL_SEND))                                              \
            return PNAME(buf, count, type, dest, tag, comm);                                   \
        const uint64_t generation = typecache_generation();                                    \
        message m;                                                                             \
        if (!message_carries(buf, count, type, dest, false, true, &m))                         \
            return PNAME(buf, count, type, dest, tag, comm);                                   \
        const timed_path t = path_begin(&m, TRIAL_SEND);                                       \
        memo_remember(&m, count, type, TRIAL_SEND, generation, &t.choice);                     \
        void *packed = t.choice.path == SEND_PACKED ? message_pack(&m, buf, count) : NULL;     \
        int rc = packed ? PNAME(packed, (COUNT_T)m.bytes, MPI_PACKED, dest, tag, comm)         \
                        : PNAME(buf, count, type, dest, tag, comm);                            \
        path_end(&m, &t, rc, packed != NULL, packed);                                          \
        return rc;                                                                             \
    }                                                                                          \
    PASS_FIRST(NAME, PNAME, type, dest,                                                        \
               (const void *buf, COUNT_T count, MPI_Datatype type, int dest, int tag,          \
                MPI_Comm comm),                                                                \
               (buf, count, type, dest, tag, comm))

#define RECV_SHIM(NAME, PNAME, COUNT_T)                                                        \
    static __attribute__((noinline)) int NAME##_carried(void *buf, COUNT_T count,              \
                                                        MPI_Datatype type, int source,         \
                                                        int tag, MPI_Comm comm,                \
                                                        MPI_Status *status)                    \
    {                                                                                          \
        if (own_path_passes(type, count, TRIAL_RECEIVE))                                           \
            return PNAME(buf, count, type, source, tag, comm, status);                         \
        const uint64_t generation = typecache_generation();                                    \
        message m;                                                                             \
        if (!message_carries(buf, count, type, source, true, true, &m))                        \
            return PNAME(buf, count, type, source, tag, comm, status);                         \
        const timed_path t = path_begin(&m, TRIAL_RECEIVE);                                    \
        memo_remember(&m, count, type, TRIAL_RECEIVE, generation, &t.choice);                  \
        void *packed = t.choice.path == SEND_PACKED ? message_staging(&m, buf) : NULL;         \
        MPI_Status own;                                                                        \
        MPI_Status *st = status_or(status, &own);                                              \
        int rc = packed ? PNAME(packed, (COUNT_T)m.bytes, MPI_PACKED, source, tag, comm, st)   \
                        : PNAME(buf, count, type, source, tag, comm, st);                      \
        if (packed)                                                                            \
            message_deliver(&m, packed, rc, st, buf);                                          \
        path_end(&m, &t, rc, packed != NULL, packed);                                          \
        return rc;                                                                             \
    }                                                                                          \
    PASS_FIRST(NAME, PNAME, type, source,                                                      \
               (void *buf, COUNT_T count, MPI_Datatype type, int source, int tag,              \
                MPI_Comm comm, MPI_Status *status),                                            \
               (buf, count, type, source, tag, comm, status))

/* A matched message has its source already: MPI_PROC_NULL comes as MPI_MESSAGE_NO_PROC. */
#define MRECV_SHIM(NAME, PNAME, COUNT_T)                                                       \
    INTERPOSE(int, NAME,                                                                       \
              (void *buf, COUNT_T count, MPI_Datatype type, MPI_Message *msg,                  \
               MPI_Status *status))                                                            \
    {                                                                                          \
        message m;                                                                             \
        void *packed;                                                                          \
        if (!msg || *msg == MPI_MESSAGE_NO_PROC ||                                             \
            !packed_receive(buf, count, type, 0, &m, &packed))                                 \
            return PNAME(buf, count, type, msg, status);                                       \
        MPI_Status own;                                                                        \
        MPI_Status *st = status_or(status, &own);                                              \
        int rc = PNAME(packed, (COUNT_T)m.bytes, MPI_PACKED, msg, st);                         \
        finish_receive(&m, packed, rc, st, buf);                                               \
        return rc;                                                                             \
    }

/* A halo exchange (one type and size both ways) is timed as a trial of both paths, as a
 * blocking send is, so that a program that only calls Sendrecv gets a decision too; other
 * pairs follow the decision (packed until there is one). */
#define SENDRECV_SHIM(NAME, PNAME, COUNT_T)                                                    \
    INTERPOSE(int, NAME,                                                                       \
              (const void *sendbuf, COUNT_T sendcount, MPI_Datatype sendtype, int dest,        \
               int sendtag, void *recvbuf, COUNT_T recvcount, MPI_Datatype recvtype,           \
               int source, int recvtag, MPI_Comm comm, MPI_Status *status))                    \
    {                                                                                          \
        const bool one_kind = sendtype == recvtype && sendcount == recvcount;                  \
        if (one_kind && own_path_passes(sendtype, sendcount, OWN_PATH_EXCHANGE))               \
            return PNAME(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,      \
                         recvtype, source, recvtag, comm, status);                             \
        const uint64_t generation = typecache_generation();                                    \
        message out, in;                                                                       \
        void *packed_out = NULL, *packed_in = NULL;                                            \
        const bool carry_out =                                                                 \
            message_carries(sendbuf, sendcount, sendtype, dest, false, one_kind, &out);        \
        const bool carry_in =                                                                  \
            message_carries(recvbuf, recvcount, recvtype, source, true, false, &in);           \
        const bool exchange = carry_out && carry_in && out.analysis == in.analysis &&           \
                              out.bytes == in.bytes;                                           \
        timed_path t = {0};                                                                    \
        bool send_packed = false, recv_packed = false;                                         \
        if (exchange) {                                                                        \
            t = path_begin(&out, TRIAL_SEND);                                                  \
            if (one_kind)                                                                      \
                memo_remember(&out, sendcount, sendtype, OWN_PATH_EXCHANGE, generation,        \
                              &t.choice);                                                      \
            if (t.choice.path == SEND_PACKED) {                                                \
                send_packed = (packed_out = message_pack(&out, sendbuf, sendcount)) != NULL;   \
                recv_packed = (packed_in = message_staging(&in, recvbuf)) != NULL;             \
            }                                                                                  \
        } else {                                                                               \
            send_packed = carry_out && pack_if_decided(&out, sendbuf, sendcount, true,         \
                                                       &packed_out);                           \
            recv_packed = carry_in && pack_if_decided(&in, recvbuf, recvcount, false,          \
                                                      &packed_in);                             \
        }                                                                                      \
        MPI_Status own;                                                                        \
        MPI_Status *st = status_or(status, &own);                                              \
        int rc = PNAME(send_packed ? packed_out : sendbuf,                                     \
                       send_packed ? (COUNT_T)out.bytes : sendcount,                           \
                       send_packed ? MPI_PACKED : sendtype, dest, sendtag,                     \
                       recv_packed ? packed_in : recvbuf,                                      \
                       recv_packed ? (COUNT_T)in.bytes : recvcount,                            \
                       recv_packed ? MPI_PACKED : recvtype, source, recvtag, comm, st);        \
        if (exchange) {                                                                        \
            path_end(&out, &t, rc, send_packed && recv_packed, packed_out);                    \
            if (recv_packed)                                                                   \
                finish_receive(&in, packed_in, rc, st, recvbuf);                               \
            else                                                                               \
                message_done(&in);                                                             \
            return rc;                                                                         \
        }                                                                                      \
        if (send_packed) {                                                                     \
            bufpool_give(packed_out);                                                          \
            message_done(&out);                                                                \
        }                                                                                      \
        if (recv_packed)                                                                       \
            finish_receive(&in, packed_in, rc, st, recvbuf);                                   \
        return rc;                                                                             \
    }

/* Both directions use the one buffer: memcomm carries it only if it may for both. */
#define SENDRECV_REPLACE_SHIM(NAME, PNAME, COUNT_T)                                            \
    INTERPOSE(int, NAME,                                                                       \
              (void *buf, COUNT_T count, MPI_Datatype type, int dest, int sendtag, int source, \
               int recvtag, MPI_Comm comm, MPI_Status *status))                                \
    {                                                                                          \
        message m;                                                                             \
        void *packed;                                                                          \
        if (source == MPI_PROC_NULL || !carried(buf, count, type, dest, true, true, &m, &packed)) \
            return PNAME(buf, count, type, dest, sendtag, source, recvtag, comm, status);      \
        MPI_Status own;                                                                        \
        MPI_Status *st = status_or(status, &own);                                              \
        int rc = PNAME(packed, (COUNT_T)m.bytes, MPI_PACKED, dest, sendtag, source, recvtag,   \
                       comm, st);                                                              \
        finish_receive(&m, packed, rc, st, buf);                                               \
        return rc;                                                                             \
    }

/* Every blocking call in one form: SUFFIX is empty (int counts) or _c (MPI_Count). */
#define BLOCKING_CALLS(SUFFIX, COUNT_T)                                                        \
    SEND_SHIM(MPI_Send##SUFFIX, PMPI_Send##SUFFIX, COUNT_T)                                    \
    SEND_SHIM(MPI_Ssend##SUFFIX, PMPI_Ssend##SUFFIX, COUNT_T)                                  \
    SEND_SHIM(MPI_Rsend##SUFFIX, PMPI_Rsend##SUFFIX, COUNT_T)                                  \
    SEND_SHIM(MPI_Bsend##SUFFIX, PMPI_Bsend##SUFFIX, COUNT_T)                                  \
    RECV_SHIM(MPI_Recv##SUFFIX, PMPI_Recv##SUFFIX, COUNT_T)                                    \
    MRECV_SHIM(MPI_Mrecv##SUFFIX, PMPI_Mrecv##SUFFIX, COUNT_T)                                 \
    SENDRECV_SHIM(MPI_Sendrecv##SUFFIX, PMPI_Sendrecv##SUFFIX, COUNT_T)                        \
    SENDRECV_REPLACE_SHIM(MPI_Sendrecv_replace##SUFFIX, PMPI_Sendrecv_replace##SUFFIX, COUNT_T)

BLOCKING_CALLS(, int)
#if MEMCOMM_HAVE_LARGE_COUNT
BLOCKING_CALLS(_c, MPI_Count)
#endif
