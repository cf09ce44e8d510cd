/* An ordinary MPI program that knows nothing of memcomm: it packs the six faces of a 3-D
 * block (subarray types) and a transposed tile (vector of resized columns) with MPI_Pack,
 * exchanges them with its ring neighbours as MPI_PACKED, unpacks, and prints checksums.
 * Run it with and without LD_PRELOAD=libmemcomm.so: the output must be identical. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 24 }; /* local block N^3 doubles, faces N^2 */

static uint64_t checksum(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *grid = malloc(sizeof(double) * N * N * N), *recv_grid = calloc(N * N * N, sizeof(double));
    for (int i = 0; i < N * N * N; i++)
        grid[i] = rank * 1e6 + i;

    MPI_Datatype faces[6];
    int sizes[3] = {N, N, N};
    for (int f = 0; f < 6; f++) {
        int sub[3] = {N, N, N}, start[3] = {0, 0, 0};
        sub[f / 2] = 1;
        start[f / 2] = f % 2 ? N - 1 : 0;
        MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &faces[f]);
        MPI_Type_commit(&faces[f]);
    }
    MPI_Datatype column, transpose;
    MPI_Type_vector(N, 1, N, MPI_DOUBLE, &column);
    MPI_Type_create_resized(column, 0, sizeof(double), &transpose);
    MPI_Type_commit(&transpose);

    int packed_size = 0, one;
    for (int f = 0; f < 6; f++) {
        MPI_Pack_size(1, faces[f], MPI_COMM_WORLD, &one);
        packed_size += one;
    }
    MPI_Pack_size(N, transpose, MPI_COMM_WORLD, &one);
    packed_size += one;
    unsigned char *sendbuf = malloc((size_t)packed_size), *recvbuf = malloc((size_t)packed_size);

    for (int step = 0; step < 3; step++) {
        int pos = 0;
        for (int f = 0; f < 6; f++)
            MPI_Pack(grid, 1, faces[f], sendbuf, packed_size, &pos, MPI_COMM_WORLD);
        MPI_Pack(grid, N, transpose, sendbuf, packed_size, &pos, MPI_COMM_WORLD);
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        MPI_Sendrecv(sendbuf, pos, MPI_PACKED, right, step, recvbuf, packed_size, MPI_PACKED, left,
                     step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int upos = 0;
        for (int f = 0; f < 6; f++)
            MPI_Unpack(recvbuf, pos, &upos, recv_grid, 1, faces[(f + step) % 6], MPI_COMM_WORLD);
        MPI_Unpack(recvbuf, pos, &upos, recv_grid, N, transpose, MPI_COMM_WORLD);
        for (int i = 0; i < N * N * N; i++)
            grid[i] = 0.5 * grid[i] + 0.25 * recv_grid[i];
        printf("rank %d step %d packed %d bytes checksum %016llx grid %016llx\n", rank, step, pos,
               (unsigned long long)checksum(sendbuf, (size_t)pos),
               (unsigned long long)checksum((unsigned char *)grid, sizeof(double) * N * N * N));
    }
    for (int f = 0; f < 6; f++)
        MPI_Type_free(&faces[f]);
    MPI_Type_free(&column);
    MPI_Type_free(&transpose);
    free(grid);
    free(recv_grid);
    free(sendbuf);
    free(recvbuf);
    MPI_Finalize();
    return 0;
}
