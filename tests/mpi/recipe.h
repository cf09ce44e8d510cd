/* Random MPI datatypes as recipes: plain data that builds an MPI type, prints as the C
 * constructor calls it stands for, and can be shrunk when a test fails with it. */
#ifndef MEMCOMM_TEST_RECIPE_H
#define MEMCOMM_TEST_RECIPE_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { RECIPE_MAX_N = 5, RECIPE_MAX_DIMS = 3 };

typedef enum {
    R_BASIC,
    R_DUP,
    R_CONTIGUOUS,
    R_VECTOR,
    R_HVECTOR,
    R_INDEXED,
    R_HINDEXED,
    R_INDEXED_BLOCK,
    R_HINDEXED_BLOCK,
    R_STRUCT,
    R_SUBARRAY,
    R_DARRAY,
    R_RESIZED,
    R_KINDS
} recipe_kind;

typedef struct recipe recipe;
struct recipe {
    recipe_kind kind;
    bool large;  /* build with the MPI-4 _c constructor */
    int basic;   /* R_BASIC: index into the basic type table */
    int64_t count, blocklen, stride;                   /* contiguous, vector, hvector */
    int n;                                             /* indexed family, struct */
    int64_t lens[RECIPE_MAX_N], displs[RECIPE_MAX_N];
    int ndims, order;                                  /* subarray, darray */
    int sizes[RECIPE_MAX_DIMS], subsizes[RECIPE_MAX_DIMS], starts[RECIPE_MAX_DIMS];
    int nprocs, rank, distribs[RECIPE_MAX_DIMS], dargs[RECIPE_MAX_DIMS], psizes[RECIPE_MAX_DIMS];
    int64_t lb, extent;                                /* resized */
    recipe *kids[RECIPE_MAX_N];                        /* struct: n; others: kids[0] */
};

typedef struct {
    uint64_t state;
} rng;

uint64_t rng_next(rng *r);
int64_t rng_range(rng *r, int64_t lo, int64_t hi); /* inclusive */

/* A recipe with a struct member that is empty (zero-length blocks) over a derived type.
 * MPICH 5.0.2's own PMPI_Pack dies with SIGFPE on some of these, e.g. struct{double@0,
 * hindexed_block(1, 0, {0}, indexed_block(3, 2, {-4,1,2}, MPI_SHORT))@64}, so on MPICH the
 * differential test cannot use them as a reference and skips them. */
bool recipe_has_empty_derived_block(const recipe *r);

/* A recipe with a negative-extent type below the top. MPICH 5.0.2 places such types away
 * from the bounds it reports for their parents (see decode.c), so its own pack and unpack
 * write outside buffers sized from those bounds, or die with SIGFPE, e.g. on
 * indexed_block(2, {15}, contiguous(4, darray(1, 0, {9}, BLOCK, resized(int, -22, -14)))). */
bool recipe_has_inner_negative_extent(const recipe *r);

/* A recipe with an indexed type (displacements in the extents of its kid) over a type of
 * extent 0. Intel MPI 2021.19's own MPI_Pack dies with SIGSEGV on these, e.g. on one instance
 * of indexed({2,3}, {6,15}, resized(MPI_CHAR, lb=0, extent=0)) (hindexed and indexed_block
 * over the same kid pack right), so on Intel MPI 2021 the tests cannot use them as a
 * reference and skip them. */
bool recipe_has_indexed_over_zero_extent(const recipe *r);

/* A recipe with a darray that distributes a dimension CYCLIC(k) with k given. Intel MPI
 * 2021.19 packs some of these unlike MPICH 5.0.2, MPICH 4.0.2 and Open MPI 4.1.4, which agree
 * with each other and with memcomm, e.g. darray(3 procs, rank 2, gsizes {8,7,6}, BLOCK, NONE,
 * CYCLIC(3), psizes {3,1,1}, Fortran order, MPI_INT); the tests skip them on Intel MPI 2021. */
bool recipe_has_explicit_cyclic_darray(const recipe *r);

/* Whether the MPI below is MPICH or built on it (Intel MPI, whose version string does not say
 * so), asked once, from MPI_Get_library_version. */
bool recipe_mpi_is_mpich(void);

/* Whether the MPI below is Intel MPI 2021, whose persistent collectives memcomm passes
 * (docs/errors.md: they read small send buffers at the _init call). */
bool recipe_mpi_is_intel_2021(void);

/* Whether the MPI below is MPICH 4.0 (Debian 12's), whose own PMPI_Unpack dies with SIGFPE on
 * types of size 0 (an integer division in its datatype engine), e.g. on 3 instances of
 * contiguous(0, MPI_BYTE) or of hindexed_block(1, {}, ...); the tests skip those there. */
bool recipe_mpi_is_mpich_4_0(void);

/* Whether the MPI below is Open MPI 4 (Debian 12's 4.1.4: test_p2p.c says what it skips). */
bool recipe_mpi_is_open_mpi_4(void);

/* Whether the recipe's type has size 0. */
bool recipe_is_empty(const recipe *r);

/* Whether the MPI's own transfer of the recipe's type can be the reference: not on MPICH
 * for the two families above, nor on MPICH 4.0 for types of size 0, nor on Intel MPI 2021
 * for indexed types over extent 0 and darrays of CYCLIC(k). */
bool recipe_mpi_takes(const recipe *r);

/* The random-type tests' command line: `--cases N --seed S` (others keep their defaults). */
void recipe_options(int argc, char **argv, long long *cases, uint64_t *seed);

/* Does the recipe use this constructor anywhere? */
bool recipe_uses(const recipe *r, recipe_kind kind);

/* Has the recipe a block of length 0 anywhere (a count, block length or entry of lengths)? */
bool recipe_has_empty_block(const recipe *r);

/* Is any of the recipe's types built with an MPI-4 large-count (_c) constructor? */
bool recipe_uses_large(const recipe *r);

/* Does the recipe use this basic type anywhere? */
bool recipe_uses_basic(const recipe *r, MPI_Datatype basic);

/* Does the MPI's unpack of `count` instances at `origin` write each of the `bytes` packed bytes
 * to its own place? False for types with overlapping entries (erroneous for unpack in the MPI
 * standard, but unpacked all the same): unpack then pack does not give back every byte, for
 * one of three independent patterns. `scratch` holds 2 * bytes. */
bool recipe_unpack_is_defined(MPI_Datatype t, int64_t count, unsigned char *origin, int64_t bytes,
                              unsigned char *scratch);

/* A random recipe of nesting depth at most `depth`. */
recipe *recipe_random(rng *r, int depth);
recipe *recipe_copy(const recipe *r);
void recipe_free(recipe *r);

/* Build the (uncommitted) MPI type; MPI_DATATYPE_NULL if the MPI refuses it. */
MPI_Datatype recipe_build(const recipe *r);

/* C-like description, e.g. "vector(3, 2, -4, MPI_INT)". */
void recipe_describe(const recipe *r, char *buf, size_t cap);

/* Smaller variants of `r` (each a fresh recipe), for shrinking a failure; returns count. */
int recipe_smaller(const recipe *r, recipe **out, int cap);

int recipe_basic_count(void);

/* A buffer for `count` instances of a type: [lo, lo + span) around the origin, with `guard`
 * bytes on each side; `size`, the type's size. */
typedef struct {
    int64_t lo, span, size;
} recipe_span;

/* False for a type an MPI cannot measure (Open MPI reports MPI_UNDEFINED, the largest count)
 * or whose buffer or packed bytes would exceed `max`. */
bool recipe_span_of(MPI_Datatype t, int count, int64_t guard, int64_t max, recipe_span *e);

/* `n` bytes of the random stream of `seed`. */
void recipe_fill(unsigned char *p, int64_t n, uint64_t seed);

/* The error class of a return code (MPI_SUCCESS stays). */
int recipe_error_class(int rc);

/* A column of an n x n matrix of doubles resized to one element, committed: n of them are
 * the matrix's transpose (the tests' fixed transposing type). */
MPI_Datatype recipe_transpose_column(int n);

#endif
