/* MPI_Pack and MPI_Unpack choose between memcomm's kernel and the MPI's own call by timed
 * trials, per type and size (lib/core/engine.h). Whichever path each call takes, a stream
 * of calls packs and unpacks what the MPI alone does, positions included. By default
 * (MEMCOMM_SEND_PATH=measure) both paths run in the trials and each type and size gets one
 * decision per direction; MEMCOMM_SEND_PATH=packed keeps every call on memcomm's kernel, =mpi
 * every call on the MPI's. Which path wins is not checked: that is the machine's to say. */
#include <stdlib.h>

#include "../check.h"
#include "memcomm.h"

enum { CALLS = 40 };

typedef enum { MEASURE, PACKED, BY_MPI } mode;

static mode mode_from_env(void)
{
    const char *path = getenv("MEMCOMM_SEND_PATH");
    if (path && strcmp(path, "packed") == 0)
        return PACKED;
    if (path && strcmp(path, "mpi") == 0)
        return BY_MPI;
    return MEASURE;
}

static memcomm_stats stats_now(void)
{
    memcomm_stats s;
    memcomm_stats_get(&s);
    return s;
}

static unsigned long long decisions(const memcomm_stats *s)
{
    return s->paths_packed + s->paths_by_mpi;
}

static void fill(unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        buf[i] = (unsigned char)(seed >> 16);
    }
}

/* Calls handled by memcomm's kernel out of CALLS, in the mode the test runs in. Measuring,
 * the trials give the kernel a call of warm-up and at least a block of SENDPATH_TRIALS_EACH
 * calls, and the MPI's own at least a block (lib/core/sendpath.c). */
static void check_handled(const char *what, unsigned long long handled, mode m)
{
    enum { TRIALS_EACH = 3 };
    bool right = m == PACKED   ? handled == CALLS
                 : m == BY_MPI ? handled == 0
                               : handled >= 1 + TRIALS_EACH && handled <= CALLS - TRIALS_EACH;
    if (!right)
        fprintf(stderr, "%s: memcomm's kernel did %llu of %d calls\n", what, handled, CALLS);
    CHECK(right);
}

/* CALLS packs of `count` elements of `t` from `data` end to end into one buffer, through the
 * interposed MPI_Pack and through PMPI_Pack; then CALLS unpacks of that stream into the same
 * randomly filled buffer, compared call by call. */
static void stream(const char *what, MPI_Datatype t, int count, const unsigned char *data,
                   size_t span, mode m)
{
    int size;
    MPI_Type_size(t, &size);
    const int bytes = size * count, total = bytes * CALLS;
    unsigned char *mine = malloc((size_t)total), *ref = malloc((size_t)total);
    unsigned char *out_mine = malloc(span), *out_ref = malloc(span);
    fill(mine, (size_t)total, 1);
    memcpy(ref, mine, (size_t)total);

    memcomm_stats before = stats_now();
    int pos_mine = 0, pos_ref = 0;
    bool same = true;
    for (int i = 0; i < CALLS; i++) {
        same &= MPI_Pack(data, count, t, mine, total, &pos_mine, MPI_COMM_WORLD) == MPI_SUCCESS;
        same &= PMPI_Pack(data, count, t, ref, total, &pos_ref, MPI_COMM_WORLD) == MPI_SUCCESS;
        same &= pos_mine == pos_ref && pos_mine == (i + 1) * bytes;
    }
    same &= memcmp(mine, ref, (size_t)total) == 0;
    if (!same)
        fprintf(stderr, "%s: packed stream differs from the MPI's\n", what);
    CHECK(same);
    memcomm_stats packed = stats_now();
    check_handled(what, packed.handled_calls - before.handled_calls, m);

    pos_mine = pos_ref = 0;
    same = true;
    for (int i = 0; i < CALLS; i++) {
        fill(out_mine, span, (unsigned)i + 7);
        memcpy(out_ref, out_mine, span);
        same &= MPI_Unpack(ref, total, &pos_mine, out_mine, count, t, MPI_COMM_WORLD) ==
                MPI_SUCCESS;
        same &= PMPI_Unpack(ref, total, &pos_ref, out_ref, count, t, MPI_COMM_WORLD) ==
                MPI_SUCCESS;
        same &= pos_mine == pos_ref && memcmp(out_mine, out_ref, span) == 0;
    }
    if (!same)
        fprintf(stderr, "%s: unpacked stream differs from the MPI's\n", what);
    CHECK(same);
    memcomm_stats after = stats_now();
    check_handled(what, after.handled_calls - packed.handled_calls, m);

    /* a decision for the packs and one for the unpacks (a second if slow samples sent the
     * trials round again); none when the path is fixed */
    const unsigned long long pack_decisions = decisions(&packed) - decisions(&before),
                             unpack_decisions = decisions(&after) - decisions(&packed);
    CHECK(m == MEASURE ? pack_decisions >= 1 : pack_decisions == 0);
    CHECK(m == MEASURE ? unpack_decisions >= 1 : unpack_decisions == 0);
    free(mine);
    free(ref);
    free(out_mine);
    free(out_ref);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const mode m = mode_from_env();
    enum { N = 96, PITCH = 100 }; /* floats: rows 400 bytes apart, not whole lines */
    unsigned char *data = malloc(sizeof(float) * N * PITCH);
    fill(data, sizeof(float) * N * PITCH, 3);

    /* a transpose: column j of an N x PITCH float matrix, N columns */
    MPI_Datatype column, transpose;
    MPI_Type_vector(N, 1, PITCH, MPI_FLOAT, &column);
    MPI_Type_create_resized(column, 0, sizeof(float), &transpose);
    MPI_Type_commit(&transpose);
    stream("transpose", transpose, N, data, sizeof(float) * N * PITCH, m);

    /* records with gaps, two counts: two size classes of the same type, each decided */
    MPI_Datatype records;
    int lens[3] = {1, 2, 3};
    MPI_Aint displs[3] = {0, 8, 24};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_SHORT};
    MPI_Type_create_struct(3, lens, displs, types, &records);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(records, &lb, &extent);
    MPI_Type_commit(&records);
    const int few = 10, many = (int)(sizeof(float) * N * PITCH / (size_t)extent) - 1;
    stream("records, few", records, few, data, (size_t)extent * (size_t)few, m);
    stream("records, many", records, many, data, (size_t)extent * (size_t)many, m);

    MPI_Type_free(&column);
    MPI_Type_free(&transpose);
    MPI_Type_free(&records);
    free(data);
    int rc = check_summary("test_pack_path");
    MPI_Finalize();
    return rc;
}
