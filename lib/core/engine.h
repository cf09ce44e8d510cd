/* engine: one pack/unpack call, shared by the MPI_Pack/MPI_Unpack interposers and the public
 * memcomm_pack/memcomm_unpack. It either does the call, declines it (the caller hands the
 * call to the MPI unchanged), or names the error class to raise.
 *
 * Declined: count <= 0, NULL buffers or position (MPI_BOTTOM included), a negative buffer
 * size, types memcomm does not have in its cache or cannot represent. The MPI then checks
 * and reports exactly as it would alone.
 * Raised by memcomm, because an MPI below would write outside the buffer, silently truncate
 * or abort instead (see docs/errors.md): a position outside [0, size] (MPI_ERR_ARG below 0,
 * MPI_ERR_TRUNCATE above), data that does not fit (MPI_ERR_TRUNCATE). */
#ifndef MEMCOMM_ENGINE_H
#define MEMCOMM_ENGINE_H

#include <mpi.h>
#include <stdint.h>

typedef enum { ENGINE_DONE, ENGINE_DECLINED, ENGINE_ERROR } engine_outcome;

engine_outcome engine_pack(const void *inbuf, int64_t incount, MPI_Datatype type, void *outbuf,
                           int64_t outsize, int64_t *position, int *error_class);
engine_outcome engine_unpack(const void *inbuf, int64_t insize, int64_t *position, void *outbuf,
                             int64_t outcount, MPI_Datatype type, int *error_class);

#endif
