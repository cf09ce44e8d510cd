/* An N^2 transpose ping-pong under memcomm, each rank receiving contiguously: the carried
 * send's half round trip against memcomm's pack alone (MPI_Pack, rank 0) plus a contiguous
 * ping-pong, as `memcomm bench decompose` compares them; and a memcpy of the matrix into a
 * buffer sent right after (memcpy then send) against the memcpy alone.
 *   tloop N ROUNDS        (medians of ROUNDS turns of 16 round trips)
 *   PART=k                only part k (0 carried send, 1 contiguous, 2 pack alone, 3 memcpy
 *                         then send, 4 memcpy alone)
 *   MODE=m                how the copy of parts 3-4 leaves its lines: 0 memcpy, 1 memcpy then
 *                         cldemote of each line, 2 streaming stores, 3 memcpy then clwb */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <immintrin.h>

static int mode;
static void fill(double *dst, const double *src, size_t bytes)
{
    if (mode == 2) {
        for (size_t i = 0; i < bytes / 64; i++)
            _mm512_stream_pd(dst + 8 * i, _mm512_load_pd(src + 8 * i));
        _mm_sfence();
        return;
    }
    memcpy(dst, src, bytes);
    if (mode == 1)
        for (size_t i = 0; i < bytes; i += 64)
            _cldemote((const char *)dst + i);
    if (mode == 3) {
        for (size_t i = 0; i < bytes; i += 64)
            _mm_clwb((const char *)dst + i);
        _mm_sfence();
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int n = atoi(argv[1]), rounds = atoi(argv[2]), peer = 1 - rank;
    const int doubles = n * n;
    double *a = aligned_alloc(4096, (size_t)doubles * 8), *out = aligned_alloc(4096, (size_t)doubles * 8);
    double *packed = aligned_alloc(4096, (size_t)doubles * 8);
    for (int i = 0; i < doubles; i++)
        a[i] = i;
    memset(out, 0, (size_t)doubles * 8);
    memset(packed, 0, (size_t)doubles * 8);
    MPI_Datatype col, t;
    MPI_Type_vector(n, 1, n, MPI_DOUBLE, &col);
    MPI_Type_create_resized(col, 0, 8, &t);
    MPI_Type_commit(&t);
    double *v = malloc(sizeof(double) * rounds);
    const char *what[] = {"carried send", "contiguous", "pack alone", "memcpy then send", "memcpy alone"};
    const int only = getenv("PART") ? atoi(getenv("PART")) : -1;
    mode = getenv("MODE") ? atoi(getenv("MODE")) : 0;
    for (int part = 0; part < 5; part++) {
        if (only >= 0 && part != only)
            continue;
        for (int r = 0; r < rounds; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int k = 0; k < 16; k++) {
                if (part == 2) {
                    int pos = 0;
                    if (rank == 0)
                        MPI_Pack(a, n, t, packed, doubles * 8, &pos, MPI_COMM_SELF);
                    continue;
                }
                if (part == 4) {
                    if (rank == 0)
                        fill(packed, a, (size_t)doubles * 8);
                    continue;
                }
                if (part == 3) {
                    if (rank == 0) {
                        fill(packed, a, (size_t)doubles * 8);
                        MPI_Send(packed, doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
                        MPI_Recv(out, doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    } else {
                        MPI_Recv(out, doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                        fill(packed, a, (size_t)doubles * 8);
                        MPI_Send(packed, doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
                    }
                    continue;
                }
                if (rank == 0) {
                    if (part == 0)
                        MPI_Send(a, n, t, peer, 0, MPI_COMM_WORLD);
                    else
                        MPI_Send(a, doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
                    MPI_Recv(out, doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(out, doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    if (part == 0)
                        MPI_Send(a, n, t, peer, 0, MPI_COMM_WORLD);
                    else
                        MPI_Send(a, doubles, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
                }
            }
            v[r] = (MPI_Wtime() - t0) / 16 / (part == 2 || part == 4 ? 1 : 2);
        }
        if (rank == 0)
            printf("%s: %.1f us\n", what[part], median(v, rounds) * 1e6);
    }
    MPI_Finalize();
    return 0;
}
