/* What memcomm adds to a call it does not carry, for an instruction counter (`memcomm bench
 * pingpong --simulate` runs it under callgrind, with and without memcomm preloaded).
 *
 *   bench_suite calls --repeat R [--bottom]
 *
 * Rank 0 sends one MPI_DOUBLE to rank 1 R times, each send inside counted_send (the only
 * function callgrind collects in), and waits for the reply before the next, so every send
 * finds the same empty queue. Replies go through PMPI, outside the count. Prints nothing:
 * the counter counts. With --bottom each send is a struct of three arrays at absolute
 * addresses sent from MPI_BOTTOM (the Fortran idiom for several arrays in one message, as in
 * LAMMPS's exchange: 64 atoms' positions and velocities as doubles, their tags as ints), which
 * memcomm hands to the MPI. */
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

/* The struct of three arrays at absolute addresses (MPI_Get_address), committed. */
enum { ATOMS = 64 };
static MPI_Datatype arrays_at_bottom(double *x, double *v, int *tag)
{
    int lengths[3] = {3 * ATOMS, 3 * ATOMS, ATOMS};
    MPI_Aint where[3];
    MPI_Get_address(x, &where[0]);
    MPI_Get_address(v, &where[1]);
    MPI_Get_address(tag, &where[2]);
    MPI_Datatype types[3] = {MPI_DOUBLE, MPI_DOUBLE, MPI_INT}, t;
    MPI_Type_create_struct(3, lengths, where, types, &t);
    MPI_Type_commit(&t);
    return t;
}

int experiment_calls(const timing *t, const char *sizes, int argc, char **argv)
{
    (void)t;
    (void)sizes;
    long long repeat = 0;
    if ((argc == 2 || argc == 3) && !strcmp(argv[0], "--repeat"))
        repeat = atoll(argv[1]);
    const bool bottom = argc == 3 && !strcmp(argv[2], "--bottom");
    if (repeat < 1 || (argc == 3 && !bottom)) {
        fprintf(stderr, "bench: calls needs --repeat R (R >= 1) [--bottom]\n");
        return 2;
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static double x[3 * ATOMS], v[3 * ATOMS];
    static int tag[ATOMS];
    double value = 1, reply;
    const MPI_Datatype type = bottom ? arrays_at_bottom(x, v, tag) : MPI_DOUBLE;
    void *buf = bottom ? MPI_BOTTOM : &value;
    for (long long r = 0; r < repeat; r++) {
        if (rank == 0) {
            counted_send(buf, type, 1);
            PMPI_Recv(&reply, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            PMPI_Recv(buf, 1, type, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            PMPI_Send(&reply, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        }
    }
    if (bottom) {
        MPI_Datatype t = type;
        MPI_Type_free(&t);
    }
    return 0;
}
