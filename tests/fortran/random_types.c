/* C half of the Fortran random-type test (random_types.F90): type G of a seed from the
 * random-type generator of the C tests (tests/mpi/recipe.h), built and committed in C, handed
 * to Fortran as a Fortran handle with what a buffer for `count` instances needs. */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

#include "../mpi/recipe.h"

/* MARGIN bytes more than the packed size on each side of the type's bounds: Open MPI packs
 * some types inconsistently with the bounds it reports and writes outside them
 * (docs/errors.md), into the margins, which the checksums cover. */
enum { MAX_SPAN = 1 << 20, MARGIN = 4096 };

/* *type: the committed type's Fortran handle, or MPI_DATATYPE_NULL's where type G is not
 * used (the MPI's own transfer cannot be the reference, it refuses the type, it is larger
 * than MAX_SPAN, or receiving it is erroneous: overlapping entries). *count instances a
 * peer, `peers` of them one after the other in a buffer of *span bytes whose 1-based index
 * *origin is where the data starts; *extent, the type's. */
static void make(MPI_Fint seed, MPI_Fint g, int peers, MPI_Fint *type, MPI_Fint *count,
                 MPI_Fint *origin, MPI_Fint *span, MPI_Aint *extent_out)
{
    rng r = {(uint64_t)seed * 0x9E3779B97F4A7C15ull ^ ((uint64_t)g * 0xD1B54A32D192ED03ull)};
    rng_next(&r);
    recipe *rec = recipe_random(&r, (int)rng_range(&r, 1, 3));
    const int64_t n = rng_range(&r, 1, 3);
    *type = MPI_Type_c2f(MPI_DATATYPE_NULL);
    /* a type the MPI refuses is an error code here, not the end of the program */
    MPI_Errhandler was;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &was);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t = recipe_mpi_takes(rec) ? recipe_build(rec) : MPI_DATATYPE_NULL;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, was);
    MPI_Errhandler_free(&was);
    const bool predefined = rec->kind == R_BASIC;
    recipe_free(rec);
    if (t == MPI_DATATYPE_NULL)
        return;
    if (predefined) { /* one the program may free */
        MPI_Datatype named = t;
        if (MPI_Type_dup(named, &t) != MPI_SUCCESS)
            return;
    }
    if (MPI_Type_commit(&t) != MPI_SUCCESS) {
        MPI_Type_free(&t);
        return;
    }
    MPI_Aint lb, extent, tlb, textent;
    int size;
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &extent);
    MPI_Type_get_true_extent(t, &tlb, &textent);
    const int64_t reach = (n * peers - 1) * extent;
    const int64_t lo = tlb + (reach < 0 ? reach : 0), hi = tlb + textent + (reach > 0 ? reach : 0);
    const int64_t bytes = (int64_t)size * n * peers;
    /* Open MPI's own collectives corrupt the heap on some types of negative extent (as
     * tests/mpi/test_coll.c finds): no reference there */
    bool usable = size > 0 && hi - lo <= MAX_SPAN && bytes <= MAX_SPAN &&
                  (peers == 1 || extent >= 0 || recipe_mpi_is_mpich());
    const int64_t margin = MARGIN + bytes;
    if (usable) {
        unsigned char *buf = calloc((size_t)(hi - lo + 2 * margin), 1);
        unsigned char *scratch = malloc((size_t)(2 * bytes) + 1);
        usable = buf && scratch &&
                 recipe_unpack_is_defined(t, n * peers, buf + margin - lo, bytes, scratch);
        free(buf);
        free(scratch);
    }
    if (!usable) {
        MPI_Type_free(&t);
        return;
    }
    *type = MPI_Type_c2f(t);
    *count = (MPI_Fint)n;
    *span = (MPI_Fint)(hi - lo + 2 * margin);
    *origin = (MPI_Fint)(margin - lo + 1);
    *extent_out = extent;
}

/* For point-to-point: *count instances from *origin. */
void random_type_(const MPI_Fint *seed, const MPI_Fint *g, MPI_Fint *type, MPI_Fint *count,
                  MPI_Fint *origin, MPI_Fint *span)
{
    MPI_Aint extent;
    make(*seed, *g, 1, type, count, origin, span, &extent);
}

/* For collectives: *count instances for each of `peers` peers, peer i's *extent * *count
 * bytes after peer i-1's. */
void random_type_for_peers_(const MPI_Fint *seed, const MPI_Fint *g, const MPI_Fint *peers,
                            MPI_Fint *type, MPI_Fint *count, MPI_Fint *origin, MPI_Fint *span,
                            MPI_Aint *extent)
{
    make(*seed, *g, *peers, type, count, origin, span, extent);
}
