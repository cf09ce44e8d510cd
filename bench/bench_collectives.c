/* FFT redistributions and a transposing gather as collectives with derived datatypes,
 * every method in one run (the layouts of ddtbench's FFT2 and of the slab FFTs that
 * mpi4py-fft, heFFTe and P3DFFT run):
 *
 *   contiguous  MPI_Alltoall of the same bytes from contiguous buffers: the ceiling
 *   mpi         the MPI's own collective on the datatypes (PMPI_: memcomm does not see it)
 *   manual      hand-written pack loops per peer, PMPI_Alltoallv of the bytes, hand-written
 *               unpack loops (cache-blocked where they transpose)
 *   memcomm     the same collective as `mpi` through MPI_, which memcomm carries
 *
 * Patterns:
 *   fft2 N          ddtbench's FFT2: an N x N complex matrix (two doubles per element), N/P
 *                   rows per rank; MPI_Alltoall sends each peer a square block of its columns
 *                   and receives the peer's block placed column by column (a column type of
 *                   N/P elements resized to one element): the transpose happens in the call
 *   fft2 N, Ialltoall  the same as non-blocking calls: MPI_Ialltoall and MPI_Wait (mpi,
 *                   memcomm), as an FFT that overlaps the transpose with work would call it
 *   fft2 blocks N   the same redistribution without the transpose: square blocks sent and
 *                   received as vector types (ddtbench's FFT pattern as an Alltoall of vectors)
 *   allgather N     every rank gets the whole N x N complex matrix transposed: each sends its
 *                   N/P rows as they are and MPI_Allgather places them column by column (the
 *                   FFT2 receive type over all N rows); manual: PMPI_Allgather of the rows
 *                   and a cache-blocked transpose per peer; contiguous: the same bytes
 *   slabs N         an N^3 array of doubles from x-slabs to y-slabs with MPI_Alltoallw of
 *                   subarray types, one per peer and side (runs of N^2/P doubles both sides)
 *   slabs xz N      the same from x-slabs to z-slabs: the send side's runs are N/P doubles
 *   halo N          a halo exchange of an N^3 block of doubles with one ghost layer on a
 *                   periodic 3-D Cartesian grid of the ranks: MPI_Neighbor_alltoallw of the
 *                   six faces (subarray types) into the ghosts of a second array (on 2 ranks
 *                   the y and z neighbours are the rank itself)
 *
 * Prints one JSON object per (pattern, method) with the time of every timed repetition (the
 * slowest rank's), memcomm's also with each rank's path decisions on the pattern ("paths":
 * how many chose packing and how many the MPI's own call); `memcomm bench collectives` turns
 * them into a table. Before timing, the
 * bytes each method delivers are compared with what the MPI's own collective delivers.
 *
 *   bench_collectives [--reps R] [--seconds S] [--sizes 1024,2048] [--slabs 128,256]
 *                     [--halos 64,128] [--only SUBSTRING]
 *
 * --reps: timed repetitions of every method at least (7); --seconds: more, for patterns
 * whose calls are short, as many as all methods' calls fill S seconds in (1; at most 201). */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "options.h"
#include "paths.h"

/* Untimed calls before the timed ones, the steady state a program with many calls reaches:
 * memcomm's trials (a call warming up, 3 more where the MPI's own path comes first, 6 of each
 * of up to 3 paths: at most 22), and a second round where the ranks decided apart (sampled
 * every 4th call, 3 slow samples in a row: 12 calls, then 22 more; lib/core/sendpath.h). */
enum { WARMUP = 64, PACE = 8, MAX_REPS = 201 };

typedef enum { FFT2, FFT2_BLOCKS, GATHER, SLABS, SLABS_Z, HALO } layout;

typedef struct pattern pattern;
struct pattern {
    char name[96];
    layout kind;
    int64_t n, local; /* the side; N/P (rows, or planes, per rank) */
    int peers, rank;     /* peers: the ranks, or a halo's 6 neighbours */
    MPI_Comm comm;       /* MPI_COMM_WORLD, or a halo's Cartesian grid */
    bool nonblocking;    /* FFT2 by MPI_Ialltoall and MPI_Wait */
    MPI_Aint *byte_zeros; /* a halo's displacements */
    double *in, *out;     /* each rank's data and what it receives */
    int64_t in_doubles, out_doubles, peer_bytes; /* bytes to each peer (all equal) */
    /* the collective on datatypes: Alltoall (one type per side) or Alltoallw (per peer) */
    MPI_Datatype send_type, recv_type;
    int send_count, recv_count;
    MPI_Datatype *send_types, *recv_types;
    int *ones, *zeros;
    /* the manual method: peer q's bytes packed to / unpacked from `bytes` */
    void (*pack)(const pattern *p, int q, double *bytes);
    void (*unpack)(const pattern *p, int q, const double *bytes);
};

enum { B = 32 }; /* the manual loops' tile */

/* FFT2, peer q: rows i < local of my columns q*local + c (c < local), row after row. */
static void fft2_pack(const pattern *p, int q, double *bytes)
{
    const int64_t n = p->n, m = p->local;
    for (int64_t i = 0; i < m; i++)
        memcpy(bytes + 2 * i * m, p->in + 2 * (i * n + q * m), (size_t)(16 * m));
}

/* Peer q's rows r < local of `cols` elements each (at bytes[r][c]) land transposed: element
 * (r, c) at my row c, column q*local + r. */
static void unpack_transposed(const pattern *p, int q, const double *bytes, int64_t cols)
{
    const int64_t n = p->n, m = p->local;
    for (int64_t rr = 0; rr < m; rr += B)
        for (int64_t cc = 0; cc < cols; cc += B)
            for (int64_t r = rr; r < rr + B && r < m; r++)
                for (int64_t c = cc; c < cc + B && c < cols; c++) {
                    double *to = p->out + 2 * (c * n + q * m + r);
                    to[0] = bytes[2 * (r * cols + c)];
                    to[1] = bytes[2 * (r * cols + c) + 1];
                }
}

/* FFT2: peer q's block, its rows and my columns, lands transposed. */
static void fft2_unpack(const pattern *p, int q, const double *bytes)
{
    unpack_transposed(p, q, bytes, p->local);
}

/* FFT2 blocks: peer q's block lands untransposed at my columns q*local. */
static void fft2_blocks_unpack(const pattern *p, int q, const double *bytes)
{
    const int64_t n = p->n, m = p->local;
    for (int64_t i = 0; i < m; i++)
        memcpy(p->out + 2 * (i * n + q * m), bytes + 2 * i * m, (size_t)(16 * m));
}

/* Allgather: peer q's rows, all n columns, land transposed. */
static void gather_unpack(const pattern *p, int q, const double *bytes)
{
    unpack_transposed(p, q, bytes, p->n);
}

/* Slabs: x-slab [local][n][n] to peer q: y rows q*local.. of every plane. */
static void slabs_pack(const pattern *p, int q, double *bytes)
{
    const int64_t n = p->n, m = p->local;
    for (int64_t x = 0; x < m; x++)
        for (int64_t y = 0; y < m; y++)
            memcpy(bytes + (x * m + y) * n, p->in + (x * n + q * m + y) * n, (size_t)(8 * n));
}

/* Slabs: from peer q, planes x = q*local.. of my y-slab [n][local][n]: one run per plane. */
static void slabs_unpack(const pattern *p, int q, const double *bytes)
{
    const int64_t n = p->n, m = p->local;
    for (int64_t x = 0; x < m; x++)
        memcpy(p->out + (q * m + x) * m * n, bytes + x * m * n, (size_t)(8 * m * n));
}

/* Slabs x to z: to peer q, z range q*local.. of every (x, y) row. */
static void slabs_z_pack(const pattern *p, int q, double *bytes)
{
    const int64_t n = p->n, m = p->local;
    for (int64_t x = 0; x < m; x++)
        for (int64_t y = 0; y < n; y++)
            memcpy(bytes + (x * n + y) * m, p->in + (x * n + y) * n + q * m, (size_t)(8 * m));
}

/* Slabs x to z: from peer q, planes x = q*local.. of my z-slab [n][n][local]. */
static void slabs_z_unpack(const pattern *p, int q, const double *bytes)
{
    const int64_t n = p->n, m = p->local;
    memcpy(p->out + q * m * n * m, bytes, (size_t)(8 * m * n * m));
}

/* Halo: neighbour k (dimension k / 2, below for even k) gets my interior face on that side;
 * its face arrives in my ghost layer on that side. */
static void halo_face(const pattern *p, int k, bool ghost, int start[3], int sub[3])
{
    const int n = (int)p->n, d = k / 2;
    for (int e = 0; e < 3; e++) {
        start[e] = 1;
        sub[e] = n;
    }
    sub[d] = 1;
    start[d] = k % 2 == 0 ? (ghost ? 0 : 1) : (ghost ? n + 1 : n);
}

/* The doubles of box (start, sub) of an (n+2)^3 array to or from `bytes`, in C order. */
static void box_copy(double *array, int64_t side, const int start[3], const int sub[3],
                     double *bytes, bool pack)
{
    for (int64_t x = 0; x < sub[0]; x++)
        for (int64_t y = 0; y < sub[1]; y++) {
            double *row = array + ((start[0] + x) * side + start[1] + y) * side + start[2];
            if (pack)
                memcpy(bytes, row, (size_t)sub[2] * sizeof(double));
            else
                memcpy(row, bytes, (size_t)sub[2] * sizeof(double));
            bytes += sub[2];
        }
}

static void halo_pack(const pattern *p, int k, double *bytes)
{
    int start[3], sub[3];
    halo_face(p, k, false, start, sub);
    box_copy(p->in, p->n + 2, start, sub, bytes, true);
}

static void halo_unpack(const pattern *p, int k, const double *bytes)
{
    int start[3], sub[3];
    halo_face(p, k, true, start, sub);
    box_copy(p->out, p->n + 2, start, sub, (double *)bytes, false);
}

static double *doubles(int64_t count, int rank, bool fill)
{
    double *a = malloc((size_t)count * sizeof(double));
    if (!a) {
        fprintf(stderr, "bench_collectives: cannot allocate %lld doubles\n", (long long)count);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int64_t i = 0; i < count; i++)
        a[i] = fill ? (double)i + 0.25 * rank : 0;
    return a;
}

static void make_fft2(pattern *p, bool transpose)
{
    const int64_t n = p->n, m = p->local;
    MPI_Datatype element, square, column;
    MPI_Type_contiguous(2, MPI_DOUBLE, &element);
    MPI_Type_vector((int)m, (int)m, (int)n, element, &square);
    MPI_Type_create_resized(square, 0, m * 16, &p->send_type);
    p->send_count = 1;
    if (transpose) {
        MPI_Type_vector((int)m, 1, (int)n, element, &column);
        MPI_Type_create_resized(column, 0, 16, &p->recv_type);
        p->recv_count = (int)m;
        MPI_Type_free(&column);
    } else {
        MPI_Type_dup(p->send_type, &p->recv_type);
        p->recv_count = 1;
    }
    MPI_Type_free(&square);
    MPI_Type_free(&element);
    MPI_Type_commit(&p->send_type);
    MPI_Type_commit(&p->recv_type);
    p->in_doubles = p->out_doubles = 2 * m * n;
    p->peer_bytes = 16 * m * m;
    p->pack = fft2_pack;
    p->unpack = transpose ? fft2_unpack : fft2_blocks_unpack;
}

static void make_gather(pattern *p)
{
    const int64_t n = p->n, m = p->local;
    MPI_Datatype column;
    MPI_Type_contiguous(2, MPI_DOUBLE, &p->send_type);
    MPI_Type_vector((int)n, 1, (int)n, p->send_type, &column);
    MPI_Type_create_resized(column, 0, 16, &p->recv_type);
    MPI_Type_free(&column);
    MPI_Type_commit(&p->send_type);
    MPI_Type_commit(&p->recv_type);
    p->send_count = (int)(m * n);
    p->recv_count = (int)m;
    p->in_doubles = 2 * m * n;
    p->out_doubles = 2 * n * n;
    p->peer_bytes = 16 * m * n;
    p->unpack = gather_unpack;
}

static void make_slabs(pattern *p, bool to_z)
{
    const int n = (int)p->n, m = (int)p->local;
    p->send_types = malloc(sizeof(MPI_Datatype) * (size_t)p->peers);
    p->recv_types = malloc(sizeof(MPI_Datatype) * (size_t)p->peers);
    p->ones = malloc(sizeof(int) * (size_t)p->peers);
    p->zeros = calloc((size_t)p->peers, sizeof(int));
    for (int q = 0; q < p->peers; q++) {
        int xs[3] = {m, n, n}, xsub[3] = {m, m, n}, xstart[3] = {0, q * m, 0};
        int ys[3] = {n, m, n}, ysub[3] = {m, m, n}, ystart[3] = {q * m, 0, 0};
        if (to_z) { /* send z range q*m.. of all (x, y); receive planes into [n][n][m] */
            xsub[1] = n;
            xsub[2] = m;
            xstart[1] = 0;
            xstart[2] = q * m;
            ys[1] = n;
            ys[2] = m;
            ysub[1] = n;
            ysub[2] = m;
        }
        MPI_Type_create_subarray(3, xs, xsub, xstart, MPI_ORDER_C, MPI_DOUBLE,
                                 &p->send_types[q]);
        MPI_Type_create_subarray(3, ys, ysub, ystart, MPI_ORDER_C, MPI_DOUBLE,
                                 &p->recv_types[q]);
        MPI_Type_commit(&p->send_types[q]);
        MPI_Type_commit(&p->recv_types[q]);
        p->ones[q] = 1;
    }
    p->in_doubles = p->out_doubles = (int64_t)m * n * n;
    p->peer_bytes = 8 * (int64_t)m * m * n;
    p->pack = to_z ? slabs_z_pack : slabs_pack;
    p->unpack = to_z ? slabs_z_unpack : slabs_unpack;
}

static void make_halo(pattern *p, int nranks)
{
    int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
    MPI_Dims_create(nranks, 3, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &p->comm);
    p->peers = 6;
    p->send_types = malloc(sizeof(MPI_Datatype) * 6);
    p->recv_types = malloc(sizeof(MPI_Datatype) * 6);
    p->ones = malloc(sizeof(int) * 6);
    p->byte_zeros = calloc(6, sizeof(MPI_Aint));
    const int side = (int)p->n + 2, sizes[3] = {side, side, side};
    for (int k = 0; k < 6; k++) {
        int start[3], sub[3];
        halo_face(p, k, false, start, sub);
        MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE,
                                 &p->send_types[k]);
        halo_face(p, k, true, start, sub);
        MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE,
                                 &p->recv_types[k]);
        MPI_Type_commit(&p->send_types[k]);
        MPI_Type_commit(&p->recv_types[k]);
        p->ones[k] = 1;
    }
    p->in_doubles = p->out_doubles = (int64_t)side * side * side;
    p->peer_bytes = 8 * p->n * p->n;
    p->pack = halo_pack;
    p->unpack = halo_unpack;
}

static void free_pattern(pattern *p)
{
    if (p->kind == HALO) {
        free(p->byte_zeros);
        MPI_Comm_free(&p->comm);
    }
    if (p->kind >= SLABS) {
        for (int q = 0; q < p->peers; q++) {
            MPI_Type_free(&p->send_types[q]);
            MPI_Type_free(&p->recv_types[q]);
        }
        free(p->send_types);
        free(p->recv_types);
        free(p->ones);
        free(p->zeros); /* NULL for a halo */
    } else {
        MPI_Type_free(&p->send_type);
        MPI_Type_free(&p->recv_type);
    }
}

enum { M_CONTIGUOUS, M_MPI, M_MANUAL, M_MEMCOMM, METHODS };
static const char *method_names[METHODS] = {"contiguous", "mpi", "manual", "memcomm"};

typedef struct {
    char *send, *recv; /* contiguous buffers of peers * peer_bytes */
    int *counts, *displs;
} scratch;

static void run_once(const pattern *p, int method, const scratch *s)
{
    const bool through_memcomm = method == M_MEMCOMM;
    switch (method) {
    case M_CONTIGUOUS:
        if (p->kind == GATHER) {
            PMPI_Allgather(s->send, (int)p->peer_bytes, MPI_BYTE, s->recv, (int)p->peer_bytes,
                           MPI_BYTE, p->comm);
            break;
        }
        (p->kind == HALO ? PMPI_Neighbor_alltoall : PMPI_Alltoall)(
            s->send, (int)p->peer_bytes, MPI_BYTE, s->recv, (int)p->peer_bytes, MPI_BYTE,
            p->comm);
        break;
    case M_MANUAL:
        if (p->kind == GATHER) { /* the rows go as they are */
            PMPI_Allgather(p->in, (int)p->peer_bytes, MPI_BYTE, s->recv, (int)p->peer_bytes,
                           MPI_BYTE, p->comm);
            for (int q = 0; q < p->peers; q++)
                p->unpack(p, q, (const double *)(s->recv + q * p->peer_bytes));
            break;
        }
        for (int q = 0; q < p->peers; q++)
            p->pack(p, q, (double *)(s->send + q * p->peer_bytes));
        (p->kind == HALO ? PMPI_Neighbor_alltoallv : PMPI_Alltoallv)(
            s->send, s->counts, s->displs, MPI_BYTE, s->recv, s->counts, s->displs, MPI_BYTE,
            p->comm);
        for (int q = 0; q < p->peers; q++)
            p->unpack(p, q, (const double *)(s->recv + q * p->peer_bytes));
        break;
    default:
        if (p->kind == HALO)
            (through_memcomm ? MPI_Neighbor_alltoallw : PMPI_Neighbor_alltoallw)(
                p->in, p->ones, p->byte_zeros, p->send_types, p->out, p->ones, p->byte_zeros,
                p->recv_types, p->comm);
        else if (p->kind == GATHER)
            (through_memcomm ? MPI_Allgather : PMPI_Allgather)(p->in, p->send_count,
                                                               p->send_type, p->out,
                                                               p->recv_count, p->recv_type,
                                                               p->comm);
        else if (p->kind >= SLABS)
            (through_memcomm ? MPI_Alltoallw : PMPI_Alltoallw)(
                p->in, p->ones, p->zeros, p->send_types, p->out, p->ones, p->zeros,
                p->recv_types, MPI_COMM_WORLD);
        else if (p->nonblocking) {
            MPI_Request request;
            (through_memcomm ? MPI_Ialltoall : PMPI_Ialltoall)(
                p->in, p->send_count, p->send_type, p->out, p->recv_count, p->recv_type,
                MPI_COMM_WORLD, &request);
            (through_memcomm ? MPI_Wait : PMPI_Wait)(&request, MPI_STATUS_IGNORE);
        } else
            (through_memcomm ? MPI_Alltoall : PMPI_Alltoall)(p->in, p->send_count, p->send_type,
                                                             p->out, p->recv_count,
                                                             p->recv_type, MPI_COMM_WORLD);
        break;
    }
}

/* One call of `method`, the slowest rank's seconds (the same on every rank). */
static double timed_call(const pattern *p, int method, const scratch *s)
{
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    run_once(p, method, s);
    double took = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &took, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return took;
}

/* One timed turn of `method`: a call of the same method first, untimed, so that each timed
 * call finds the caches as a loop of its own calls leaves them (ddtbench's methods run in
 * loops of their own), not as whichever method ran before. After the hand-written method had
 * written the receive array, memcomm's FFT2 2048^2 took 15.7-16.5 ms a call, after itself
 * 11.5 (Open MPI, 2026-11-27). */
static double timed_turn(const pattern *p, int method, const scratch *s)
{
    run_once(p, method, s);
    return timed_call(p, method, s);
}

static int measure(pattern *p, int reps, double seconds)
{
    const int64_t total = p->peer_bytes * p->peers;
    scratch s = {malloc((size_t)total), malloc((size_t)total),
                 malloc(sizeof(int) * (size_t)p->peers), malloc(sizeof(int) * (size_t)p->peers)};
    if (!s.send || !s.recv || !s.counts || !s.displs || p->peer_bytes > INT32_MAX / p->peers) {
        fprintf(stderr, "bench_collectives: %s is too large\n", p->name);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(s.send, 1, (size_t)total);
    for (int q = 0; q < p->peers; q++) {
        s.counts[q] = (int)p->peer_bytes;
        s.displs[q] = (int)(q * p->peer_bytes);
    }
    /* the path decisions memcomm's timed trials make on this pattern (lib/core/sendpath.h) */
    memcomm_stats before;
    memcomm_stats_get(&before);
    /* what each method delivers, against the MPI's own collective */
    int failures = 0;
    double *reference = doubles(p->out_doubles, p->rank, false);
    run_once(p, M_MPI, &s);
    memcpy(reference, p->out, (size_t)p->out_doubles * sizeof(double));
    for (int method = M_MANUAL; method < METHODS; method++) {
        memset(p->out, 0, (size_t)p->out_doubles * sizeof(double));
        run_once(p, method, &s);
        if (memcmp(reference, p->out, (size_t)p->out_doubles * sizeof(double)) != 0) {
            fprintf(stderr, "bench_collectives: %s delivers other bytes than the MPI for %s\n",
                    method_names[method], p->name);
            failures++;
        }
    }
    free(reference);
    /* the methods take turns, so that what drifts during a pattern (the VM; Open MPI's own
     * path between its two speeds) weighs on each alike: run one after the other, the same MPI
     * call ran at 0.83x and at 1.00x of itself in the "mpi" and "memcomm" columns of two
     * launches (MPICH, FFT2 blocks of 1024^2, MEMCOMM_SEND_PATH=mpi); in reverse order every
     * other repetition; each timed call after an untimed one of its own (timed_turn) */
    double turns = 0; /* seconds of the last PACE warm-up turns, every method */
    for (int r = -WARMUP; r < 0; r++)
        for (int turn = 0; turn < METHODS; turn++) {
            const double took = timed_call(p, bench_turn(r, turn, METHODS), &s);
            turns += r >= -PACE ? took : 0;
        }
    const int timed = bench_timed_reps(reps, seconds, turns / PACE, MAX_REPS);
    double *t = malloc(sizeof(double) * (size_t)timed * METHODS);
    for (int r = 0; r < timed; r++)
        for (int turn = 0; turn < METHODS; turn++) {
            const int method = bench_turn(r, turn, METHODS);
            t[method * timed + r] = timed_turn(p, method, &s);
        }
    for (int method = 0; method < METHODS; method++) {
        int ranks = 0;
        MPI_Comm_size(MPI_COMM_WORLD, &ranks);
        /* memcomm's: each rank's decisions since the pattern began */
        int *every = method == M_MEMCOMM ? bench_paths_gather(&before, MPI_COMM_WORLD) : NULL;
        if (p->rank == 0) {
            printf("{\"kind\": \"result\", \"experiment\": \"collectives\", \"stopped\": "
                   "\"fixed\", \"role\": \"slowest rank\", \"pattern\": \"%s\", \"method\": "
                   "\"%s\", \"ranks\": %d, \"bytes\": %lld, ",
                   p->name, method_names[method], ranks, (long long)total);
            if (every)
                bench_print_paths(every, ranks);
            bench_print_seconds(t + method * timed, timed);
        }
        free(every);
    }
    free(t);
    free(s.send);
    free(s.recv);
    free(s.counts);
    free(s.displs);
    return failures;
}

/* harness_sizes, each side also a multiple of `ranks`; -1 (with a message) otherwise. */
static int sides(const char *list, int64_t *out, int max, int64_t lo, int64_t hi, int ranks)
{
    const int n = harness_sizes(list, NULL, out, max, lo, hi);
    for (int k = 0; k < n; k++)
        if (out[k] % ranks) {
            fprintf(stderr, "bench: side %lld is not a multiple of the %d ranks\n",
                    (long long)out[k], ranks);
            return -1;
        }
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const int reps = atoi(bench_option(argc, argv, "--reps", "7"));
    const double seconds = atof(bench_option(argc, argv, "--seconds", "1"));
    const char *sizes = bench_option(argc, argv, "--sizes", "1024,2048,4096");
    const char *slab_sizes = bench_option(argc, argv, "--slabs", "128,256,512");
    const char *halo_sizes = bench_option(argc, argv, "--halos", "64,128,256");
    const char *only = bench_option(argc, argv, "--only", "");
    int64_t fft[16], slab[16], halo[16];
    const int nfft = sides(sizes, fft, 16, 16, 16384, nranks);
    const int nslab = sides(slab_sizes, slab, 16, 16, 1024, nranks);
    const int nhalo = sides(halo_sizes, halo, 16, 4, 1024, 1);
    if (reps < 3 || nfft < 0 || nslab < 0 || nhalo < 0) {
        if (rank == 0)
            fprintf(stderr, "bench_collectives: --reps >= 3; sizes (FFT2 16..16384, slabs "
                            "16..1024) must be multiples of the ranks, halos 4..1024\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int failures = 0;
    for (int k = 0; k < 4 * nfft + 2 * nslab + nhalo; k++) {
        pattern p = {.peers = nranks, .rank = rank, .comm = MPI_COMM_WORLD};
        const int h = k - 4 * nfft - 2 * nslab; /* >= 0: a halo */
        p.kind = k < 2 * nfft       ? FFT2
                 : k < 3 * nfft     ? FFT2_BLOCKS
                 : k < 4 * nfft     ? GATHER
                 : h < -nslab       ? SLABS
                 : h < 0            ? SLABS_Z
                                    : HALO;
        p.nonblocking = k >= nfft && k < 2 * nfft;
        p.n = k < 4 * nfft ? fft[k % nfft] : h < 0 ? slab[(k - 4 * nfft) % nslab] : halo[h];
        p.local = p.n / nranks;
        if (p.kind == HALO)
            snprintf(p.name, sizeof p.name, "halo %lld^3 double, Neighbor_alltoallw",
                     (long long)p.n);
        else if (p.kind == GATHER)
            snprintf(p.name, sizeof p.name, "allgather transpose %lld^2 complex, Allgather",
                     (long long)p.n);
        else if (p.kind >= SLABS)
            snprintf(p.name, sizeof p.name, "slabs %s %lld^3 double, Alltoallw",
                     p.kind == SLABS ? "xy" : "xz", (long long)p.n);
        else
            snprintf(p.name, sizeof p.name, "fft2%s %lld^2 complex, %s",
                     p.kind == FFT2 ? "" : " blocks", (long long)p.n,
                     p.nonblocking ? "Ialltoall" : "Alltoall");
        if (!strstr(p.name, only))
            continue;
        if (p.kind == HALO)
            make_halo(&p, nranks);
        else if (p.kind == GATHER)
            make_gather(&p);
        else if (p.kind >= SLABS)
            make_slabs(&p, p.kind == SLABS_Z);
        else
            make_fft2(&p, p.kind == FFT2);
        p.in = doubles(p.in_doubles, rank, true);
        p.out = doubles(p.out_doubles, rank, false);
        fprintf(stderr, "progress: %s\n", p.name);
        failures += measure(&p, reps, seconds);
        free(p.in);
        free(p.out);
        free_pattern(&p);
    }
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return total ? 1 : 0;
}
