/* contents: one MPI_Type_get_envelope / MPI_Type_get_contents answer, read once and released
 * with the handles it returned. decode builds its tree from these; construction reads the
 * same answers to name how a type was built. */
#ifndef MEMCOMM_CONTENTS_H
#define MEMCOMM_CONTENTS_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

/* Answers up to these lengths are kept in the contents itself: a re-created type (a halo
 * face, a subarray of up to 5 dimensions, a struct of up to 8 members) is read without a
 * malloc, which was half of what looking it up cost. */
enum { CONTENTS_INLINE_INTS = 24, CONTENTS_INLINE_OTHERS = 8 };

/* MPI-4 moved counts into a separate large-count array for types built with the _c
 * constructors; contents_flat gives the k-th argument of ints ++ addresses for the ordinary
 * constructors and of the large counts for the _c ones, which is the same sequence for every
 * combiner but subarray and darray. Not to be copied: the arrays may point into it. */
typedef struct {
    int combiner;
    int64_t ni, na, nc, nd;
    int *ints;
    MPI_Aint *addrs;
    MPI_Count *counts;
    MPI_Datatype *types;
    int inline_ints[CONTENTS_INLINE_INTS];
    MPI_Aint inline_addrs[CONTENTS_INLINE_OTHERS];
    MPI_Count inline_counts[CONTENTS_INLINE_OTHERS];
    MPI_Datatype inline_types[CONTENTS_INLINE_OTHERS];
} contents;

/* Combiners whose get_contents handles are new objects the caller must free; predefined
 * (named, f90, value-index) handles must not be freed. */
bool contents_is_constructed(int combiner);
/* MPI_Type_get_envelope (its _c form where the MPI has it): ni, na, nc, nd. */
int contents_envelope(MPI_Datatype type, int64_t lengths[4], int *combiner);
int contents_combiner(MPI_Datatype type, int *combiner);
/* The combiner, and for a constructed type its arguments and the handles of its parts.
 * False when a query fails or memory is short (nothing to release then). */
bool contents_fetch(MPI_Datatype type, contents *c);
/* Frees the parts' handles that are constructed types (a part set to MPI_DATATYPE_NULL
 * is skipped: its caller has dealt with it). */
void contents_release(contents *c);
int64_t contents_flat(const contents *c, int64_t k);
bool contents_flat_has(const contents *c, int64_t n);

#endif
