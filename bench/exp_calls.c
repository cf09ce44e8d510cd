/* What memcomm adds to a call it does not carry, for an instruction counter (`memcomm bench
 * pingpong --simulate` runs it under callgrind, with and without memcomm preloaded).
 *
 *   bench_suite calls --repeat R [--layout double|contiguous|bottom|vector]
 *
 * Rank 0 sends one MPI_DOUBLE to rank 1 R times, each send inside counted_send (the only
 * function callgrind collects in), and waits for the reply before the next, so every send
 * finds the same empty queue. Replies go through PMPI, outside the count. Prints nothing:
 * the counter counts. Other layouts: a derived type memcomm passes, one run of memory
 * (contiguous(64, MPI_DOUBLE)): the cost of looking at a type to pass it; a struct of two
 * arrays' absolute addresses sent from MPI_BOTTOM (8 and 56 doubles), which memcomm carries;
 * a vector of 144 blocks of 5 doubles (a NAS LU face), which memcomm carries. Run the last
 * two with MEMCOMM_SEND_PATH=mpi to count a carried call on the MPI's own path. */
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
    const char *layout = "double";
    if ((argc == 2 || argc == 4) && !strcmp(argv[0], "--repeat"))
        repeat = atoll(argv[1]);
    if (argc == 4 && !strcmp(argv[2], "--layout"))
        layout = argv[3];
    static double values[144 * 60], other[56]; /* the vector spans 143 * 60 + 5 */
    double reply;
    MPI_Datatype type = MPI_DOUBLE;
    void *buf = values;
    if (!strcmp(layout, "contiguous")) {
        MPI_Type_contiguous(64, MPI_DOUBLE, &type);
    } else if (!strcmp(layout, "bottom")) {
        int lens[2] = {8, 56};
        MPI_Aint at[2];
        MPI_Datatype doubles[2] = {MPI_DOUBLE, MPI_DOUBLE};
        MPI_Get_address(values, &at[0]);
        MPI_Get_address(other, &at[1]);
        MPI_Type_create_struct(2, lens, at, doubles, &type);
        buf = MPI_BOTTOM;
    } else if (!strcmp(layout, "vector")) {
        MPI_Type_vector(144, 5, 60, MPI_DOUBLE, &type);
    } else if (strcmp(layout, "double") != 0 || repeat < 1 || (argc != 2 && argc != 4)) {
        fprintf(stderr, "bench: calls needs --repeat R (R >= 1) "
                        "[--layout double|contiguous|bottom|vector]\n");
        return 2;
    }
    if (type != MPI_DOUBLE)
        MPI_Type_commit(&type);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (long long r = 0; r < repeat; r++) {
        if (rank == 0) {
            counted_send(buf, type, 1);
            PMPI_Recv(&reply, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            PMPI_Recv(buf, 1, type, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            PMPI_Send(&reply, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        }
    }
    if (type != MPI_DOUBLE)
        MPI_Type_free(&type);
    return 0;
}
