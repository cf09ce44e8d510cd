/* Receive blocks that are subarrays of one array, whose bounding spans interleave: a halo
 * exchange (MPI_Neighbor_alltoallw of the six faces of an N^3 block with one ghost layer on a
 * periodic 3-D grid of the ranks) and the same faces by MPI_Alltoallw. memcomm proves such
 * blocks disjoint by enumerating their runs (lib/coll/exchange.c, interleaved_disjoint) and
 * then carries the call; ghost faces widened to include their edges overlap, and their
 * receive side must go to the MPI. Each call's result is compared with the MPI's own (PMPI_)
 * call on the same input, byte for byte, wherever one receive block writes (where several
 * do, the MPI's own order varies from call to call). */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "memcomm.h"

static int rank, nranks;

/* Face k (dimension k / 2, low side for even k) of an (n+2)^3 array: the interior face sent,
 * or the ghost face received into; `wide` ghost faces include their edges. */
static MPI_Datatype face(int n, int k, bool ghost, bool wide)
{
    const int side = n + 2, d = k / 2, sizes[3] = {side, side, side};
    int start[3], sub[3];
    for (int e = 0; e < 3; e++) {
        start[e] = ghost && wide ? 0 : 1;
        sub[e] = ghost && wide ? side : n;
    }
    sub[d] = 1;
    start[d] = k % 2 == 0 ? (ghost ? 0 : 1) : (ghost ? n + 1 : n);
    MPI_Datatype t;
    MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

static long long handled_calls(void)
{
    memcomm_stats s;
    memcomm_stats_get(&s);
    return (long long)s.handled_calls;
}

/* One exchange of the faces by memcomm and by the MPI; true when the receive arrays match.
 * `*carried`: whether memcomm handled the call. */
static bool exchange_like_mpi(MPI_Comm comm, int n, bool wide, bool neighbour, bool *carried)
{
    const size_t doubles = (size_t)(n + 2) * (n + 2) * (n + 2);
    double *in = malloc(doubles * sizeof *in), *mine = malloc(doubles * sizeof *mine),
           *ref = malloc(doubles * sizeof *ref);
    for (size_t i = 0; i < doubles; i++) {
        in[i] = (double)i + 1e6 * rank;
        mine[i] = ref[i] = -1.0 - (double)i;
    }
    MPI_Datatype send[6], recv[6];
    int ones[6];
    MPI_Aint zeros[6] = {0};
    int zeros_int[6] = {0};
    for (int k = 0; k < 6; k++) {
        send[k] = face(n, k, false, false);
        recv[k] = face(n, k, true, wide);
        ones[k] = 1;
    }
    const long long before = handled_calls();
    if (neighbour) {
        MPI_Neighbor_alltoallw(in, ones, zeros, send, mine, ones, zeros, recv, comm);
        PMPI_Neighbor_alltoallw(in, ones, zeros, send, ref, ones, zeros, recv, comm);
    } else { /* the same faces by Alltoallw among all ranks, one face per peer */
        MPI_Alltoallw(in, ones, zeros_int, send, mine, ones, zeros_int, recv, comm);
        PMPI_Alltoallw(in, ones, zeros_int, send, ref, ones, zeros_int, recv, comm);
    }
    *carried = handled_calls() > before;
    /* the doubles more than one receive block writes (the edges of widened ghost faces) are
     * written in an order of the MPI's own, which differs from call to call: compared only
     * where one block writes */
    unsigned char *writers = calloc(doubles, 1);
    double *mark = malloc(doubles * sizeof *mark);
    for (int k = 0; k < 6; k++) {
        int size, position = 0;
        MPI_Type_size(recv[k], &size);
        double *ones = malloc((size_t)size);
        for (int i = 0; i < size / 8; i++)
            ones[i] = 1.0;
        memset(mark, 0, doubles * sizeof *mark);
        PMPI_Unpack(ones, size, &position, mark, 1, recv[k], MPI_COMM_SELF);
        for (size_t i = 0; i < doubles; i++)
            writers[i] += mark[i] == 1.0;
        free(ones);
    }
    bool same = true;
    for (size_t i = 0; i < doubles && same; i++)
        same = writers[i] > 1 || memcmp(&mine[i], &ref[i], sizeof *mine) == 0;
    free(writers);
    free(mark);
    for (int k = 0; k < 6; k++) {
        MPI_Type_free(&send[k]);
        MPI_Type_free(&recv[k]);
    }
    free(in);
    free(mine);
    free(ref);
    return same;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
    MPI_Dims_create(nranks, 3, dims);
    MPI_Comm grid;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &grid);
    const char *path = getenv("MEMCOMM_SEND_PATH");
    const bool forced_packed = path && !strcmp(path, "packed");
    for (int n = 3; n <= 24; n += 7) {
        bool carried = false;
        /* disjoint ghost faces: carried (the calls repeat, so the path trials see both).
         * With the path forced packed, every call; otherwise the trials may keep the MPI's */
        for (int call = 0; call < 24; call++) {
            CHECK(exchange_like_mpi(grid, n, false, true, &carried));
            if (forced_packed)
                CHECK(carried);
        }
        /* ghost faces with edges overlap: the receive side goes to the MPI as given (the
         * send side may still be packed), and the bytes one block writes are the MPI's */
        for (int call = 0; call < 3; call++)
            CHECK(exchange_like_mpi(grid, n, true, true, &carried));
        if (nranks == 6) /* Alltoallw: one face per rank */
            for (int call = 0; call < 3; call++)
                CHECK(exchange_like_mpi(MPI_COMM_WORLD, n, false, false, &carried));
    }
    MPI_Comm_free(&grid);
    int code = check_summary("test_halo");
    MPI_Finalize();
    return code;
}
