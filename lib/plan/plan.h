/* plan: choose, once per datatype, how to move its bytes.
 *
 * A normalized tree of the form LOOP^k(BLOCK) is the canonical strided form: an offset,
 * k dimensions (count, byte stride; outermost first) and a contiguous block. It gets the
 * strided kernel, with the innermost copy specialized for the block size. An irregular
 * innermost part, LOOP^k(LIST) (structs, indexed types), gets the list kernel over the
 * list's (offset, length) arrays. Everything else is interpreted from the tree. */
#ifndef MEMCOMM_PLAN_H
#define MEMCOMM_PLAN_H

#include "../core/ir.h"
#include "machine.h"

enum { PLAN_MAX_DIMS = 8 };

typedef enum { PLAN_CONTIG, PLAN_STRIDED, PLAN_LIST, PLAN_TREE } plan_kind;

typedef struct {
    int64_t off;
    int ndims; /* outermost first; 0 means one block */
    int64_t count[PLAN_MAX_DIMS + 1], stride[PLAN_MAX_DIMS + 1];
    int64_t block;
} plan_strided;

/* Flattened form: dims as in plan_strided around a list of blocks (offsets relative to
 * the innermost origin). The arrays are the IR's, in the analysis arena. */
typedef struct {
    int64_t n;
    const int64_t *offs, *lens;
    int64_t same_len; /* > 0 when every block has this length */
} plan_list;

/* Cache blocking of the innermost two dims (the seed paper's TLB model, 001 sec. 5.3):
 * inner-dim references are walked `rows` at a time (pages for half the TLB) across `cols`
 * outer-dim steps (enough to use each fetched cache line whole). rows == 0: no blocking. */
typedef struct {
    int64_t rows, cols;
    int64_t pages_touched; /* R_p of the unblocked innermost loop */
} plan_tiles;

typedef struct plan plan;

/* Copies `count` instances between a typed buffer and packed bytes. */
typedef void (*plan_copy_fn)(const plan *p, char *typed, int64_t count, char *packed);

struct plan {
    plan_kind kind;
    int64_t size, extent; /* packed bytes and extent of one instance */
    plan_strided strided; /* PLAN_CONTIG, PLAN_STRIDED; the dims around the list for PLAN_LIST */
    plan_list list;       /* PLAN_LIST */
    const ir_node *tree;  /* PLAN_TREE; lives in the analysis arena */
    plan_copy_fn pack, unpack;
    const char *kernel_name;
    int64_t page_size, tlb_entries, line_size; /* the machine it was planned for */
};

/* Build the plan for a normalized tree of one instance with the MPI's size and extent, for a
 * machine (tests pass their own). */
void plan_build(const ir_node *normal, int64_t size, int64_t extent, const machine *m, plan *out);

/* R_p: pages an innermost loop of n references to blocks of W bytes, S bytes apart, touches
 * with pages of P_s bytes (001 sec. 5.3). */
int64_t plan_pages_touched(int64_t W, int64_t S, int64_t n, int64_t page_size);

/* Whether and how to block a strided walk (after the call's count is added): only when the
 * innermost loop touches at least T_p pages and the next dim steps through memory more
 * finely than it (an out-of-order, transpose-like walk). */
bool plan_tiles_for(const plan_strided *s, int64_t page_size, int64_t tlb_entries,
                    int64_t line_size, plan_tiles *out);

/* Strided form of `count` instances: the per-instance dims with (count, extent) outside,
 * merged when instances continue the outermost dimension. False if it needs more dims. */
bool plan_strided_for_count(const plan *p, int64_t count, plan_strided *out);

/* Canonical strided form of a normalized tree, if it has one. */
bool plan_as_strided(const ir_node *normal, plan_strided *out);

#endif
