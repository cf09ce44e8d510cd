/* MPI-IO through memcomm against the MPI alone (PMPI_) in the same program, on any number of
 * ranks. Each random case takes a random memory type from the generator, a count and one call
 * form (explicit offset, individual or shared file pointer; independent, collective or
 * ordered; blocking, non-blocking with a random completion call, or split collective; int or
 * large count) and a file view (each rank's part of the file in one piece, or ranks
 * interleaved block by block). Once through memcomm and once through the MPI alone, each into
 * a file of its own, every rank writes `count` instances; the two files must be the same byte
 * for byte. Then every rank reads one instance more than it wrote, from the same place, into a
 * filled buffer: the last rank's read (or, interleaved, every rank's) runs into the end of the
 * file. The buffers, the return codes and the statuses (MPI_Get_count and MPI_Get_elements
 * for the memory type) must be the same, and memcomm must have carried some of the calls.
 * usage: test_io [--cases N] [--seed S] [--only C] (case C alone); TMPDIR names where the
 * files go (default /tmp); TEST_IO_TRACE=1 names each case as it starts. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "memcomm.h"
#include "recipe.h"

enum { GUARD = 64, MAX_SPAN = 1 << 20, FILL = 0xA7, BLOCK = 24 };

static int rank, nranks;
static long long compared, failures;

typedef enum {
    F_AT,            /* MPI_File_write_at / read_at */
    F_AT_ALL,        /* _at_all */
    F_INDIVIDUAL,    /* write / read at the individual file pointer */
    F_ALL,           /* write_all / read_all */
    F_SHARED,        /* write_shared / read_shared, one rank after another */
    F_ORDERED,       /* write_ordered / read_ordered */
    F_IAT,           /* iwrite_at / iread_at */
    F_IAT_ALL,       /* iwrite_at_all / iread_at_all */
    F_I,             /* iwrite / iread */
    F_IALL,          /* iwrite_all / iread_all */
    F_ISHARED,       /* iwrite_shared / iread_shared, one rank after another */
    F_AT_ALL_SPLIT,  /* write_at_all_begin / _end */
    F_ALL_SPLIT,     /* write_all_begin / _end */
    F_ORDERED_SPLIT, /* write_ordered_begin / _end */
    F_FORMS
} form;

static const char *const form_names[F_FORMS] = {
    "at", "at_all", "individual", "all", "shared", "ordered", "iat", "iat_all", "i", "iall",
    "ishared", "at_all_split", "all_split", "ordered_split"};

static bool shared_pointer(form f)
{
    return f == F_SHARED || f == F_ORDERED || f == F_ISHARED || f == F_ORDERED_SPLIT;
}

/* Open MPI (4.1.4 and 5.0.11) never completes a non-blocking read that meets the end of the
 * file, alone (OMPIO's progress submits the read again and again: docs/errors.md), and it
 * makes its split collectives of those: there the read past the end is not tried. */
static bool completes_past_end(form f)
{
    static int open_mpi = -1;
    if (open_mpi < 0) {
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int length;
        MPI_Get_library_version(version, &length);
        open_mpi = strstr(version, "Open MPI") != NULL;
    }
    return !open_mpi || f < F_IAT;
}

/* Whether the MPI's own file calls can be the reference for the recipe's type: the ROMIO of
 * Intel MPI 2021.19 and MPICH 4.0.2 aborts the program (ADIOI_Count_contiguous_blocks:
 * MPI_Abort) on memory types of the pair types with padding, MPI_SHORT_INT, MPI_DOUBLE_INT,
 * MPI_LONG_DOUBLE_INT (MPI_2INT and MPI_FLOAT_INT it moves); MPICH 4.0.2's ("Out of memory
 * in file adio/common/flatten.c") on types built by a large-count constructor, whose
 * contents it asks for with the int MPI_Type_get_envelope; it aborts or never returns on
 * types with an empty block, e.g. darray(...) of hindexed(lens={1,0}, ...), and on a dup
 * under another constructor it frees the dup's type once too often (the next MPI_Type_free
 * fails "ref_count >= 0"; in between, its writes of the same call differ run to run). */
static bool mpi_io_takes(const recipe *r)
{
    const bool mpich_4_0 = recipe_mpi_is_mpich_4_0();
    const bool old_romio = recipe_mpi_is_intel_2021() || mpich_4_0;
    return recipe_mpi_takes(r) &&
           !(mpich_4_0 && (recipe_uses_large(r) || recipe_has_empty_block(r) ||
                           recipe_uses(r, R_DUP))) &&
           !(old_romio &&
             (recipe_uses_basic(r, MPI_SHORT_INT) || recipe_uses_basic(r, MPI_DOUBLE_INT) ||
              recipe_uses_basic(r, MPI_LONG_DOUBLE_INT)));
}

static bool collective(form f)
{
    return f == F_AT_ALL || f == F_ALL || f == F_ORDERED || f == F_IAT_ALL || f == F_IALL ||
           f >= F_AT_ALL_SPLIT;
}

/* MPICH 4.0.2's ROMIO writes and reads memory types whose data does not start at 0 (a lower
 * bound or true lower bound other than 0) wrongly in its collective calls, differently from
 * run to run, and dies on some (SIGSEGV, "Out of memory in file adio/common/ad_iread_coll.c"),
 * e.g. hindexed(lens={2}, displs={50}, subarray({1,3}, {1,2}, {0,0}, Fortran order,
 * MPI_C_DOUBLE_COMPLEX)), alone. (Its independent calls of such types are compared: wrong
 * the same way each time, they count as unlike its own pack.) */
static bool mpi_io_takes_bounds(MPI_Datatype t, form f)
{
    if (!recipe_mpi_is_mpich_4_0() || !collective(f))
        return true;
    MPI_Aint lb, extent, true_lb, true_extent;
    MPI_Type_get_extent(t, &lb, &extent);
    MPI_Type_get_true_extent(t, &true_lb, &true_extent);
    return lb == 0 && true_lb == 0;
}

static long long skipped_types; /* of a family the MPI's own file calls cannot take */

/* The case's memory type, committed, or MPI_DATATYPE_NULL where the MPI refuses it or its
 * own file calls cannot be the reference for it (counted in skipped_types). */
static MPI_Datatype case_type(const recipe *r, form f)
{
    if (!mpi_io_takes(r)) {
        skipped_types++;
        return MPI_DATATYPE_NULL;
    }
    MPI_Datatype t = recipe_build(r);
    if (t != MPI_DATATYPE_NULL && MPI_Type_commit(&t) != MPI_SUCCESS)
        return MPI_DATATYPE_NULL;
    if (t != MPI_DATATYPE_NULL && !mpi_io_takes_bounds(t, f)) {
        skipped_types++;
        if (r->kind != R_BASIC) /* predefined types are not freed */
            MPI_Type_free(&t);
        return MPI_DATATYPE_NULL;
    }
    return t;
}

/* One rank after another: the shared file pointer's non-collective forms. */
static bool one_by_one(form f) { return f == F_SHARED || f == F_ISHARED; }

typedef struct {
    form form;
    bool large;       /* the _c form (where the MPI has them) */
    bool interleaved; /* the view: ranks' blocks of BLOCK bytes in turn */
    int completion;   /* of a non-blocking call: Wait, Test, Waitall, Waitany, Waitsome */
} call_form;

#define BY(NAME) (pass ? P##NAME : NAME)

/* Complete a non-blocking call with the case's completion call. */
static int complete(int pass, int how, MPI_Request *request, MPI_Status *status)
{
    int flag = 0, index, outcount, indices[1];
    switch (how) {
    case 0:
        return BY(MPI_Wait)(request, status);
    case 1: {
        int rc = MPI_SUCCESS;
        while (rc == MPI_SUCCESS && !flag)
            rc = BY(MPI_Test)(request, &flag, status);
        return rc;
    }
    case 2:
        return BY(MPI_Waitall)(1, request, status);
    case 3:
        return BY(MPI_Waitany)(1, request, &index, status);
    default: {
        const int rc = BY(MPI_Waitsome)(1, request, &outcount, indices, status);
        return rc == MPI_ERR_IN_STATUS ? status->MPI_ERROR : rc;
    }
    }
}

/* Large-count forms where the MPI has them; the int forms otherwise. */
#if MEMCOMM_HAVE_FILE_LARGE_COUNT
#define FORM(LARGE, NAME, ...) ((LARGE) ? BY(NAME##_c)(__VA_ARGS__) : BY(NAME)(__VA_ARGS__))
#else
#define FORM(LARGE, NAME, ...) ((void)(LARGE), BY(NAME)(__VA_ARGS__))
#endif

/* The write (or read) of one rank in one pass, with the case's call form. */
static int access_file(int pass, bool write, const call_form *cf, MPI_File fh, void *buf, int count,
                       MPI_Datatype t, MPI_Status *status)
{
    MPI_Request request;
    const bool l = cf->large;
    int rc = MPI_SUCCESS;
    switch (cf->form) {
    case F_AT:
        return write ? FORM(l, MPI_File_write_at, fh, 0, buf, count, t, status)
                     : FORM(l, MPI_File_read_at, fh, 0, buf, count, t, status);
    case F_AT_ALL:
        return write ? FORM(l, MPI_File_write_at_all, fh, 0, buf, count, t, status)
                     : FORM(l, MPI_File_read_at_all, fh, 0, buf, count, t, status);
    case F_INDIVIDUAL:
        return write ? FORM(l, MPI_File_write, fh, buf, count, t, status)
                     : FORM(l, MPI_File_read, fh, buf, count, t, status);
    case F_ALL:
        return write ? FORM(l, MPI_File_write_all, fh, buf, count, t, status)
                     : FORM(l, MPI_File_read_all, fh, buf, count, t, status);
    case F_SHARED:
        return write ? FORM(l, MPI_File_write_shared, fh, buf, count, t, status)
                     : FORM(l, MPI_File_read_shared, fh, buf, count, t, status);
    case F_ORDERED:
        return write ? FORM(l, MPI_File_write_ordered, fh, buf, count, t, status)
                     : FORM(l, MPI_File_read_ordered, fh, buf, count, t, status);
    case F_IAT:
        rc = write ? FORM(l, MPI_File_iwrite_at, fh, 0, buf, count, t, &request)
                   : FORM(l, MPI_File_iread_at, fh, 0, buf, count, t, &request);
        break;
    case F_IAT_ALL:
        rc = write ? FORM(l, MPI_File_iwrite_at_all, fh, 0, buf, count, t, &request)
                   : FORM(l, MPI_File_iread_at_all, fh, 0, buf, count, t, &request);
        break;
    case F_I:
        rc = write ? FORM(l, MPI_File_iwrite, fh, buf, count, t, &request)
                   : FORM(l, MPI_File_iread, fh, buf, count, t, &request);
        break;
    case F_IALL:
        rc = write ? FORM(l, MPI_File_iwrite_all, fh, buf, count, t, &request)
                   : FORM(l, MPI_File_iread_all, fh, buf, count, t, &request);
        break;
    case F_ISHARED:
        rc = write ? FORM(l, MPI_File_iwrite_shared, fh, buf, count, t, &request)
                   : FORM(l, MPI_File_iread_shared, fh, buf, count, t, &request);
        break;
    case F_AT_ALL_SPLIT:
        rc = write ? FORM(l, MPI_File_write_at_all_begin, fh, 0, buf, count, t)
                   : FORM(l, MPI_File_read_at_all_begin, fh, 0, buf, count, t);
        return rc != MPI_SUCCESS ? rc
               : write           ? BY(MPI_File_write_at_all_end)(fh, buf, status)
                                 : BY(MPI_File_read_at_all_end)(fh, buf, status);
    case F_ALL_SPLIT:
        rc = write ? FORM(l, MPI_File_write_all_begin, fh, buf, count, t)
                   : FORM(l, MPI_File_read_all_begin, fh, buf, count, t);
        return rc != MPI_SUCCESS ? rc
               : write           ? BY(MPI_File_write_all_end)(fh, buf, status)
                                 : BY(MPI_File_read_all_end)(fh, buf, status);
    default:
        rc = write ? FORM(l, MPI_File_write_ordered_begin, fh, buf, count, t)
                   : FORM(l, MPI_File_read_ordered_begin, fh, buf, count, t);
        return rc != MPI_SUCCESS ? rc
               : write           ? BY(MPI_File_write_ordered_end)(fh, buf, status)
                                 : BY(MPI_File_read_ordered_end)(fh, buf, status);
    }
    return rc == MPI_SUCCESS ? complete(pass, cf->completion, &request, status) : rc;
}

/* The view: each rank's part in one piece (`part` bytes), or the ranks' BLOCK-byte blocks in
 * turn; one for all ranks with the shared file pointer. Setting it puts the file pointers at
 * its start. */
static void set_view(MPI_File fh, const call_form *cf, int64_t part, MPI_Datatype interleave)
{
    if (shared_pointer(cf->form))
        MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    else if (cf->interleaved)
        MPI_File_set_view(fh, (MPI_Offset)rank * BLOCK, MPI_BYTE, interleave, "native",
                          MPI_INFO_NULL);
    else
        MPI_File_set_view(fh, (MPI_Offset)rank * part, MPI_BYTE, MPI_BYTE, "native",
                          MPI_INFO_NULL);
}

/* What a call gave back: its error class, and from its status the bytes it moved and
 * MPI_Get_count for the memory type (MPI_Get_elements follows from these two, and MPICH
 * 5.0.2's own asserts on some random types). */
typedef struct {
    int rc, bytes, count;
} outcome;

static outcome outcome_of(int rc, const MPI_Status *status, MPI_Datatype t)
{
    outcome o = {recipe_error_class(rc), -2, -2};
    if (rc == MPI_SUCCESS) {
        MPI_Get_count(status, MPI_BYTE, &o.bytes);
        MPI_Get_count(status, t, &o.count);
    }
    return o;
}

/* One access by every rank, one after another where the form says so. */
static outcome accessed(int pass, bool write, const call_form *cf, MPI_File fh, void *buf,
                        int count, MPI_Datatype t)
{
    MPI_Status status;
    int rc = MPI_SUCCESS;
    for (int turn = 0; turn < (one_by_one(cf->form) ? nranks : 1); turn++) {
        if (!one_by_one(cf->form) || turn == rank)
            rc = access_file(pass, write, cf, fh, buf, count, t, &status);
        if (one_by_one(cf->form))
            MPI_Barrier(MPI_COMM_WORLD);
    }
    return outcome_of(rc, &status, t);
}

static char paths[2][256];

/* The file of pass `pass`, opened empty, with the case's view. An interleaved view leaves
 * holes where a rank's last block is short; ROMIO's collective writes fill such holes from
 * their own buffers, so the file is laid first with a pattern over the whole rows of blocks
 * (by the MPI alone): every byte of it is then the same in both passes. */
static MPI_File open_empty(int pass, const call_form *cf, int64_t part, MPI_Datatype interleave)
{
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, paths[pass], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                  &fh);
    MPI_File_set_size(fh, 0);
    if (cf->interleaved && !shared_pointer(cf->form) && rank == 0) {
        const int64_t rows = (part + BLOCK - 1) / BLOCK, bytes = rows * BLOCK * nranks;
        unsigned char *laid = malloc((size_t)bytes);
        memset(laid, 0x5A, (size_t)bytes);
        PMPI_File_write_at(fh, 0, laid, (int)bytes, MPI_BYTE, MPI_STATUS_IGNORE);
        free(laid);
    }
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    set_view(fh, cf, part, interleave);
    return fh;
}

/* Back to the start of the view, every file pointer with it. */
static void rewind_file(MPI_File fh, const call_form *cf, int64_t part, MPI_Datatype interleave)
{
    set_view(fh, cf, part, interleave);
    if (shared_pointer(cf->form))
        MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
}

/* Whether the two passes' files are the same, asked of rank 0 for all. */
static bool same_files(void)
{
    int same = 1;
    if (rank == 0) {
        FILE *a = fopen(paths[0], "rb"), *b = fopen(paths[1], "rb");
        same = a && b;
        while (same) {
            const int x = fgetc(a), y = fgetc(b);
            same = x == y;
            if (x == EOF || y == EOF)
                break;
        }
        if (a)
            fclose(a);
        if (b)
            fclose(b);
    }
    MPI_Bcast(&same, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return same;
}

static bool same_outcome(const outcome *a, const outcome *b)
{
    return a->rc == b->rc && a->bytes == b->bytes && a->count == b->count;
}

/* The MPI's own unpack of the first `bytes` packed bytes of instances of `t` into `buf` (the
 * buffer `e` describes): the whole instances by PMPI_Unpack; of the one the bytes end in,
 * what its head fills: that instance unpacked whole into two copies of the buffer, its
 * missing tail once as 0x00 and once as 0xFF, and only the bytes both copies agree on kept. */
static void unpack_head(const unsigned char *packed, int64_t bytes, MPI_Datatype t,
                        const recipe_span *e, unsigned char *buf)
{
    MPI_Count lb, extent;
    MPI_Type_get_extent_x(t, &lb, &extent);
    const int whole = (int)(bytes / e->size), rest = (int)(bytes % e->size);
    int position = 0;
    if (whole > 0)
        PMPI_Unpack(packed, (int)bytes, &position, buf - e->lo, whole, t, MPI_COMM_WORLD);
    if (rest == 0)
        return;
    unsigned char *tail = malloc((size_t)e->size), *copy[2];
    memcpy(tail, packed + (int64_t)whole * e->size, (size_t)rest);
    for (int k = 0; k < 2; k++) {
        memset(tail + rest, k ? 0xFF : 0x00, (size_t)(e->size - rest));
        copy[k] = malloc((size_t)e->span);
        memcpy(copy[k], buf, (size_t)e->span);
        position = 0;
        PMPI_Unpack(tail, (int)e->size, &position, copy[k] - e->lo + whole * extent, 1, t,
                    MPI_COMM_WORLD);
    }
    for (int64_t k = 0; k < e->span; k++)
        if (copy[0][k] == copy[1][k])
            buf[k] = copy[0][k];
    free(tail);
    free(copy[0]);
    free(copy[1]);
}

typedef struct {
    long long c;
    const recipe *rec;
    const call_form *cf;
    int count;
} case_of;

static void report(const case_of *k, const char *what, const outcome *a, const outcome *b,
                   bool buffers_differ)
{
    char text[1024];
    recipe_describe(k->rec, text, sizeof text);
    fprintf(stderr,
            "test_io: rank %d: case %lld (%s%s, %s view, completion %d, count %d) of %s: %s "
            "differs: class %d/%d bytes %d/%d count %d/%d; buffers %s\n",
            rank, k->c, form_names[k->cf->form], k->cf->large ? " _c" : "",
            k->cf->interleaved ? "interleaved" : "one-piece", k->cf->completion, k->count, text,
            what, a->rc, b->rc, a->bytes, b->bytes, a->count, b->count,
            buffers_differ ? "DIFFER" : "same");
    failures++;
}

static long long past_end_defects; /* the MPI alone read past the end of the file wrongly */

/* How many of the `want` bytes this rank's read from the start of the view finds in a file
 * of `size` bytes (the shared file pointer's reads come one rank after another, in order). */
static int64_t available(const call_form *cf, int64_t size, int64_t part, int64_t want)
{
    int64_t start = (int64_t)rank * part;
    if (shared_pointer(cf->form))
        start = (int64_t)rank * want;
    if (!cf->interleaved || shared_pointer(cf->form))
        return start >= size ? 0 : size - start < want ? size - start : want;
    int64_t found = 0;
    for (int64_t block = 0; found < want; block++) {
        const int64_t at = (block * nranks + rank) * BLOCK;
        if (at >= size)
            break;
        const int64_t here = size - at < BLOCK ? size - at : BLOCK;
        found += here < want - found ? here : want - found;
    }
    return found;
}

/* Which bytes of the buffer `e` describes the first `bytes` packed bytes of instances of `t`
 * land on: the buffer unpacked into from 0x00 and from 0xFF, and the places where the two
 * agree. */
static unsigned char *landing(const unsigned char *packed, int64_t bytes, MPI_Datatype t,
                              const recipe_span *e)
{
    unsigned char *mask = calloc((size_t)e->span, 1), *from[2];
    for (int k = 0; k < 2; k++) {
        from[k] = malloc((size_t)e->span);
        memset(from[k], k ? 0xFF : 0x00, (size_t)e->span);
        if (bytes > 0)
            unpack_head(packed, bytes, t, e, from[k]);
    }
    for (int64_t k = 0; k < e->span; k++)
        mask[k] = from[0][k] == from[1][k];
    free(from[0]);
    free(from[1]);
    return mask;
}

static bool same_where(const unsigned char *a, const unsigned char *b, const unsigned char *mask,
                       int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        if (mask[k] && a[k] != b[k])
            return false;
    return true;
}

/* Read one instance more than was written (past the end of the file on the last rank, or on
 * every rank of an interleaved view) through memcomm, and compare. Where memcomm carried the
 * read, the reference is the MPI's own read of the same bytes into contiguous memory and its
 * own unpack of what arrived; where it did not, the MPI's own call. Where the MPI's reference
 * reports more bytes than the file holds from there (MPICH's and Intel MPI's ROMIO do when a
 * non-contiguous memory type, or a non-blocking collective read, meets the end of the file:
 * docs/errors.md), its buffer past what it read holds whatever its own buffers held, and so
 * does memcomm's when the read was the MPI's own or the MPI misreported the staged read too:
 * then the return codes are compared, and a carried read's buffer where the file's bytes
 * land. */
static void read_past_end(const case_of *k, MPI_File fh[2], MPI_Datatype t, int64_t part,
                          MPI_Datatype interleave, const recipe_span *e)
{
    const call_form *cf = k->cf;
    const int n = k->count + 1;
    unsigned char *got = malloc((size_t)e->span), *want = malloc((size_t)e->span);
    unsigned char *own_got = malloc((size_t)e->span), *raw = malloc((size_t)(e->size * n));
    memset(got, FILL, (size_t)e->span);
    memset(want, FILL, (size_t)e->span);
    memset(own_got, FILL, (size_t)e->span);
    MPI_Offset size;
    MPI_File_get_size(fh[1], &size);
    const int64_t there = available(cf, size, part, e->size * n);
    memcomm_stats before, after;
    rewind_file(fh[0], cf, part, interleave);
    memcomm_stats_get(&before);
    const outcome mine = accessed(0, false, cf, fh[0], got - e->lo, n, t);
    memcomm_stats_get(&after);
    const bool carried = after.handled_calls > before.handled_calls;
    /* both references, on every rank: the calls may be collective */
    rewind_file(fh[1], cf, part, interleave);
    outcome contiguous = accessed(1, false, cf, fh[1], raw, (int)(e->size * n), MPI_BYTE);
    rewind_file(fh[1], cf, part, interleave);
    const outcome own = accessed(1, false, cf, fh[1], own_got - e->lo, n, t);
    const int64_t real = contiguous.bytes < there ? contiguous.bytes : there;
    if (contiguous.rc == MPI_SUCCESS && contiguous.bytes > 0)
        unpack_head(raw, contiguous.bytes, t, e, want);
    unsigned char *mask = landing(raw, contiguous.rc == MPI_SUCCESS ? real : 0, t, e);
    MPI_Status status = {0};
    MPI_Status_set_elements(&status, MPI_BYTE, contiguous.bytes);
    if (contiguous.rc == MPI_SUCCESS)
        MPI_Get_count(&status, t, &contiguous.count);
    const outcome *reference = carried ? &contiguous : &own;
    const unsigned char *reference_got = carried ? want : own_got;
    const bool right = reference->rc != MPI_SUCCESS ||
                       (reference->bytes == there && (carried || mine.bytes == there));
    past_end_defects += !right;
    const bool differ = memcmp(got, reference_got, (size_t)e->span) != 0;
    const bool same =
        right ? same_outcome(&mine, reference) && !differ
              : mine.rc == reference->rc && (!carried || same_where(got, want, mask, e->span));
    if (!same)
        report(k, carried ? "read past the end (against the MPI's contiguous read)"
                          : "read past the end (left to the MPI)",
               &mine, reference, differ);
    free(got);
    free(want);
    free(own_got);
    free(raw);
    free(mask);
}

/* Where the MPI's typed access and memcomm's differ, the reference for a rank whose call
 * memcomm carried is what memcomm promises: the MPI's own pack (or unpack) of the memory type
 * and its contiguous access of those bytes. MPICH 4.0.2's ROMIO writes and reads some memory
 * types unlike its own MPI_Pack, e.g. subarray({6,3,7}, {3,2,5}, {0,0,2}, resized(MPI_DOUBLE,
 * lb=33, extent=16)) (docs/errors.md); the cases where memcomm agrees with the MPI's pack are
 * counted as the MPI's. */
static long long own_pack_defects;

/* Write the pass-1 file again: this rank's instances as the MPI packs them, contiguously,
 * where memcomm carried its write; else the MPI's typed write again. Whether memcomm's file
 * and outcome are that. */
static bool write_as_packed(const case_of *k, MPI_File *fh, const unsigned char *data,
                            MPI_Datatype t, const recipe_span *e, bool carried,
                            const outcome *mine, int64_t part, MPI_Datatype interleave)
{
    MPI_File_close(fh);
    *fh = open_empty(1, k->cf, part, interleave);
    const int bytes = (int)(e->size * k->count);
    unsigned char *packed = malloc((size_t)bytes + 1);
    int position = 0;
    PMPI_Pack(data - e->lo, k->count, t, packed, bytes, &position, MPI_COMM_WORLD);
    const outcome o = carried ? accessed(1, true, k->cf, *fh, packed, bytes, MPI_BYTE)
                              : accessed(1, true, k->cf, *fh, (void *)(data - e->lo), k->count, t);
    MPI_File_sync(*fh);
    MPI_Barrier(MPI_COMM_WORLD);
    free(packed);
    int same = mine->rc == o.rc && mine->bytes == o.bytes;
    MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return same_files() && same;
}

/* Read the pass-1 file again: contiguously and unpacked by the MPI where memcomm carried this
 * rank's read, else by the MPI's typed read. Whether memcomm's buffer and outcome are that. */
static bool read_as_packed(const case_of *k, MPI_File fh, MPI_Datatype t, const recipe_span *e,
                           bool carried, const unsigned char *got, const outcome *mine,
                           int64_t part, MPI_Datatype interleave)
{
    const int bytes = (int)(e->size * k->count);
    unsigned char *raw = malloc((size_t)bytes + 1), *want = malloc((size_t)e->span);
    memset(want, FILL, (size_t)e->span);
    rewind_file(fh, k->cf, part, interleave);
    outcome o = carried ? accessed(1, false, k->cf, fh, raw, bytes, MPI_BYTE)
                        : accessed(1, false, k->cf, fh, want - e->lo, k->count, t);
    if (carried && o.rc == MPI_SUCCESS) {
        if (o.bytes > 0)
            unpack_head(raw, o.bytes, t, e, want);
        MPI_Status status = {0};
        MPI_Status_set_elements(&status, MPI_BYTE, o.bytes);
        MPI_Get_count(&status, t, &o.count);
    }
    const bool same = same_outcome(mine, &o) && memcmp(got, want, (size_t)e->span) == 0;
    free(raw);
    free(want);
    return same;
}

/* Whether memcomm carried this rank's call: its handled calls grew. */
static bool carried_since(const memcomm_stats *before)
{
    memcomm_stats after;
    memcomm_stats_get(&after);
    return after.handled_calls > before->handled_calls;
}

static void run_case(uint64_t seed, long long c, MPI_Datatype interleave)
{
    rng r = {seed ^ ((uint64_t)c * 0x9E3779B97F4A7C15ull)};
    recipe *rec = recipe_random(&r, (int)rng_range(&r, 1, 3));
    const int count = (int)rng_range(&r, 1, 3);
    call_form cf = {(form)rng_range(&r, 0, F_FORMS - 1), rng_range(&r, 0, 1) == 1,
                    rng_range(&r, 0, 1) == 1, (int)rng_range(&r, 0, 4)};
    cf.large = cf.large && !recipe_mpi_is_mpich_4_0(); /* its _c file calls: mpi_io_takes */
    const case_of k = {c, rec, &cf, count};
    if (getenv("TEST_IO_TRACE") && rank == 0) { /* each case as it starts */
        char text[1024];
        recipe_describe(rec, text, sizeof text);
        fprintf(stderr, "test_io: case %lld: %s%s, %s view, completion %d, count %d of %s\n",
                c, form_names[cf.form], cf.large ? " _c" : "",
                cf.interleaved ? "interleaved" : "one-piece", cf.completion, count, text);
    }
    MPI_Datatype t = case_type(rec, cf.form);
    recipe_span w = {0, 0, 0}, past = {0, 0, 0};
    int ok = t != MPI_DATATYPE_NULL && recipe_span_of(t, count, GUARD, MAX_SPAN, &w) &&
             recipe_span_of(t, count + 1, GUARD, MAX_SPAN, &past);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (ok) {
        const int64_t part = w.size * count;
        unsigned char *source = malloc((size_t)w.span), *got[2];
        recipe_fill(source, w.span, seed + (uint64_t)c * 2 + (uint64_t)rank);
        MPI_File fh[2];
        outcome wrote[2], read[2];
        memcomm_stats before;
        bool carried = false;
        for (int pass = 0; pass < 2; pass++) { /* each writes from a copy of the same data */
            fh[pass] = open_empty(pass, &cf, part, interleave);
            got[pass] = malloc((size_t)w.span);
            memcpy(got[pass], source, (size_t)w.span);
            memcomm_stats_get(&before);
            wrote[pass] = accessed(pass, true, &cf, fh[pass], got[pass] - w.lo, count, t);
            carried = carried || carried_since(&before);
            MPI_File_sync(fh[pass]);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        const bool files = same_files();
        if (!files || !same_outcome(&wrote[0], &wrote[1])) {
            if (write_as_packed(&k, &fh[1], source, t, &w, carried, &wrote[0], part, interleave))
                own_pack_defects++;
            else
                report(&k, files ? "write" : "the written file", &wrote[0], &wrote[1], false);
        }
        carried = false;
        for (int pass = 0; pass < 2; pass++) { /* what was written, into a filled buffer */
            MPI_File_sync(fh[pass]);
            rewind_file(fh[pass], &cf, part, interleave);
            memset(got[pass], FILL, (size_t)w.span);
            memcomm_stats_get(&before);
            read[pass] = accessed(pass, false, &cf, fh[pass], got[pass] - w.lo, count, t);
            carried = carried || carried_since(&before);
        }
        const bool differ = memcmp(got[0], got[1], (size_t)w.span) != 0;
        int same = same_outcome(&read[0], &read[1]) && !differ;
        MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        if (!same) { /* every rank reads again: the reads may be collective */
            if (read_as_packed(&k, fh[1], t, &w, carried, got[0], &read[0], part, interleave))
                own_pack_defects += differ || !same_outcome(&read[0], &read[1]);
            else
                report(&k, "read", &read[0], &read[1], differ);
        }
        if (completes_past_end(cf.form))
            read_past_end(&k, fh, t, part, interleave, &past);
        compared++;
        MPI_File_close(&fh[0]);
        MPI_File_close(&fh[1]);
        free(source);
        free(got[0]);
        free(got[1]);
    }
    if (t != MPI_DATATYPE_NULL && rec->kind != R_BASIC) /* predefined types are not freed */
        MPI_Type_free(&t);
    recipe_free(rec);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* types an MPI refuses */
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    long long cases = 300;
    uint64_t seed = 20261202;
    recipe_options(argc, argv, &cases, &seed);
    long long only = -1;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--only"))
            only = atoll(argv[i + 1]);
    /* files of this run's own: ctest runs tests side by side */
    long id = (long)getpid();
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    for (int pass = 0; pass < 2; pass++)
        snprintf(paths[pass], sizeof paths[pass], "%s/memcomm_test_io_%ld_%s", dir, id,
                 pass ? "mpi" : "memcomm");
    MPI_Datatype block, interleave;
    MPI_Type_contiguous(BLOCK, MPI_BYTE, &block);
    MPI_Type_create_resized(block, 0, (MPI_Aint)BLOCK * nranks, &interleave);
    MPI_Type_commit(&interleave);
    MPI_Type_free(&block);
    memcomm_stats before, after;
    memcomm_stats_get(&before);
    for (long long c = only < 0 ? 0 : only; c < (only < 0 ? cases : only + 1); c++)
        run_case(seed, c, interleave);
    memcomm_stats_get(&after);
    MPI_Type_free(&interleave);
    if (rank == 0)
        for (int pass = 0; pass < 2; pass++)
            PMPI_File_delete(paths[pass], MPI_INFO_NULL);
    long long total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    const char *disabled = getenv("MEMCOMM_DISABLE");
    const bool active = !disabled || !*disabled || !strcmp(disabled, "0");
    const unsigned long long carried = after.handled_calls - before.handled_calls;
    printf("test_io: rank %d of %d: %lld cases of MPI-IO compared with the MPI alone, %lld "
           "differ; memcomm %s, packed or unpacked %llu times itself; the MPI's own read past "
           "the end of the file reported more than the file held %lld times; its typed access "
           "was unlike its own pack and contiguous access, and memcomm's like the latter, %lld "
           "times; %lld cases skipped, of types the MPI's own MPI-IO cannot take\n",
           rank, nranks, compared, total, active ? "active" : "disabled", carried,
           past_end_defects, own_pack_defects, skipped_types);
    CHECK(total == 0);
    CHECK(only >= 0 || compared >= (cases - skipped_types) / 2);
    /* the comparison proves something only if memcomm carried calls */
    CHECK(active ? carried >= (unsigned long long)(only < 0 ? compared / 10 : 0) : carried == 0);
    const int code = check_summary("test_io");
    MPI_Finalize();
    return code;
}
