/* The forms of each collective memcomm carries: blocking, non-blocking (MPI_I...) and, where
 * the MPI declares them, persistent (MPI-4's ..._init); each in the int form and, where the
 * MPI declares it, the large-count form (_c). One shim macro per call family takes a FORM:
 * FORM##_PARAMS and FORM##_ARGS are what the form adds to the blocking call's parameters and
 * arguments, FORM##_REQUEST its request (NULL when blocking), FORM##_KIND the exchange's kind
 * (lib/coll/exchange.h). */
#ifndef MEMCOMM_COLL_FORMS_H
#define MEMCOMM_COLL_FORMS_H

#include "../coll/exchange.h"
#include "../p2p/requests.h"

#define BLOCKING_PARAMS
#define BLOCKING_ARGS
#define BLOCKING_REQUEST NULL
#define BLOCKING_KIND EXCHANGE_BLOCKING
#define NONBLOCKING_PARAMS , MPI_Request *request
#define NONBLOCKING_ARGS , request
#define NONBLOCKING_REQUEST request
#define NONBLOCKING_KIND EXCHANGE_NONBLOCKING
#define PERSISTENT_PARAMS , MPI_Info info, MPI_Request *request
#define PERSISTENT_ARGS , info, request
#define PERSISTENT_REQUEST request
#define PERSISTENT_KIND EXCHANGE_PERSISTENT

#if MEMCOMM_HAVE_PERSISTENT_COLLECTIVES
#define IF_PERSISTENT(...) __VA_ARGS__
#else
#define IF_PERSISTENT(...)
#endif

/* A family's forms of one count width (SUFFIX empty or _c): MPI_Alltoall, MPI_Ialltoall and
 * MPI_Alltoall_init are FORMS(SHIM, Alltoall, alltoall, ...). */
#define FORMS(SHIM, NAME, LOWER, SUFFIX, ...)                                                  \
    SHIM(MPI_##NAME##SUFFIX, PMPI_##NAME##SUFFIX, BLOCKING, __VA_ARGS__)                       \
    SHIM(MPI_I##LOWER##SUFFIX, PMPI_I##LOWER##SUFFIX, NONBLOCKING, __VA_ARGS__)                \
    IF_PERSISTENT(SHIM(MPI_##NAME##_init##SUFFIX, PMPI_##NAME##_init##SUFFIX, PERSISTENT,      \
                       __VA_ARGS__))

/* The end of every shim: the MPI's call on the arguments (the user's, with a packed side's
 * replaced by exchange `x`'s, begun at `began`) and the form's own; and, at the label
 * `unchanged`, the call as the user made it. */
#define CALL_MPI(PNAME, FORM, ...)                                                             \
    return exchange_called(x, PNAME(__VA_ARGS__ FORM##_ARGS), began, FORM##_REQUEST);          \
    unchanged:                                                                                 \
    return requests_passed(PNAME(__VA_ARGS__ FORM##_ARGS), FORM##_REQUEST);

/* A side that exchange_start packed, in the arguments of a call with one block per rank
 * (the counts stay: by element), or with counts and displacements per peer: its type is
 * TYPE = x->SIDE##_types WHICH (WHICH: [0] for one type, empty for a type per peer); so is a
 * side that goes as its runs in place (exchange.h). Another side not packed keeps the
 * user's arguments, with the own block's count 0 when memcomm copies that block itself. */
#define PACKED_BLOCKS(SIDE)                                                                    \
    if (x->SIDE##_packed) {                                                                    \
        SIDE##buf = x->SIDE##_staging;                                                         \
        SIDE##type = x->SIDE##_types[0];                                                       \
    }

#define PACKED_VECTOR(SIDE, COUNTS, DISPLS, TYPE, WHICH, COUNT_T, DISPL_T)                     \
    if (x->SIDE##_packed || x->SIDE##_runs) {                                                  \
        SIDE##buf = x->SIDE##_packed ? x->SIDE##_staging : x->SIDE##_runs;                     \
        COUNTS = (const COUNT_T *)x->SIDE##_counts;                                            \
        DISPLS = (const DISPL_T *)x->SIDE##_displs;                                            \
        TYPE = x->SIDE##_types WHICH;                                                          \
    } else if (x->self >= 0) { /* the user's side without the block memcomm copied */         \
        COUNTS = (const COUNT_T *)x->SIDE##_counts;                                            \
    }

#endif
