/* Types whose instances or blocks overlap. MPI calls them erroneous for receiving, but the MPI
 * unpacks them in its own order, and memcomm must write exactly what the MPI writes. Each case
 * unpacks the same packed stream with memcomm (interposed MPI_Unpack, memcomm_unpack, and a
 * carried receive from the other rank when there is one) and with PMPI_Unpack, over the same
 * starting bytes, and compares the whole buffer.
 *
 * The first case is Open MPI's own datatype test corpus type ddtbench_fft2d_scatter,
 * contiguous(c, resized(vector(c, 1, DIM, complex), 16)), whose instances interleave and, from
 * a count that depends on DIM and c, land on each other. */
#include <stdlib.h>

#include "../check.h"
#include "memcomm.h"

static int rank, nranks;

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (unsigned char)(seed >> 16);
    }
}

/* Unpack `count` instances of `t` three ways into copies of one buffer of `span` bytes
 * (origin at `at`); true when every copy equals the MPI's. With two ranks the packed bytes
 * are also sent to rank 1, which receives them as `count` instances of `t`. */
static bool unpacks_like_mpi(MPI_Datatype t, int count, size_t span, size_t at, const char *name)
{
    int size;
    MPI_Type_size(t, &size);
    size_t bytes = (size_t)size * (size_t)count;
    unsigned char *packed = malloc(bytes), *ref = malloc(span), *mine = malloc(span),
                  *api = malloc(span);
    fill(packed, bytes, 7);
    fill(ref, span, 11);
    memcpy(mine, ref, span);
    memcpy(api, ref, span);
    int pr = 0, pm = 0;
    MPI_Count pa = 0;
    int rr = PMPI_Unpack(packed, (int)bytes, &pr, ref + at, count, t, MPI_COMM_SELF);
    int rm = MPI_Unpack(packed, (int)bytes, &pm, mine + at, count, t, MPI_COMM_SELF);
    int ra = memcomm_unpack(packed, (MPI_Count)bytes, &pa, api + at, count, t);
    bool same = rr == MPI_SUCCESS && rm == MPI_SUCCESS && ra == MPI_SUCCESS && pr == pm &&
                pa == pr && memcmp(ref, mine, span) == 0 && memcmp(ref, api, span) == 0;
    if (!same)
        fprintf(stderr, "test_overlap: %s, count %d: unpack differs from the MPI's\n", name, count);
    if (nranks == 2) { /* a carried receive writes what PMPI_Unpack wrote */
        unsigned char *got = malloc(span);
        fill(got, span, 11);
        int ok = 1;
        if (rank == 0) {
            MPI_Send(packed, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        } else {
            MPI_Recv(got + at, count, t, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            ok = memcmp(ref, got, span) == 0;
            if (!ok)
                fprintf(stderr, "test_overlap: %s, count %d: receive differs\n", name, count);
        }
        MPI_Bcast(&ok, 1, MPI_INT, 1, MPI_COMM_WORLD);
        same = same && ok;
        free(got);
    }
    free(packed);
    free(ref);
    free(mine);
    free(api);
    return same;
}

static MPI_Datatype fft2d_scatter(int dim, int c)
{
    MPI_Datatype column, narrow, t;
    MPI_Type_vector(c, 1, dim, MPI_C_DOUBLE_COMPLEX, &column);
    MPI_Type_create_resized(column, 0, 16, &narrow);
    MPI_Type_contiguous(c, narrow, &t);
    MPI_Type_commit(&t);
    MPI_Type_free(&column);
    MPI_Type_free(&narrow);
    return t;
}

/* The corpus type as it was first found: equal for count 1, different from count 5 on. The
 * same shape over doubles too, which memcomm transposes itself (no complex leaf). */
static void fft2d_corpus(void)
{
    const int dim = 256, c = 128;
    MPI_Datatype t = fft2d_scatter(dim, c);
    MPI_Count lb, extent, tlb, textent;
    MPI_Type_get_extent_x(t, &lb, &extent);
    MPI_Type_get_true_extent_x(t, &tlb, &textent);
    int counts[] = {1, 2, 3, 5, 100};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        size_t span = (size_t)(tlb + textent + (counts[i] - 1) * extent);
        CHECK(unpacks_like_mpi(t, counts[i], span, 0, "fft2d_scatter"));
    }
    MPI_Type_free(&t);

    MPI_Datatype column, narrow;
    MPI_Type_vector(c, 1, dim, MPI_DOUBLE, &column);
    MPI_Type_create_resized(column, 0, 8, &narrow);
    MPI_Type_contiguous(c, narrow, &t);
    MPI_Type_commit(&t);
    MPI_Type_free(&column);
    MPI_Type_free(&narrow);
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        size_t span = (size_t)((c - 1) * dim * 8 + c * 8 + (counts[i] - 1) * c * 8);
        CHECK(unpacks_like_mpi(t, counts[i], span, 0, "transpose of doubles"));
    }
    MPI_Type_free(&t);
}

/* Blocks that overlap within one instance, and instances that step backwards over each
 * other. */
static void within_and_backwards(void)
{
    MPI_Datatype t;
    /* a vector whose stride is shorter than its block */
    MPI_Type_vector(6, 4, 3, MPI_INT, &t);
    MPI_Type_commit(&t);
    CHECK(unpacks_like_mpi(t, 1, 4 * 24, 0, "vector(6, 4, 3, int)"));
    CHECK(unpacks_like_mpi(t, 3, 4 * 80, 0, "vector(6, 4, 3, int)"));
    MPI_Type_free(&t);
    /* an indexed type that names the same elements twice */
    int lens[3] = {2, 3, 2}, displs[3] = {0, 1, 0};
    MPI_Type_indexed(3, lens, displs, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    CHECK(unpacks_like_mpi(t, 1, 8 * 4, 0, "indexed({2,3,2}, {0,1,0}, double)"));
    MPI_Type_free(&t);
    /* a negative stride over a resized element: instances run backwards into each other */
    MPI_Datatype v, r;
    MPI_Type_vector(8, 2, -3, MPI_FLOAT, &v);
    MPI_Type_create_resized(v, 0, 4, &r);
    MPI_Type_commit(&r);
    CHECK(unpacks_like_mpi(r, 4, 4 * 64, 4 * 40, "resized(vector(8, 2, -3, float), 0, 4)"));
    MPI_Type_free(&v);
    MPI_Type_free(&r);
    /* interleaved but disjoint instances are still memcomm's to unpack */
    MPI_Type_vector(16, 1, 4, MPI_DOUBLE, &v);
    MPI_Type_create_resized(v, 0, 8, &r);
    MPI_Type_commit(&r);
    memcomm_stats before, after;
    memcomm_stats_get(&before);
    CHECK(unpacks_like_mpi(r, 4, 8 * 64, 0, "resized(vector(16, 1, 4, double), 0, 8)"));
    memcomm_stats_get(&after);
    CHECK(after.handled_calls > before.handled_calls);
    MPI_Type_free(&v);
    MPI_Type_free(&r);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks > 2) {
        if (rank == 0)
            fprintf(stderr, "test_overlap: run with 1 or 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fft2d_corpus();
    within_and_backwards();
    int failed = check_failed, any_failed;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int code = rank == 0 ? check_summary("test_overlap") : 0;
    MPI_Finalize();
    return code || any_failed;
}
