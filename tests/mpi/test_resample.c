/* A collective's decided path is sampled, and measured again when it turns slow
 * (lib/core/sendpath.h): two ranks exchange columns of a matrix by MPI_Alltoall of a vector
 * type, and rank 0 arrives late at the calls, so that rank 1's calls take far longer than
 * its trials said, and runs its trials again, which MEMCOMM_EXPLAIN=1 reports as round 2.
 * The ctest requires only what no clock decides: every call's bytes right, and a decision
 * on each exchange (MEMCOMM_EXPLAIN's "chose"); the resampling rule itself is checked on
 * injected times by tests/unit/test_sendpath.c. The exchanges:
 * - columns of 512 rows: on time until packing is decided, then 20 ms late;
 * - columns of 128 rows (another type and size class): 50 ms late from the first call, so
 *   that both paths wait alike and, on a quiet machine, the MPI's own is decided (the margin
 *   favours it; which one is not checked: a busy machine's noise of more than 10% can decide
 *   packing); a call left to the MPI is then handed over without its analysis
 *   (lib/coll/exchange.c), and must still be sampled: 150 ms late from LATER_FROM on, three
 *   times its usual time, so that either decision is measured again.
 *   The wait must swamp what the paths themselves cost: a path faster call by call wins by
 *   3% of the summed medians (lib/base/trials.h), and under ASan on a Zen 3 VM the MPI's
 *   own path of this type took 0.6-0.85 ms more than packing, which at 20 ms late decided
 *   packing on rank 1 once.
 * Every call's bytes are checked too. */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

#include "../check.h"

enum { COLUMNS = 64 };

static void arrive_late(int ms)
{
    const struct timespec pause = {0, ms * 1000 * 1000}; /* hundreds of times a call */
    nanosleep(&pause, NULL);
}

/* `calls` exchanges of columns of `rows` doubles; rank 0 late by `late_ms` from call
 * `late_from` on, by `later_ms` from `later_from` on. */
static void exchange(int rank, int rows, int calls, int late_from, int late_ms, int later_from,
                     int later_ms)
{
    /* each rank sends half of its columns to each rank: one column of `rows` doubles per
     * vector, COLUMNS / 2 of them, and receives them as contiguous rows */
    double *matrix = malloc(sizeof(double) * (size_t)rows * COLUMNS),
           *received = malloc(sizeof(double) * (size_t)rows * COLUMNS);
    CHECK(matrix != NULL && received != NULL);
    if (!matrix || !received)
        return;
    MPI_Datatype column, column_resized;
    MPI_Type_vector(rows, 1, COLUMNS, MPI_DOUBLE, &column);
    MPI_Type_create_resized(column, 0, sizeof(double), &column_resized);
    MPI_Type_commit(&column_resized);
    for (int call = 0; call < calls; call++) {
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < COLUMNS; c++)
                matrix[r * COLUMNS + c] = rank * 1e6 + call * 1e4 + r * COLUMNS + c;
        if (rank == 0 && call >= late_from)
            arrive_late(call >= later_from ? later_ms : late_ms);
        MPI_Alltoall(matrix, COLUMNS / 2, column_resized, received, COLUMNS / 2 * rows,
                     MPI_DOUBLE, MPI_COMM_WORLD);
        bool same = true;
        for (int from = 0; from < 2; from++)
            for (int k = 0; k < COLUMNS / 2; k++)
                for (int r = 0; r < rows; r++) {
                    const int c = rank * COLUMNS / 2 + k;
                    same = same && received[(from * COLUMNS / 2 + k) * rows + r] ==
                                       from * 1e6 + call * 1e4 + r * COLUMNS + c;
                }
        CHECK(same);
    }
    MPI_Type_free(&column_resized);
    MPI_Type_free(&column);
    free(received);
    free(matrix);
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
    exchange(rank, 512, 100, 40, 20, 100, 20); /* packing decided, then late */
    exchange(rank, 128, 110, 0, 50, 60, 150); /* the MPI's own decided, then later */
    const int failed = check_failed;
    int failed_anywhere = 0;
    MPI_Allreduce(&failed, &failed_anywhere, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d passed, %d failed\n", check_passed, failed_anywhere);
    MPI_Finalize();
    return failed_anywhere != 0;
}
