/* Experiments on one message between two ranks (Byna, Cameron and Sun, section 6): rank 0 sends, rank 1
 * receives, and each rank's time in its own calls is reported separately, because the
 * sender's and the receiver's overheads differ.
 *
 *   noncontig    contiguous vs strided (block 1 double, stride 16), 64 B to 4 MiB (6.1)
 *   blocking     MPI_Send vs MPI_Isend (the call alone, and with its MPI_Wait) (6.2)
 *   ddt-vs-pack  a vector datatype vs a user pack/unpack loop, strides 16, 32, 64 (6.3)
 *
 * After each message the receiver sends an empty acknowledgement, outside the timed part, so
 * messages never pile up in the MPI's buffers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments.h"

typedef enum { CALL_SEND, CALL_ISEND, CALL_ISEND_WAIT } send_call;

typedef struct {
    int rank;
    int64_t n, stride; /* doubles in the message; stride 1 is contiguous */
    double *array;     /* n * stride doubles: the message's elements at every stride-th */
    double *packed;    /* n doubles: the user's packing buffer */
    MPI_Datatype type; /* the layout as a datatype (stride > 1) */
    send_call call;
    bool user_pack;
} oneway;

static void user_pack(const oneway *o)
{
    for (int64_t i = 0; i < o->n; i++)
        o->packed[i] = o->array[i * o->stride];
}

static void user_unpack(const oneway *o)
{
    for (int64_t i = 0; i < o->n; i++)
        o->array[i * o->stride] = o->packed[i];
}

static double oneway_sample(void *ctx, int64_t inner)
{
    oneway *o = ctx;
    const bool contiguous = o->stride == 1 || o->user_pack;
    void *data = o->user_pack ? (void *)o->packed : o->array;
    const int count = contiguous ? (int)o->n : 1;
    MPI_Datatype type = contiguous ? MPI_DOUBLE : o->type;
    double total = 0;
    for (int64_t k = 0; k < inner; k++) {
        if (o->rank == 0) {
            MPI_Request request;
            double t0 = MPI_Wtime();
            if (o->user_pack)
                user_pack(o);
            if (o->call == CALL_SEND) {
                MPI_Send(data, count, type, 1, 0, MPI_COMM_WORLD);
            } else {
                MPI_Isend(data, count, type, 1, 0, MPI_COMM_WORLD, &request);
                if (o->call == CALL_ISEND_WAIT)
                    MPI_Wait(&request, MPI_STATUS_IGNORE);
            }
            total += MPI_Wtime() - t0;
            if (o->call == CALL_ISEND)
                MPI_Wait(&request, MPI_STATUS_IGNORE);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (o->rank == 1) {
            double t0 = MPI_Wtime();
            MPI_Recv(data, count, type, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (o->user_pack)
                user_unpack(o);
            total += MPI_Wtime() - t0;
            MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
    return total;
}

static void oneway_measure(const timing *t, const char *experiment, const char *method,
                           const char *params, int rank, int64_t bytes, int64_t stride,
                           send_call call, bool pack_by_hand)
{
    oneway o = {.rank = rank, .n = bytes / 8, .stride = stride, .call = call,
                .user_pack = pack_by_hand};
    o.array = harness_alloc(o.n * stride * 8);
    o.packed = harness_alloc(o.n * 8);
    for (int64_t i = 0; i < o.n * stride; i++)
        o.array[i] = (double)i;
    if (stride > 1) {
        MPI_Type_vector((int)o.n, 1, (int)stride, MPI_DOUBLE, &o.type);
        MPI_Type_commit(&o.type);
    }
    measurement m = {experiment, method, {"sender", "receiver"}, bytes, ""};
    snprintf(m.params, sizeof m.params, "%s", params);
    harness_measure(t, &m, oneway_sample, &o, MPI_COMM_WORLD);
    if (stride > 1)
        MPI_Type_free(&o.type);
    free(o.array);
    free(o.packed);
}

static const char *const default_message_sizes = "64,256,1K,4K,16K,64K,256K,1M,4M";

int experiment_noncontig(const timing *t, const char *sizes, int argc, char **argv)
{
    if (harness_no_options(argc, argv))
        return 2;
    int64_t bytes[64];
    int n = harness_sizes(sizes, default_message_sizes, bytes, 64, 8, 1ll << 30);
    if (n < 0)
        return 2;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < n; i++) {
        harness_progress("noncontig");
        oneway_measure(t, "noncontig", "contiguous", "\"stride\": 1", rank, bytes[i], 1, CALL_SEND,
                       false);
        oneway_measure(t, "noncontig", "strided", "\"stride\": 16", rank, bytes[i], 16, CALL_SEND,
                       false);
    }
    return 0;
}

int experiment_blocking(const timing *t, const char *sizes, int argc, char **argv)
{
    if (harness_no_options(argc, argv))
        return 2;
    int64_t bytes[64];
    int n = harness_sizes(sizes, default_message_sizes, bytes, 64, 8, 1ll << 30);
    if (n < 0)
        return 2;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static const struct {
        const char *name;
        send_call call;
    } calls[] = {{"MPI_Send", CALL_SEND},
                 {"MPI_Isend", CALL_ISEND},
                 {"MPI_Isend+MPI_Wait", CALL_ISEND_WAIT}};
    for (int i = 0; i < n; i++)
        for (int stride = 1; stride <= 16; stride += 15)
            for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
                harness_progress("blocking");
                char params[64];
                snprintf(params, sizeof params, "\"stride\": %d", stride);
                oneway_measure(t, "blocking", calls[c].name, params, rank, bytes[i], stride,
                               calls[c].call, false);
            }
    return 0;
}

int experiment_ddt_vs_pack(const timing *t, const char *sizes, int argc, char **argv)
{
    if (harness_no_options(argc, argv))
        return 2;
    int64_t bytes[64];
    int n = harness_sizes(sizes, "4K,64K,1M", bytes, 64, 8, 1ll << 30);
    if (n < 0)
        return 2;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < n; i++) {
        oneway_measure(t, "ddt-vs-pack", "contiguous", "\"stride\": 1", rank, bytes[i], 1,
                       CALL_SEND, false);
        for (int stride = 16; stride <= 64; stride *= 2) {
            harness_progress("ddt-vs-pack");
            char params[64];
            snprintf(params, sizeof params, "\"stride\": %d", stride);
            oneway_measure(t, "ddt-vs-pack", "datatype", params, rank, bytes[i], stride,
                           CALL_SEND, false);
            oneway_measure(t, "ddt-vs-pack", "user pack", params, rank, bytes[i], stride,
                           CALL_SEND, true);
        }
    }
    return 0;
}

/* ---- logp: parameterized round trips (Hoefler, Lichei, Rehm: "Low-overhead LogGP
 * parameter assessment for modern interconnection networks", IPDPS 2007) ----
 *
 * PRTT(n, d, s): rank 0 sends n messages of s bytes, computing for d seconds after each
 * send; rank 1 receives them all and answers with one message of s bytes. With
 * G_all = g + (s-1)G:
 *   PRTT(1, 0, s) = 2 (L + 2o + (s-1)G)
 *   PRTT(n, 0, s) = PRTT(1, 0, s) + (n-1) G_all
 *   PRTT(n, d, s) = PRTT(1, 0, s) + (n-1) max(o + d, G_all)
 * Measured for each s: the three, with d twice the G_all just measured (so o + d wins).
 * memcomm.models.logp fits L, o, g and G from them. */

typedef struct {
    int rank;
    int64_t n, bytes;
    double delay;
    char *buffer;
} prtt;

static void compute_for(double seconds)
{
    double until = MPI_Wtime() + seconds;
    while (MPI_Wtime() < until)
        ;
}

static double prtt_sample(void *ctx, int64_t inner)
{
    prtt *p = ctx;
    const int count = (int)p->bytes;
    double t0 = MPI_Wtime();
    for (int64_t k = 0; k < inner; k++) {
        if (p->rank == 0) {
            for (int64_t i = 0; i < p->n; i++) {
                MPI_Send(p->buffer, count, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                if (p->delay > 0 && i + 1 < p->n)
                    compute_for(p->delay);
            }
            MPI_Recv(p->buffer, count, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (p->rank == 1) {
            for (int64_t i = 0; i < p->n; i++)
                MPI_Recv(p->buffer, count, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(p->buffer, count, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

int experiment_logp(const timing *t, const char *sizes, int argc, char **argv)
{
    int64_t n = 16;
    if (argc == 2 && !strcmp(argv[0], "--messages"))
        n = atoll(argv[1]);
    else if (harness_no_options(argc, argv))
        return 2;
    if (n < 2 || n > 1024) {
        fprintf(stderr, "bench: --messages must be between 2 and 1024\n");
        return 2;
    }
    int64_t bytes[64];
    int count = harness_sizes(sizes,
                              "8,16,32,64,128,256,512,1K,2K,4K,8K,16K,32K,64K,128K,256K,512K,1M,2M,4M,8M,16M",
                              bytes, 64, 1, 1ll << 30);
    if (count < 0)
        return 2;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < count; i++) {
        harness_progress("logp");
        prtt p = {rank, 1, bytes[i], 0, harness_alloc(bytes[i])};
        measurement m = {"logp", "PRTT(1,0,s)", {"round trip", NULL}, bytes[i], ""};
        snprintf(m.params, sizeof m.params, "\"n\": 1, \"delay\": 0");
        double one = harness_measure(t, &m, prtt_sample, &p, MPI_COMM_WORLD);
        p.n = n;
        m.method = "PRTT(n,0,s)";
        snprintf(m.params, sizeof m.params, "\"n\": %lld, \"delay\": 0", (long long)n);
        double many = harness_measure(t, &m, prtt_sample, &p, MPI_COMM_WORLD);
        double gap = (many - one) / (double)(n - 1);
        p.delay = 2 * (gap > 1e-6 ? gap : 1e-6);
        m.method = "PRTT(n,d,s)";
        snprintf(m.params, sizeof m.params, "\"n\": %lld, \"delay\": %.9g", (long long)n,
                 p.delay);
        harness_measure(t, &m, prtt_sample, &p, MPI_COMM_WORLD);
        free(p.buffer);
    }
    return 0;
}
