/* MPI_Pack / MPI_Unpack and the MPI-4 _c variants: kill switch -> engine -> the MPI.
 * One definition per direction, instantiated for int and MPI_Count arguments. The engine
 * packs with memcomm's kernel or, where its trials found the MPI's own call faster for this
 * type and size, answers ENGINE_BY_MPI (lib/core/engine.h). */
#include "../core/config.h"
#include "../base/mpiutil.h"
#include "../core/defects.h"
#include "../core/engine.h"
#include "entry.h"

static int raise_on(MPI_Comm comm, int error_class)
{
    PMPI_Comm_call_errhandler(comm, error_class);
    return error_class;
}

/* After a declined or disabled call the MPI does everything, errors included; so does a call
 * at MPI_BOTTOM (USER_BUF, the side the type describes) where the MPI rejects that alone. */
#define DISPATCH(ENGINE_CALL, MPI_CALL, POS_T, USER_BUF)                                       \
    if (config_get()->disable || !position || comm == MPI_COMM_NULL ||                         \
        (USER_BUF == MPI_BOTTOM && defects_pack_rejects_bottom()))                             \
        return MPI_CALL;                                                                       \
    int64_t pos = *position;                                                                   \
    int error_class;                                                                           \
    engine_mpi_path by_mpi;                                                                    \
    switch (ENGINE_CALL) {                                                                     \
    case ENGINE_DONE:                                                                          \
        *position = (POS_T)pos; /* fits: pos <= the buffer size argument */                    \
        return MPI_SUCCESS;                                                                    \
    case ENGINE_ERROR:                                                                         \
        return raise_on(comm, error_class);                                                    \
    case ENGINE_BY_MPI: {                                                                      \
        const int rc = MPI_CALL;                                                               \
        engine_mpi_done(&by_mpi, rc);                                                          \
        return rc;                                                                             \
    }                                                                                          \
    case ENGINE_DECLINED:                                                                      \
        break;                                                                                 \
    }                                                                                          \
    return MPI_CALL;

#define PACK_SHIM(NAME, PNAME, COUNT_T)                                                        \
    INTERPOSE(int, NAME,                                                                       \
              (const void *inbuf, COUNT_T incount, MPI_Datatype datatype, void *outbuf,        \
               COUNT_T outsize, COUNT_T *position, MPI_Comm comm))                             \
    {                                                                                          \
        DISPATCH(engine_pack(inbuf, incount, datatype, outbuf, outsize, &pos, &error_class,    \
                             &by_mpi),                                                         \
                 PNAME(inbuf, incount, datatype, outbuf, outsize, position, comm), COUNT_T,    \
                 inbuf)                                                                        \
    }

#define UNPACK_SHIM(NAME, PNAME, COUNT_T)                                                      \
    INTERPOSE(int, NAME,                                                                       \
              (const void *inbuf, COUNT_T insize, COUNT_T *position, void *outbuf,             \
               COUNT_T outcount, MPI_Datatype datatype, MPI_Comm comm))                        \
    {                                                                                          \
        DISPATCH(engine_unpack(inbuf, insize, &pos, outbuf, outcount, datatype, &error_class,  \
                               &by_mpi),                                                       \
                 PNAME(inbuf, insize, position, outbuf, outcount, datatype, comm), COUNT_T,    \
                 outbuf)                                                                       \
    }

PACK_SHIM(MPI_Pack, PMPI_Pack, int)
UNPACK_SHIM(MPI_Unpack, PMPI_Unpack, int)
#if MEMCOMM_HAVE_LARGE_COUNT
PACK_SHIM(MPI_Pack_c, PMPI_Pack_c, MPI_Count)
UNPACK_SHIM(MPI_Unpack_c, PMPI_Unpack_c, MPI_Count)
#endif
