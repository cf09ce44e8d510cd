#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int nblocks = argc > 1 ? atoi(argv[1]) : 32768, block = argc > 2 ? atoi(argv[2]) : 128;
    MPI_Datatype t;
    MPI_Type_vector(nblocks, block, 2 * block, MPI_C_DOUBLE_COMPLEX, &t);
    MPI_Type_commit(&t);
    size_t packed = (size_t)nblocks * block * 16, typed = 2 * packed;
    char *src = malloc(packed), *dst = malloc(typed), *fl = malloc(256 << 20);
    memset(src, 1, packed); memset(dst, 0, typed); memset(fl, 0, 256 << 20);
    double tu[21], tp[21];
    for (int r = 0; r < 21; r++) {
        if (!getenv("WARM")) memset(fl, r, 256 << 20);
        int pos = 0;
        double s = MPI_Wtime();
        MPI_Unpack(src, (int)packed, &pos, dst, 1, t, MPI_COMM_SELF);
        tu[r] = MPI_Wtime() - s;
        if (!getenv("WARM")) memset(fl, r + 1, 256 << 20);
        pos = 0;
        s = MPI_Wtime();
        MPI_Pack(dst, 1, t, src, (int)packed, &pos, MPI_COMM_SELF);
        tp[r] = MPI_Wtime() - s;
    }
    qsort(tu, 21, sizeof(double), cmp); qsort(tp, 21, sizeof(double), cmp);
    printf("%zu MB: unpack %.2f ms (%.2f GB/s), pack %.2f ms (%.2f GB/s)\n", packed >> 20, tu[10] * 1e3, packed / tu[10] / 1e9, tp[10] * 1e3, packed / tp[10] / 1e9);
    MPI_Finalize();
    return 0;
}
