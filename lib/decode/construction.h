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

/* Types whose construction is longer than this are analysed per handle instead. An indexed
 * type of 65,536 blocks (ddtbench's SPECFEM3D and LAMMPS layouts) takes 256-512 KiB; keying it
 * costs a read of its contents and a hash, against a fresh analysis and fresh send-path
 * trials at every re-creation. */
enum { CONSTRUCTION_MAX_BYTES = 4 << 20, CONSTRUCTION_SCRATCH_BYTES = 4096 };

/* A construction starts in a buffer of its caller's (on the stack: most are a few hundred
 * bytes, ddtbench's LAMMPS of 128 atoms 3 KiB, looked up and dropped at each re-creation)
 * and moves to the heap when it outgrows it or is kept. */
typedef struct {
    unsigned char *bytes;
    size_t len, cap;
    uint64_t hash;
    bool borrowed; /* bytes is the caller's scratch */
} construction;

/* False when the construction is too long, a query fails or memory is short; `out` then
 * holds nothing to free. `scratch` must outlive `out` unless construction_keep moved it. */
bool construction_of(MPI_Datatype type, void *scratch, size_t scratch_len, construction *out);
/* Moves the bytes out of the caller's scratch, for `c` to be kept; false if memory is short
 * (`c` unchanged). */
bool construction_keep(construction *c);
/* The hash a construction is keyed by, of any bytes (decode/fingerprint.c hashes with it too):
 * equal hashes are compared in full, so it only has to spread. */
uint64_t construction_hash(const void *data, size_t len);
void construction_free(construction *c);

#endif
