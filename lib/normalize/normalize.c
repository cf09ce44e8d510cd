#include "normalize.h"

#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"

enum { MAX_ROUNDS = 64, MIN_PARTIAL_RUN = 4 };

static const ir_node *empty(ir_arena *arena) { return ir_seq(arena, 0, 0, NULL); }

static bool is_empty_seq(const ir_node *n) { return n->kind == IR_SEQ && n->u.seq.n == 0; }

static bool replace(const ir_node **node, const ir_node *with)
{
    if (!with) /* out of analysis memory: keep the (still correct) node as it is */
        return false;
    *node = with;
    return true;
}

bool norm_drop_empty(ir_arena *arena, const ir_node **node)
{
    const ir_node *n = *node;
    switch (n->kind) {
    case IR_BLOCK:
        return n->u.block.len == 0 && replace(node, empty(arena));
    case IR_LOOP:
    case IR_LIST: /* zero-length list entries are dropped by norm_list_merge */
        return n->size == 0 && replace(node, empty(arena));
    case IR_SEQ: {
        if (is_empty_seq(n))
            return false;
        if (n->size == 0)
            return replace(node, empty(arena));
        int64_t kept = 0;
        for (int64_t i = 0; i < n->u.seq.n; i++)
            kept += n->u.seq.items[i]->size != 0;
        if (kept == n->u.seq.n)
            return false;
        const ir_node **items = ir_arena_alloc(arena, sizeof *items * (size_t)kept);
        if (!items)
            return false;
        kept = 0;
        for (int64_t i = 0; i < n->u.seq.n; i++)
            if (n->u.seq.items[i]->size != 0)
                items[kept++] = n->u.seq.items[i];
        return replace(node, ir_seq(arena, n->off, kept, items));
    }
    }
    return false;
}

bool norm_unit_loop(ir_arena *arena, const ir_node **node)
{
    const ir_node *n = *node;
    return n->kind == IR_LOOP && n->u.loop.count == 1 &&
           replace(node, ir_shift(arena, n->u.loop.child, n->off));
}

bool norm_fold_contiguous(ir_arena *arena, const ir_node **node)
{
    const ir_node *n = *node;
    if (n->kind != IR_LOOP || n->u.loop.child->kind != IR_BLOCK)
        return false;
    const ir_node *b = n->u.loop.child;
    int64_t off;
    if (n->u.loop.stride != b->u.block.len || !ir_add(n->off, b->off, &off))
        return false;
    return replace(node, ir_block(arena, off, n->size));
}

bool norm_merge_loops(ir_arena *arena, const ir_node **node)
{
    const ir_node *n = *node;
    if (n->kind != IR_LOOP || n->u.loop.child->kind != IR_LOOP)
        return false;
    const ir_node *inner = n->u.loop.child;
    int64_t span, count, off;
    if (!ir_mul(inner->u.loop.count, inner->u.loop.stride, &span) || span != n->u.loop.stride ||
        !ir_mul(n->u.loop.count, inner->u.loop.count, &count) || !ir_add(n->off, inner->off, &off))
        return false;
    return replace(node, ir_loop(arena, off, count, inner->u.loop.stride, inner->u.loop.child));
}

bool norm_seq_single(ir_arena *arena, const ir_node **node)
{
    const ir_node *n = *node;
    return n->kind == IR_SEQ && n->u.seq.n == 1 &&
           replace(node, ir_shift(arena, n->u.seq.items[0], n->off));
}

bool norm_seq_splice(ir_arena *arena, const ir_node **node)
{
    const ir_node *n = *node;
    if (n->kind != IR_SEQ)
        return false;
    int64_t total = 0;
    bool nested = false;
    for (int64_t i = 0; i < n->u.seq.n; i++) {
        const ir_node *it = n->u.seq.items[i];
        nested |= it->kind == IR_SEQ;
        total += it->kind == IR_SEQ ? it->u.seq.n : 1;
        if (total > NORM_MAX_SPLICE)
            return false;
    }
    if (!nested)
        return false;
    const ir_node **items = ir_arena_alloc(arena, sizeof *items * (size_t)(total + 1));
    if (!items)
        return false;
    int64_t k = 0;
    for (int64_t i = 0; i < n->u.seq.n; i++) {
        const ir_node *it = n->u.seq.items[i];
        if (it->kind != IR_SEQ) {
            items[k++] = it;
            continue;
        }
        for (int64_t j = 0; j < it->u.seq.n; j++)
            if (!(items[k++] = ir_shift(arena, it->u.seq.items[j], it->off)))
                return false;
    }
    return replace(node, ir_seq(arena, n->off, total, items));
}

static bool adjacent_blocks(const ir_node *a, const ir_node *b)
{
    int64_t end;
    return a->kind == IR_BLOCK && b->kind == IR_BLOCK && ir_add(a->off, a->u.block.len, &end) &&
           end == b->off;
}

bool norm_seq_merge_blocks(ir_arena *arena, const ir_node **node)
{
    const ir_node *n = *node;
    if (n->kind != IR_SEQ)
        return false;
    int64_t merged = 0;
    for (int64_t i = 0; i + 1 < n->u.seq.n; i++)
        merged += adjacent_blocks(n->u.seq.items[i], n->u.seq.items[i + 1]);
    if (merged == 0)
        return false;
    int64_t kept = n->u.seq.n - merged;
    const ir_node **items = ir_arena_alloc(arena, sizeof *items * (size_t)kept);
    if (!items)
        return false;
    int64_t k = 0;
    for (int64_t i = 0; i < n->u.seq.n;) {
        const ir_node *first = n->u.seq.items[i];
        int64_t len = first->size, j = i + 1;
        while (j < n->u.seq.n && adjacent_blocks(n->u.seq.items[j - 1], n->u.seq.items[j]))
            len += n->u.seq.items[j++]->size;
        items[k++] = j == i + 1 ? first : ir_block(arena, first->off, len);
        if (!items[k - 1])
            return false;
        i = j;
    }
    return replace(node, ir_seq(arena, n->off, kept, items));
}

/* Length of the run of items starting at i that share a shape and an offset step. */
static int64_t run_length(const ir_node *seq, int64_t i, int64_t *step)
{
    const ir_node *const *it = seq->u.seq.items;
    int64_t n = seq->u.seq.n;
    if (i + 1 >= n || !ir_same_shape(it[i], it[i + 1]) ||
        __builtin_sub_overflow(it[i + 1]->off, it[i]->off, step))
        return 1;
    int64_t j = i + 2, d;
    while (j < n && ir_same_shape(it[i], it[j]) &&
           !__builtin_sub_overflow(it[j]->off, it[j - 1]->off, &d) && d == *step)
        j++;
    return j - i;
}

static bool is_flat(const ir_node *n) { return n->kind == IR_BLOCK || n->kind == IR_LIST; }

static bool all_flat(const ir_node *seq)
{
    for (int64_t i = 0; i < seq->u.seq.n; i++)
        if (!is_flat(seq->u.seq.items[i]))
            return false;
    return true;
}

bool norm_seq_to_loop(ir_arena *arena, const ir_node **node)
{
    const ir_node *n = *node;
    if (n->kind != IR_SEQ || n->u.seq.n < 2)
        return false;
    int64_t step, whole = run_length(n, 0, &step);
    if (whole == n->u.seq.n) {
        const ir_node *first = n->u.seq.items[0];
        const ir_node *unit = ir_shift(arena, first, -first->off);
        int64_t off;
        if (!unit || !ir_add(n->off, first->off, &off))
            return false;
        const ir_node *loop = ir_loop(arena, off, whole, step, unit);
        return loop && replace(node, norm_node(arena, loop));
    }
    /* partial runs: only long ones, and not among plain blocks, which make a faster list */
    if (all_flat(n))
        return false;
    const ir_node **items = ir_arena_alloc(arena, sizeof *items * (size_t)n->u.seq.n);
    if (!items)
        return false;
    int64_t k = 0;
    bool changed = false;
    for (int64_t i = 0; i < n->u.seq.n;) {
        int64_t run = run_length(n, i, &step);
        const ir_node *first = n->u.seq.items[i];
        if (run < MIN_PARTIAL_RUN) {
            items[k++] = first;
            i++;
            continue;
        }
        const ir_node *unit = ir_shift(arena, first, -first->off);
        const ir_node *loop = unit ? ir_loop(arena, first->off, run, step, unit) : NULL;
        if (!loop)
            return false;
        items[k++] = norm_node(arena, loop);
        changed = true;
        i += run;
    }
    return changed && replace(node, ir_seq(arena, n->off, k, items));
}

bool norm_seq_to_list(ir_arena *arena, const ir_node **node)
{
    const ir_node *n = *node;
    if (n->kind != IR_SEQ || n->u.seq.n < 2 || !all_flat(n))
        return false;
    int64_t total = 0;
    for (int64_t i = 0; i < n->u.seq.n; i++) {
        const ir_node *it = n->u.seq.items[i];
        total += it->kind == IR_LIST ? it->u.list.n : 1;
    }
    int64_t *offs = ir_arena_alloc(arena, sizeof *offs * (size_t)total);
    int64_t *lens = ir_arena_alloc(arena, sizeof *lens * (size_t)total);
    if (!offs || !lens)
        return false;
    int64_t k = 0;
    for (int64_t i = 0; i < n->u.seq.n; i++) {
        const ir_node *it = n->u.seq.items[i];
        if (it->kind == IR_BLOCK) {
            offs[k] = it->off;
            lens[k++] = it->u.block.len;
            continue;
        }
        for (int64_t j = 0; j < it->u.list.n; j++, k++) {
            if (!ir_add(it->off, it->u.list.offs[j], &offs[k]))
                return false;
            lens[k] = it->u.list.lens[j];
        }
    }
    return replace(node, ir_list(arena, n->off, total, offs, lens));
}

/* Walks the non-empty entries of a list, merging each into the previous one when it starts
 * where that one ends; with `offs` NULL it only counts the resulting entries. */
static int64_t merge_entries(const ir_node *l, int64_t *offs, int64_t *lens)
{
    int64_t k = 0, end = 0;
    bool open = false; /* an entry before that the next may extend */
    for (int64_t i = 0; i < l->u.list.n; i++) {
        int64_t off = l->u.list.offs[i], len = l->u.list.lens[i];
        if (len == 0)
            continue;
        if (open && off == end) {
            if (lens)
                lens[k - 1] += len;
        } else {
            if (offs) {
                offs[k] = off;
                lens[k] = len;
            }
            k++;
        }
        open = ir_add(off, len, &end);
    }
    return k;
}

bool norm_list_merge(ir_arena *arena, const ir_node **node)
{
    const ir_node *l = *node;
    if (l->kind != IR_LIST)
        return false;
    int64_t kept = merge_entries(l, NULL, NULL);
    if (kept == l->u.list.n)
        return false;
    int64_t *offs = ir_arena_alloc(arena, sizeof *offs * (size_t)(kept + 1));
    int64_t *lens = ir_arena_alloc(arena, sizeof *lens * (size_t)(kept + 1));
    if (!offs || !lens)
        return false;
    merge_entries(l, offs, lens);
    return replace(node, ir_list(arena, l->off, kept, offs, lens));
}

bool norm_list_to_loop(ir_arena *arena, const ir_node **node)
{
    const ir_node *l = *node;
    if (l->kind != IR_LIST || l->u.list.n == 0)
        return false;
    int64_t n = l->u.list.n, len = l->u.list.lens[0], off, step = 0;
    if (!ir_add(l->off, l->u.list.offs[0], &off))
        return false;
    if (n == 1)
        return replace(node, ir_block(arena, off, len));
    if (__builtin_sub_overflow(l->u.list.offs[1], l->u.list.offs[0], &step))
        return false;
    for (int64_t i = 1; i < n; i++) {
        int64_t d;
        if (l->u.list.lens[i] != len ||
            __builtin_sub_overflow(l->u.list.offs[i], l->u.list.offs[i - 1], &d) || d != step)
            return false;
    }
    const ir_node *block = ir_block(arena, 0, len);
    return block && replace(node, norm_node(arena, ir_loop(arena, off, n, step, block)));
}

const norm_pass norm_passes[] = {
    norm_drop_empty,  norm_unit_loop,   norm_fold_contiguous, norm_merge_loops,
    norm_seq_single,  norm_seq_splice,  norm_seq_merge_blocks, norm_seq_to_loop,
    norm_seq_to_list, norm_list_merge,  norm_list_to_loop,
};
const int norm_pass_count = (int)(sizeof norm_passes / sizeof norm_passes[0]);

const ir_node *norm_node(ir_arena *arena, const ir_node *node)
{
    for (int round = 0; round < MAX_ROUNDS; round++) {
        bool changed = false;
        for (int p = 0; p < norm_pass_count; p++)
            changed |= norm_passes[p](arena, &node);
        if (!changed)
            break;
    }
    return node;
}

/* Pointer -> normalized pointer, so a subtree shared by many parents is normalized once. */
typedef struct {
    const ir_node **keys, **values;
    size_t cap, used;
} memo;

static size_t slot_of(const memo *m, const ir_node *key)
{
    size_t h = ((uintptr_t)key >> 4) * 0x9E3779B97F4A7C15ull;
    size_t i = h & (m->cap - 1);
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static bool memo_grow(memo *m)
{
    memo bigger = {mc_calloc(m->cap * 2, sizeof(void *)), mc_calloc(m->cap * 2, sizeof(void *)),
                   m->cap * 2, m->used};
    if (!bigger.keys || !bigger.values) {
        free(bigger.keys);
        free(bigger.values);
        return false;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i]) {
            size_t s = slot_of(&bigger, m->keys[i]);
            bigger.keys[s] = m->keys[i];
            bigger.values[s] = m->values[i];
        }
    free(m->keys);
    free(m->values);
    *m = bigger;
    return true;
}

static const ir_node *visit(ir_arena *arena, memo *m, const ir_node *node)
{
    size_t s = slot_of(m, node);
    if (m->keys[s])
        return m->values[s];
    const ir_node *out = node;
    if (node->kind == IR_LOOP) {
        const ir_node *child = visit(arena, m, node->u.loop.child);
        if (!child)
            return NULL;
        if (child != node->u.loop.child)
            out = ir_loop(arena, node->off, node->u.loop.count, node->u.loop.stride, child);
    } else if (node->kind == IR_SEQ) {
        const ir_node **items = NULL;
        for (int64_t i = 0; i < node->u.seq.n; i++) {
            const ir_node *item = visit(arena, m, node->u.seq.items[i]);
            if (!item)
                return NULL;
            if (item != node->u.seq.items[i] && !items) {
                items = ir_arena_alloc(arena, sizeof *items * (size_t)node->u.seq.n);
                if (!items)
                    return NULL;
                memcpy(items, node->u.seq.items, sizeof *items * (size_t)i);
            }
            if (items)
                items[i] = item;
        }
        if (items)
            out = ir_seq(arena, node->off, node->u.seq.n, items);
    }
    if (!out)
        return NULL;
    out = norm_node(arena, out);
    if (m->used * 2 >= m->cap && !memo_grow(m))
        return NULL;
    s = slot_of(m, node);
    m->keys[s] = node;
    m->values[s] = out;
    m->used++;
    return out;
}

const ir_node *norm_tree(ir_arena *arena, const ir_node *root)
{
    memo m = {mc_calloc(64, sizeof(void *)), mc_calloc(64, sizeof(void *)), 64, 0};
    const ir_node *out = m.keys && m.values ? visit(arena, &m, root) : NULL;
    free(m.keys);
    free(m.values);
    return out;
}
