/* Collectives through memcomm, against the MPI alone: MPI_Alltoall(v,w), MPI_Bcast,
 * MPI_Gather(v), MPI_Scatter(v), MPI_Allgather(v) and the MPI_Neighbor_ forms of the
 * alltoalls and allgathers on a graph of all ranks (their _c forms too where the MPI has
 * them), each blocking, non-blocking (completed by each completion call in turn) or
 * persistent (started twice, the first time from a scrambled send buffer), with random
 * datatypes of every constructor (one type per call, or one per ordered pair of ranks for
 * Alltoallw), random counts (zero included), roots and gaps between the peers' blocks,
 * MPI_IN_PLACE; plus a 2-D FFT's transpose (ddtbench's FFT2 receive layout: single complex
 * elements placed column by column), a slab FFT's redistributions (subarrays), every rooted
 * call with 1 MiB blocks, and carried requests in flight together. Every call is repeated by the MPI alone (the PMPI_ entry
 * points, which memcomm does not see, the same completion calls included) into an
 * identically prefilled buffer; compared: the error class and every byte of the receive
 * buffer, gaps included, except bytes the MPI alone writes differently before and after
 * memcomm's call (Open MPI's padding of MPI_LONG_DOUBLE) or, for a call memcomm left to the
 * MPI, when run again; where the MPI's collective
 * delivers other bytes than its own MPI_Pack and MPI_Unpack (Open MPI 5.0, for some types
 * with misaligned elements), either is accepted. Layouts whose receive blocks overlap are
 * compared by error class only (the MPI writes overlapping bytes in an order of its own).
 *
 * CTest runs it on 2 and 3 ranks, and with MEMCOMM_DISABLE=1 on one rank (a peer without
 * memcomm).
 *
 *   test_coll [--cases N] [--seed S] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "memcomm.h"
#include "recipe.h"

enum { GUARD = 64, MAX_SPAN = 1 << 20, FILL = 0x5A };
typedef enum {
    C_ALLTOALL,
    C_ALLTOALLV,
    C_ALLTOALLW,
    C_BCAST, /* the rooted and gathering calls from here */
    C_GATHER,
    C_GATHERV,
    C_SCATTER,
    C_SCATTERV,
    C_ALLGATHER,
    C_ALLGATHERV,
    CALLS
} call;
static const char *call_names[CALLS] = {
    "MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw", "MPI_Bcast",     "MPI_Gather",
    "MPI_Gatherv",  "MPI_Scatter",   "MPI_Scatterv",  "MPI_Allgather", "MPI_Allgatherv"};
/* the calls with an MPI_Neighbor_ form, and with an MPI_IN_PLACE form memcomm carries */
static bool has_neighbour_form(call how)
{
    return how <= C_ALLTOALLW || how >= C_ALLGATHER;
}
static bool has_in_place_form(call how)
{
    return how >= C_GATHER;
}

static int rank, nranks;
static int64_t max_span = MAX_SPAN; /* the largest buffer a case may take */
static bool large_count;
/* the case runs the MPI_Neighbor_ form on `neighbourhood`: a distributed graph whose sources
 * and destinations are all ranks in rank order (the rank itself included), so that block j
 * goes to and comes from rank j as in MPI_Alltoall */
static bool neighbour;
static MPI_Comm neighbourhood = MPI_COMM_NULL;
static long long failures, compared, overlapping, unstable, neighbour_calls, pack_differs;
static char case_recipe[1024]; /* of the last random type made, said if its case differs */

#if MEMCOMM_HAVE_LARGE_COUNT
#define FORM(CALL, ...) (large_count ? CALL##_c(__VA_ARGS__) : CALL(__VA_ARGS__))
#else
#define FORM(CALL, ...) CALL(__VA_ARGS__)
#endif

static int error_class(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

/* What every receive buffer holds before a call: a pattern of the position and the rank (so
 * that an MPI_IN_PLACE block is data of its own rank). */
static void prefill(unsigned char *b, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        b[k] = (unsigned char)(FILL + 31 * k + 101 * rank);
}

/* Bytes [lo, hi) that `count` instances of `t` at an origin may touch, relative to it. */
static void span_of(MPI_Datatype t, int64_t count, int64_t *lo, int64_t *hi)
{
    int size = 0;
    MPI_Type_size(t, &size);
    *lo = *hi = 0;
    if (count == 0 || size == 0) /* empty types report odd true bounds (Open MPI: INT64_MAX) */
        return;
    MPI_Aint lb, extent, tlb, textent;
    MPI_Type_get_extent(t, &lb, &extent);
    MPI_Type_get_true_extent(t, &tlb, &textent);
    const int64_t reach = (count - 1) * (int64_t)extent;
    *lo = tlb + (reach < 0 ? reach : 0);
    *hi = tlb + textent + (reach > 0 ? reach : 0);
}

/* One rank's side of a call: per peer a block (count instances of a type at a displacement
 * from the buffer's origin, in bytes), and the buffer. */
typedef struct {
    int64_t count[16], displ[16]; /* displ in bytes */
    MPI_Datatype type[16];
    unsigned char *buf;
    int64_t lo, span; /* the buffer is [origin + lo, origin + lo + span) */
} side;

static void *origin(const side *s) { return s->buf - s->lo; }

/* Whether the MPI writes every byte of the receive blocks once: no block overlaps another
 * (each block's bytes marked by an unpack of ones), and each one's own unpack is defined. */
static bool receive_defined(const side *s)
{
    unsigned char *mark = malloc((size_t)s->span), *seen = calloc((size_t)s->span, 1);
    bool defined = true;
    for (int j = 0; j < nranks && defined; j++) {
        int size = 0;
        MPI_Type_size(s->type[j], &size);
        const int64_t bytes = size * s->count[j];
        if (bytes == 0)
            continue;
        unsigned char *ones = malloc((size_t)bytes), *scratch = malloc((size_t)(2 * bytes));
        memset(ones, 1, (size_t)bytes);
        memset(mark, 0, (size_t)s->span);
        int pos = 0;
        unsigned char *at = mark - s->lo + s->displ[j];
        PMPI_Unpack(ones, (int)bytes, &pos, at, (int)s->count[j], s->type[j], MPI_COMM_SELF);
        for (int64_t k = 0; k < s->span && defined; k++) {
            defined = !(mark[k] && seen[k]);
            seen[k] |= mark[k];
        }
        defined = defined && recipe_unpack_is_defined(s->type[j], s->count[j], at, bytes, scratch);
        free(ones);
        free(scratch);
    }
    free(mark);
    free(seen);
    return defined;
}

/* What the same blocks deliver by the MPI's own pack and unpack (PMPI_Pack, PMPI_Unpack),
 * the bytes moved between the ranks as MPI_PACKED, into a fresh buffer prefilled like the
 * others. */
static unsigned char *pack_reference(const side *send, const side *recv)
{
    unsigned char *got = malloc((size_t)recv->span), *in[16] = {0}, *out[16] = {0};
    int in_size[16] = {0};
    prefill(got, recv->span);
    MPI_Request requests[32];
    int n = 0;
    for (int j = 0; j < nranks; j++) {
        int size = 0, position = 0;
        PMPI_Pack_size((int)recv->count[j], recv->type[j], MPI_COMM_WORLD, &in_size[j]);
        in[j] = malloc((size_t)in_size[j] + 1);
        PMPI_Irecv(in[j], in_size[j], MPI_PACKED, j, 77, MPI_COMM_WORLD, &requests[n++]);
        PMPI_Pack_size((int)send->count[j], send->type[j], MPI_COMM_WORLD, &size);
        out[j] = malloc((size_t)size + 1);
        PMPI_Pack(send->buf - send->lo + send->displ[j], (int)send->count[j], send->type[j],
                  out[j], size, &position, MPI_COMM_WORLD);
        PMPI_Isend(out[j], position, MPI_PACKED, j, 77, MPI_COMM_WORLD, &requests[n++]);
    }
    PMPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
    for (int j = 0; j < nranks; j++) {
        int position = 0;
        PMPI_Unpack(in[j], in_size[j], &position, got - recv->lo + recv->displ[j],
                    (int)recv->count[j], recv->type[j], MPI_COMM_WORLD);
        free(in[j]);
        free(out[j]);
    }
    return got;
}

/* The case's rooted-call settings: the root, and whether the root's (MPI_Gather(v),
 * MPI_Scatter(v)) or every rank's (MPI_Allgather(v)) own block is MPI_IN_PLACE. */
static int root;
static bool in_place;

/* How the case's call is made: blocking; non-blocking (MPI_I...), its request completed by
 * one of the completion calls in turn; or persistent (..._init), started twice (the first
 * time from a scrambled send buffer: each start must pack anew), completed as the
 * non-blocking ones, then freed. */
typedef enum { F_BLOCKING, F_NONBLOCKING, F_PERSISTENT, FORMS } call_form;
static const char *form_names[FORMS] = {"blocking", "non-blocking", "persistent"};
static call_form form;
static long long carried_forms[CALLS][FORMS]; /* calls memcomm packed or unpacked in */
enum { COMPLETIONS = 9 };
static const char *completion_names[COMPLETIONS] = {
    "MPI_Wait",    "MPI_Test",     "MPI_Waitall",  "MPI_Testall",           "MPI_Waitany",
    "MPI_Testany", "MPI_Waitsome", "MPI_Testsome", "MPI_Request_get_status"};
static int completion; /* the completion call of memcomm's pass of the case */

/* Whether the cases make calls in form `f`: not the persistent one on Intel MPI 2021, whose
 * persistent collectives, alone, take small send buffers at the _init call, deliver nothing
 * at some ranks' second start, assert in the shared-memory transport on some derived types
 * (MPI_Allgather_init, seed 20261124 case 153) and hang on 3 ranks (MPI_Scatter_init of the
 * 1 MiB blocks), nor on MPICH 4.0, whose MPI_Start of them dies alone (SIGSEGV in UCX's
 * ucp_tag_send_nbx): no reference. memcomm passes Intel MPI's and carries MPICH 4.0's
 * (check_outstanding checks both). */
static bool form_made(call_form f)
{
    return f != F_PERSISTENT || !(recipe_mpi_is_intel_2021() || recipe_mpi_is_mpich_4_0());
}

/* `f`, or the non-blocking form where the cases make no calls in `f` */
static call_form made(call_form f)
{
    return form_made(f) ? f : F_NONBLOCKING;
}

/* The MPI function of a call in the case's form: memcomm's entry point (pass 0) or the MPI's
 * own (PMPI_), with the form's request arguments. */
#define PICK(NAME) (pass ? P##NAME : NAME)

/* Complete `*request` with completion call `how` (memcomm's entry point, pass 0, or the MPI's
 * own), among a null request (the array forms): its error code, as the call gives it. */
static int complete_by(int how, int pass, MPI_Request *request)
{
    MPI_Request both[2] = {MPI_REQUEST_NULL, *request};
    MPI_Status statuses[2];
    int flag = 0, index = -1, outcount = 0, indices[2], rc = MPI_SUCCESS;
    switch (how) {
    case 0:
        return PICK(MPI_Wait)(request, MPI_STATUS_IGNORE);
    case 1:
        while (rc == MPI_SUCCESS && !flag)
            rc = PICK(MPI_Test)(request, &flag, MPI_STATUS_IGNORE);
        return rc;
    case 2:
        rc = PICK(MPI_Waitall)(2, both, statuses);
        break;
    case 3:
        while (rc == MPI_SUCCESS && !flag)
            rc = PICK(MPI_Testall)(2, both, &flag, MPI_STATUSES_IGNORE);
        break;
    case 4:
        rc = PICK(MPI_Waitany)(2, both, &index, MPI_STATUS_IGNORE);
        break;
    case 5:
        while (rc == MPI_SUCCESS && !flag)
            rc = PICK(MPI_Testany)(2, both, &index, &flag, MPI_STATUS_IGNORE);
        break;
    case 6:
        rc = PICK(MPI_Waitsome)(2, both, &outcount, indices, statuses);
        break;
    case 7:
        while (rc == MPI_SUCCESS && outcount == 0)
            rc = PICK(MPI_Testsome)(2, both, &outcount, indices, MPI_STATUSES_IGNORE);
        break;
    default: /* found complete first (memcomm unpacks then), then completed */
        while (rc == MPI_SUCCESS && !flag)
            rc = PICK(MPI_Request_get_status)(*request, &flag, MPI_STATUS_IGNORE);
        return rc == MPI_SUCCESS ? PICK(MPI_Wait)(request, MPI_STATUS_IGNORE) : rc;
    }
    *request = both[1];
    return rc;
}

/* The request that a non-blocking or persistent call (pass 0: memcomm's, else the MPI's
 * alone) started with code `rc`, completed: its code. Persistent: started twice, the first
 * time with `send`'s buffer scrambled, then freed; the receive buffer (`recv` at `rbuf`) is
 * what the last completion left (what the program may read then), whatever the freeing
 * writes. */
static int complete(int rc, MPI_Request *request, int pass, const side *send,
                    const side *recv, void *rbuf)
{
    if (form == F_BLOCKING || rc != MPI_SUCCESS)
        return rc;
    if (form == F_NONBLOCKING)
        return complete_by(completion, pass, request);
    for (int round = 0; round < 2; round++) {
        for (int64_t k = 0; k < send->span; k++) /* scrambled, then back (a second xor) */
            send->buf[k] ^= 0xA5;
        if (rc == MPI_SUCCESS)
            rc = pass ? PMPI_Start(request) : MPI_Start(request);
        if (rc == MPI_SUCCESS)
            rc = complete_by((completion + round) % COMPLETIONS, pass, request);
    }
    unsigned char *received = (unsigned char *)rbuf + recv->lo, *kept = malloc(recv->span);
    memcpy(kept, received, recv->span);
    const int freed = pass ? PMPI_Request_free(request) : MPI_Request_free(request);
    memcpy(received, kept, recv->span);
    free(kept);
    return rc == MPI_SUCCESS ? freed : rc;
}

#if MEMCOMM_HAVE_PERSISTENT_COLLECTIVES
#define INIT_FORM(NAME, ...) PICK(NAME)(__VA_ARGS__, MPI_INFO_NULL, &request)
#else
#define INIT_FORM(NAME, ...) MPI_ERR_OTHER
#endif
#define IN_FORM(NAME, LOWER, SUFFIX, ...)                                                      \
    complete(form == F_BLOCKING      ? PICK(MPI_##NAME##SUFFIX)(__VA_ARGS__)                   \
             : form == F_NONBLOCKING ? PICK(MPI_I##LOWER##SUFFIX)(__VA_ARGS__, &request)       \
                                     : INIT_FORM(MPI_##NAME##_init##SUFFIX, __VA_ARGS__),      \
             &request, pass, send, recv, rbuf)
/* the MPI_Neighbor_ form on `neighbour` cases */
#define EITHER(NAME, LOWER, SUFFIX, ...)                                                       \
    (neighbour ? IN_FORM(Neighbor_##LOWER, neighbor_##LOWER, SUFFIX, __VA_ARGS__)              \
               : IN_FORM(NAME, LOWER, SUFFIX, __VA_ARGS__))

/* One call `how` of the case on `send` and `recv` (receiving at `rbuf`), by memcomm (pass 0)
 * or the MPI alone, in the int or (large_count) the _c form; `counts` are the arguments as
 * int64: send counts, send displacements, receive counts, receive displacements (in extents
 * where the call counts so), `wa` the byte displacements of MPI_Neighbor_alltoallw. */
static int invoke(call how, int pass, const side *send, const side *recv, void *rbuf,
                  int64_t counts[4][16], MPI_Aint wa[2][16], MPI_Comm comm)
{
    const MPI_Datatype *st = send->type, *rt = recv->type;
    void *sbuf = origin(send);
    MPI_Request request = MPI_REQUEST_NULL;
    /* MPI_IN_PLACE: the root's (MPI_Gather(v), MPI_Scatter(v)) or everyone's (Allgather(v)) */
    const bool own_in_place = in_place && (how >= C_ALLGATHER || rank == root);
    const void *gbuf = own_in_place ? MPI_IN_PLACE : sbuf; /* a gathering call's send buffer */
    void *scatter_rbuf = own_in_place ? MPI_IN_PLACE : rbuf;
    int ci[4][16];
    MPI_Aint da[4][16];
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < nranks; j++) {
            ci[k][j] = (int)counts[k][j];
            da[k][j] = (MPI_Aint)counts[k][j];
        }
    (void)da;
#if MEMCOMM_HAVE_LARGE_COUNT
    if (large_count) {
        MPI_Count cc[4][16];
        for (int k = 0; k < 4; k++)
            for (int j = 0; j < nranks; j++)
                cc[k][j] = counts[k][j];
        switch (how) {
        case C_ALLTOALL:
            return EITHER(Alltoall, alltoall, _c, sbuf, cc[0][0], st[0], rbuf, cc[2][0], rt[0],
                          comm);
        case C_ALLTOALLV:
            return EITHER(Alltoallv, alltoallv, _c, sbuf, cc[0], da[1], st[0], rbuf, cc[2],
                          da[3], rt[0], comm);
        case C_ALLTOALLW:
            return EITHER(Alltoallw, alltoallw, _c, sbuf, cc[0], da[1], st, rbuf, cc[2], da[3],
                          rt, comm);
        case C_BCAST:
            return rank == root
                       ? IN_FORM(Bcast, bcast, _c, sbuf, cc[0][0], st[0], root, comm)
                       : IN_FORM(Bcast, bcast, _c, rbuf, cc[2][0], rt[0], root, comm);
        case C_GATHER:
            return IN_FORM(Gather, gather, _c, gbuf, cc[0][0], st[0], rbuf, cc[2][0], rt[0],
                           root, comm);
        case C_GATHERV:
            return IN_FORM(Gatherv, gatherv, _c, gbuf, cc[0][0], st[0], rbuf, cc[2], da[3],
                           rt[0], root, comm);
        case C_SCATTER:
            return IN_FORM(Scatter, scatter, _c, sbuf, cc[0][0], st[0], scatter_rbuf,
                           cc[2][0], rt[0], root, comm);
        case C_SCATTERV:
            return IN_FORM(Scatterv, scatterv, _c, sbuf, cc[0], da[1], st[0], scatter_rbuf,
                           cc[2][0], rt[0], root, comm);
        case C_ALLGATHER:
            return EITHER(Allgather, allgather, _c, gbuf, cc[0][0], st[0], rbuf, cc[2][0],
                          rt[0], comm);
        default:
            return EITHER(Allgatherv, allgatherv, _c, gbuf, cc[0][0], st[0], rbuf, cc[2],
                          da[3], rt[0], comm);
        }
    }
#endif
    switch (how) {
    case C_ALLTOALL:
        return EITHER(Alltoall, alltoall, , sbuf, ci[0][0], st[0], rbuf, ci[2][0], rt[0], comm);
    case C_ALLTOALLV:
        return EITHER(Alltoallv, alltoallv, , sbuf, ci[0], ci[1], st[0], rbuf, ci[2], ci[3],
                      rt[0], comm);
    case C_ALLTOALLW:
        if (neighbour)
            return IN_FORM(Neighbor_alltoallw, neighbor_alltoallw, , sbuf, ci[0], wa[0], st,
                           rbuf, ci[2], wa[1], rt, comm);
        return IN_FORM(Alltoallw, alltoallw, , sbuf, ci[0], ci[1], st, rbuf, ci[2], ci[3], rt,
                       comm);
    case C_BCAST:
        return rank == root ? IN_FORM(Bcast, bcast, , sbuf, ci[0][0], st[0], root, comm)
                            : IN_FORM(Bcast, bcast, , rbuf, ci[2][0], rt[0], root, comm);
    case C_GATHER:
        return IN_FORM(Gather, gather, , gbuf, ci[0][0], st[0], rbuf, ci[2][0], rt[0], root,
                       comm);
    case C_GATHERV:
        return IN_FORM(Gatherv, gatherv, , gbuf, ci[0][0], st[0], rbuf, ci[2], ci[3], rt[0],
                       root, comm);
    case C_SCATTER:
        return IN_FORM(Scatter, scatter, , sbuf, ci[0][0], st[0], scatter_rbuf, ci[2][0], rt[0],
                       root, comm);
    case C_SCATTERV:
        return IN_FORM(Scatterv, scatterv, , sbuf, ci[0], ci[1], st[0], scatter_rbuf, ci[2][0],
                       rt[0], root, comm);
    case C_ALLGATHER:
        return EITHER(Allgather, allgather, , gbuf, ci[0][0], st[0], rbuf, ci[2][0], rt[0],
                      comm);
    default:
        return EITHER(Allgatherv, allgatherv, , gbuf, ci[0][0], st[0], rbuf, ci[2], ci[3],
                      rt[0], comm);
    }
}

/* Whether every rank left the call to the MPI (`passed`) and some rank's bytes differ from
 * the MPI alone's. */
static bool passed_everywhere_but_differs(bool passed, bool differs)
{
    int all[2] = {passed, !differs};
    PMPI_Allreduce(MPI_IN_PLACE, all, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all[0] && !all[1];
}

/* Whether the MPI alone, running the call up to RERUNS more times, delivers on some rank
 * other bytes than `want`, its first answer. */
static bool mpi_alone_varies(call how, const side *send, const side *recv,
                             const unsigned char *want, int64_t counts[4][16],
                             MPI_Aint wa[2][16], MPI_Comm comm)
{
    enum { RERUNS = 4 };
    unsigned char *again = malloc((size_t)recv->span);
    int varies = 0;
    for (int run = 0; run < RERUNS && !varies; run++) {
        prefill(again, recv->span);
        invoke(how, 1, send, recv, again - recv->lo, counts, wa, comm);
        varies = memcmp(again, want, (size_t)recv->span) != 0;
        PMPI_Allreduce(MPI_IN_PLACE, &varies, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    }
    free(again);
    return varies;
}

/* Run `how` through memcomm and through the MPI alone; compare. `to` and `from` are what
 * the call moves to and from each peer (the sides themselves for the alltoalls; for the
 * rooted and gathering calls, the blocks as routed between the ranks), for the MPI's own
 * pack and unpack and for telling overlapping receive blocks. */
static void run_call(call how, side *send, side *recv, const side *to, const side *from,
                     const char *what)
{
    int64_t counts[4][16];
    MPI_Aint wa[2][16]; /* MPI_Neighbor_alltoallw's byte displacements */
    const MPI_Comm comm = neighbour ? neighbourhood : MPI_COMM_WORLD;
    MPI_Aint sext = 1, rext = 1, lb;
    if (how != C_ALLTOALLW) { /* displacements in units of the (one) type's extent */
        MPI_Type_get_extent(send->type[0], &lb, &sext);
        MPI_Type_get_extent(recv->type[0], &lb, &rext);
    }
    for (int j = 0; j < nranks; j++) {
        wa[0][j] = (MPI_Aint)send->displ[j];
        wa[1][j] = (MPI_Aint)recv->displ[j];
        counts[0][j] = send->count[j];
        counts[2][j] = recv->count[j];
        counts[1][j] = send->displ[j] / (sext ? sext : 1);
        counts[3][j] = recv->displ[j] / (rext ? rext : 1);
    }
    /* the MPI alone before and after memcomm: bytes it writes differently the two times
     * (Open MPI 5.0 fills MPI_LONG_DOUBLE's padding from whatever its previous call left)
     * have no reference and are not compared */
    unsigned char *want = malloc(2 * (size_t)recv->span), *before = want + recv->span;
    prefill(want, recv->span);
    prefill(before, recv->span);
    prefill(recv->buf, recv->span);
    int rc = MPI_SUCCESS, ref = MPI_SUCCESS, ref_before = MPI_SUCCESS;
    memcomm_stats stats_before, stats_after;
    for (int step = 0; step < 3; step++) {
        const int pass = step == 0 ? 2 : step - 1; /* 2: the MPI before, 0: memcomm, 1: after */
        /* memcomm's counts just before its pass and just after it (at the start of pass 1) */
        memcomm_stats_get(pass == 0 ? &stats_before : &stats_after);
        void *rbuf = (pass == 0 ? recv->buf : pass == 1 ? want : before) - recv->lo;
        *(pass == 0 ? &rc : pass == 1 ? &ref : &ref_before) =
            invoke(how, pass, send, recv, rbuf, counts, wa, comm);
    }
    const bool defined = receive_defined(from);
    overlapping += !defined;
    /* the MPI alone once more, by its own pack and unpack: where its collective moves other
     * bytes (Open MPI 5.0's send and collective paths take some elements of types with
     * misaligned doubles from one byte off, where its MPI_Pack and MPICH do not), what its
     * pack and unpack deliver is an answer of the MPI alone too */
    unsigned char *by_pack = pack_reference(to, from);
    int64_t at = -1;
    bool stable = true, collective_differs = false;
    for (int64_t k = 0; defined && k < recv->span; k++) {
        stable = stable && want[k] == before[k];
        collective_differs = collective_differs || (rc == MPI_SUCCESS && want[k] != by_pack[k]);
        if (recv->buf[k] != want[k] && want[k] == before[k] &&
            (rc != MPI_SUCCESS || recv->buf[k] != by_pack[k]) && at < 0)
            at = k;
    }
    /* a call memcomm handed to the MPI (it packed nothing) on which the MPI alone varies
     * (Open MPI's MPI_LONG_DOUBLE padding, filled from what its previous calls left): only
     * the error class can be compared */
    const bool passed = stats_after.handled_calls == stats_before.handled_calls;
    carried_forms[how][form] += !passed;
    if (passed && (!stable || collective_differs))
        at = -1;
    /* a call memcomm left to the MPI on every rank that differs from the MPI alone although
     * the MPI's two runs agreed: the MPI alone runs it again, and where it differs from itself
     * only the error class is compared (Open MPI 5.0.11's MPI_Allgatherv of a resized
     * subarray of MPI_DOUBLE_INT delivers some elements 5 bytes off in some runs on a loaded
     * machine, with MEMCOMM_DISABLE=1 too) */
    if (passed_everywhere_but_differs(passed, at >= 0) &&
        mpi_alone_varies(how, send, recv, want, counts, wa, comm)) {
        at = -1;
        stable = false;
    }
    free(by_pack);
    unstable += !stable || (passed && collective_differs);
    pack_differs += collective_differs;
    compared++;
    neighbour_calls += neighbour;
    if (error_class(rc) != error_class(ref) || error_class(ref) != error_class(ref_before) ||
        at >= 0) {
        failures++;
        fprintf(stderr,
                "test_coll: rank %d: %s%s%s (%s%s%s) of %s differs from the MPI alone: rc %d "
                "vs %d, bytes from %" PRId64 " of %" PRId64 "\n",
                rank, neighbour ? "MPI_Neighbor_" : "", call_names[how] + (neighbour ? 4 : 0),
                large_count ? "_c" : "", form_names[form], form ? ", completed by " : "",
                form ? completion_names[completion] : "", what, error_class(rc),
                error_class(ref), at, recv->span);
        if (strncmp(what, "random case", 11) == 0)
            fprintf(stderr, "test_coll: rank %d: its (last) type: %s\n", rank, case_recipe);
    }
    free(want);
}

/* Place the blocks of one side: each peer's `count` instances of its type in a region of its
 * own, `gap` bytes apart (Alltoallw), or as consecutive runs of instances with `gaps[j]` whole
 * instances after each (Alltoall, Alltoallv). False if the buffer would be too large. */
static bool place(side *s, call how, const int64_t gaps[16], uint64_t seed)
{
    int64_t lo = 0, hi = 0;
    if (how == C_ALLTOALLW) {
        int64_t cursor = 0;
        for (int j = 0; j < nranks; j++) {
            int64_t blo, bhi;
            span_of(s->type[j], s->count[j], &blo, &bhi);
            s->displ[j] = cursor - blo;
            cursor += bhi - blo + gaps[j];
        }
        lo = 0;
        hi = cursor;
    } else {
        MPI_Aint lb, extent;
        MPI_Type_get_extent(s->type[0], &lb, &extent);
        int64_t instances = 0;
        for (int j = 0; j < nranks; j++) {
            s->displ[j] = instances * extent;
            instances += s->count[j] + gaps[j];
        }
        span_of(s->type[0], instances, &lo, &hi);
    }
    s->lo = lo - GUARD;
    s->span = hi - lo + 2 * GUARD;
    if (s->span > max_span)
        return false;
    s->buf = malloc((size_t)s->span);
    rng r = {seed};
    for (int64_t k = 0; k < s->span; k++)
        s->buf[k] = (unsigned char)rng_next(&r);
    return true;
}

/* The type that rank `from` sends to rank `to` in case `c` (Alltoallw: one per pair; the
 * others: one per case), committed, or MPI_DATATYPE_NULL. */
static MPI_Datatype case_type(uint64_t seed, long long c, call how, int from, int to)
{
    uint64_t pair = how == C_ALLTOALLW ? (uint64_t)(from * 16 + to + 1) : 0;
    rng r = {seed ^ ((uint64_t)c * 0xD1B54A32D192ED03ull) ^ (pair * 0x9E3779B97F4A7C15ull)};
    recipe *rec = recipe_random(&r, (int)rng_range(&r, 1, 3));
    recipe_describe(rec, case_recipe, sizeof case_recipe);
    /* Intel MPI 2021's own MPI_Gather corrupts the heap, alone, on 3 ranks, on derived types
     * of MPI_LONG_DOUBLE_INT (hindexed_c(lens={3,3,3}, displs={98,136,64},
     * MPI_LONG_DOUBLE_INT), seed 20261124 case 116) and on types whose instances overlap
     * (resized(lb=10, extent=3, darray(... MPI_FLOAT)), case 562): no reference there */
    const bool intel = recipe_mpi_is_intel_2021();
    const bool taken =
        recipe_mpi_takes(rec) && !(intel && recipe_uses_basic(rec, MPI_LONG_DOUBLE_INT));
    MPI_Datatype t = taken ? recipe_build(rec) : MPI_DATATYPE_NULL;
    if (t != MPI_DATATYPE_NULL && MPI_Type_commit(&t) != MPI_SUCCESS)
        t = MPI_DATATYPE_NULL;
    recipe_free(rec);
    MPI_Aint lb, extent, true_lb, true_extent;
    if (t != MPI_DATATYPE_NULL && intel && MPI_Type_get_extent(t, &lb, &extent) == MPI_SUCCESS &&
        MPI_Type_get_true_extent(t, &true_lb, &true_extent) == MPI_SUCCESS &&
        true_extent > (extent < 0 ? -extent : extent))
        MPI_Type_free(&t);
    return t;
}

static void free_side(side *s, int types)
{
    for (int j = 0; j < types; j++)
        if (s->type[j] != MPI_DATATYPE_NULL)
            MPI_Type_free(&s->type[j]);
    free(s->buf);
}

/* Block `k` of side `s` as the block view `v` moves to or from peer `j`. */
static void route_block(side *v, int j, const side *s, int k)
{
    v->count[j] = s->count[k];
    v->displ[j] = s->displ[k];
    v->type[j] = s->type[k];
}

/* What a rooted or gathering call moves to (`to`) and from (`from`) each peer, as views of
 * the call's sides: the blocks as the MPI routes them between the ranks. An MPI_IN_PLACE
 * block of MPI_Allgather(v) is sent from the receive buffer as it was before the call,
 * `prefilled` (laid out like `recv`). */
static void route(call how, const side *send, const side *recv, side *to, side *from,
                  unsigned char *prefilled)
{
    *to = *send;
    *from = *recv;
    for (int j = 0; j < nranks; j++)
        to->count[j] = from->count[j] = 0;
    const bool at_root = rank == root;
    for (int j = 0; j < nranks; j++)
        switch (how) {
        case C_BCAST:
            if (at_root && j != root)
                route_block(to, j, send, 0);
            if (!at_root && j == root)
                route_block(from, j, recv, 0);
            break;
        case C_GATHER:
        case C_GATHERV:
            if (j == root && !(in_place && at_root))
                route_block(to, j, send, 0);
            if (at_root && !(in_place && j == root))
                route_block(from, j, recv, j);
            break;
        case C_SCATTER:
        case C_SCATTERV:
            if (at_root && !(in_place && j == root))
                route_block(to, j, send, j);
            if (j == root && !(in_place && at_root))
                route_block(from, j, recv, 0);
            break;
        default: /* MPI_Allgather(v) */
            if (in_place && j != rank) {
                to->buf = prefilled;
                to->lo = recv->lo;
                to->span = recv->span;
                route_block(to, j, recv, rank);
            } else if (!in_place) {
                route_block(to, j, send, 0);
            }
            if (!(in_place && j == rank))
                route_block(from, j, recv, j);
            break;
        }
}

/* A case of a rooted or gathering call on `send_type` and `recv_type` (the same signature;
 * freed here): rank j's count `each[j]` (the v forms) or `uniform`, `r`'s random gaps
 * between the blocks of a v side. */
static void run_rooted(call how, MPI_Datatype send_type, MPI_Datatype recv_type,
                       const int64_t each_in[16], int64_t uniform, rng *r, uint64_t seed,
                       const char *name)
{
    const bool v = how == C_GATHERV || how == C_SCATTERV || how == C_ALLGATHERV;
    int64_t each[16], sgaps[16] = {0}, rgaps[16] = {0}; /* each rank's count, on every rank */
    for (int j = 0; j < nranks; j++)
        each[j] = v ? each_in[j] : uniform;
    side send = {0}, recv = {0};
    for (int j = 0; j < nranks; j++) {
        send.type[j] = send_type;
        recv.type[j] = recv_type;
    }
    const bool at_root = rank == root;
    for (int j = 0; j < nranks; j++)
        switch (how) {
        case C_BCAST:
            (at_root ? &send : &recv)->count[0] = uniform;
            break;
        case C_GATHER:
        case C_GATHERV:
            send.count[0] = each[rank];
            recv.count[j] = at_root ? each[j] : 0;
            rgaps[j] = v ? rng_range(r, 0, 1) : 0;
            break;
        case C_SCATTER:
        case C_SCATTERV:
            send.count[j] = at_root ? each[j] : 0;
            sgaps[j] = v ? rng_range(r, 0, 1) : 0;
            recv.count[0] = each[rank];
            break;
        default:
            send.count[0] = each[rank];
            recv.count[j] = each[j];
            rgaps[j] = v ? rng_range(r, 0, 1) : 0;
            break;
        }
    int ok = send_type != MPI_DATATYPE_NULL && recv_type != MPI_DATATYPE_NULL &&
             place(&send, how, sgaps, seed + (uint64_t)rank) &&
             place(&recv, how, rgaps, seed + 99);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (ok) {
        char what[80];
        snprintf(what, sizeof what, "%s (root %d%s)", name, root,
                 in_place ? ", MPI_IN_PLACE" : "");
        unsigned char *prefilled = malloc((size_t)recv.span);
        prefill(prefilled, recv.span);
        side to, from;
        route(how, &send, &recv, &to, &from, prefilled);
        run_call(how, &send, &recv, &to, &from, what);
        free(prefilled);
    }
    free_side(&send, 1);
    free_side(&recv, 1);
}

/* A random case of a rooted or gathering call: one type (the same recipe on both sides and
 * every rank), a random root, counts uniform or per rank (the v forms), random gaps between
 * the blocks of a v side, MPI_IN_PLACE in a quarter of the cases that have it. */
static void run_random_rooted(uint64_t seed, long long c, call how, rng *r)
{
    root = (int)rng_range(r, 0, nranks - 1);
    in_place = has_in_place_form(how) && !neighbour && rng_range(r, 0, 3) == 0;
    const int64_t uniform = rng_range(r, 0, 3);
    int64_t each[16];
    for (int j = 0; j < nranks; j++) {
        rng jr = {seed ^ ((uint64_t)c << 20) ^ ((uint64_t)(j + 1) * 0x9E3779B97F4A7C15ull)};
        each[j] = rng_range(&jr, 0, 3);
    }
    char name[48];
    snprintf(name, sizeof name, "random case %lld", c);
    MPI_Datatype send_type = case_type(seed, c, how, 0, 0);
    MPI_Datatype recv_type = case_type(seed, c, how, 0, 0);
    MPI_Aint lb = 0, extent = 0;
    if (recv_type != MPI_DATATYPE_NULL)
        MPI_Type_get_extent(recv_type, &lb, &extent);
    /* Open MPI 5.0's own collectives corrupt the heap on some types of negative extent (its
     * MPI_Allgather with MPI_IN_PLACE, Bruck's algorithm on 3 ranks: "double free or
     * corruption", seed 31 case 2144): no reference there */
    if (extent < 0 && !recipe_mpi_is_mpich()) {
        MPI_Type_free(&send_type);
        MPI_Type_free(&recv_type);
        return;
    }
    run_rooted(how, send_type, recv_type, each, uniform, r, seed, name);
}

/* Every rooted and gathering call with blocks of 1 MiB (a column of doubles, every other
 * one): large enough for the MPIs' segmented and pipelined algorithms, which split these
 * calls by element counts (with a rank without memcomm: its counts and the memcomm ranks'
 * must split alike). Each root, MPI_IN_PLACE or not. */
static void run_large_rooted(void)
{
    const int64_t each[16] = {16, 8, 24, 16, 8, 24, 16, 8, 24, 16, 8, 24, 16, 8, 24, 16};
    max_span = 64 << 20;
    for (call how = C_BCAST; how < CALLS; how++)
        for (root = 0; root < nranks; root++) {
            neighbour = large_count = false;
            in_place = has_in_place_form(how) && root % 2 == 1;
            form = made((call_form)((how + root) % (MEMCOMM_HAVE_PERSISTENT_COLLECTIVES ? 3 : 2)));
            completion = (how + root) % COMPLETIONS;
            MPI_Datatype column[2];
            for (int k = 0; k < 2; k++) {
                MPI_Type_vector(4096, 1, 2, MPI_DOUBLE, &column[k]);
                MPI_Type_commit(&column[k]);
            }
            rng r = {(uint64_t)how * 7 + (uint64_t)root};
            run_rooted(how, column[0], column[1], each, 16, &r, 5, "1 MiB blocks");
        }
    max_span = MAX_SPAN;
}

static void run_random(uint64_t seed, long long c)
{
    rng r = {seed ^ ((uint64_t)c * 0x2545F4914F6CDD1Dull)};
    const call how = (call)rng_range(&r, 0, CALLS - 1);
    large_count = MEMCOMM_HAVE_LARGE_COUNT && rng_range(&r, 0, 1);
    neighbour = rng_range(&r, 0, 3) == 0 && has_neighbour_form(how);
    form = made((call_form)rng_range(&r, 0, MEMCOMM_HAVE_PERSISTENT_COLLECTIVES ? 2 : 1));
    completion = (int)rng_range(&r, 0, COMPLETIONS - 1);
    in_place = false;
    if (how >= C_BCAST) {
        run_random_rooted(seed, c, how, &r);
        return;
    }
    side send = {0}, recv = {0};
    int64_t uniform = rng_range(&r, 0, 3), sgaps[16], rgaps[16];
    const int types = how == C_ALLTOALLW ? nranks : 1;
    for (int j = 0; j < nranks; j++) {
        /* counts and gaps of every pair, the same on every rank */
        rng pr = {seed ^ ((uint64_t)c << 20) ^ (uint64_t)(rank * 16 + j)};
        rng qr = {seed ^ ((uint64_t)c << 20) ^ (uint64_t)(j * 16 + rank)};
        send.count[j] = how == C_ALLTOALL ? uniform : rng_range(&pr, 0, 3);
        recv.count[j] = how == C_ALLTOALL ? uniform : rng_range(&qr, 0, 3);
        sgaps[j] = how == C_ALLTOALL ? 0 : rng_range(&r, 0, how == C_ALLTOALLW ? 24 : 1);
        rgaps[j] = how == C_ALLTOALL ? 0 : rng_range(&r, 0, how == C_ALLTOALLW ? 24 : 1);
        if (j < types) {
            send.type[j] = case_type(seed, c, how, rank, j);
            recv.type[j] = case_type(seed, c, how, j, rank);
        }
    }
    for (int j = types; j < nranks; j++) {
        send.type[j] = send.type[0];
        recv.type[j] = recv.type[0];
    }
    int ok = 1;
    for (int j = 0; j < types; j++)
        ok &= send.type[j] != MPI_DATATYPE_NULL && recv.type[j] != MPI_DATATYPE_NULL;
    ok = ok && place(&send, how, sgaps, seed + (uint64_t)rank) &&
         place(&recv, how, rgaps, seed + 99);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (ok) {
        char what[64];
        snprintf(what, sizeof what, "random case %lld", c);
        run_call(how, &send, &recv, &send, &recv, what);
    }
    free_side(&send, types);
    free_side(&recv, types);
}

/* A 2-D FFT's transpose: each rank holds N/P rows of an N x N complex matrix and receives,
 * from each peer, N/P rows of its column block, placed column by column (ddtbench's FFT2
 * receive type: one complex element, resized, per column step). */
static void run_fft2(int n)
{
    neighbour = in_place = false;
    const int rows = n / nranks;
    MPI_Datatype square, block, column, element;
    MPI_Type_vector(rows, rows, n, MPI_C_DOUBLE_COMPLEX, &square); /* send: rows x rows */
    MPI_Type_create_resized(square, 0, rows * 16, &block);
    MPI_Type_vector(rows, 1, n, MPI_C_DOUBLE_COMPLEX, &column); /* receive: one column */
    MPI_Type_create_resized(column, 0, 16, &element);
    MPI_Type_commit(&block);
    MPI_Type_commit(&element);
    side send = {0}, recv = {0};
    int64_t gaps[16] = {0};
    for (int j = 0; j < nranks; j++) {
        send.type[j] = block;
        recv.type[j] = element;
        send.count[j] = 1;
        recv.count[j] = rows;
    }
    for (int width = 0; width < 1 + MEMCOMM_HAVE_LARGE_COUNT; width++) {
        large_count = width == 1;
        for (call how = C_ALLTOALL; how <= C_ALLTOALLW; how++) {
            form = (call_form)((how + width) % (MEMCOMM_HAVE_PERSISTENT_COLLECTIVES ? 3 : 2));
            completion = how;
            place(&send, how, gaps, 7 + (uint64_t)rank);
            place(&recv, how, gaps, 8);
            run_call(how, &send, &recv, &send, &recv, "a 2-D FFT's transpose");
            free(send.buf);
            free(recv.buf);
        }
    }
    MPI_Type_free(&square);
    MPI_Type_free(&column);
    MPI_Type_free(&block);
    MPI_Type_free(&element);
}

static MPI_Datatype subarray(const int sizes[3], const int sub[3], const int start[3])
{
    MPI_Datatype t;
    MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

/* A slab FFT's redistributions of an n^3 array of doubles, MPI_Alltoallw (and
 * MPI_Neighbor_alltoallw) of subarray types over one array per side (as bench_collectives
 * moves them): x- to y-slabs and x- to z-slabs, whose receive blocks are one run each (which
 * memcomm hands the MPI as bytes in place when it packs the other side); y- to x-slabs,
 * whose send blocks are; and z columns of x-slabs received as y rows of x-slabs, where
 * neither is. The rank's own block, which memcomm copies itself, takes each of its three
 * ways. */
/* The x-slab's block for peer 0 as one type for all peers (MPI_Alltoallv's), its extent one
 * double so that the peers' displacements are whole extents. */
static MPI_Datatype rows_of_x_slab(const int x_slab[3], const int rows[3])
{
    const int origin[3] = {0, 0, 0};
    MPI_Datatype block = subarray(x_slab, rows, origin), t;
    MPI_Type_create_resized(block, 0, 8, &t);
    MPI_Type_commit(&t);
    MPI_Type_free(&block);
    return t;
}

static void run_slabs(int n)
{
    neighbour = in_place = false;
    const int m = n / nranks, x_slab[3] = {m, n, n}, y_slab[3] = {n, m, n}, z_slab[3] = {n, n, m};
    const int rows[3] = {m, m, n}, columns[3] = {m, n, m}; /* the blocks: m x-planes of each */
    const char *names[6] = {"x- to y-slabs", "x- to z-slabs", "y- to x-slabs",
                            "z columns to y rows of x-slabs", "x- to y-slabs by Alltoallv",
                            "y- to x-slabs by Alltoallv"};
    for (int layout = 0; layout < 6; layout++) {
        side send = {0}, recv = {0};
        /* layouts 4 and 5: one type per side, a y-slab's block as m * m rows of n doubles */
        const bool by_v = layout >= 4;
        for (int q = 0; q < (by_v ? 1 : nranks); q++) {
            const int at_y[3] = {0, q * m, 0}, at_z[3] = {0, 0, q * m}, at_x[3] = {q * m, 0, 0};
            send.type[q] = layout == 0   ? subarray(x_slab, rows, at_y)
                           : layout == 2 ? subarray(y_slab, rows, at_x)
                           : layout == 4 ? rows_of_x_slab(x_slab, rows)
                                         : subarray(x_slab, columns, at_z);
            recv.type[q] = layout == 0   ? subarray(y_slab, rows, at_x)
                           : layout == 1 ? subarray(z_slab, columns, at_x)
                           : layout == 5 ? rows_of_x_slab(x_slab, rows)
                                         : subarray(x_slab, rows, at_y);
            send.count[q] = recv.count[q] = 1;
        }
        if (layout == 4 || layout == 5) { /* the y-slab's side: one run per peer */
            side *row_side = layout == 4 ? &recv : &send, *x_side = layout == 4 ? &send : &recv;
            MPI_Type_free(&row_side->type[0]);
            MPI_Type_contiguous(n, MPI_DOUBLE, &row_side->type[0]);
            MPI_Type_commit(&row_side->type[0]);
            for (int q = 0; q < nranks; q++) {
                row_side->type[q] = row_side->type[0]; /* one handle (freed once) */
                x_side->type[q] = x_side->type[0];
                row_side->count[q] = (int64_t)m * m;
                row_side->displ[q] = (int64_t)8 * q * m * m * n;
                x_side->count[q] = 1;
                x_side->displ[q] = (int64_t)8 * q * m * n;
            }
        }
        side *both[2] = {&send, &recv};
        for (int k = 0; k < 2; k++) { /* every slab holds m * n * n doubles */
            both[k]->lo = -GUARD;
            both[k]->span = (int64_t)8 * m * n * n + 2 * GUARD;
            both[k]->buf = malloc((size_t)both[k]->span);
            rng r = {(uint64_t)(layout * 16 + rank * 2 + k + 1)};
            for (int64_t b = 0; b < both[k]->span; b++)
                both[k]->buf[b] = (unsigned char)rng_next(&r);
        }
        for (int width = 0; width < 1 + MEMCOMM_HAVE_LARGE_COUNT; width++) {
            large_count = width == 1;
            for (call_form f = 0; f < 2 + MEMCOMM_HAVE_PERSISTENT_COLLECTIVES; f++) {
                form = f;
                completion = (layout * 3 + (int)f + width) % COMPLETIONS;
                for (int graph = 0; graph < 2; graph++) {
                    neighbour = graph == 1;
                    run_call(by_v ? C_ALLTOALLV : C_ALLTOALLW, &send, &recv, &send, &recv,
                             names[layout]);
                }
            }
        }
        neighbour = false;
        free_side(&send, by_v ? 1 : nranks);
        free_side(&recv, by_v ? 1 : nranks);
    }
}

/* MPI_IN_PLACE goes to the MPI: the same bytes as the MPI alone. */
static void check_in_place(void)
{
    MPI_Datatype column;
    MPI_Type_vector(4, 1, 3, MPI_INT, &column);
    MPI_Type_commit(&column);
    int mine[64], want[64];
    for (int k = 0; k < 64; k++)
        mine[k] = want[k] = rank * 100 + k;
    MPI_Aint lb, extent;
    MPI_Type_get_extent(column, &lb, &extent);
    CHECK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, mine, 1, column, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    CHECK(PMPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, want, 1, column, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    CHECK(memcmp(mine, want, sizeof mine) == 0);
    MPI_Type_free(&column);
}

/* Carried requests in flight together: two MPI_Ialltoall of column types on one
 * communicator and an MPI_Ibcast, completed by one MPI_Waitall in an order of the MPI's; and
 * a persistent MPI_Alltoall_init freed before any start, which leaves the receive buffer
 * alone. Compared with the MPI alone. */
static void check_outstanding(void)
{
    enum { N = 16 * 32 };
    MPI_Datatype column;
    MPI_Type_vector(8, 1, 4, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    static double send[2][N], mine[3][N], want[3][N];
    for (int k = 0; k < N; k++)
        for (int i = 0; i < 2; i++)
            send[i][k] = 100000.0 * i + 1000.0 * rank + k;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < N; k++)
            mine[i][k] = want[i][k] = -1.0 - k;
    for (int k = 0; rank == 0 && k < N; k++)
        mine[2][k] = want[2][k] = 7.0 * k;
    memcomm_stats before, after;
    memcomm_stats_get(&before);
    MPI_Request requests[3];
    CHECK(MPI_Ialltoall(send[0], 1, column, mine[0], 1, column, MPI_COMM_WORLD,
                        &requests[0]) == MPI_SUCCESS);
    CHECK(MPI_Ialltoall(send[1], 1, column, mine[1], 1, column, MPI_COMM_WORLD,
                        &requests[1]) == MPI_SUCCESS);
    CHECK(MPI_Ibcast(mine[2], 1, column, 0, MPI_COMM_WORLD, &requests[2]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(3, requests, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    memcomm_stats_get(&after);
    for (int i = 0; i < 2; i++)
        PMPI_Alltoall(send[i], 1, column, want[i], 1, column, MPI_COMM_WORLD);
    PMPI_Bcast(want[2], 1, column, 0, MPI_COMM_WORLD);
    CHECK(memcmp(mine, want, sizeof mine) == 0);
    const char *disabled = getenv("MEMCOMM_DISABLE");
    if (!disabled || !*disabled || !strcmp(disabled, "0"))
        CHECK(after.handled_calls > before.handled_calls);
#if MEMCOMM_HAVE_PERSISTENT_COLLECTIVES
    MPI_Request persistent;
    CHECK(MPI_Alltoall_init(send[0], 1, column, mine[0], 1, column, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &persistent) == MPI_SUCCESS);
    CHECK(MPI_Request_free(&persistent) == MPI_SUCCESS && persistent == MPI_REQUEST_NULL);
    CHECK(memcmp(mine, want, sizeof mine) == 0);
    /* an inactive one, found complete and completed again, leaves the buffer as the
     * program changed it after the last completion */
    CHECK(MPI_Alltoall_init(send[0], 1, column, mine[0], 1, column, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &persistent) == MPI_SUCCESS);
    memcomm_stats_get(&before);
    CHECK(MPI_Start(&persistent) == MPI_SUCCESS);
    CHECK(MPI_Wait(&persistent, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    memcomm_stats_get(&after);
    CHECK(memcmp(mine[0], want[0], sizeof mine[0]) == 0);
    /* carried, but on Intel MPI 2021, whose persistent collectives memcomm passes (MPICH
     * 4.0's it carries: the MPI moves packed bytes, where its own of derived types dies) */
    if (!disabled || !*disabled || !strcmp(disabled, "0"))
        CHECK(!recipe_mpi_is_intel_2021() ? after.handled_calls > before.handled_calls
                                          : after.handled_calls == before.handled_calls);
    for (int k = 0; k < N; k++)
        mine[0][k] = want[0][k] = 3.0 * k;
    int flag = 0;
    CHECK(MPI_Request_get_status(persistent, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag);
    CHECK(MPI_Wait(&persistent, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Request_free(&persistent) == MPI_SUCCESS);
    CHECK(memcmp(mine, want, sizeof mine) == 0);
#endif
    MPI_Type_free(&column);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks > 16) {
        if (rank == 0)
            fprintf(stderr, "test_coll: run on at most 16 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int everyone[16], weights[16]; /* weights, not MPI_UNWEIGHTED: gcc reads its sentinel */
    for (int j = 0; j < nranks; j++) {
        everyone[j] = j;
        weights[j] = 1;
    }
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nranks, everyone, weights, nranks, everyone,
                                   weights, MPI_INFO_NULL, 0, &neighbourhood);
    MPI_Comm_set_errhandler(neighbourhood, MPI_ERRORS_RETURN);
    long long cases = 900;
    uint64_t seed = 20261124;
    recipe_options(argc, argv, &cases, &seed);

    check_in_place();
    check_outstanding();
    run_fft2(12 * nranks);
    run_slabs(8 * nranks);
    run_large_rooted();
    for (long long c = 0; c < cases; c++)
        run_random(seed, c);

    long long total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    memcomm_stats stats;
    memcomm_stats_get(&stats);
    const char *disabled = getenv("MEMCOMM_DISABLE");
    const bool active = !disabled || !*disabled || !strcmp(disabled, "0");
    printf("test_coll: rank %d: %lld calls compared with the MPI alone (%lld of them "
           "MPI_Neighbor_ forms; %lld with overlapping receive blocks, by error class; %lld "
           "where the MPI alone wrote some bytes differently from one run to another, the "
           "others compared; %lld where the MPI's collective and its own pack and unpack deliver "
           "other bytes, either accepted), %lld differ; memcomm %s, packed or unpacked %llu "
           "times itself\n",
           rank, compared, neighbour_calls, overlapping, unstable, pack_differs, total,
           active ? "active" : "disabled", stats.handled_calls);
    CHECK(total == 0);
    /* the comparison proves something only if memcomm carried calls itself */
    CHECK(active ? stats.handled_calls >= 50 : stats.handled_calls == 0);
    CHECK(neighbour_calls > 0);
    /* and only for the calls it carried: every kind in every form, given enough cases */
    for (call_form f = 0; f < 2 + MEMCOMM_HAVE_PERSISTENT_COLLECTIVES; f++) {
        printf("test_coll: rank %d: %s calls memcomm carried:", rank, form_names[f]);
        for (call how = 0; how < CALLS; how++) {
            printf(" %s %lld%s", call_names[how] + 4, carried_forms[how][f],
                   how + 1 < CALLS ? "," : "\n");
            CHECK(!active || cases < 200 || !form_made(f) || carried_forms[how][f] > 0);
        }
    }
    int code = check_summary("test_coll");
    MPI_Comm_free(&neighbourhood);
    MPI_Finalize();
    return code;
}
