/* memcomm is invisible: the program's attribute callbacks on datatypes fire exactly as with
 * the MPI alone, a committed type is not analysed (nor packed by the MPI) until it is moved,
 * and a type built again the same way reuses the analysis of the first.
 *
 * The same steps run twice, through the MPI_ calls memcomm intercepts and through the PMPI_
 * calls it never sees (the MPI alone), and the callback counts after each step must agree. */
#include <stdlib.h>

#include "../check.h"
#include "memcomm.h"

static int copies, deletes;

static int count_copy(MPI_Datatype t, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)keyval, (void)extra;
    *(void **)out = in;
    *flag = 1;
    copies++;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Datatype t, int keyval, void *value, void *extra)
{
    (void)t, (void)keyval, (void)value, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

enum { STEPS = 9 };

typedef struct {
    int copies[STEPS], deletes[STEPS];
} trace;

/* The calls a program makes: through memcomm, or the MPI alone (PMPI_, which memcomm never
 * sees). */
typedef struct {
    int (*commit)(MPI_Datatype *);
    int (*pack)(const void *, int, MPI_Datatype, void *, int, int *, MPI_Comm);
    int (*sendrecv)(const void *, int, MPI_Datatype, int, int, void *, int, MPI_Datatype, int, int,
                    MPI_Comm, MPI_Status *);
    int (*dup)(MPI_Datatype, MPI_Datatype *);
    int (*free)(MPI_Datatype *);
} calls;

static const calls intercepted = {MPI_Type_commit, MPI_Pack, MPI_Sendrecv, MPI_Type_dup,
                                  MPI_Type_free};
static const calls alone = {PMPI_Type_commit, PMPI_Pack, PMPI_Sendrecv, PMPI_Type_dup,
                            PMPI_Type_free};

/* The program's life of a type with attributes on it and on its sub-type. */
static trace attribute_story(const calls *c, int keyval)
{
    trace tr;
    int step = 0;
#define RECORD() (tr.copies[step] = copies, tr.deletes[step] = deletes, step++)
    copies = deletes = 0;
    double data[256] = {0}, back[256];
    char packed[4096];
    int pos = 0;
    MPI_Datatype column, narrow, dup;
    MPI_Type_vector(8, 1, 12, MPI_DOUBLE, &column);
    MPI_Type_set_attr(column, keyval, NULL);
    MPI_Type_create_resized(column, 0, 8, &narrow);
    MPI_Type_set_attr(narrow, keyval, NULL);
    c->commit(&narrow);
    RECORD();
    c->pack(data, 3, narrow, packed, sizeof packed, &pos, MPI_COMM_SELF);
    RECORD();
    c->sendrecv(data, 3, narrow, 0, 0, back, 3, narrow, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    RECORD();
    c->dup(narrow, &dup);
    RECORD();
    c->pack(data, 2, dup, packed, sizeof packed, &pos, MPI_COMM_SELF);
    RECORD();
    c->free(&column);
    RECORD();
    c->free(&dup);
    RECORD();
    c->free(&narrow);
    RECORD();
    RECORD();
#undef RECORD
    return tr;
}

static void callbacks_as_without_memcomm(void)
{
    int keyval;
    MPI_Type_create_keyval(count_copy, count_delete, &keyval, NULL);
    trace mine = attribute_story(&intercepted, keyval), without = attribute_story(&alone, keyval);
    for (int i = 0; i < STEPS; i++) {
        CHECK(mine.copies[i] == without.copies[i]);
        CHECK(mine.deletes[i] == without.deletes[i]);
    }
    /* what the standard prescribes, as a check on the check: one copy at the dup, deletes
     * when the objects go */
    CHECK(without.copies[STEPS - 1] == 1 && without.deletes[STEPS - 1] == 3);
    MPI_Type_free_keyval(&keyval);
}

static memcomm_stats stats_now(void)
{
    memcomm_stats s;
    memcomm_stats_get(&s);
    return s;
}

/* Committing is free of analysis; the first move analyses; building the same type again
 * (new handles, as a program that creates a type per message does) reuses it. */
static void analysed_at_first_use_once_per_construction(void)
{
    short data[1024] = {0};
    char packed[4096];
    memcomm_stats before = stats_now();
    for (int i = 0; i < 10; i++) {
        MPI_Datatype t;
        MPI_Type_vector(5, 2, 11, MPI_SHORT, &t);
        MPI_Type_commit(&t);
        MPI_Type_free(&t);
    }
    memcomm_stats after = stats_now();
    CHECK(after.analysed_types == before.analysed_types && after.reused_types == before.reused_types);
    for (int i = 0; i < 10; i++) {
        MPI_Datatype t, d;
        MPI_Type_vector(5, 2, 11, MPI_SHORT, &t);
        MPI_Type_commit(&t);
        MPI_Type_dup(t, &d); /* a dup is the same construction */
        int pos = 0;
        MPI_Pack(data, 4, d, packed, sizeof packed, &pos, MPI_COMM_SELF);
        MPI_Pack(data, 4, t, packed, sizeof packed, &pos, MPI_COMM_SELF);
        MPI_Type_free(&t);
        MPI_Type_free(&d);
    }
    memcomm_stats later = stats_now();
    /* 20 handles met at first use: one analysed, the 19 others reuse it */
    CHECK(later.analysed_types == after.analysed_types + 1);
    CHECK(later.reused_types == after.reused_types + 19);
    /* a different construction of the same layout is analysed on its own */
    MPI_Datatype s;
    int lens[5] = {2, 2, 2, 2, 2}, displs[5] = {0, 11, 22, 33, 44};
    MPI_Type_indexed(5, lens, displs, MPI_SHORT, &s);
    MPI_Type_commit(&s);
    int pos = 0;
    MPI_Pack(data, 4, s, packed, sizeof packed, &pos, MPI_COMM_SELF);
    MPI_Type_free(&s);
    CHECK(stats_now().analysed_types == later.analysed_types + 1);

    /* nested: the parts are part of the key (a different inner stride is another type) */
    memcomm_stats nested_before = stats_now();
    for (int i = 0; i < 6; i++) {
        MPI_Datatype inner, dup, outer;
        MPI_Type_vector(2, 1, i < 3 ? 3 : 4, MPI_SHORT, &inner);
        MPI_Type_dup(inner, &dup);
        MPI_Type_create_hvector(3, 1, 40, dup, &outer);
        MPI_Type_commit(&outer);
        MPI_Type_free(&inner);
        MPI_Type_free(&dup);
        int at = 0;
        MPI_Pack(data, 2, outer, packed, sizeof packed, &at, MPI_COMM_SELF);
        MPI_Type_free(&outer);
    }
    memcomm_stats nested_after = stats_now();
    CHECK(nested_after.analysed_types == nested_before.analysed_types + 2);
    CHECK(nested_after.reused_types == nested_before.reused_types + 4);

    /* a large indexed type (ddtbench's SPECFEM3D: 65,536 blocks of 3 floats) re-created is
     * reused too: its construction is still a key */
    enum { BLOCKS = 65536 };
    int *at = malloc(sizeof *at * BLOCKS);
    float *points = calloc(3 * BLOCKS, sizeof *points);
    char *out = malloc(12 * BLOCKS);
    for (int b = 0; b < BLOCKS; b++)
        at[b] = 3 * ((b * 7) % BLOCKS);
    memcomm_stats large_before = stats_now();
    for (int i = 0; i < 3; i++) {
        MPI_Datatype t;
        MPI_Type_create_indexed_block(BLOCKS, 3, at, MPI_FLOAT, &t);
        MPI_Type_commit(&t);
        int position = 0;
        MPI_Pack(points, 1, t, out, 12 * BLOCKS, &position, MPI_COMM_SELF);
        MPI_Type_free(&t);
    }
    memcomm_stats large_after = stats_now();
    CHECK(large_after.analysed_types == large_before.analysed_types + 1);
    CHECK(large_after.reused_types == large_before.reused_types + 2);
    free(at);
    free(points);
    free(out);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    callbacks_as_without_memcomm();
    analysed_at_first_use_once_per_construction();
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int failed = check_failed, any_failed;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int code = rank == 0 ? check_summary("test_side_effects") : 0;
    MPI_Finalize();
    return code || any_failed;
}
