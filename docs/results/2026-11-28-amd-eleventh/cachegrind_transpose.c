#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "memcomm.h"
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = atoi(argv[1]), pitch = atoi(argv[2]), reps = atoi(argv[3]), elem = argc > 4 ? atoi(argv[4]) : 4;
    MPI_Datatype e = elem == 4 ? MPI_FLOAT : elem == 8 ? MPI_DOUBLE : MPI_C_DOUBLE_COMPLEX;
    MPI_Datatype col, t;
    MPI_Type_vector(n, 1, pitch, e, &col);
    MPI_Type_create_resized(col, 0, elem, &t);
    MPI_Type_commit(&t);
    size_t bytes = (size_t)n * elem * n;
    char *a = aligned_alloc(4096, ((size_t)n * pitch * elem + 4095) / 4096 * 4096), *out = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
    for (size_t i = 0; i < (size_t)n * pitch * elem; i++) a[i] = (char)i;
    if (getenv("EXPLAIN")) { char text[8192]; memcomm_type_explain(t, n, text, sizeof text); puts(text); }
    double best = 1e9;
    for (int r = 0; r < reps; r++) {
        MPI_Count pos = 0;
        double t0 = MPI_Wtime();
        if (getenv("MPI")) { int p = 0; PMPI_Pack(a, n, t, out, (int)bytes, &p, MPI_COMM_SELF); }
        else memcomm_pack(a, n, t, out, (MPI_Count)bytes, &pos);
        double dt = MPI_Wtime() - t0;
        if (dt < best) best = dt;
    }
    printf("n %d pitch %d elem %d: best %.1f us, %.2f GB/s\n", n, pitch, elem, best * 1e6, bytes / best / 1e9);
    MPI_Finalize();
    return 0;
}
