/* Bad input gets what the MPI gives: the same error class, through the communicator's error
 * handler, and nothing written outside the user's buffers.
 *
 * Where the MPI itself reports an error, the interposed call must match PMPI exactly (class,
 * handler invocation, position, buffer contents). Where an MPI below writes out of bounds,
 * silently truncates or aborts (docs/errors.md), memcomm raises the class Open MPI uses. */
#include <stdlib.h>

#include "../check.h"
#include "memcomm.h"

static int handler_calls, handler_class;

static void record(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    MPI_Error_class(*code, &handler_class);
}

typedef struct {
    int rc_class, handler_calls, handler_class, position;
    unsigned char out[96];
} result;

enum { GUARD_BYTE = 0xEE };

static int class_of(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

static MPI_Comm comm;
static MPI_Datatype vec;          /* vector(4, 1, 2, MPI_INT): 16 bytes, extent 28 */
static MPI_Datatype uncommitted;
static int src[64];

typedef int (*pack_fn)(const void *, int, MPI_Datatype, void *, int, int *, MPI_Comm);
typedef int (*unpack_fn)(const void *, int, int *, void *, int, MPI_Datatype, MPI_Comm);

static result do_pack(pack_fn fn, const void *in, int count, MPI_Datatype t, bool null_out,
                      int outsize, int position, MPI_Comm c)
{
    result r;
    memset(r.out, GUARD_BYTE, sizeof r.out);
    handler_calls = handler_class = 0;
    r.position = position;
    r.rc_class = class_of(fn(in, count, t, null_out ? NULL : r.out, outsize, &r.position, c));
    r.handler_calls = handler_calls;
    r.handler_class = handler_class;
    return r;
}

static result do_unpack(unpack_fn fn, int insize, int position, int count, MPI_Datatype t,
                        MPI_Comm c)
{
    static unsigned char packed[96];
    for (int i = 0; i < 96; i++)
        packed[i] = (unsigned char)i;
    result r;
    memset(r.out, GUARD_BYTE, sizeof r.out);
    handler_calls = handler_class = 0;
    r.position = position;
    r.rc_class = class_of(fn(packed, insize, &r.position, r.out, count, t, c));
    r.handler_calls = handler_calls;
    r.handler_class = handler_class;
    return r;
}

static void same_as_mpi_either_way(const char *what, result mpi, result mc, bool must_fail)
{
    bool same = mpi.rc_class == mc.rc_class && mpi.handler_calls == mc.handler_calls &&
                mpi.handler_class == mc.handler_class && mpi.position == mc.position &&
                memcmp(mpi.out, mc.out, sizeof mpi.out) == 0;
    CHECK(same);
    /* really bad input: the MPI reported it, by return code or through the handler (MPICH
     * 5.0.2 returns MPI_SUCCESS once a user handler returns; memcomm passes that through) */
    CHECK(!must_fail || mpi.rc_class != MPI_SUCCESS || mpi.handler_calls > 0);
    if (!same || (mpi.rc_class == MPI_SUCCESS && mpi.handler_calls == 0))
        fprintf(stderr, "  %s: mpi class %d (handler %d x%d) pos %d; memcomm class %d (handler %d x%d) pos %d\n",
                what, mpi.rc_class, mpi.handler_class, mpi.handler_calls, mpi.position,
                mc.rc_class, mc.handler_class, mc.handler_calls, mc.position);
}

static void same_as_mpi(const char *what, result mpi, result mc)
{
    same_as_mpi_either_way(what, mpi, mc, true);
}

static bool untouched_from(const result *r, int from)
{
    for (int i = from; i < (int)sizeof r->out; i++)
        if (r->out[i] != GUARD_BYTE)
            return false;
    return true;
}

static void raised_by_memcomm(const char *what, result mc, int want_class, int position)
{
    bool ok = mc.rc_class == want_class && mc.handler_calls == 1 && mc.handler_class == want_class &&
              mc.position == position && untouched_from(&mc, 0);
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  %s: got class %d (handler %d x%d) pos %d, want class %d\n", what,
                mc.rc_class, mc.handler_class, mc.handler_calls, mc.position, want_class);
}

static void errors_the_mpi_reports(void)
{
#define PACK_BOTH(what, ...)                                                                   \
    same_as_mpi(what, do_pack(PMPI_Pack, __VA_ARGS__), do_pack(MPI_Pack, __VA_ARGS__))
#define UNPACK_BOTH(what, ...)                                                                 \
    same_as_mpi(what, do_unpack(PMPI_Unpack, __VA_ARGS__), do_unpack(MPI_Unpack, __VA_ARGS__))
    PACK_BOTH("null type", src, 1, MPI_DATATYPE_NULL, false, 64, 0, comm);
    PACK_BOTH("uncommitted type", src, 1, uncommitted, false, 64, 0, comm);
    PACK_BOTH("negative count", src, -1, vec, false, 64, 0, comm);
    PACK_BOTH("negative outsize", src, 1, vec, false, -5, 0, comm);
    UNPACK_BOTH("unpack null type", 64, 0, 1, MPI_DATATYPE_NULL, comm);
    UNPACK_BOTH("unpack uncommitted type", 64, 0, 1, uncommitted, comm);
    UNPACK_BOTH("unpack negative count", 64, 0, -1, vec, comm);
    /* count 0 with NULL buffers: MPICH accepts it, Open MPI raises MPI_ERR_ARG */
    same_as_mpi_either_way("count 0, NULL buffers", do_pack(PMPI_Pack, NULL, 0, vec, true, 0, 0, comm),
                           do_pack(MPI_Pack, NULL, 0, vec, true, 0, 0, comm), false);
    /* MPI_COMM_NULL: both MPIs raise on the default handler, which is fatal; not compared */
#undef PACK_BOTH
#undef UNPACK_BOTH
}

static void errors_memcomm_raises(void)
{
    /* output too small: MPICH 5.0.2 packs the first 8 bytes and returns success */
    raised_by_memcomm("pack overflow", do_pack(MPI_Pack, src, 2, vec, false, 20, 0, comm),
                      MPI_ERR_TRUNCATE, 0);
    raised_by_memcomm("pack overflow after position",
                      do_pack(MPI_Pack, src, 1, vec, false, 20, 8, comm), MPI_ERR_TRUNCATE, 8);
    /* position beyond outsize: MPICH writes past outsize */
    raised_by_memcomm("position beyond outsize", do_pack(MPI_Pack, src, 1, vec, false, 10, 20, comm),
                      MPI_ERR_TRUNCATE, 20);
    /* negative position: both MPIs write before the buffer */
    raised_by_memcomm("negative position", do_pack(MPI_Pack, src, 1, vec, false, 64, -1, comm),
                      MPI_ERR_ARG, -1);
    /* input too short: MPICH 5.0.2 aborts on an assertion */
    raised_by_memcomm("unpack underflow", do_unpack(MPI_Unpack, 10, 0, 1, vec, comm),
                      MPI_ERR_TRUNCATE, 0);
    raised_by_memcomm("unpack position beyond insize", do_unpack(MPI_Unpack, 8, 9, 1, vec, comm),
                      MPI_ERR_TRUNCATE, 9);
    raised_by_memcomm("unpack negative position", do_unpack(MPI_Unpack, 64, -3, 1, vec, comm),
                      MPI_ERR_ARG, -3);

    /* the public API returns the same classes without calling a handler */
    unsigned char out[32];
    MPI_Count pos = 0;
    CHECK(memcomm_pack(src, 2, vec, out, 20, &pos) == MPI_ERR_TRUNCATE && pos == 0);
    pos = -2;
    CHECK(memcomm_pack(src, 1, vec, out, 20, &pos) == MPI_ERR_ARG && pos == -2);
    pos = 0;
    CHECK(memcomm_unpack(out, 4, &pos, src, 1, vec) == MPI_ERR_TRUNCATE && pos == 0);
}

static void exact_fit_succeeds(void)
{
    /* the boundary: exactly enough room is not an error */
    result mc = do_pack(MPI_Pack, src, 2, vec, false, 40, 8, comm);
    result mpi = do_pack(PMPI_Pack, src, 2, vec, false, 40, 8, comm);
    CHECK(mc.rc_class == MPI_SUCCESS && mc.position == 40 && mc.handler_calls == 0);
    CHECK(memcmp(mc.out, mpi.out, sizeof mc.out) == 0);
    CHECK(untouched_from(&mc, 40));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 64; i++)
        src[i] = 1000 + i;
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(record, &eh);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, eh);
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_contiguous(3, MPI_INT, &uncommitted);

    errors_the_mpi_reports();
    errors_memcomm_raises();
    exact_fit_succeeds();

    memcomm_stats stats;
    memcomm_stats_get(&stats);
    CHECK(stats.error_calls >= 7); /* the raised errors above went through memcomm */

    MPI_Type_free(&vec);
    MPI_Type_free(&uncommitted);
    MPI_Comm_free(&comm);
    MPI_Errhandler_free(&eh);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int failed = check_failed, any_failed;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int code = rank == 0 ? check_summary("test_errors") : (check_failed != 0);
    MPI_Finalize();
    return code || any_failed;
}
