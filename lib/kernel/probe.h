/* probe: measure what the machine model cannot read from the system (probe.c says how). */
#ifndef MEMCOMM_PROBE_H
#define MEMCOMM_PROBE_H

#include <stdint.h>

enum { MACHINE_PROBE_POINTS = 64 };

typedef struct {
    /* results, 0 where a probe found nothing */
    int64_t tlb_entries;      /* pages mapped before the first jump in access time */
    int64_t stream_bytes;     /* streaming stores win above this (INT64_MAX: never) */
    int64_t copy_bytes_per_s; /* the better of a plain and a streaming 128 MiB copy */
    int64_t tile_bytes;       /* the fastest row of a transposing copy's tile */
    int64_t shuffle_bytes;    /* the faster registers for transposes of doubles (0: no SIMD) */
    /* the curves behind them */
    int tlb_points, stream_points, tile_points;
    int64_t tlb_pages[MACHINE_PROBE_POINTS];
    double tlb_ns[MACHINE_PROBE_POINTS];
    int64_t stream_sizes[MACHINE_PROBE_POINTS];
    double plain_gbps[MACHINE_PROBE_POINTS], streaming_gbps[MACHINE_PROBE_POINTS]; /* transposes */
    int64_t tile_sizes[MACHINE_PROBE_POINTS]; /* tile row bytes, and GB/s for 8- and 4-byte */
    double tile_gbps[MACHINE_PROBE_POINTS][2]; /* elements on 32 MiB, streamed */
    int shuffle_points;
    int64_t shuffle_widths[2]; /* register bytes, and GB/s of doubles on 1024^2 to 4096^2 */
    double shuffle_gbps[2];    /* matrices, cached stores */
} machine_probe_result;

/* Runs the probes (a few seconds); 0 on success, -1 if memory ran out. */
int machine_probe(int64_t page_size, int64_t line_size, int64_t simd_bytes,
                  machine_probe_result *out);

#endif
