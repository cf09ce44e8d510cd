#include "message.h"

#include <limits.h>
#include <stdatomic.h>
#include <string.h>

#include "../core/device.h"
#include "../core/sendpath.h"
#include "../core/stats.h"
#include "../core/typecache.h"
#include "../kernel/kernel.h"
#include "bufpool.h"

_Atomic uint64_t message_passing[MESSAGE_PASS_SLOTS];

bool message_one_run(const analysis *a, int64_t count)
{
    const plan *p = &a->plan;
    return p->kind == PLAN_CONTIG && (p->strided.block == p->extent || count == 1);
}

bool message_packable(const analysis *a, int64_t count)
{
    /* one contiguous run (a dense array, or a single block such as the x face of a C-order
     * array): the MPI sends it straight from the user's buffer, with no copy at all */
    return a->supported && !message_one_run(a, count) && a->bounds.size > 0;
}

bool message_worth_packing(const analysis *a, int64_t count)
{
    return message_packable(a, count) && !plan_long_blocks(&a->plan);
}

/* The last send and the last receive this thread found memcomm does not carry for a reason
 * of its type and count alone (one contiguous run at this count, as a single face of a
 * C-order array is; a packed size over an int; a receive into overlapping entries; a type
 * recognised by its fingerprint as one whose calls go to the MPI): the same call again
 * passes without a look at the type (about 165 instructions a call, the look-up and the
 * checks), while no cached type has been freed (the handle still names that type, whose
 * analysis said so); a recognised type's for MESSAGE_RECOGNISED_HITS calls, then it is
 * looked up again (one of its uses, typecache.h). */
enum { MESSAGE_RECOGNISED_HITS = 16 };

typedef struct {
    MPI_Datatype type;
    int64_t count;
    uint64_t generation;
    bool valid, recognised;
    uint32_t hits_left;
    sendpath_class *decided; /* a recognised type's point-to-point decision, whose calls a
                                blocking call counts (alive while the generation holds) */
} refusal;

static _Thread_local __attribute__((tls_model("initial-exec"))) refusal refused[2];

static bool refuse(MPI_Datatype type, int64_t count, bool receive, uint64_t generation,
                   analysis *a, bool recognised, sendpath_class *decided)
{
    refused[receive] = (refusal){type, count, generation, true, recognised,
                                 MESSAGE_RECOGNISED_HITS, decided};
    analysis_release(a);
    return false;
}

static bool refused_before(MPI_Datatype type, int64_t count, bool receive, bool counted,
                           uint64_t generation)
{
    refusal *r = &refused[receive];
    if (!r->valid || r->type != type || r->count != count || r->generation != generation)
        return false;
    if (r->recognised && counted && r->decided &&
        !sendpath_class_passes_unread(r->decided, 2, receive ? TRIAL_RECEIVE : TRIAL_SEND)) {
        r->valid = false; /* a check is due: this call reads the type */
        return false;
    }
    if (r->recognised && --r->hits_left == 0)
        r->valid = false; /* this call passes; the next looks again */
    return true;
}

/* A point-to-point call of a type that may be recognised (recognised_passes). */
typedef struct {
    int64_t count;
    bool receive, counted;   /* as message_takes_point_to_point's */
    sendpath_class *decided; /* set when recognised: its point-to-point decision, if any */
} recognition;

/* Whether a call (`*(recognition *)call`) of a type recognised as `a`'s goes to the MPI
 * without the type being read: not packable, too large, or a size whose point-to-point path
 * (or, with none measured, non-blocking path) is decided for the MPI's own
 * (typecache_will_do); a counted call of a decided point-to-point path counts as one of its
 * calls, and is read where its check is due. */
static bool recognised_passes(analysis *a, void *call)
{
    recognition *r = call;
    int64_t bytes;
    if (!message_packable(a, r->count) ||
        __builtin_mul_overflow(r->count, a->bounds.size, &bytes) || bytes > INT_MAX)
        return true;
    const int blocking = sendpath_untimed(a, USE_POINT_TO_POINT, bytes, 2, -1);
    if (blocking < 0)
        return sendpath_untimed(a, USE_NONBLOCKING, bytes, 2, -1) == SEND_BY_MPI;
    if (blocking != SEND_BY_MPI)
        return false;
    sendpath_class *c = sendpath_class_of(a, USE_POINT_TO_POINT, bytes);
    if (c && r->counted &&
        !sendpath_class_passes_unread(c, 2, r->receive ? TRIAL_RECEIVE : TRIAL_SEND))
        return false;
    r->decided = c;
    return true;
}

static bool takes(const void *buf, int64_t count, MPI_Datatype type, bool receive, bool recognise,
                  bool counted, message *m)
{
    if (count <= 0)
        return false;
    const uint64_t generation = typecache_generation();
    if (refused_before(type, count, receive, counted, generation))
        return false;
    bool recognised = false;
    recognition call = {count, receive, counted, NULL};
    analysis *a = recognise
                      ? typecache_acquire_recognised(type, recognised_passes, &call, &recognised)
                      : typecache_acquire(type);
    if (recognised)
        return refuse(type, count, receive, generation, a, true, call.decided);
    if (!a) /* not committed (yet): the MPI judges it */
        return false;
    if (!buf && !analysis_at_addresses(a)) { /* a NULL buffer: the MPI's error, or its crash */
        analysis_release(a);
        return false;
    }
    if (!message_packable(a, count)) {
        message_mark_passing(type, a);
        return refuse(type, count, receive, generation, a, false, NULL);
    }
    if (__builtin_mul_overflow(count, a->bounds.size, &m->bytes) || m->bytes > INT_MAX ||
        (receive && !analysis_unpack_disjoint(a, count)))
        return refuse(type, count, receive, generation, a, false, NULL);
    m->analysis = a;
    return true;
}

bool message_takes_analysed(const void *buf, int64_t count, MPI_Datatype type, bool receive,
                            message *m)
{
    return takes(buf, count, type, receive, false, false, m);
}

bool message_takes_point_to_point(const void *buf, int64_t count, MPI_Datatype type,
                                  bool receive, bool counted, message *m)
{
    return takes(buf, count, type, receive, true, counted, m);
}

int message_undecided_path(const message *m)
{
    return plan_long_blocks(&m->analysis->plan) ? SEND_BY_MPI : SEND_PACKED;
}

bool message_left_to_mpi(const message *m, path_use use)
{
    return sendpath_untimed(m->analysis, use, m->bytes, 2, message_undecided_path(m)) ==
           SEND_BY_MPI;
}

void *message_staging(const message *m, const void *buf)
{
    return device_memory(analysis_data_at(m->analysis, buf)) ? NULL : bufpool_take(m->bytes);
}

void *message_pack(const message *m, const void *buf, int64_t count)
{
    char *packed = message_staging(m, buf);
    if (packed) {
        kernel_pack_staging(&m->analysis->plan, (char *)buf, count, packed, m->bytes);
        stats_handled(m->bytes);
    }
    return packed;
}

void message_unpack(const message *m, const void *packed, int64_t received, void *buf)
{
    const analysis *a = m->analysis;
    const int64_t whole = received / a->bounds.size, rest = received % a->bounds.size;
    if (whole > 0) /* kernels walk at least one instance */
        a->plan.unpack(&a->plan, buf, whole, (char *)packed);
    if (rest)
        kernel_tree_unpack_prefix(a->normal, (char *)buf + whole * a->bounds.extent,
                                  (const char *)packed + whole * a->bounds.size, rest);
    stats_handled(received);
}

/* Unpack what the status's byte count says arrived. */
static void deliver_count(const message *m, const void *packed, const MPI_Status *status,
                          void *buf)
{
    int received = 0;
    if (PMPI_Get_count(status, MPI_PACKED, &received) == MPI_SUCCESS && received > 0 &&
        received <= m->bytes)
        message_unpack(m, packed, received, buf);
}

void message_deliver(const message *m, const void *packed, int rc, const MPI_Status *status,
                     void *buf)
{
    int cancelled = 0;
    if (rc != MPI_SUCCESS || status == MPI_STATUS_IGNORE)
        return;
    PMPI_Test_cancelled(status, &cancelled);
    if (!cancelled)
        deliver_count(m, packed, status, buf);
}

void message_deliver_read(const message *m, const void *packed, int rc,
                          const MPI_Status *status, void *buf)
{
    if (rc == MPI_SUCCESS && status != MPI_STATUS_IGNORE)
        deliver_count(m, packed, status, buf);
}

void message_done(message *m)
{
    analysis_release(m->analysis);
    m->analysis = NULL;
}
