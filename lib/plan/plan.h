/* plan: choose, once per datatype, how to move its bytes.
 *
 * A normalized tree of the form LOOP^k(BLOCK) is the canonical strided form: an offset,
 * k dimensions (count, byte stride; outermost first) and a contiguous block. It gets the
 * strided kernel, with the innermost copy specialized for the block size. An irregular
 * innermost part, LOOP^k(LIST) (structs, indexed types), gets the list kernel over the
 * list's (offset, length) arrays. Everything else is interpreted from the tree. */
#ifndef MEMCOMM_PLAN_H
#define MEMCOMM_PLAN_H

#include "../base/ir.h"
#include "machine.h"

enum { PLAN_MAX_DIMS = 8 };

typedef enum { PLAN_CONTIG, PLAN_STRIDED, PLAN_LIST, PLAN_TREE } plan_kind;

typedef struct {
    int64_t off;
    int ndims; /* outermost first; 0 means one block */
    int64_t count[PLAN_MAX_DIMS + 1], stride[PLAN_MAX_DIMS + 1];
    int64_t block;
} plan_strided;

/* A stretch of a list whose blocks all have one length: blocks first .. first + n - 1. */
typedef struct {
    int64_t first, n, len;
    int64_t ahead; /* blocks prefetched ahead; 0: close together, not prefetched (plan_list) */
} plan_run;

enum { PLAN_LIST_RUNS = 4 };

/* Flattened form: dims as in plan_strided around a list of blocks (offsets relative to
 * the innermost origin). The arrays are the IR's, in the analysis arena.
 *
 * A gather of small blocks reads its list as it goes, so the list's bytes are memory
 * traffic of their own: 16 bytes of offset and length per 24-byte block of LAMMPS's atoms.
 * The kernel therefore reads a compact copy where it can: the offsets as int32 when all of
 * them fit, and the lengths as a few runs of equal blocks (LAMMPS: positions and velocities
 * of 24 bytes, then tags of 4), 4 bytes per block instead of 16.
 *
 * Blocks spread over more than PLAN_PREFETCH_L2S times the L2 are prefetched `ahead` blocks
 * ahead (plan_prefetch_distance): their lines come from L3 or DRAM; an unpack prefetches its
 * packed bytes too, and a pack streams them where plan_stores_for says (kernel/list.c).
 * Closer ones are not: their gather runs at L2 speed, bound by its loads, and the prefetches
 * are loads too (SPECFEM3D's 12-byte points, 3 MB apart at most: 73 us prefetched, 55 not,
 * against 60 by a hand loop; 24-byte particles over 12.6 MB: 312 us prefetched, 384 not;
 * over 200 MB: 1.0 ms against 1.6 ms; MPI_Pack of random indexed blocks, medians of 41, a
 * throwaway program, not kept). */
enum { PLAN_PREFETCH_L2S = 4 };
typedef struct {
    int64_t n;
    const int64_t *offs, *lens;
    const int32_t *offs32; /* the offsets, when every one fits an int32; else NULL */
    int runs;              /* runs of equal blocks, in list order; 0 when there are more */
    plan_run run[PLAN_LIST_RUNS];
    int64_t ahead;         /* the whole list's, as a run's */
    int64_t same_len;      /* > 0 when every block has this length */
    int64_t mean_len;      /* bytes per block, for the prefetch distance */
} plan_list;

/* How many blocks ahead a gather prefetches. Scattered small blocks (particles, LAMMPS atoms)
 * and small blocks far apart (faces of NAS LU, MILC) are latency-bound gathers: each costs a
 * cache (and often a TLB) miss, and only many misses in flight hide it. Measured on random
 * 24-byte blocks of a 12.6 MB array (AMD EPYC, medians of 15): prefetching 16 blocks ahead
 * into L1 reached 30% of a memcpy, 64 ahead 45-55%; into L2 only (the "T2" hint: L2 tracks
 * more misses than L1), 128 ahead reached 67-68%, and 256 no more. Longer blocks keep about
 * 3 KiB of packed bytes in flight. A list shorter than that looks at most half of itself
 * ahead.
 *
 * Where every page the blocks touch stays in the second-level TLB (`mapped`), twice as far
 * (6 KiB, 256 blocks at most): the misses are then the caches' alone, and a core with deeper
 * miss queues keeps more in flight. Random 24-byte blocks from memory, AMD EPYC Zen 5 VM
 * (4096 STLB entries), medians of 11-15, throwaway program: over 12.6 MB (3072 pages) 128
 * ahead 565-573 us, 256 ahead 476-500 (a memcpy of the packed bytes 290); over 25 MB
 * 596/535 us; over 50 MB 745/735; over 200 MB 1135/1219. Past the TLB's reach each block
 * also waits for a page walk, and more prefetches in flight only queue more walks: NAS LU's
 * face (40 bytes every 5120 over 80 MB) packed 0.91-1.00x as fast at twice the distance. */
static inline int64_t plan_prefetch_distance(int64_t mean_len, int64_t blocks_in_list,
                                             bool mapped)
{
    const int64_t in_flight_bytes = mapped ? 6144 : 3072, most = mapped ? 256 : 128, least = 4;
    int64_t blocks = mean_len > 0 ? in_flight_bytes / mean_len : most;
    blocks = blocks > most ? most : blocks;
    blocks = blocks > blocks_in_list / 2 ? blocks_in_list / 2 : blocks;
    return blocks < least ? least : blocks;
}

/* Cache blocking of the innermost two dims (Byna et al.'s TLB model, Byna et al. 2003, sec. 5.3):
 * inner-dim references are walked `rows` at a time (pages for half the TLB) across `cols`
 * outer-dim steps (enough to use each fetched cache line whole). rows == 0: no blocking. */
typedef struct {
    int64_t rows, cols;
    int64_t pages_touched; /* R_p of the unblocked innermost loop */
} plan_tiles;

/* How a transposing copy stores and prefetches, by where its lines are at the call. */
typedef enum {
    TRANSPOSE_WARM,        /* cached stores, nothing prefetched: the lines are in the caches */
    TRANSPOSE_COLD,        /* cached stores, source lines prefetched: the source is in memory,
                              the result stays in the caches for its next reader */
    TRANSPOSE_STREAM,      /* non-temporal stores, source lines prefetched */
    TRANSPOSE_STREAM_COLD, /* the same, source and destination in memory: wider strips */
} plan_transpose_mode;

/* A transposing copy dst[c * dp + r * elem] = src[r * sp + c * elem] (r < rows, c < cols;
 * pitches in bytes) through SIMD registers (kernel/transpose.c), in bands of `tile` rows, each
 * walked in strips of input columns (plan_transpose_strip_lines). */
typedef void (*plan_transpose_fn)(const char *src, int64_t sp, char *dst, int64_t dp,
                                  int64_t rows, int64_t cols, int64_t tile,
                                  plan_transpose_mode mode);

/* How many input lines wide a transpose's strips are: one with cached stores (output rows a
 * power-of-two pitch apart share an L1 set, and more of them than its ways evict each other
 * before their lines are filled); with streamed stores, which bypass L1, 16 where both the
 * source and the destination are in memory, whose wider strip reads more of each input row
 * in a run (DRAM pages opened for more bytes), else 4. On the AMD EPYC VM: 512^2 and 1024^2
 * doubles packed warm, 4 lines cached ran at half the speed of one (a throwaway program, not
 * kept); `bench pack --cache flushed`, 512^2-4096^2 streamed, medians of 11, two
 * alternations: doubles 9.2-11.8 GB/s with strips of 4 lines, 12.7-14.6 with 16, floats
 * 8.1-9.9 and 10.3-12.9 (2 lines lost, 32 and 64 gained nothing over 16: a throwaway
 * switch, not kept); but into a
 * destination in L3 (`bench pack` as the run before left the caches: the unpack writes what
 * the pack before it read), 1024^2 doubles unpacked at 10.7-11.4 in strips of 16 against
 * 12.4-15.8 in strips of 4.
 * Streamed strips are narrower where their output rows crowd few page offsets (address bits
 * 6-11): at most 4 rows per line offset the rows take in turn, but never fewer than
 * PLAN_STRIP_ROWS in all (narrower strips lose on the input side). Rows a multiple of 4 KiB
 * apart (1024 floats, 512 or 1024 doubles) all share one offset: 64 rows, 4 lines of floats,
 * 8 of doubles; 1008 floats (4032 B) take all 64 offsets in turn: 16 lines. On the AMD EPYC
 * Zen 5 VM (`bench pack --cache flushed`, strips of 2-16 lines by a throwaway switch, two or
 * three rounds) floats at pitches of 1-8 offsets (384^2-2048^2) packed at 15.3-20.9 GB/s in
 * strips of 4 lines against 11.4-13.9 in 16, doubles at 1-4 offsets at 16.0-19.3 in 8 lines
 * against 13.9-15.2 in 16 (but 512^2: 13.9-19.4 against 14.8-14.9), while 1008^2 (32 or 64
 * offsets) ran fastest in 16; on the Zen 3 VM streamed stores alone slowed to half speed once
 * 16 or more of 128 rows in flight shared those bits. */
#define PLAN_STRIP_ROWS 64
static inline int64_t plan_transpose_strip_widest(plan_transpose_mode mode)
{
    return mode == TRANSPOSE_STREAM_COLD ? 16 : mode == TRANSPOSE_STREAM ? 4 : 1;
}

static inline int64_t plan_transpose_strip_lines(plan_transpose_mode mode, int64_t elem,
                                                 int64_t out_pitch)
{
    const int64_t lines = plan_transpose_strip_widest(mode);
    if (mode == TRANSPOSE_WARM || mode == TRANSPOSE_COLD)
        return lines;
    /* how many of the 64 line offsets in 4 KiB the output rows take in turn */
    const uint64_t magnitude = out_pitch < 0 ? -(uint64_t)out_pitch : (uint64_t)out_pitch;
    const uint64_t low_bit = magnitude & -magnitude; /* 0 for a pitch of 0 */
    const int64_t offsets = low_bit == 0 || low_bit >= 4096 ? 1
                            : low_bit <= 64                 ? 64
                                                            : (int64_t)(4096 / low_bit);
    const int64_t rows = 4 * offsets > PLAN_STRIP_ROWS ? 4 * offsets : PLAN_STRIP_ROWS;
    const int64_t most = rows * elem / 64; /* at least 1: rows >= 64 */
    return lines < most ? lines : most;
}

/* How a transpose-like walk (the outer of the innermost two dims steps by one element, the
 * inner by a row pitch) is copied: bands of as many rows as the machine's tile row bytes hold
 * elements (MACHINE_TILE), fewer when one strip's input and output pages would not fit the
 * second-level TLB or the matrix is smaller; streamed when the call moves more than the
 * machine's streaming threshold, in wider strips where the source and the destination are
 * found out of the caches at the call (kernel_lines_cold). From a quarter of the L2 size up
 * to the threshold (`probe`), by what the probe finds: streamed if the destination is out of
 * the caches; else, with cached stores, the source's lines prefetched if it is out of them
 * (TRANSPOSE_COLD); else neither. Smaller calls neither: the probe's cost would weigh, and
 * what they write is read next from L1 or L2. Streamed stores into a destination in the
 * caches lose, and whatever fits the L2 is read next by the MPI (a packed message) or the
 * program (an unpacked one) from there, so the probe must tell the caches from memory: its
 * first version, which could not, made a 256^2 ping-pong 13-23% slower, and the probe was
 * kept to calls past the L2 size until commit b24780e (kernel/residency.c). */
typedef enum { TILE_ROW_BYTES, TILE_STLB, TILE_MATRIX } plan_tile_bound;

typedef struct {
    int64_t tile; /* rows of a band */
    bool stream;
    bool probe; /* not `stream` by size: the mode decided at the call (plan_transpose_mode) */
    int64_t tile_pages;    /* pages one strip of a band touches, input and output */
    plan_tile_bound bound; /* what set the band */
} plan_transpose;

/* One plain copy of an unpacked record: `size` (1, 2, 4 or 8) bytes from `from` in the packed
 * record to `to` in the record (from its `first` byte on). */
typedef struct {
    uint8_t to, from, size;
} plan_record_piece;

/* Records: a list whose fields lie within 16 bytes and pack into at most 16 (kernel/records.c).
 * Packing is one byte shuffle per record: `gather` picks each packed byte from the record
 * (from `first` on). Unpacking writes exactly the record's bytes with `pieces` plain copies. */
typedef struct {
    int64_t first, span, size;
    uint8_t gather[16];
    plan_record_piece pieces[16];
    int64_t npieces;
} plan_records;

typedef struct plan plan;

/* Copies `count` instances between a typed buffer and packed bytes. */
typedef void (*plan_copy_fn)(const plan *p, char *typed, int64_t count, char *packed);

struct plan {
    plan_kind kind;
    int64_t size, extent; /* packed bytes and extent of one instance */
    plan_strided strided; /* PLAN_CONTIG, PLAN_STRIDED; the dims around the list for PLAN_LIST */
    plan_list list;       /* PLAN_LIST */
    plan_records records; /* PLAN_LIST with the records kernel */
    const ir_node *tree;  /* PLAN_TREE; lives in the analysis arena */
    plan_copy_fn pack, unpack;
    plan_transpose_fn transpose; /* PLAN_STRIDED of 4-, 8- or 16-byte blocks, when SIMD has one */
    const char *kernel_name;
    /* the machine it was planned for */
    int64_t page_size, tlb_entries, stlb_entries, line_size, stream_bytes, simd_bytes;
    int64_t l2_bytes;
    int64_t shuffle_bytes; /* registers the transposes shuffle in (0: simd_bytes) */
    int64_t tile_bytes;
};

/* Build the plan for a normalized tree of one instance with the MPI's size and extent, for a
 * machine (tests pass their own): its kind and walk. The kernels that run it are bound by
 * kernel_select (kernel.h), which knows what each kernel and the machine's SIMD can do.
 * `arena` (the tree's, or NULL) holds arrays the plan makes; it must outlive the plan. */
void plan_build(const ir_node *normal, int64_t size, int64_t extent, const machine *m,
                ir_arena *arena, plan *out);

/* R_p: pages an innermost loop of n references to blocks of W bytes, S bytes apart, touches
 * with pages of P_s bytes (Byna et al. 2003, sec. 5.3). */
int64_t plan_pages_touched(int64_t W, int64_t S, int64_t n, int64_t page_size);

/* Whether and how to block a strided walk (after the call's count is added): only when the
 * innermost loop touches at least T_p pages and the next dim steps through memory more
 * finely than it (an out-of-order, transpose-like walk). */
bool plan_tiles_for(const plan_strided *s, int64_t page_size, int64_t tlb_entries,
                    int64_t line_size, plan_tiles *out);

/* Whether a call moving `bytes` asks the residency probe (kernel_lines_cold) where its lines
 * are: from a quarter of the L2 size, where the probe's 0.2-0.4 us is a few percent of the
 * copy at most; a smaller call's lines are read next from L1 or L2 anyway. */
static inline bool plan_probes(const plan *p, int64_t bytes)
{
    return bytes >= p->l2_bytes / 4;
}

/* How a call that writes `bytes` in one stream (a transpose's output, a list's packed bytes)
 * stores them: non-temporal past the machine's streaming threshold, where they cannot stay
 * in a cache anyway; decided at the call by the residency probe from plan_probes' size up to
 * it (streamed if the destination is out of the caches); cached below. */
typedef enum { STORES_CACHED, STORES_PROBED, STORES_STREAMED } plan_stores;

static inline plan_stores plan_stores_for(const plan *p, int64_t bytes)
{
    if (bytes > p->stream_bytes)
        return STORES_STREAMED;
    return plan_probes(p, bytes) ? STORES_PROBED : STORES_CACHED;
}

/* How a list's pack stores its packed bytes (kernel/list.c): as plan_stores_for, but probed
 * only past the L2 size. Below it the packed bytes fit the L2, and streamed they are out of
 * the caches at the next call too, where the probe then finds them and streams again: on the
 * Intel Xeon VM the ping-pong of SPECFEM3D's and LAMMPS's lists (0.79 and 0.85 MB packed)
 * found the staging buffer cold in 84-93 calls of 95 and ran at 2.27-3.02 GB/s; stored cached,
 * the buffer stayed in the caches and the ping-pong ran at 2.82-3.38 (a throwaway switch).
 * Larger packs keep the probe: particles from memory, 6.3 MB, gained 1.5x streamed on the AMD
 * EPYC VM (faca241). */
static inline plan_stores plan_list_stores_for(const plan *p, int64_t bytes)
{
    const plan_stores stores = plan_stores_for(p, bytes);
    return stores == STORES_PROBED && bytes <= p->l2_bytes ? STORES_CACHED : stores;
}

/* Whether a strided walk (after the call's count is added) is transpose-like and the plan has
 * a transposing kernel for it; if so, its tiling. */
bool plan_transpose_for(const plan *p, const plan_strided *s, plan_transpose *out);

/* Whether `count` instances are one dimension of records in ascending memory, apart by at
 * least their span, as the records kernel needs; if so, that dimension in `s`. */
bool plan_records_walk(const plan *p, int64_t count, plan_strided *s);

/* Strided form of `count` instances: the per-instance dims with (count, extent) outside,
 * merged when instances continue the outermost dimension. False if it needs more dims. */
bool plan_strided_for_count(const plan *p, int64_t count, plan_strided *out);

/* Canonical strided form of a normalized tree, if it has one. */
bool plan_as_strided(const ir_node *normal, plan_strided *out);

/* Whether the plan's blocks are PLAN_LONG_BLOCK_BYTES or more on average: the MPI's own
 * datatype send streams them about as fast as memcpy would pack them, and memcomm's pack is
 * one copy more, or one fewer: the y face of 256^3 doubles, 2 KiB runs, took 59 us through
 * MPICH's datatype send and 79 us packed by memcomm in one run (bench_pingpong), and 100 us
 * against 74 us by a hand-written pack in another. So such types are measured like the rest,
 * but the MPI's own path is the one expected to win: a call that is not timed takes it until
 * the trials decide, and the trials begin with it (lib/core/sendpath.c). Only as an average
 * per instance: a plan's count dimension does not change it; a tree (irregular nesting) has
 * none. */
enum { PLAN_LONG_BLOCK_BYTES = 1024 };
bool plan_long_blocks(const plan *p);

#endif
