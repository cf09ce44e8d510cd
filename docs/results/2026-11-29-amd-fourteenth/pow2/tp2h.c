/* tp2 N PITCH ELEM REPS: n columns of an n x PITCH matrix (a transpose), caches flushed before
 * each call (64 MiB written); median of REPS; memcomm_pack, PMPI_Pack (MPI=1), memcpy (COPY=1) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "memcomm.h"
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = atoi(argv[1]), pitch = atoi(argv[2]), elem = atoi(argv[3]), reps = atoi(argv[4]);
    MPI_Datatype e = elem == 4 ? MPI_FLOAT : elem == 8 ? MPI_DOUBLE : MPI_C_DOUBLE_COMPLEX;
    MPI_Datatype col, t;
    MPI_Type_vector(n, 1, pitch, e, &col);
    MPI_Type_create_resized(col, 0, elem, &t);
    MPI_Type_commit(&t);
    size_t bytes = (size_t)n * elem * n, span = (size_t)n * pitch * elem;
    size_t sa = (span + (2u << 20) - 1) / (2u << 20) * (2u << 20), so = (bytes + (2u << 20) - 1) / (2u << 20) * (2u << 20); char *a = aligned_alloc(2u << 20, sa), *out = aligned_alloc(2u << 20, so); if (getenv("HUGE")) { madvise(a, sa, MADV_HUGEPAGE); madvise(out, so, MADV_HUGEPAGE); }
    size_t junk_bytes = 64u << 20;
    char *junk = malloc(junk_bytes);
    for (size_t i = 0; i < span; i++) a[i] = (char)i;
    memset(out, 1, bytes);
    double *s = malloc(sizeof(double) * reps);
    for (int r = 0; r < reps; r++) {
        if (!getenv("WARM")) memset(junk, r, junk_bytes);
        MPI_Count pos = 0;
        double t0 = MPI_Wtime();
        if (getenv("MPI")) { int p = 0; PMPI_Pack(a, n, t, out, (int)bytes, &p, MPI_COMM_SELF); }
        else if (getenv("COPY")) memcpy(out, a, bytes);
        else memcomm_pack(a, n, t, out, (MPI_Count)bytes, &pos);
        s[r] = MPI_Wtime() - t0;
    }
    if (!getenv("MPI") && !getenv("COPY") && !getenv("NOCHECK")) {
        char *ref = malloc(bytes); int p = 0;
        PMPI_Pack(a, n, t, ref, (int)bytes, &p, MPI_COMM_SELF);
        if (memcmp(ref, out, bytes)) printf("WRONG\n");
        /* at an odd output offset too */
        char *o2 = aligned_alloc(64, (bytes + 128 + 63) / 64 * 64);
        for (int off = 4; off < 64; off += 12) {
            MPI_Count pos = off;
            memcomm_pack(a, n, t, o2, (MPI_Count)bytes + 64, &pos);
            if (memcmp(ref, o2 + off, bytes)) printf("WRONG at offset %d\n", off);
        }
        free(ref); free(o2);
    }
    qsort(s, reps, sizeof *s, cmp);
    printf("n %d pitch %d elem %d %s: median %.1f us, %.2f GB/s\n", n, pitch, elem, getenv("MPI") ? "mpi" : getenv("COPY") ? "memcpy" : "memcomm", s[reps / 2] * 1e6, bytes / s[reps / 2] / 1e9);
    if (getenv("HUGE")) { char cmd[128]; snprintf(cmd, sizeof cmd, "grep AnonHuge /proc/%d/smaps_rollup", (int)getpid()); if (system(cmd)) {} }
    MPI_Finalize();
    return 0;
}
