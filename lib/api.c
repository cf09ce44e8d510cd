/* The public C API of include/memcomm.h. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../include/memcomm.h"
#include "base/alloc.h"
#include "base/mpiutil.h"
#include "core/engine.h"
#include "core/explain.h"
#include "core/stats.h"
#include "kernel/kernel.h"
#include "kernel/probe.h"
#include "core/typecache.h"
#include "plan/machine.h"

#if !MEMCOMM_HAVE_LARGE_COUNT
static int fits_int(MPI_Count v) { return v >= INT_MIN && v <= INT_MAX; }
#endif

/* The engine's answer as a return code (storing the new position when done); false when
 * the engine declined and the call goes to the MPI. Pointers, because the engine call in the
 * caller's argument list writes them. */
static bool settled(engine_outcome outcome, const int64_t *pos, MPI_Count *position,
                    const int *error_class, int *rc)
{
    if (outcome == ENGINE_DECLINED)
        return false;
    if (outcome == ENGINE_DONE)
        *position = *pos;
    *rc = outcome == ENGINE_DONE ? MPI_SUCCESS : *error_class;
    return true;
}

EXPORT int memcomm_pack(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                        MPI_Count outsize, MPI_Count *position)
{
    int rc, error_class = MPI_SUCCESS;
    int64_t pos = position ? *position : 0;
    if (settled(engine_pack(inbuf, incount, datatype, outbuf, outsize, position ? &pos : NULL,
                            &error_class, NULL),
                &pos, position, &error_class, &rc))
        return rc;
#if MEMCOMM_HAVE_LARGE_COUNT
    return PMPI_Pack_c(inbuf, incount, datatype, outbuf, outsize, position, MPI_COMM_SELF);
#else
    if (!position)
        return MPI_ERR_ARG;
    if (!fits_int(incount) || !fits_int(outsize) || !fits_int(*position))
        return MPI_ERR_COUNT;
    int ipos = (int)*position;
    rc = PMPI_Pack(inbuf, (int)incount, datatype, outbuf, (int)outsize, &ipos, MPI_COMM_SELF);
    *position = ipos;
    return rc;
#endif
}

EXPORT int memcomm_unpack(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                          MPI_Count outcount, MPI_Datatype datatype)
{
    int rc, error_class = MPI_SUCCESS;
    int64_t pos = position ? *position : 0;
    if (settled(engine_unpack(inbuf, insize, position ? &pos : NULL, outbuf, outcount, datatype,
                              &error_class, NULL),
                &pos, position, &error_class, &rc))
        return rc;
#if MEMCOMM_HAVE_LARGE_COUNT
    return PMPI_Unpack_c(inbuf, insize, position, outbuf, outcount, datatype, MPI_COMM_SELF);
#else
    if (!position)
        return MPI_ERR_ARG;
    if (!fits_int(insize) || !fits_int(outcount) || !fits_int(*position))
        return MPI_ERR_COUNT;
    int ipos = (int)*position;
    rc = PMPI_Unpack(inbuf, (int)insize, &ipos, outbuf, (int)outcount, datatype, MPI_COMM_SELF);
    *position = ipos;
    return rc;
#endif
}

EXPORT int memcomm_pack_size(MPI_Count incount, MPI_Datatype datatype, MPI_Count *size)
{
#if MEMCOMM_HAVE_LARGE_COUNT
    return PMPI_Pack_size_c(incount, datatype, MPI_COMM_SELF, size);
#else
    if (!fits_int(incount))
        return MPI_ERR_COUNT;
    int isize = 0;
    int rc = PMPI_Pack_size((int)incount, datatype, MPI_COMM_SELF, &isize);
    *size = isize;
    return rc;
#endif
}

EXPORT int memcomm_type_info_get(MPI_Datatype datatype, memcomm_type_info *info)
{
    memset(info, 0, sizeof *info);
    analysis *a = typecache_acquire(datatype);
    if (!a) {
        info->kernel = "mpi";
        snprintf(info->reason, sizeof info->reason, "not a committed type memcomm has seen");
        return MPI_ERR_TYPE;
    }
    info->handled = a->supported;
    info->size = a->bounds.size;
    info->extent = a->bounds.extent;
    info->kernel = a->supported ? a->plan.kernel_name : "mpi";
    snprintf(info->reason, sizeof info->reason, "%s", a->why);
    if (a->normal)
        ir_format(a->normal, info->canonical, sizeof info->canonical);
    analysis_release(a);
    return MPI_SUCCESS;
}

EXPORT const char *memcomm_version(void) { return MEMCOMM_VERSION_STRING; }

EXPORT void memcomm_stats_get(memcomm_stats *out)
{
    stats_snapshot s = stats_read();
    out->handled_calls = s.handled_calls;
    out->handled_bytes = s.handled_bytes;
    out->fallback_calls = s.fallback_calls;
    out->error_calls = s.error_calls;
    out->analysed_types = s.analysed_types;
    out->reused_types = s.reused_types;
    out->stale_requests = s.stale_requests;
    out->allocations = mc_allocations();
    out->paths_packed = s.paths_packed;
    out->paths_by_mpi = s.paths_by_mpi;
    out->unseen_routes = s.unseen_routes;
    out->paths_saved = s.paths_saved;
    out->recognised_types = s.recognised_types;
    out->paths_checked = s.paths_checked;
    out->paths_returned = s.paths_returned;
    out->paths_left = s.paths_left;
}

EXPORT int memcomm_machine_json(char *json, size_t cap)
{
    const machine *m = machine_get();
    size_t len = 0;
    for (int f = 0; f < MACHINE_FIELDS; f++) {
        int w = snprintf(json + len, len < cap ? cap - len : 0, "%s\"%s\": {\"value\": %lld, \"source\": \"%s\"}",
                         f ? ", " : "{", machine_field_name((machine_field)f),
                         (long long)m->value[f], m->source[f]);
        if (w < 0)
            return -1;
        len += (size_t)w;
    }
    /* not a parameter of the model, but it decides the probed calls (lib/kernel/residency.c):
     * where the probe cannot tell L3 from memory, all of them store cached, which a user
     * should be able to see */
    const int64_t ticks = kernel_cold_ticks();
    int w = snprintf(json + len, len < cap ? cap - len : 0,
                     ", \"RESIDENCY_TICKS\": {\"value\": %lld, \"source\": \"%s\"}}",
                     (long long)ticks,
                     ticks > 0 ? "calibrated: 8 loads slower than this come from memory"
                               : "off: caches and memory not told apart");
    len += (size_t)(w > 0 ? w : 0);
    return len < cap ? (int)len : -1;
}

EXPORT int memcomm_type_explain(MPI_Datatype datatype, MPI_Count count, char *text, size_t cap)
{
    analysis *a = typecache_acquire(datatype);
    if (!a)
        return -1;
    int len = explain_analysis(a, count, text, cap);
    analysis_release(a);
    return len;
}

EXPORT int memcomm_machine_probe(char *json, size_t cap)
{
    const machine *m = machine_get();
    machine_probe_result r;
    if (machine_probe(m->value[MACHINE_PAGE], m->value[MACHINE_LINE], m->value[MACHINE_SIMD], &r) != 0)
        return -1;
    size_t len = 0;
#define PUT(...)                                                                               \
    do {                                                                                       \
        int w_ = snprintf(json + len, len < cap ? cap - len : 0, __VA_ARGS__);                 \
        if (w_ < 0)                                                                            \
            return -1;                                                                         \
        len += (size_t)w_;                                                                     \
    } while (0)
    PUT("{\"TLB_ENTRIES\": %lld, \"STREAM_BYTES\": %lld, \"COPY_BYTES_PER_S\": %lld, "
        "\"TILE_BYTES\": %lld, \"SHUFFLE_BYTES\": %lld, \"tlb\": [",
        (long long)r.tlb_entries, (long long)r.stream_bytes, (long long)r.copy_bytes_per_s,
        (long long)r.tile_bytes, (long long)r.shuffle_bytes);
    for (int i = 0; i < r.tlb_points; i++)
        PUT("%s[%lld, %.3f]", i ? ", " : "", (long long)r.tlb_pages[i], r.tlb_ns[i]);
    PUT("], \"tile\": [");
    for (int i = 0; i < r.tile_points; i++)
        PUT("%s[%lld, %.3f, %.3f]", i ? ", " : "", (long long)r.tile_sizes[i],
            r.tile_gbps[i][0], r.tile_gbps[i][1]);
    PUT("], \"shuffle\": [");
    for (int i = 0; i < r.shuffle_points; i++)
        PUT("%s[%lld, %.3f]", i ? ", " : "", (long long)r.shuffle_widths[i], r.shuffle_gbps[i]);
    PUT("], \"transpose\": [");
    for (int i = 0; i < r.stream_points; i++)
        PUT("%s[%lld, %.3f, %.3f]", i ? ", " : "", (long long)r.stream_sizes[i], r.plain_gbps[i],
            r.streaming_gbps[i]);
    PUT("]}");
#undef PUT
    return len < cap ? (int)len : -1;
}
