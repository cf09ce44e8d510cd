/* normalize: rewrite a decoded tree into canonical form without changing its typemap order
 * (which is the packed order).
 *
 * Each pass is a local rewrite of one node whose children are already normal: it returns
 * true and replaces *node when it changed something. norm_node repeats the list at a node
 * until none applies; norm_tree does that bottom-up over the whole tree, visiting a shared
 * subtree once. After normalization a regular layout is LOOP^k(BLOCK): the strided form
 * the planner wants; an irregular one is LOOP^k(LIST), or keeps SEQ nodes where its parts
 * differ in shape. */
#ifndef MEMCOMM_NORMALIZE_H
#define MEMCOMM_NORMALIZE_H

#include "../base/ir.h"

typedef bool (*norm_pass)(ir_arena *arena, const ir_node **node);

/* BLOCK(0), LOOP(0,...), LOOP(n, s, <empty>) become the empty SEQ; empty items leave SEQs. */
bool norm_drop_empty(ir_arena *arena, const ir_node **node);
/* LOOP(1, s, c) -> c. */
bool norm_unit_loop(ir_arena *arena, const ir_node **node);
/* LOOP(n, len, BLOCK(len)) -> BLOCK(n*len): back-to-back blocks are one block. */
bool norm_fold_contiguous(ir_arena *arena, const ir_node **node);
/* LOOP(n, m*s, LOOP(m, s, c)) -> LOOP(n*m, s, c): a dimension that continues the inner one. */
bool norm_merge_loops(ir_arena *arena, const ir_node **node);
/* SEQ[x] -> x. */
bool norm_seq_single(ir_arena *arena, const ir_node **node);
/* SEQ[.., SEQ[a, b], ..] -> SEQ[.., a, b, ..] (bounded, so that fan-out cannot explode). */
bool norm_seq_splice(ir_arena *arena, const ir_node **node);
/* SEQ[.., BLOCK(a)@o, BLOCK(b)@o+a, ..] -> SEQ[.., BLOCK(a+b)@o, ..]. */
bool norm_seq_merge_blocks(ir_arena *arena, const ir_node **node);
/* A run of same-shaped items at evenly spaced offsets -> one LOOP item
 * (an hindexed with regular displacements is a vector). */
bool norm_seq_to_loop(ir_arena *arena, const ir_node **node);

/* SEQ of BLOCK and LIST items -> one LIST (the compact flattened form). */
bool norm_seq_to_list(ir_arena *arena, const ir_node **node);
/* LIST: zero-length entries dropped, back-to-back entries merged. */
bool norm_list_merge(ir_arena *arena, const ir_node **node);
/* LIST of one entry -> BLOCK; of equal entries at evenly spaced offsets -> LOOP(BLOCK). */
bool norm_list_to_loop(ir_arena *arena, const ir_node **node);

/* The passes in the order norm_node tries them. */
extern const norm_pass norm_passes[];
extern const int norm_pass_count;

/* Apply the passes at one node (children assumed normal) until none changes it. */
const ir_node *norm_node(ir_arena *arena, const ir_node *node);

/* Normalize a whole tree bottom-up. NULL on arena exhaustion. */
const ir_node *norm_tree(ir_arena *arena, const ir_node *root);

/* Largest SEQ that splicing may produce. */
enum { NORM_MAX_SPLICE = 1 << 16 };

#endif
