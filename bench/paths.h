/* memcomm's path decisions, for the benchmarks linked with memcomm: how many of each rank's
 * timed trials (lib/core/sendpath.h) chose packing and how many the MPI's own path since
 * `before`, printed as "paths" in a pattern's memcomm record, so that a row of a table can be
 * traced to the path each rank took. */
#ifndef BENCH_PATHS_H
#define BENCH_PATHS_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "memcomm.h"

/* Collective over `comm`: each rank's decisions since `before`, two ints per rank (packed, the
 * MPI's own), on rank 0; free() the array on every rank. */
static inline int *bench_paths_gather(const memcomm_stats *before, MPI_Comm comm)
{
    int ranks;
    MPI_Comm_size(comm, &ranks);
    memcomm_stats after;
    memcomm_stats_get(&after);
    int decided[2] = {(int)(after.paths_packed - before->paths_packed),
                      (int)(after.paths_by_mpi - before->paths_by_mpi)};
    int *every = malloc(sizeof(int) * 2 * (size_t)ranks);
    MPI_Gather(decided, 2, MPI_INT, every, 2, MPI_INT, 0, comm);
    return every;
}

/* The "paths" field of a JSON record, with its trailing ", ". */
static inline void bench_print_paths(const int *every, int ranks)
{
    printf("\"paths\": [");
    for (int r = 0; r < ranks; r++)
        printf("{\"packed\": %d, \"by_mpi\": %d}%s", every[2 * r], every[2 * r + 1],
               r + 1 < ranks ? ", " : "], ");
}

#endif
