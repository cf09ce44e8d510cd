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
    if (count <= 0 || !typed || !packed || !position || packed_size < 0)
        return ENGINE_DECLINED;
    analysis *a = typecache_acquire(type);
    if (!a)
        return ENGINE_DECLINED;
    engine_outcome outcome = ENGINE_DONE;
    if (*position < 0) {
        *error_class = MPI_ERR_ARG;
        outcome = ENGINE_ERROR;
    } else if (*position > packed_size || !ir_mul(count, a->bounds.size, bytes) ||
               *bytes > packed_size - *position) {
        *error_class = MPI_ERR_TRUNCATE;
        outcome = ENGINE_ERROR;
    } else if (!a->supported || device_memory(typed) || device_memory(packed)) {
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

engine_outcome engine_pack(const void *inbuf, int64_t incount, MPI_Datatype type, void *outbuf,
                           int64_t outsize, int64_t *position, int *error_class)
{
    analysis *a;
    int64_t bytes;
    engine_outcome outcome =
        admit(inbuf, incount, type, outbuf, outsize, position, &a, &bytes, error_class);
    if (outcome != ENGINE_DONE)
        return counted(outcome);
    if (config_get()->explain)
        explain_first_call(a, incount, "MPI_Pack");
    a->plan.pack(&a->plan, (char *)inbuf, incount, (char *)outbuf + *position);
    *position += bytes;
    analysis_release(a);
    stats_handled(bytes);
    return ENGINE_DONE;
}

engine_outcome engine_unpack(const void *inbuf, int64_t insize, int64_t *position, void *outbuf,
                             int64_t outcount, MPI_Datatype type, int *error_class)
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
    a->plan.unpack(&a->plan, (char *)outbuf, outcount, (char *)inbuf + *position);
    *position += bytes;
    analysis_release(a);
    stats_handled(bytes);
    return ENGINE_DONE;
}
