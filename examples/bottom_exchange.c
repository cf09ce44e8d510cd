/* An ordinary MPI program that knows nothing of memcomm: the exchange of LAMMPS-like atoms
 * between two ranks as codes written in Fortran do it, every other atom's position x(3),
 * velocity v(3) and tag sent from MPI_BOTTOM as a struct of absolute addresses
 * (MPI_Get_address), against the same atoms packed by a hand loop and sent contiguous.
 * Prints the median half round trip of each and whether the received atoms are right; run it
 * with and without LD_PRELOAD=libmemcomm.so.
 * usage: bottom_exchange [ATOMS [REPS]]   (defaults 131072 and 51) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* every other atom's x, then v, then tag, one after another */
static void pack(const double *x, const double *v, const int *tag, int n, char *p)
{
    for (int a = 0; a < n; a += 2, p += 24)
        memcpy(p, x + 3 * a, 24);
    for (int a = 0; a < n; a += 2, p += 24)
        memcpy(p, v + 3 * a, 24);
    for (int a = 0; a < n; a += 2, p += 4)
        memcpy(p, tag + a, 4);
}

static void unpack(const char *p, int n, double *x, double *v, int *tag)
{
    for (int a = 0; a < n; a += 2, p += 24)
        memcpy(x + 3 * a, p, 24);
    for (int a = 0; a < n; a += 2, p += 24)
        memcpy(v + 3 * a, p, 24);
    for (int a = 0; a < n; a += 2, p += 4)
        memcpy(tag + a, p, 4);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const int n = argc > 1 ? atoi(argv[1]) : 131072, reps = argc > 2 ? atoi(argv[2]) : 51;
    if (nranks != 2 || n < 2 || reps < 1) {
        if (rank == 0)
            fprintf(stderr, "bottom_exchange: 2 ranks, ATOMS >= 2, REPS >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *x = malloc(sizeof(double) * 3 * (size_t)n), *v = malloc(sizeof(double) * 3 * (size_t)n);
    int *tag = malloc(sizeof(int) * (size_t)n);
    MPI_Datatype three, one, parts[3], atoms;
    MPI_Type_vector(n / 2, 3, 6, MPI_DOUBLE, &three);
    MPI_Type_vector(n / 2, 1, 2, MPI_INT, &one);
    MPI_Aint where[3];
    int lens[3] = {1, 1, 1};
    MPI_Get_address(x, &where[0]);
    MPI_Get_address(v, &where[1]);
    MPI_Get_address(tag, &where[2]);
    parts[0] = parts[1] = three;
    parts[2] = one;
    MPI_Type_create_struct(3, lens, where, parts, &atoms);
    MPI_Type_commit(&atoms);
    int size;
    MPI_Type_size(atoms, &size);
    char *packed = malloc((size_t)size);
    double *times = malloc(sizeof(double) * (size_t)reps);
    long long wrong = 0;
    for (int method = 0; method < 2; method++) {
        for (int r = 0; r < reps; r++) {
            for (int i = 0; i < 3 * n; i++)
                x[i] = v[i] = rank * 1e7 + r * 1e3 + i;
            for (int i = 0; i < n; i++)
                tag[i] = rank * 1000000 + i;
            MPI_Barrier(MPI_COMM_WORLD);
            const double start = MPI_Wtime();
            for (int turn = 0; turn < 2; turn++) { /* rank 0 sends, then rank 1 */
                const int peer = 1 - rank;
                if (rank == turn && method == 0) {
                    MPI_Send(MPI_BOTTOM, 1, atoms, peer, 0, MPI_COMM_WORLD);
                } else if (rank == turn) {
                    pack(x, v, tag, n, packed);
                    MPI_Send(packed, size, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
                } else if (method == 0) {
                    MPI_Recv(MPI_BOTTOM, 1, atoms, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(packed, size, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    unpack(packed, n, x, v, tag);
                }
            }
            times[r] = (MPI_Wtime() - start) / 2;
            /* rank 0 ends with rank 1's atoms (received second), which hold rank 0's */
            for (int a = 0; rank == 0 && a < n; a += 2)
                wrong += x[3 * a] != r * 1e3 + 3 * a || tag[a] != a;
        }
        qsort(times, (size_t)reps, sizeof(double), by_value);
        if (rank == 0)
            printf("%s: %.1f us (median of %d), %d bytes\n",
                   method == 0 ? "struct from MPI_BOTTOM" : "hand pack + contiguous send",
                   times[reps / 2] * 1e6, reps, size);
    }
    if (rank == 0)
        printf("atoms received: %s\n", wrong ? "WRONG" : "right");
    MPI_Type_free(&atoms);
    MPI_Type_free(&three);
    MPI_Type_free(&one);
    free(times);
    free(packed);
    free(tag);
    free(v);
    free(x);
    MPI_Finalize();
    return wrong != 0;
}
