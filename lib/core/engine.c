#include "engine.h"

#include "config.h"
#include "device.h"
#include "explain.h"
#include "stats.h"
#include "typecache.h"

/* Shared argument checks; on ENGINE_DONE `*out` holds a retained analysis and `*bytes`
 * the packed size of the call. */
static engine_outcome admit(const void *typed, int64_t count, MPI_Datatype type,
                            const void *packed, int64_t packed_size, const int64_t *position,
                            analysis **out, int64_t *bytes, int *error_class)
{
    if (count <= 0 || !packed || !position || packed_size < 0)
        return ENGINE_DECLINED;
    analysis *a = typecache_acquire(type);
    if (!a)
        return ENGINE_DECLINED;
    if (!typed && !analysis_at_addresses(a)) { /* NULL but not MPI_BOTTOM: the MPI's to judge */
        analysis_release(a);
        return ENGINE_DECLINED;
    }
    engine_outcome outcome = ENGINE_DONE;
    if (*position < 0) {
        *error_class = MPI_ERR_ARG;
        outcome = ENGINE_ERROR;
    } else if (*position > packed_size || !ir_mul(count, a->bounds.size, bytes) ||
               *bytes > packed_size - *position) {
        *error_class = MPI_ERR_TRUNCATE;
        outcome = ENGINE_ERROR;
    } else if (!a->supported ||
               device_memory(analysis_data_at(a, typed)) || device_memory(packed)) {
        outcome = ENGINE_DECLINED; /* GPU memory: the MPI's to move */
    }
    if (outcome != ENGINE_DONE) {
        analysis_release(a);
        return outcome;
    }
    *out = a;
    return ENGINE_DONE;
}

static engine_outcome counted(engine_outcome outcome)
{
    if (outcome == ENGINE_DECLINED)
        stats_fallback();
    else if (outcome == ENGINE_ERROR)
        stats_error();
    return outcome;
}

/* The path of an admitted call: true when it goes to the MPI's own (`mpi` then holds what
 * engine_mpi_done records, and the analysis if timed); false for memcomm's kernel, `*choice`
 * saying whether to time it. Without `mpi` (the public API) always memcomm's kernel. */
static bool mpi_takes(analysis *a, path_use use, int64_t bytes, engine_mpi_path *mpi,
                      send_choice *choice)
{
    if (!mpi) {
        *choice = (send_choice){.path = SEND_PACKED, .trial = -1};
        return false;
    }
    *choice = sendpath_choose(a, use, bytes, 2, TRIAL_SEND);
    if (choice->path != SEND_BY_MPI)
        return false;
    mpi->choice = *choice;
    mpi->timed = choice->timed ? a : NULL;
    if (!choice->timed)
        analysis_release(a);
    mpi->start = choice->timed ? PMPI_Wtime() : 0;
    return true;
}

void engine_mpi_done(engine_mpi_path *mpi, int rc)
{
    if (!mpi->timed)
        return;
    if (rc == MPI_SUCCESS)
        sendpath_record(mpi->timed, &mpi->choice, PMPI_Wtime() - mpi->start);
    analysis_release(mpi->timed);
    mpi->timed = NULL;
}

/* memcomm's kernel did the call: time it if asked, and let the analysis go. */
static engine_outcome kernel_done(analysis *a, const send_choice *choice, double start,
                                  int64_t bytes)
{
    if (choice->timed)
        sendpath_record(a, choice, PMPI_Wtime() - start);
    analysis_release(a);
    stats_handled(bytes);
    return ENGINE_DONE;
}

engine_outcome engine_pack(const void *inbuf, int64_t incount, MPI_Datatype type, void *outbuf,
                           int64_t outsize, int64_t *position, int *error_class,
                           engine_mpi_path *mpi)
{
    analysis *a;
    int64_t bytes;
    engine_outcome outcome =
        admit(inbuf, incount, type, outbuf, outsize, position, &a, &bytes, error_class);
    if (outcome != ENGINE_DONE)
        return counted(outcome);
    if (config_get()->explain)
        explain_first_call(a, incount, "MPI_Pack");
    send_choice choice;
    if (mpi_takes(a, USE_PACK, bytes, mpi, &choice))
        return ENGINE_BY_MPI;
    const double start = choice.timed ? PMPI_Wtime() : 0;
    a->plan.pack(&a->plan, (char *)inbuf, incount, (char *)outbuf + *position);
    *position += bytes;
    return kernel_done(a, &choice, start, bytes);
}

engine_outcome engine_unpack(const void *inbuf, int64_t insize, int64_t *position, void *outbuf,
                             int64_t outcount, MPI_Datatype type, int *error_class,
                             engine_mpi_path *mpi)
{
    analysis *a;
    int64_t bytes;
    engine_outcome outcome =
        admit(outbuf, outcount, type, inbuf, insize, position, &a, &bytes, error_class);
    if (outcome == ENGINE_DONE && !analysis_unpack_disjoint(a, outcount)) {
        analysis_release(a);
        outcome = ENGINE_DECLINED;
    }
    if (outcome != ENGINE_DONE)
        return counted(outcome);
    if (config_get()->explain)
        explain_first_call(a, outcount, "MPI_Unpack");
    send_choice choice;
    if (mpi_takes(a, USE_UNPACK, bytes, mpi, &choice))
        return ENGINE_BY_MPI;
    const double start = choice.timed ? PMPI_Wtime() : 0;
    a->plan.unpack(&a->plan, (char *)outbuf, outcount, (char *)inbuf + *position);
    *position += bytes;
    return kernel_done(a, &choice, start, bytes);
}
