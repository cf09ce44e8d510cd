/* Buffers at MPI_BOTTOM: types of absolute addresses (MPI_Get_address), the Fortran idiom for
 * several arrays in one message, through memcomm against the MPI alone (PMPI_) in the same
 * program, 2 ranks. Each random case wraps `count` instances of a random type at a buffer's
 * absolute address in a struct (the memcomm pass and the MPI's pass each on buffers of their
 * own), and moves it from and to MPI_BOTTOM: a blocking send to a non-blocking receive, a
 * non-blocking send to a blocking receive, MPI_Sendrecv, MPI_Bcast, and MPI_Pack / MPI_Unpack.
 * The received bytes and the error classes must be the same, and memcomm must have carried
 * some of the calls.
 * usage: test_bottom [--cases N] [--seed S] */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "memcomm.h"
#include "recipe.h"

enum { GUARD = 64, MAX_SPAN = 1 << 22, FILL = 0xA7 };

static int rank;
static long long compared, failures;

/* `count` instances of `t` at `origin`, as one instance of a type of absolute addresses. */
static MPI_Datatype at_address(MPI_Datatype t, int count, void *origin)
{
    MPI_Aint where;
    MPI_Get_address(origin, &where);
    MPI_Datatype s;
    MPI_Type_create_struct(1, &count, &where, &t, &s);
    MPI_Type_commit(&s);
    return s;
}

/* The calls of one case, by memcomm (pass 0) or the MPI alone (pass 1), on buffers `mine`
 * (the type's instances, `span` bytes from `lo`) and `packed`; returns the first failing
 * error class. */
enum { CALLS = 5 };
static int move(int pass, int call, MPI_Datatype t, int count, const recipe_span *e,
                unsigned char *mine, unsigned char *packed, int packed_size)
{
    MPI_Datatype at = at_address(t, count, mine - e->lo);
    const int peer = 1 - rank, tag = 3;
    int rc = MPI_SUCCESS, position = 0;
    MPI_Request request;
#define BY(NAME) (pass ? P##NAME : NAME)
    switch (call) {
    case 0: /* rank 0's blocking send, rank 1's non-blocking receive */
        if (rank == 0) {
            rc = BY(MPI_Send)(MPI_BOTTOM, 1, at, peer, tag, MPI_COMM_WORLD);
        } else {
            rc = BY(MPI_Irecv)(MPI_BOTTOM, 1, at, peer, tag, MPI_COMM_WORLD, &request);
            if (rc == MPI_SUCCESS)
                rc = BY(MPI_Wait)(&request, MPI_STATUS_IGNORE);
        }
        break;
    case 1: /* rank 0's non-blocking send, rank 1's blocking receive */
        if (rank == 0) {
            rc = BY(MPI_Isend)(MPI_BOTTOM, 1, at, peer, tag, MPI_COMM_WORLD, &request);
            if (rc == MPI_SUCCESS)
                rc = BY(MPI_Wait)(&request, MPI_STATUS_IGNORE);
        } else {
            rc = BY(MPI_Recv)(MPI_BOTTOM, 1, at, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        break;
    case 2: { /* both ranks send their data and receive the other's, into a filled buffer */
        unsigned char *other = malloc((size_t)e->span);
        memset(other, FILL, (size_t)e->span);
        MPI_Datatype to = at_address(t, count, other - e->lo);
        rc = BY(MPI_Sendrecv)(MPI_BOTTOM, 1, at, peer, tag, MPI_BOTTOM, 1, to, peer, tag,
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        memcpy(mine, other, (size_t)e->span); /* what was received is compared */
        MPI_Type_free(&to);
        free(other);
        break;
    }
    case 3:
        rc = BY(MPI_Bcast)(MPI_BOTTOM, 1, at, 0, MPI_COMM_WORLD);
        break;
    default: /* rank 0 packs from MPI_BOTTOM, rank 1 unpacks what it packed to MPI_BOTTOM */
        if (rank == 0) {
            rc = BY(MPI_Pack)(MPI_BOTTOM, 1, at, packed, packed_size, &position, MPI_COMM_WORLD);
            PMPI_Send(packed, packed_size, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
        } else {
            PMPI_Recv(packed, packed_size, MPI_BYTE, peer, tag, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
            rc = BY(MPI_Unpack)(packed, packed_size, &position, MPI_BOTTOM, 1, at,
                                MPI_COMM_WORLD);
        }
        break;
    }
#undef BY
    MPI_Type_free(&at);
    return recipe_error_class(rc);
}

static void run_case(uint64_t seed, long long c)
{
    rng r = {seed ^ ((uint64_t)c * 0x9E3779B97F4A7C15ull)};
    recipe *rec = recipe_random(&r, (int)rng_range(&r, 1, 3));
    const int count = (int)rng_range(&r, 1, 3), call = (int)(c % CALLS);
    MPI_Datatype t = recipe_mpi_takes(rec) ? recipe_build(rec) : MPI_DATATYPE_NULL;
    if (t != MPI_DATATYPE_NULL && MPI_Type_commit(&t) != MPI_SUCCESS)
        t = MPI_DATATYPE_NULL;
    recipe_span e = {0, 0, 0};
    int ok = t != MPI_DATATYPE_NULL && recipe_span_of(t, count, GUARD, MAX_SPAN, &e);
    /* receives into overlapping entries: erroneous, and left to the MPI; only defined ones
     * are compared byte for byte */
    unsigned char *probe = NULL, *scratch = NULL;
    if (ok) {
        probe = malloc((size_t)e.span);
        scratch = malloc((size_t)(2 * e.size * count) + 1);
        ok = recipe_unpack_is_defined(t, count, probe - e.lo, e.size * count, scratch);
    }
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (ok) {
        const int packed_size = (int)(e.size * count);
        unsigned char *got[2], *packed = malloc((size_t)packed_size + 1);
        int rc[2];
        for (int pass = 0; pass < 2; pass++) {
            got[pass] = malloc((size_t)e.span);
            /* both ranks know the sender's data; receivers start from a fill */
            if (rank == 0 || call == 2)
                recipe_fill(got[pass], e.span, seed + (uint64_t)c * 2 + (uint64_t)rank);
            else
                memset(got[pass], FILL, (size_t)e.span);
            memset(packed, 0, (size_t)packed_size + 1);
            rc[pass] = move(pass, call, t, count, &e, got[pass], packed, packed_size);
        }
        compared++;
        if (rc[0] != rc[1] || memcmp(got[0], got[1], (size_t)e.span) != 0) {
            char text[1024];
            recipe_describe(rec, text, sizeof text);
            fprintf(stderr, "test_bottom: rank %d: case %lld (call %d, count %d) of %s differs "
                    "from the MPI alone: classes %d and %d\n", rank, c, call, count, text,
                    rc[0], rc[1]);
            failures++;
        }
        free(got[0]);
        free(got[1]);
        free(packed);
    }
    free(probe);
    free(scratch);
    if (t != MPI_DATATYPE_NULL)
        MPI_Type_free(&t);
    recipe_free(rec);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks != 2) {
        if (rank == 0)
            fprintf(stderr, "test_bottom: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    long long cases = 500;
    uint64_t seed = 20261202;
    recipe_options(argc, argv, &cases, &seed);
    memcomm_stats before, after;
    memcomm_stats_get(&before);
    for (long long c = 0; c < cases; c++)
        run_case(seed, c);
    memcomm_stats_get(&after);
    long long total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    const char *disabled = getenv("MEMCOMM_DISABLE");
    const bool active = !disabled || !*disabled || !strcmp(disabled, "0");
    const unsigned long long carried = after.handled_calls - before.handled_calls;
    printf("test_bottom: rank %d: %lld cases at MPI_BOTTOM compared with the MPI alone, %lld "
           "differ; memcomm %s, packed or unpacked %llu times itself\n",
           rank, compared, total, active ? "active" : "disabled", carried);
    CHECK(total == 0);
    CHECK(compared >= cases / 2);
    /* the comparison proves something only if memcomm carried calls at MPI_BOTTOM */
    CHECK(active ? carried >= 50 : carried == 0);
    const int code = check_summary("test_bottom");
    MPI_Finalize();
    return code;
}
