/* mpiutil: the few helpers every layer that talks to the MPI shares (one definition each).
 *
 * EXPORT marks the functions a program sees (the library is built with hidden visibility);
 * handle_key turns any MPI handle (an int in MPICH, a pointer in Open MPI) into a hash key;
 * status_or gives a status to read when the caller passed MPI_STATUS_IGNORE. */
#ifndef MEMCOMM_MPIUTIL_H
#define MEMCOMM_MPIUTIL_H

#include <mpi.h>
#include <stdint.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* The MPI-4.1 array forms of MPI_Request_get_status (_any, _all, _some): memcomm defines them,
 * in C and Fortran, where the MPI's header has them. */
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
#define MEMCOMM_HAS_STATUS_ARRAYS 1
#else
#define MEMCOMM_HAS_STATUS_ARRAYS 0
#endif

static inline uint64_t handle_key_of(const void *handle, size_t size)
{
    uint64_t key = 0;
    memcpy(&key, handle, size < sizeof key ? size : sizeof key);
    return key;
}
#define handle_key(h) handle_key_of(&(h), sizeof(h))

/* Multiplicative hash of a key into `bits` bits (bits in 1..63). */
static inline uint64_t handle_hash(uint64_t key, int bits)
{
    return (key * 0x9E3779B97F4A7C15ull) >> (64 - bits);
}

static inline MPI_Status *status_or(MPI_Status *status, MPI_Status *own)
{
    return status == MPI_STATUS_IGNORE ? own : status;
}

#endif
