/* What memcomm adds to a call it does not carry, for an instruction counter (`memcomm bench
 * pingpong --simulate` runs it under callgrind, with and without memcomm preloaded).
 *
 *   bench_suite calls --repeat R [--derived]
 *
 * Rank 0 sends one MPI_DOUBLE to rank 1 R times, each send inside counted_send (the only
 * function callgrind collects in), and waits for the reply before the next, so every send
 * finds the same empty queue. Replies go through PMPI, outside the count. Prints nothing:
 * the counter counts. With --derived each send is of a derived type memcomm passes, one run
 * of memory (contiguous(64, MPI_DOUBLE)): the cost of looking at a type to pass it. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments.h"

/* Not inlined, not cloned: callgrind's --toggle-collect finds it by name. */
__attribute__((noinline, noclone)) void counted_send(const void *buf, MPI_Datatype type,
                                                     int peer)
{
    MPI_Send(buf, 1, type, peer, 0, MPI_COMM_WORLD);
    __asm__ volatile("" ::: "memory");
}

int experiment_calls(const timing *t, const char *sizes, int argc, char **argv)
{
    (void)t;
    (void)sizes;
    long long repeat = 0;
    if ((argc == 2 || argc == 3) && !strcmp(argv[0], "--repeat"))
        repeat = atoll(argv[1]);
    const bool derived = argc == 3 && !strcmp(argv[2], "--derived");
    if (repeat < 1 || (argc == 3 && !derived)) {
        fprintf(stderr, "bench: calls needs --repeat R (R >= 1) [--derived]\n");
        return 2;
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static double values[64];
    double reply;
    MPI_Datatype type = MPI_DOUBLE;
    if (derived) {
        MPI_Type_contiguous(64, MPI_DOUBLE, &type);
        MPI_Type_commit(&type);
    }
    void *buf = values;
    for (long long r = 0; r < repeat; r++) {
        if (rank == 0) {
            counted_send(buf, type, 1);
            PMPI_Recv(&reply, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            PMPI_Recv(buf, 1, type, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            PMPI_Send(&reply, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        }
    }
    if (derived)
        MPI_Type_free(&type);
    return 0;
}
