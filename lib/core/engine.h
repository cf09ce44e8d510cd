/* engine: one pack/unpack call, shared by the MPI_Pack/MPI_Unpack interposers and the public
 * memcomm_pack/memcomm_unpack. It either does the call, declines it (the caller hands the
 * call to the MPI unchanged), or names the error class to raise.
 *
 * Declined: count <= 0, a NULL packed buffer or position, a NULL typed buffer but MPI_BOTTOM
 * with a type of absolute addresses (analysis_at_addresses), a negative buffer size, types
 * memcomm does not have in its cache or cannot represent. The MPI then checks
 * and reports exactly as it would alone.
 * Raised by memcomm, because an MPI below would write outside the buffer, silently truncate
 * or abort instead (see docs/errors.md): a position outside [0, size] (MPI_ERR_ARG below 0,
 * MPI_ERR_TRUNCATE above), data that does not fit (MPI_ERR_TRUNCATE).
 *
 * The interposed MPI_Pack and MPI_Unpack choose between memcomm's kernel and the MPI's own
 * call by measurement, per type and size, as sends do (lib/core/sendpath.h, uses USE_PACK and
 * USE_UNPACK): memcomm's kernels lose to the MPI's own pack on a few layouts on some machines
 * (an AMD Zen 3 VM, MPICH: floats transposed at a row pitch half a cache line off, 0.74x).
 * They pass an engine_mpi_path; when the engine answers ENGINE_BY_MPI, the caller makes the
 * MPI's call and then calls engine_mpi_done with its return code. The public memcomm_pack and
 * memcomm_unpack pass NULL: they always use memcomm's kernel. */
#ifndef MEMCOMM_ENGINE_H
#define MEMCOMM_ENGINE_H

#include <mpi.h>
#include <stdint.h>

#include "sendpath.h"

typedef enum { ENGINE_DONE, ENGINE_DECLINED, ENGINE_ERROR, ENGINE_BY_MPI } engine_outcome;

/* A call left to the MPI's own path: timed when it is a trial or a sample. */
typedef struct {
    analysis *timed; /* retained until engine_mpi_done; NULL when not timed */
    send_choice choice;
    double start;
} engine_mpi_path;

engine_outcome engine_pack(const void *inbuf, int64_t incount, MPI_Datatype type, void *outbuf,
                           int64_t outsize, int64_t *position, int *error_class,
                           engine_mpi_path *mpi);
engine_outcome engine_unpack(const void *inbuf, int64_t insize, int64_t *position, void *outbuf,
                             int64_t outcount, MPI_Datatype type, int *error_class,
                             engine_mpi_path *mpi);

/* After the MPI's call of an ENGINE_BY_MPI answer returned `rc`. */
void engine_mpi_done(engine_mpi_path *mpi, int rc);

#endif
