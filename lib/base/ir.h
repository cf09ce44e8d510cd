/* The plain data structure every pass works on: a datatype's typemap as a small tree.
 *
 *   BLOCK(len)                 len contiguous bytes
 *   LOOP(count, stride, child) child repeated count times, instance i at i*stride
 *   SEQ(items[])               items one after another in packed order, each at its own off
 *   LIST(offs[], lens[])       blocks of lens[i] bytes at offs[i], in order: the compact
 *                              flattened form of irregular layouts (16 bytes per block)
 *
 * Every node carries `off`, its displacement from the origin its parent places it at, so
 * moving a subtree is a shallow copy with a new off. Nodes are immutable once built and may
 * be shared by several parents (a struct of n copies of one type shares that type's tree);
 * passes therefore build new nodes instead of editing. All nodes of one analysis live in one
 * arena and are freed together. Offsets, strides and counts are 64-bit signed everywhere. */
#ifndef MEMCOMM_IR_H
#define MEMCOMM_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { IR_BLOCK, IR_LOOP, IR_SEQ, IR_LIST } ir_kind;

typedef struct ir_node ir_node;
struct ir_node {
    ir_kind kind;
    int64_t off;  /* displacement relative to the parent's origin */
    int64_t size; /* packed bytes of one instance of this node */
    union {
        struct {
            int64_t len;
        } block;
        struct {
            int64_t count, stride;
            const ir_node *child;
        } loop;
        struct {
            int64_t n;
            const ir_node **items;
        } seq;
        struct {
            int64_t n;
            const int64_t *offs, *lens;
        } list;
    } u;
};

/* Bump allocator; ir_arena_alloc returns NULL once `limit` bytes are used so that a
 * pathological type is declined (and handed to the MPI) instead of exhausting memory. */
typedef struct ir_arena_chunk ir_arena_chunk;
typedef struct {
    ir_arena_chunk *head;
    size_t used, limit;
} ir_arena;

void ir_arena_init(ir_arena *a, size_t limit);
void ir_arena_free(ir_arena *a);
void *ir_arena_alloc(ir_arena *a, size_t bytes);

/* Constructors return NULL on arena exhaustion or arithmetic overflow. */
const ir_node *ir_block(ir_arena *a, int64_t off, int64_t len);
const ir_node *ir_loop(ir_arena *a, int64_t off, int64_t count, int64_t stride,
                       const ir_node *child);
const ir_node *ir_seq(ir_arena *a, int64_t off, int64_t n, const ir_node **items);
const ir_node *ir_list(ir_arena *a, int64_t off, int64_t n, const int64_t *offs,
                       const int64_t *lens);
/* The same node placed `delta` further (a shallow copy; children stay shared). */
const ir_node *ir_shift(ir_arena *a, const ir_node *node, int64_t delta);

/* Structural equality ignoring the two nodes' own off (children's offs do count). */
bool ir_same_shape(const ir_node *x, const ir_node *y);

/* Human-readable one-line rendering, e.g. "loop(4,+32)[block(8)@0]", truncated to cap. */
void ir_format(const ir_node *node, char *buf, size_t cap);

/* Checked 64-bit arithmetic: false on overflow. */
static inline bool ir_mul(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }
static inline bool ir_add(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }

#endif
