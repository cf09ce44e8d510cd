/* machine: the memory-hierarchy parameters the planner models, as plain data.
 *
 * Detected once per process: page size from sysconf, caches from sysfs, data-TLB entries
 * from cpuid leaf 0x18 where the CPU reports it (64 otherwise, as in Byna et al.'s
 * Origin2000), SIMD width from the CPU's feature flags. Values measured by `memcomm machine
 * --probe` (probe.c) are read from its cache file, ~/.cache/memcomm/machine, when it was
 * written on a CPU of the same model. Every field can be set by an environment variable (docs/environment.md),
 * and records where its value came from, so `memcomm machine` can say so (MEMCOMM_SIMD_BYTES can
 * only narrow what the CPU has: an instruction it lacks would kill the process). The planner is a
 * pure function of (canonical form, machine), so tests pass machines of their own. */
#ifndef MEMCOMM_MACHINE_H
#define MEMCOMM_MACHINE_H

#include <stdint.h>

typedef enum { MACHINE_PAGE, MACHINE_TLB, MACHINE_LINE, MACHINE_L1, MACHINE_L2, MACHINE_LLC,
               MACHINE_SIMD, MACHINE_STREAM, MACHINE_COPY, MACHINE_STLB, MACHINE_TILE,
               MACHINE_SHUFFLE, MACHINE_FIELDS } machine_field;

/* MACHINE_STREAM: calls that move more bytes than this write with non-temporal stores. Below
 * it the output may still be in a cache (a send buffer reused every step), where streaming
 * stores must first evict it and are slower than plain ones; above it, it cannot be.
 * Default 4 x L2. On the Intel VM of 2026-11-22 the crossover lay between 8 and 33 MB (L2 2
 * MB). On the AMD EPYC VM (L2 1 MB), with transposes walked in strips (2026-11-25), the
 * ping-pong of a 1024^2 transpose (8 MB) ran 1.15-1.2x faster streamed, and of 512^2 (2 MB)
 * 1.3x slower: the receiver's copy then finds the packed bytes in memory, not in a cache
 * (`MEMCOMM_STREAM_BYTES=2M` / `1M` against 8M, bench pingpong, two runs each).
 *
 * MACHINE_COPY: bytes per second of a large copy; 0 until probed (for the models, not the
 * planner).
 *
 * MACHINE_STLB: entries of the second-level TLB for 4 KiB pages, from cpuid leaf 0x18; 1536
 * (Intel cores since Skylake) when the CPU does not say: a transpose tile's pages stay within
 * it (plan_transpose_for), and Memory-LogP counts page walks beyond it.
 *
 * MACHINE_TILE: bytes of one row of a transposing copy's tile (kernel/transpose.c): a run
 * within one page that the hardware prefetcher follows before the walk turns to the next
 * row. Default half a page; `--probe` times 512 B to 4 KiB and keeps the fastest (the curve
 * it prints shows how much the row length matters on this machine).
 *
 * MACHINE_SIMD: the widest vector registers the kernels may use, in bytes: 64 means
 * AVX-512 F, BW and VL; 32 means AVX2.
 *
 * MACHINE_SHUFFLE: the width of the registers that transposes of 4- and 8-byte elements
 * shuffle in, at most MACHINE_SIMD. A transpose is shuffle-bound in cache, and a CPU may run
 * its widest shuffles at half rate: AMD Zen 4 (family 19h with AVX-512) splits each 512-bit
 * shuffle in two, and there an 8 x 8 AVX-512 transpose of doubles ran 1.15-1.5x slower than
 * two 4 x 4 AVX2 ones (512^2-8192^2), and a 16 x 16 of floats 1.1-1.5x slower than four
 * 8 x 8 with 256-bit shuffles (512^2-4096^2; that kernel keeps its half lines in AVX-512VL's
 * 32 registers, and without VL falls back to one that reads each line in two halves, which
 * rows a power-of-two pitch apart can evict in between). Default 32 on Zen 4, else
 * MACHINE_SIMD; `--probe` times both widths on doubles and keeps the faster. */
enum { MACHINE_SIMD_SCALAR = 8, MACHINE_SIMD_AVX2 = 32, MACHINE_SIMD_AVX512 = 64 };

typedef struct {
    int64_t value[MACHINE_FIELDS]; /* bytes, except MACHINE_TLB and MACHINE_STLB: entries */
    const char *source[MACHINE_FIELDS]; /* "sysconf", "sysfs", "cpuid", "env", "default" */
} machine;

/* The machine this process runs on (detected once, thread-safe). */
const machine *machine_get(void);

/* Field names as in the environment (MEMCOMM_<NAME>) and in `memcomm machine`. */
const char *machine_field_name(machine_field f);

/* The data TLB entries for 4 KiB pages that AMD's extended cpuid leaves report in EBX:
 * first level from leaf 0x80000005, second from 0x80000006, on a CPU of `family` (cpuid 1's
 * family with its extension: 0x19 Zen 3 and 4, 0x1a Zen 5). A level whose size or
 * associativity field is 0 (absent, or a CPU that does not fill these leaves) reads 0, and
 * so does a second level too small to be real, unless the family's size is known. */
void machine_amd_tlb_entries(uint32_t leaf5_ebx, uint32_t leaf6_ebx, unsigned family,
                             int64_t *tlb, int64_t *stlb);

#endif
