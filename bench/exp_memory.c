/* Experiments on what memory does to a message.
 *
 *   decompose    Byna et al. 2003, sec. 4 (Fig. 2), Memory-LogP's o + l_p + l_m + L for the matrix
 *                transpose: the parts measured are a contiguous copy (o), MPI_Pack of the
 *                transpose (o + l_p), a contiguous ping-pong (o + L) and the transpose sent as a
 *                datatype and received contiguously (o + l_p + l_m + L); the report subtracts.
 *                Also the transpose packed by MPI_Pack into a buffer of the program's and sent
 *                as MPI_PACKED right after (pack-send): what a program that packs pays, the
 *                bound a carried send meets in practice (the contiguous ping-pong sends bytes
 *                nobody just wrote), and the matrix copied by memcpy into that buffer and sent
 *                right after (copy-send): the least a send of bytes just written costs, as the
 *                peer's copy reads lines modified in the sender's cache (a 256^2 matrix on the
 *                Intel Xeon VM, MPICH: copy 11 us and contiguous 20 measured apart, in
 *                sequence 74).
 *   cache-state  Pellegrini et al.'s SCN1: a ping-pong with both ends' message buffers flushed from the
 *                caches (INV), read (EXCL) or written (MOD) just before.
 *   pollution    Pellegrini et al.'s SCN2: the time to read the message buffer after a transfer, the
 *                buffer flushed (INV) or preloaded (PRE) before it, against the same read
 *                without the transfer (BASE_INV, BASE_PRE). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments.h"

/* ---- decompose ---- */

typedef enum {
    PART_COPY,
    PART_PACK,
    PART_CONTIGUOUS,
    PART_DATATYPE,
    PART_PACK_SEND,
    PART_COPY_SEND,
    PARTS
} part;
static const char *const part_names[PARTS] = {"copy",     "pack",     "contiguous",
                                              "datatype", "pack-send", "copy-send"};

typedef struct {
    int rank;
    int64_t n; /* side of the matrix */
    double *matrix, *out, *packed;
    MPI_Datatype transpose;
    part what;
} decompose;

/* The send of a ping-pong's turn: the matrix as doubles, as the transpose type, packed into
 * the program's buffer and sent as MPI_PACKED, or copied there and sent as doubles. */
static void decompose_send(decompose *d, int peer)
{
    const int doubles = (int)(d->n * d->n);
    if (d->what == PART_PACK_SEND) {
        int position = 0;
        MPI_Pack(d->matrix, (int)d->n, d->transpose, d->packed, doubles * 8, &position,
                 MPI_COMM_SELF);
        MPI_Send(d->packed, position, MPI_PACKED, peer, 0, MPI_COMM_WORLD);
    } else if (d->what == PART_COPY_SEND) {
        memcpy(d->packed, d->matrix, (size_t)doubles * 8);
        MPI_Send(d->packed, doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
    } else if (d->what == PART_DATATYPE)
        MPI_Send(d->matrix, (int)d->n, d->transpose, peer, 0, MPI_COMM_WORLD);
    else
        MPI_Send(d->matrix, doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
}

static double decompose_sample(void *ctx, int64_t inner)
{
    decompose *d = ctx;
    const int64_t doubles = d->n * d->n;
    const int peer = 1 - d->rank;
    double t0 = MPI_Wtime();
    for (int64_t k = 0; k < inner; k++) {
        switch (d->what) {
        case PART_COPY:
            if (d->rank == 0)
                memcpy(d->out, d->matrix, (size_t)doubles * 8);
            break;
        case PART_PACK:
            if (d->rank == 0) {
                int position = 0;
                MPI_Pack(d->matrix, (int)d->n, d->transpose, d->out, (int)(doubles * 8), &position,
                         MPI_COMM_SELF);
            }
            break;
        case PART_CONTIGUOUS:
        case PART_DATATYPE:
        case PART_PACK_SEND:
        case PART_COPY_SEND:
            if (d->rank == 0) {
                decompose_send(d, peer);
                MPI_Recv(d->out, (int)doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(d->out, (int)doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                decompose_send(d, peer);
            }
            break;
        case PARTS: break;
        }
    }
    double elapsed = MPI_Wtime() - t0;
    /* a ping-pong's sample is a round trip: report half of it, the one-way time */
    return d->what >= PART_CONTIGUOUS ? elapsed / 2 : elapsed;
}

int experiment_decompose(const timing *t, const char *sizes, int argc, char **argv)
{
    if (harness_no_options(argc, argv))
        return 2;
    int64_t sides[16];
    /* at most 16383: MPI_Pack takes the packed size as an int */
    int n = harness_sizes(sizes, "256,512,1024,2048,4096", sides, 16, 2, 16383);
    if (n < 0)
        return 2;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < n; i++) {
        decompose d = {.rank = rank, .n = sides[i]};
        d.matrix = harness_alloc(d.n * d.n * 8);
        d.out = harness_alloc(d.n * d.n * 8);
        d.packed = harness_alloc(d.n * d.n * 8);
        for (int64_t k = 0; k < d.n * d.n; k++)
            d.matrix[k] = (double)k;
        MPI_Datatype column;
        MPI_Type_vector((int)d.n, 1, (int)d.n, MPI_DOUBLE, &column);
        MPI_Type_create_resized(column, 0, sizeof(double), &d.transpose);
        MPI_Type_free(&column);
        MPI_Type_commit(&d.transpose);
        for (part p = PART_COPY; p < PARTS; p++) {
            harness_progress("decompose");
            d.what = p;
            measurement m = {"decompose", part_names[p], {"one way", NULL}, d.n * d.n * 8, ""};
            snprintf(m.params, sizeof m.params, "\"n\": %lld", (long long)d.n);
            harness_measure(t, &m, decompose_sample, &d, MPI_COMM_WORLD);
        }
        MPI_Type_free(&d.transpose);
        free(d.matrix);
        free(d.out);
        free(d.packed);
    }
    return 0;
}

/* ---- cache-state and pollution ---- */

typedef enum { STATE_INV, STATE_EXCL, STATE_MOD } cache_state;
static const char *const state_names[] = {"INV", "EXCL", "MOD"};

typedef struct {
    int rank;
    int64_t bytes;
    char *send, *recv;
    cache_state state;
    bool communicate; /* pollution: false for the BASE_ configurations */
} cached;

static void set_state(char *p, int64_t bytes, cache_state s)
{
    if (s == STATE_INV)
        cache_invalidate(p, bytes);
    else if (s == STATE_EXCL)
        cache_read(p, bytes);
    else
        cache_modify(p, bytes);
}

/* One prepared round trip per iteration; the ranks meet after preparing, so neither times
 * the other's preparation. */
static double cache_state_sample(void *ctx, int64_t inner)
{
    cached *c = ctx;
    const int peer = 1 - c->rank, count = (int)c->bytes;
    double total = 0;
    for (int64_t k = 0; k < inner; k++) {
        set_state(c->send, c->bytes, c->state);
        set_state(c->recv, c->bytes, c->state);
        PMPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (c->rank == 0) {
            MPI_Send(c->send, count, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
            MPI_Recv(c->recv, count, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(c->recv, count, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(c->send, count, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
        }
        total += (MPI_Wtime() - t0) / 2;
    }
    return total;
}

/* Read every double of the buffer: what an application does with a message next. */
static double traverse(const char *p, int64_t bytes)
{
    const double *d = (const double *)p;
    double sum = 0;
    for (int64_t i = 0; i < bytes / 8; i++)
        sum += d[i];
    return sum;
}

static volatile double traversal_sink;

/* Rank 0 sends its buffer to rank 1 (or not, for BASE_), then each rank times reading its
 * own buffer. INV/PRE map to the INV/EXCL preparations. */
static double pollution_sample(void *ctx, int64_t inner)
{
    cached *c = ctx;
    char *mine = c->rank == 0 ? c->send : c->recv;
    double total = 0;
    for (int64_t k = 0; k < inner; k++) {
        set_state(mine, c->bytes, c->state);
        PMPI_Barrier(MPI_COMM_WORLD);
        if (c->communicate) {
            if (c->rank == 0)
                MPI_Send(mine, (int)c->bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            else if (c->rank == 1)
                MPI_Recv(mine, (int)c->bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        double t0 = MPI_Wtime();
        traversal_sink = traverse(mine, c->bytes);
        total += MPI_Wtime() - t0;
    }
    return total;
}

static int cache_experiment(const timing *given, const char *sizes, bool pollution)
{
    int64_t bytes[64];
    int n = harness_sizes(sizes, "1K,4K,16K,64K,256K,1M,4M,16M,64M", bytes, 64, 64,
                          1ll << 30);
    if (n < 0)
        return 2;
    timing t = *given;
    t.max_inner = 1; /* every iteration prepares its cache state */
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < n; i++) {
        cached c = {.rank = rank, .bytes = bytes[i]};
        c.send = harness_alloc(c.bytes);
        c.recv = harness_alloc(c.bytes);
        for (int64_t k = 0; k < c.bytes; k++)
            c.send[k] = (char)k;
        for (int config = 0; config < (pollution ? 4 : 3); config++) {
            harness_progress(pollution ? "pollution" : "cache-state");
            measurement m = {pollution ? "pollution" : "cache-state", "", {NULL, NULL}, c.bytes,
                             ""};
            if (pollution) {
                static const char *const names[] = {"INV", "PRE", "BASE_INV", "BASE_PRE"};
                m.method = names[config];
                c.state = config % 2 ? STATE_EXCL : STATE_INV;
                c.communicate = config < 2;
                m.roles[0] = "sender";
                m.roles[1] = "receiver";
            } else {
                m.method = state_names[config];
                c.state = (cache_state)config;
                m.roles[0] = "round trip/2";
            }
            harness_measure(&t, &m, pollution ? pollution_sample : cache_state_sample, &c,
                            MPI_COMM_WORLD);
        }
        free(c.send);
        free(c.recv);
    }
    return 0;
}

int experiment_cache_state(const timing *t, const char *sizes, int argc, char **argv)
{
    if (harness_no_options(argc, argv))
        return 2;
    return cache_experiment(t, sizes, false);
}

int experiment_pollution(const timing *t, const char *sizes, int argc, char **argv)
{
    if (harness_no_options(argc, argv))
        return 2;
    return cache_experiment(t, sizes, true);
}
