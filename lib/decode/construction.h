/* construction: how a datatype was built, as a byte string: each combiner with its integer,
 * address and large-count arguments, down to the predefined types, named by their handles
 * (which the MPI keeps for the whole run). A dup is its original.
 *
 * Two handles with the same construction are the same type to the MPI, so memcomm decodes,
 * verifies and plans each construction once: a program that re-creates its types (a type per
 * message, as halo codes, ddtbench and Python programs do) pays the analysis once. */
#ifndef MEMCOMM_CONSTRUCTION_H
#define MEMCOMM_CONSTRUCTION_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Types whose construction is longer than this (large indexed types) are analysed per
 * handle instead. */
enum { CONSTRUCTION_MAX_BYTES = 64 << 10 };

typedef struct {
    unsigned char *bytes;
    size_t len, cap;
    uint64_t hash;
} construction;

/* False when the construction is too long, a query fails or memory is short; `out` then
 * holds nothing to free. */
bool construction_of(MPI_Datatype type, construction *out);
void construction_free(construction *c);

#endif
