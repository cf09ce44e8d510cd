/* signature: the one predefined type a datatype's type signature is made of, if it is.
 *
 * MPI-IO matches a memory type to the file's etype by its type signature (the sequence of
 * basic types, MPI 4.1 sec. 14.5). memcomm hands the MPI packed bytes in place of a
 * non-contiguous memory type only where `elements` instances of one predefined type carry the
 * same signature, and lie in memory exactly as the packed bytes do: a type whose size is its
 * extent, from lower bound 0 (MPI_DOUBLE, MPI_INT, MPI_BYTE; not MPI_DOUBLE_INT, whose
 * extent has padding). */
#ifndef MEMCOMM_SIGNATURE_H
#define MEMCOMM_SIGNATURE_H

#include <mpi.h>
#include <stdbool.h>

/* True, with `*element`, when every basic type in `type`'s construction is the same
 * predefined type of that kind; false for a mixed signature, a type built from one that
 * leaves gaps, or a query that fails. */
bool decode_signature_element(MPI_Datatype type, MPI_Datatype *element);

#endif
