/* file: the memory side of an MPI-IO read or write that memcomm carries.
 *
 * An MPI-IO call moves `count` instances of a memory datatype between the user's buffer and
 * the file, through the file view. Parallel HDF5, PnetCDF and the like hand it a
 * non-contiguous memory type for every hyperslab (the interior of a block without its ghost
 * cells), and the MPI-IO layer walks that type with its own datatype engine. memcomm packs
 * such a type into a staging buffer before a write, and unpacks the staging buffer after a
 * read completes, and the MPI gets the staging buffer with `elements` instances of the one
 * predefined type the memory type's signature is made of (decode/signature.h): the same type
 * signature, so the file view, the etype and the data representation see exactly what they
 * see without memcomm, and the status holds the same byte count, from which MPI_Get_count and
 * MPI_Get_elements answer for the user's type. A read that ends early (end of file) unpacks
 * what arrived: whole instances and the head of the one it ends in, as the MPI would fill it.
 *
 * Everything else goes to the MPI unchanged: types memcomm passes or does not handle (as for
 * messages, lib/p2p/message.h), mixed signatures, a view whose data representation is not
 * "native" (external32 and internal convert what they read from memory), MPI_FILE_NULL, and
 * calls where the MPI's own path measured faster. The file view is never changed. Each rank
 * decides for its own memory: a collective call whose ranks decide differently moves the same
 * bytes to the same places. */
#ifndef MEMCOMM_FILE_H
#define MEMCOMM_FILE_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "../core/sendpath.h"
#include "../p2p/message.h"

typedef struct {
    message m;             /* the memory type's analysis and packed size */
    MPI_Datatype element;  /* what the MPI gets in place of the memory type */
    int64_t elements;      /* how many: the packed size over the element's */
    void *packed;          /* the staging buffer; NULL: the call goes as it came */
    bool read;
    send_choice choice;    /* a blocking call's path (timed when a trial or a sample) */
    double start;
} file_access;

/* Whether memcomm can stage the memory side of a call on `fh` moving `count` instances of
 * `type` at `buf` (`read`: into it); if so `f` holds the type's analysis, and file_stage or
 * file_drop follows. */
bool file_takes(MPI_File fh, const void *buf, int64_t count, MPI_Datatype type, bool read,
                file_access *f);

/* Choose the path of the call: `timed`, a blocking call, whose path the first calls measure
 * (sendpath.h); otherwise the path measured, staged until there is one. False when the call
 * goes to the MPI as it came (`f` is then given back). True: `f->packed` is the staging
 * buffer (a write's data packed in it), or NULL for a timed trial of the MPI's own path;
 * either way file_end follows the MPI's call. */
bool file_stage(file_access *f, const void *buf, int64_t count, bool timed);

/* The blocking call (or a split collective's end) ended with `rc` and `status` (never
 * MPI_STATUS_IGNORE for a staged read): unpack what a staged read brought into `buf`, record a
 * timed call, give everything back. */
void file_end(file_access *f, int rc, const MPI_Status *status, void *buf);

/* Give back what a file access holds without an MPI call (the MPI refused to start it). */
void file_drop(file_access *f);

#endif
