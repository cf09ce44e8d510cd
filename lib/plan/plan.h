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
};

/* Build the plan for a normalized tree of one instance with the MPI's size and extent. */
void plan_build(const ir_node *normal, int64_t size, int64_t extent, plan *out);

/* Strided form of `count` instances: the per-instance dims with (count, extent) outside,
 * merged when instances continue the outermost dimension. False if it needs more dims. */
bool plan_strided_for_count(const plan *p, int64_t count, plan_strided *out);

/* Canonical strided form of a normalized tree, if it has one. */
bool plan_as_strided(const ir_node *normal, plan_strided *out);

#endif
