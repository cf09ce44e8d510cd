/* A program with known communication call sites, for `memcomm advise -- PROG`: the test
 * finds each site's line by its marker comment and checks what advise reports there. */
#include <mpi.h>
#include <stdio.h>

enum { N = 64, VALUES = 1000 };

static double values[VALUES], matrix[N * N], halo[N * N];

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int peer = 1 - rank;
    MPI_Datatype column;
    MPI_Type_vector(N, 1, N, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    const MPI_Comm world = MPI_COMM_WORLD; /* each call on one line: its line is its site */
    MPI_Status *none = MPI_STATUS_IGNORE;
    for (int k = 0; k < 5; k++) {
        if (rank == 0)
            MPI_Send(values, VALUES, MPI_DOUBLE, peer, 0, world); /* site: send */
        else
            MPI_Recv(values, VALUES, MPI_DOUBLE, peer, 0, world, none); /* site: recv */
    }
    for (int k = 0; k < 3; k++)
        MPI_Sendrecv(matrix, 1, column, peer, 1, halo, 1, column, peer, 1, world, none); /* site: halo */
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* site: allreduce */
    MPI_Type_free(&column);
    if (rank == 0)
        printf("advise_program: %d ranks\n", sum);
    MPI_Finalize();
    return 0;
}
