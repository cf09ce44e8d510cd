/* The single-process part of an experiment, for a cache simulator (`memcomm bench
 * <experiment> --simulate` runs it under cachegrind where no hardware counters exist).
 *
 *   bench_suite simulate --layout L --method M --size N --repeat R
 *
 * Packs R times one message of layout L: "stride16", "stride32", "stride64" (N doubles, one
 * every stride) or "transpose" (an N x N matrix of doubles, column by column), with method
 * M: "datatype" (MPI_Pack of the layout's datatype; memcomm's if it is preloaded), "user" (the
 * loop a user writes), or "none" (everything but the pack: the runner subtracts this run's
 * counts, so what remains is the packs'). Prints nothing: the simulator counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments.h"

static volatile double sink;

int experiment_simulate(const timing *t, const char *sizes, int argc, char **argv)
{
    (void)t;
    (void)sizes;
    const char *layout = "", *method = "";
    long long n = 0, repeat = 1;
    for (int i = 0; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--layout"))
            layout = argv[i + 1];
        else if (!strcmp(argv[i], "--method"))
            method = argv[i + 1];
        else if (!strcmp(argv[i], "--size"))
            n = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--repeat"))
            repeat = atoll(argv[i + 1]);
        else {
            harness_no_options(argc - i, argv + i);
            return 2;
        }
    }
    const bool transpose = !strcmp(layout, "transpose");
    const int stride = transpose ? 0 : !strncmp(layout, "stride", 6) ? atoi(layout + 6) : -1;
    const bool known_method =
        !strcmp(method, "datatype") || !strcmp(method, "user") || !strcmp(method, "none");
    if (stride < 0 || (!transpose && stride < 2) || !known_method || n < 1 ||
        n > (transpose ? (1 << 14) : (1 << 26)) ||
        repeat < 1 || argc % 2) {
        fprintf(stderr, "bench: simulate needs --layout stride16|stride32|stride64|transpose "
                        "--method datatype|user|none --size N (side <= 16384, or elements <= 2^26) [--repeat R]\n");
        return 2;
    }
    const long long doubles = transpose ? n * n : n * stride, packed_doubles = transpose ? n * n : n;
    double *array = harness_alloc(doubles * 8), *packed = harness_alloc(packed_doubles * 8);
    for (long long i = 0; i < doubles; i++)
        array[i] = (double)i;
    MPI_Datatype type;
    if (transpose) {
        MPI_Datatype column;
        MPI_Type_vector((int)n, 1, (int)n, MPI_DOUBLE, &column);
        MPI_Type_create_resized(column, 0, sizeof(double), &type);
        MPI_Type_free(&column);
    } else {
        MPI_Type_vector((int)n, 1, stride, MPI_DOUBLE, &type);
    }
    MPI_Type_commit(&type);
    const int count = transpose ? (int)n : 1;
    for (long long r = 0; r < repeat; r++) {
        if (!strcmp(method, "datatype")) {
            int position = 0;
            MPI_Pack(array, count, type, packed, (int)(packed_doubles * 8), &position,
                     MPI_COMM_SELF);
        } else if (!strcmp(method, "user") && transpose) {
            for (long long j = 0, k = 0; j < n; j++)
                for (long long i = 0; i < n; i++)
                    packed[k++] = array[i * n + j];
        } else if (!strcmp(method, "user")) {
            for (long long i = 0; i < n; i++)
                packed[i] = array[i * stride];
        }
        sink = packed[r % packed_doubles];
    }
    MPI_Type_free(&type);
    free(array);
    free(packed);
    return 0;
}
