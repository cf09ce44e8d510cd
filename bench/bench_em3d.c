/* LoGPC's EM3D (Moritz and Frank, sec. 5.3) as an MPI mini-application: the E and H nodes of a
 * bipartite graph, each updated from the other side's neighbours every half-step, after a
 * communication phase that brings the values of neighbours owned by other ranks.
 *
 * Each rank owns --nodes E and --nodes H nodes; every node has --degree edges. An edge is
 * non-local with probability R (each value of --sizes is R in percent) and then ends on a
 * node of the rank at distance 1..--span on either side (the ring of ranks), else on a
 * node of the same rank: the Split-C generator's "% non-local" and "span". Before each
 * half-step a rank sends, for each non-local edge of another rank, the value of its end node
 * (the paper's count), in messages of --values values (Alewife's short messages: 10), with MPI_Isend in the
 * --order "destination" (one destination after the other, the paper's first version) or
 * "random" (shuffled, its fix), and receives the same way into ghost copies.
 *
 * For each R it times, over --reps half-steps after one to warm up:
 *   phase  from a barrier to the last rank having sent and received all its values (the
 *          maximum over ranks): what LoGPC's EM3D model predicts
 *   step   the same with the update of the nodes, the whole half-step
 * and checks that every ghost received is the value of the node it stands for. One JSON
 * object per (R, method), with the messages each rank sends to each other rank, so that
 * `memcomm report` can replay the phase through the model (models/em3d.py).
 *
 *   bench_em3d [--reps R] [--sizes PERCENT,...] [--nodes N] [--degree D] [--span S]
 *              [--values V] [--order destination|random] */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

typedef struct {
    int ranks, rank, nodes, degree, span, values_per_message;
    bool random_order;
    /* edges: per node, `degree` (rank, node) ends; a local end has rank == this rank */
    int *end_rank, *end_node;
    /* what this rank needs: per source rank, the node at the end of each non-local edge */
    int *need_count, **need_nodes;
    /* what this rank sends: per destination rank, the node indices here */
    int *send_count, **send_nodes;
    /* ghosts: for each non-local edge, its slot in the receive buffer */
    int *edge_slot;
    int *recv_offset; /* per source, first slot */
    int total_needed, total_sent;
} graph;

static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state >> 33;
}

static void *allocated(size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "bench_em3d: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* The value a node starts with: known to every rank, so ghosts can be checked. */
static double value_of(int rank, int node) { return (double)rank * 1e6 + (double)node; }

/* Draws the edges (seeded by rank and R), then tells every rank which of its nodes the
 * others need. */
static graph graph_new(int ranks, int rank, int nodes, int degree, int span, int percent,
                       int values_per_message, bool random_order)
{
    graph g = {.ranks = ranks, .rank = rank, .nodes = nodes, .degree = degree, .span = span,
               .values_per_message = values_per_message, .random_order = random_order};
    const size_t edges = (size_t)nodes * (size_t)degree;
    g.end_rank = allocated(sizeof(int) * edges);
    g.end_node = allocated(sizeof(int) * edges);
    uint64_t state = 0x9e3779b97f4a7c15ull ^ ((uint64_t)rank << 20) ^ (uint64_t)percent;
    int *wanted = allocated(sizeof(int) * (size_t)ranks); /* edges into each rank */
    for (size_t e = 0; e < edges; e++) {
        int to = rank;
        if ((int)(next_random(&state) % 100) < percent) {
            int distance = 1 + (int)(next_random(&state) % (uint64_t)span);
            to = (rank + (next_random(&state) & 1 ? distance : ranks - distance)) % ranks;
        }
        g.end_rank[e] = to;
        g.end_node[e] = (int)(next_random(&state) % (uint64_t)nodes);
        wanted[to] += to != rank;
    }
    /* one value per non-local edge, as the paper's model counts them (a node two edges
     * need comes twice), in edge order per source */
    g.need_count = allocated(sizeof(int) * (size_t)ranks);
    g.need_nodes = allocated(sizeof(int *) * (size_t)ranks);
    for (int q = 0; q < ranks; q++)
        g.need_nodes[q] = allocated(sizeof(int) * (size_t)wanted[q]);
    g.recv_offset = allocated(sizeof(int) * (size_t)(ranks + 1));
    for (int q = 0; q < ranks; q++)
        g.recv_offset[q + 1] = g.recv_offset[q] + wanted[q];
    g.total_needed = g.recv_offset[ranks];
    g.edge_slot = allocated(sizeof(int) * edges);
    for (size_t e = 0; e < edges; e++) {
        const int q = g.end_rank[e];
        if (q == rank)
            continue;
        g.edge_slot[e] = g.recv_offset[q] + g.need_count[q];
        g.need_nodes[q][g.need_count[q]++] = g.end_node[e];
    }
    /* the others' needs are what this rank sends */
    g.send_count = allocated(sizeof(int) * (size_t)ranks);
    MPI_Alltoall(g.need_count, 1, MPI_INT, g.send_count, 1, MPI_INT, MPI_COMM_WORLD);
    g.send_nodes = allocated(sizeof(int *) * (size_t)ranks);
    MPI_Request *requests = allocated(sizeof(MPI_Request) * 2 * (size_t)ranks);
    int n = 0;
    for (int q = 0; q < ranks; q++) {
        g.send_nodes[q] = allocated(sizeof(int) * (size_t)g.send_count[q]);
        g.total_sent += g.send_count[q];
        if (g.send_count[q])
            MPI_Irecv(g.send_nodes[q], g.send_count[q], MPI_INT, q, 0, MPI_COMM_WORLD, &requests[n++]);
        if (g.need_count[q])
            MPI_Isend(g.need_nodes[q], g.need_count[q], MPI_INT, q, 0, MPI_COMM_WORLD, &requests[n++]);
    }
    MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
    free(requests);
    free(wanted);
    return g;
}

static void graph_free(graph *g)
{
    for (int q = 0; q < g->ranks; q++) {
        free(g->need_nodes[q]);
        free(g->send_nodes[q]);
    }
    free(g->need_nodes);
    free(g->send_nodes);
    free(g->need_count);
    free(g->send_count);
    free(g->recv_offset);
    free(g->edge_slot);
    free(g->end_rank);
    free(g->end_node);
}

static int messages_for(const graph *g, int values)
{
    return (values + g->values_per_message - 1) / g->values_per_message;
}

/* One message: (peer, first value, values). */
typedef struct {
    int peer, first, count;
} message;

/* This rank's messages in sending order; `out` holds at least total_sent messages. */
static int send_order(const graph *g, message *out, uint64_t *state)
{
    int n = 0;
    for (int q = 0; q < g->ranks; q++)
        for (int first = 0; first < g->send_count[q]; first += g->values_per_message) {
            const int left = g->send_count[q] - first;
            out[n++] = (message){q, first, left < g->values_per_message ? left : g->values_per_message};
        }
    for (int i = n - 1; g->random_order && i > 0; i--) {
        int j = (int)(next_random(state) % (uint64_t)(i + 1));
        message swap = out[i];
        out[i] = out[j];
        out[j] = swap;
    }
    return n;
}

typedef struct {
    double *mine, *other; /* this side's values, and the other side's (the neighbours) */
    double *ghosts;       /* total_needed values from other ranks */
    double **outgoing;    /* per destination, send_count values */
    message *order;
    MPI_Request *requests;
} state;

/* The communication phase of a half-step: the other side's values that others need go out,
 * the ghosts come in. In random order a message's tag is its place among those to its peer,
 * so that it still lands in its slot; in destination order they all have tag 0 and land in
 * order (MPI does not reorder messages between two ranks), and each arrival matches the
 * first receive posted for its source instead of searching thousands with distinct tags. */
static int tag_of(const graph *g, int first)
{
    return g->random_order ? first / g->values_per_message : 0;
}

static void exchange(const graph *g, state *s, uint64_t *random_state)
{
    int n = 0;
    for (int q = 0; q < g->ranks; q++) /* receives first, as the handlers of the paper */
        for (int first = 0; first < g->need_count[q]; first += g->values_per_message) {
            const int left = g->need_count[q] - first;
            MPI_Irecv(s->ghosts + g->recv_offset[q] + first,
                      left < g->values_per_message ? left : g->values_per_message, MPI_DOUBLE, q,
                      tag_of(g, first), MPI_COMM_WORLD, &s->requests[n++]);
        }
    for (int q = 0; q < g->ranks; q++)
        for (int i = 0; i < g->send_count[q]; i++)
            s->outgoing[q][i] = s->other[g->send_nodes[q][i]];
    const int messages = send_order(g, s->order, random_state);
    for (int m = 0; m < messages; m++) {
        const message *it = &s->order[m];
        MPI_Isend(s->outgoing[it->peer] + it->first, it->count, MPI_DOUBLE, it->peer,
                  tag_of(g, it->first), MPI_COMM_WORLD, &s->requests[n++]);
    }
    MPI_Waitall(n, s->requests, MPI_STATUSES_IGNORE);
}

/* The update: each node from its neighbours on the other side (local or ghost). */
static void update(const graph *g, state *s)
{
    for (int v = 0; v < g->nodes; v++) {
        double sum = 0;
        for (int k = 0; k < g->degree; k++) {
            const size_t e = (size_t)v * (size_t)g->degree + (size_t)k;
            sum += g->end_rank[e] == g->rank ? s->other[g->end_node[e]] : s->ghosts[g->edge_slot[e]];
        }
        s->mine[v] = 0.5 * s->mine[v] + sum * (1.0 / (double)g->degree);
    }
}

static bool ghosts_are_right(const graph *g, const state *s)
{
    for (int q = 0; q < g->ranks; q++)
        for (int i = 0; i < g->need_count[q]; i++)
            if (s->ghosts[g->recv_offset[q] + i] != value_of(q, g->need_nodes[q][i]))
                return false;
    return true;
}

static double timed_max(double seconds)
{
    double longest;
    MPI_Allreduce(&seconds, &longest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return longest;
}

static void print_result(const graph *g, int percent, const char *method, const double *t,
                         int reps, const int *matrix)
{
    printf("{\"kind\": \"result\", \"experiment\": \"em3d\", \"stopped\": \"fixed\", "
           "\"pattern\": \"em3d %d%% non-local, span %d\", \"ranks\": %d, \"nodes\": %d, "
           "\"degree\": %d, \"span\": %d, \"remote_percent\": %d, \"values_per_message\": %d, "
           "\"order\": \"%s\", \"method\": \"%s\", \"bytes\": %lld, \"messages\": [",
           percent, g->span, g->ranks, g->nodes, g->degree, g->span, percent,
           g->values_per_message, g->random_order ? "random" : "by destination", method,
           (long long)g->values_per_message * (long long)sizeof(double));
    for (int p = 0; p < g->ranks; p++) {
        printf(p ? ", [" : "[");
        for (int q = 0; q < g->ranks; q++)
            printf(q ? ", %d" : "%d", matrix[p * g->ranks + q]);
        printf("]");
    }
    printf("], ");
    bench_print_seconds(t, reps);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const int reps = atoi(bench_option(argc, argv, "--reps", "7"));
    const char *sizes = bench_option(argc, argv, "--sizes", "10,20,40,60,80,100");
    const int nodes = atoi(bench_option(argc, argv, "--nodes", "2000"));
    const int degree = atoi(bench_option(argc, argv, "--degree", "20"));
    const int span = atoi(bench_option(argc, argv, "--span", "1"));
    const int values = atoi(bench_option(argc, argv, "--values", "10"));
    const char *order = bench_option(argc, argv, "--order", "destination");
    const bool random_order = strcmp(order, "random") == 0;
    if (ranks < 2 || reps < 3 || nodes < 1 || degree < 1 || values < 1 || span < 1 ||
        span > ranks / 2 || (!random_order && strcmp(order, "destination") != 0)) {
        if (rank == 0)
            fprintf(stderr, "bench_em3d: run on 2 or more ranks with --reps >= 3, --span in "
                            "1..ranks/2 (%d here) and --order destination or random\n",
                    ranks / 2);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *phase = allocated(sizeof(double) * (size_t)reps);
    double *step = allocated(sizeof(double) * (size_t)reps);
    int *row = allocated(sizeof(int) * (size_t)ranks);
    int *matrix = allocated(sizeof(int) * (size_t)ranks * (size_t)ranks);
    int failures = 0;
    char *list = strdup(sizes);
    for (char *item = strtok(list, ","); item; item = strtok(NULL, ",")) {
        const int percent = atoi(item);
        if (percent < 0 || percent > 100) {
            if (rank == 0)
                fprintf(stderr, "bench_em3d: %s is no percentage\n", item);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        graph g = graph_new(ranks, rank, nodes, degree, span, percent, values, random_order);
        for (int q = 0; q < ranks; q++)
            row[q] = messages_for(&g, g.send_count[q]);
        MPI_Gather(row, ranks, MPI_INT, matrix, ranks, MPI_INT, 0, MPI_COMM_WORLD);
        int most_messages = 0, most_to_one = 0;
        for (int q = 0; q < ranks; q++) {
            most_messages += row[q] + messages_for(&g, g.need_count[q]);
            most_to_one = row[q] > most_to_one ? row[q] : most_to_one;
        }
        if (random_order && most_to_one > 32767) { /* tags: the standard promises no more */
            fprintf(stderr, "bench_em3d: %d messages to one rank need more tags than MPI "
                            "promises; use fewer --nodes or more --values\n", most_to_one);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        state e = {0}, h = {0};
        double *e_values = allocated(sizeof(double) * (size_t)nodes);
        double *h_values = allocated(sizeof(double) * (size_t)nodes);
        state *const sides[2] = {&e, &h};
        for (int side = 0; side < 2; side++) {
            state *s = sides[side];
            s->mine = side == 0 ? e_values : h_values;
            s->other = side == 0 ? h_values : e_values;
            s->ghosts = allocated(sizeof(double) * (size_t)g.total_needed);
            s->outgoing = allocated(sizeof(double *) * (size_t)ranks);
            for (int q = 0; q < ranks; q++)
                s->outgoing[q] = allocated(sizeof(double) * (size_t)g.send_count[q]);
            s->order = allocated(sizeof(message) * (size_t)(g.total_sent + ranks));
            s->requests = allocated(sizeof(MPI_Request) * (size_t)(most_messages + 1));
        }
        uint64_t random_state = 12345 + (uint64_t)rank;
        /* a checked exchange first (values every rank can compute), which also warms up */
        for (int v = 0; v < nodes; v++)
            h_values[v] = value_of(rank, v);
        exchange(&g, &e, &random_state);
        int right = ghosts_are_right(&g, &e), all_right;
        MPI_Allreduce(&right, &all_right, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!all_right) {
            failures++;
            if (rank == 0)
                fprintf(stderr, "bench_em3d: %d%%: a ghost differs from the node it copies\n",
                        percent);
        }
        update(&g, &e);
        for (int r = 0; r < reps; r++) {
            state *s = r % 2 ? &e : &h; /* E and H half-steps in turn */
            MPI_Barrier(MPI_COMM_WORLD);
            const double start = MPI_Wtime();
            exchange(&g, s, &random_state);
            const double exchanged = MPI_Wtime();
            update(&g, s);
            const double done = MPI_Wtime();
            phase[r] = timed_max(exchanged - start);
            step[r] = timed_max(done - start);
        }
        if (rank == 0) {
            print_result(&g, percent, "phase", phase, reps, matrix);
            print_result(&g, percent, "step", step, reps, matrix);
            fprintf(stderr, "progress: %d%% non-local done\n", percent);
        }
        for (int side = 0; side < 2; side++) {
            state *s = sides[side];
            free(s->ghosts);
            for (int q = 0; q < ranks; q++)
                free(s->outgoing[q]);
            free(s->outgoing);
            free(s->order);
            free(s->requests);
        }
        free(e_values);
        free(h_values);
        graph_free(&g);
    }
    free(list);
    free(phase);
    free(step);
    free(row);
    free(matrix);
    MPI_Finalize();
    return failures ? 1 : 0;
}
