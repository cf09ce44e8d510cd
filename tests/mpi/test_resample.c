/* A collective's decided path is sampled, and measured again when it turns slow
 * (lib/core/sendpath.h): two ranks exchange columns of a matrix by MPI_Alltoall of a vector
 * type until the trials have decided, then rank 0 arrives late at every call, so that rank
 * 1's calls take far longer than its trials said; rank 1 must run its trials again, which
 * MEMCOMM_EXPLAIN=1 reports as round 2 (the ctest greps the output for it, after a zero exit).
 * Every call's bytes are checked too. */
#include <mpi.h>
#include <time.h>

#include "../check.h"

enum { ROWS = 512, COLUMNS = 64, DECIDED_BY = 40, CALLS = 100 };

static void arrive_late(void)
{
    const struct timespec pause = {0, 20 * 1000 * 1000}; /* 20 ms: hundreds of times a call */
    nanosleep(&pause, NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "test_resample: run on 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    /* each rank sends half of its columns to each rank: one column of ROWS doubles per
     * vector, COLUMNS / 2 of them, and receives them as contiguous rows */
    static double matrix[ROWS][COLUMNS], rows[COLUMNS][ROWS];
    MPI_Datatype column, column_resized;
    MPI_Type_vector(ROWS, 1, COLUMNS, MPI_DOUBLE, &column);
    MPI_Type_create_resized(column, 0, sizeof(double), &column_resized);
    MPI_Type_commit(&column_resized);
    for (int call = 0; call < CALLS; call++) {
        for (int r = 0; r < ROWS; r++)
            for (int c = 0; c < COLUMNS; c++)
                matrix[r][c] = rank * 1e6 + call * 1e4 + r * COLUMNS + c;
        if (rank == 0 && call >= DECIDED_BY)
            arrive_late();
        MPI_Alltoall(matrix, COLUMNS / 2, column_resized, rows, COLUMNS / 2 * ROWS, MPI_DOUBLE,
                     MPI_COMM_WORLD);
        bool same = true;
        for (int from = 0; from < 2; from++)
            for (int k = 0; k < COLUMNS / 2; k++)
                for (int r = 0; r < ROWS; r++) {
                    const int c = rank * COLUMNS / 2 + k;
                    same = same && rows[from * COLUMNS / 2 + k][r] ==
                                       from * 1e6 + call * 1e4 + r * COLUMNS + c;
                }
        CHECK(same);
    }
    MPI_Type_free(&column_resized);
    MPI_Type_free(&column);
    const int failed = check_failed;
    int failed_anywhere = 0;
    MPI_Allreduce(&failed, &failed_anywhere, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d passed, %d failed\n", check_passed, failed_anywhere);
    MPI_Finalize();
    return failed_anywhere != 0;
}
