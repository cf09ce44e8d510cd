/* memcomm: memory-aware MPI datatype packing.
 *
 * Most programs use memcomm without calling it: preload libmemcomm.so (or link it before
 * libmpi) and MPI_Pack / MPI_Unpack on derived datatypes go through memcomm's engine. This
 * header is for programs that want the engine directly.
 *
 * Errors are returned, not raised: MPI_SUCCESS or an MPI error class. Calls memcomm cannot
 * do itself (types it cannot represent, MPI_BOTTOM buffers) are handed to the MPI's own
 * PMPI_Pack / PMPI_Unpack on MPI_COMM_SELF, whose error handler then applies. */
#ifndef MEMCOMM_H
#define MEMCOMM_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MEMCOMM_VERSION_MAJOR 0
#define MEMCOMM_VERSION_MINOR 1
#define MEMCOMM_VERSION_PATCH 0

/* Pack `incount` elements of `datatype` from `inbuf` into `outbuf[*position ..
 * outsize)`, advancing *position: the same bytes MPI_Pack produces. */
int memcomm_pack(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                 MPI_Count outsize, MPI_Count *position);

/* Unpack from `inbuf[*position .. insize)` into `outcount` elements at `outbuf`, advancing
 * *position; writes exactly the bytes MPI_Unpack writes, leaving gaps untouched. */
int memcomm_unpack(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                   MPI_Count outcount, MPI_Datatype datatype);

/* Upper bound on the packed size of `incount` elements (the MPI's MPI_Pack_size). */
int memcomm_pack_size(MPI_Count incount, MPI_Datatype datatype, MPI_Count *size);

/* What memcomm made of a committed datatype. */
typedef struct {
    int handled;            /* 1: memcomm packs it; 0: calls go to the MPI */
    const char *kernel;     /* "contiguous", "strided", "list", "tree", or "mpi" */
    MPI_Count size, extent; /* as the MPI reports them */
    char canonical[512];    /* normalized form, e.g. "loop(64,+512)[block(8)@0]@0" */
    char reason[128];       /* why not handled, when handled == 0 */
} memcomm_type_info;

int memcomm_type_info_get(MPI_Datatype datatype, memcomm_type_info *info);

/* Why memcomm moves `count` elements of `datatype` the way it does, as readable lines: the
 * canonical form, the strided form for this count, the TLB model's inputs and verdict
 * (R_p pages against T_p entries), and the kernel with its tile sizes. Returns the length
 * written, or -1 if the type is unknown to memcomm or `cap` too small. */
int memcomm_type_explain(MPI_Datatype datatype, MPI_Count count, char *text, size_t cap);

/* What memcomm did in this process so far (MEMCOMM_STATS=1 prints it at MPI_Finalize). */
typedef struct {
    unsigned long long handled_calls; /* pack/unpack calls memcomm did itself */
    unsigned long long handled_bytes;
    unsigned long long fallback_calls; /* calls handed to the MPI unchanged */
    unsigned long long error_calls;    /* calls memcomm answered with an error class */
    unsigned long long analysed_types; /* types decoded, verified and planned (at first use) */
    unsigned long long reused_types;   /* first uses that found the analysis of a type built
                                          the same way */
    unsigned long long stale_requests; /* carried requests completed behind memcomm's back
                                          (by PMPI calls), found when their handle came back
                                          for a new request: their receives were not
                                          unpacked (docs/errors.md) */
    unsigned long long allocations;    /* heap allocations memcomm asked for, failed ones
                                          included (MEMCOMM_FAIL_ALLOC counts the same) */
    unsigned long long paths_packed;   /* path decisions from timed trials (MEMCOMM_SEND_PATH)
                                          that chose packing */
    unsigned long long paths_by_mpi;   /* ... that chose the MPI's own datatype path */
    unsigned long long unseen_routes;  /* requests left to the MPI because a Fortran binding
                                          ahead of memcomm could complete them unseen */
    unsigned long long paths_saved;    /* paths taken from the decisions of runs before
                                          (MEMCOMM_DECISIONS), without trials */
    unsigned long long recognised_types; /* point-to-point first uses that found a type's
                                            fingerprint among the types read before: its
                                            calls go to the MPI unread where that type's
                                            decision does; otherwise it is read */
    unsigned long long paths_checked;  /* checks of a decided path against the other (packing
                                          against the MPI's own path, or the MPI's own against
                                          packing), timed at once (lib/core/sendpath.h) */
    unsigned long long paths_returned; /* ... that found the MPI's own path faster than the
                                          packing decided and took it back */
    unsigned long long paths_left;     /* ... that found packing faster than the MPI's own
                                          path decided and took it */
} memcomm_stats;

void memcomm_stats_get(memcomm_stats *stats);

/* The machine model the planner uses, as one JSON object, e.g.
 * {"PAGE_SIZE": {"value": 4096, "source": "sysconf"}, "TLB_ENTRIES": {...}, ...}, ending
 * with RESIDENCY_TICKS: the residency probe's threshold (0: off on this machine).
 * Returns the length written (excluding the NUL), or -1 if `cap` is too small. Needs no
 * MPI_Init. */
int memcomm_machine_json(char *json, size_t cap);

/* Measure what the machine model cannot read from the system (TLB entries, the streaming
 * threshold, copy bandwidth; a few seconds) and describe results and curves as one JSON
 * object: {"TLB_ENTRIES": n, "STREAM_BYTES": n, "COPY_BYTES_PER_S": n, "tlb": [[pages, ns],
 * ...], "transpose": [[bytes, plain GB/s, streaming GB/s], ...]}. `memcomm machine --probe` keeps
 * the results for later processes. Returns the length written, or -1 if `cap` is too small or
 * memory ran out. Needs no MPI_Init; not for use inside an MPI job's timed part. */
int memcomm_machine_probe(char *json, size_t cap);

/* Library version string, e.g. "0.1.0". */
const char *memcomm_version(void);

#ifdef __cplusplus
}
#endif

#endif
