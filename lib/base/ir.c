#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "text.h"

struct ir_arena_chunk {
    ir_arena_chunk *next;
    size_t cap, used;
    _Alignas(16) unsigned char data[];
};

enum { CHUNK_BYTES = 64 * 1024 };

void ir_arena_init(ir_arena *a, size_t limit)
{
    a->head = NULL;
    a->used = 0;
    a->limit = limit;
}

void ir_arena_free(ir_arena *a)
{
    ir_arena_chunk *c = a->head;
    while (c) {
        ir_arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->head = NULL;
    a->used = 0;
}

void *ir_arena_alloc(ir_arena *a, size_t bytes)
{
    bytes = (bytes + 15) & ~(size_t)15;
    if (bytes == 0 || bytes > a->limit || a->used > a->limit - bytes)
        return NULL;
    ir_arena_chunk *c = a->head;
    if (!c || c->cap - c->used < bytes) {
        size_t cap = bytes > CHUNK_BYTES ? bytes : CHUNK_BYTES;
        c = mc_malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->cap = cap;
        c->used = 0;
        c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += bytes;
    a->used += bytes;
    return p;
}

static ir_node *new_node(ir_arena *a, ir_kind kind, int64_t off)
{
    ir_node *n = ir_arena_alloc(a, sizeof *n);
    if (n) {
        memset(n, 0, sizeof *n);
        n->kind = kind;
        n->off = off;
    }
    return n;
}

const ir_node *ir_block(ir_arena *a, int64_t off, int64_t len)
{
    if (len < 0)
        return NULL;
    ir_node *n = new_node(a, IR_BLOCK, off);
    if (n) {
        n->u.block.len = len;
        n->size = len;
    }
    return n;
}

const ir_node *ir_loop(ir_arena *a, int64_t off, int64_t count, int64_t stride,
                       const ir_node *child)
{
    int64_t size;
    if (!child || count < 0 || !ir_mul(count, child->size, &size))
        return NULL;
    ir_node *n = new_node(a, IR_LOOP, off);
    if (n) {
        n->u.loop.count = count;
        n->u.loop.stride = stride;
        n->u.loop.child = child;
        n->size = size;
    }
    return n;
}

const ir_node *ir_seq(ir_arena *a, int64_t off, int64_t n_items, const ir_node **items)
{
    int64_t size = 0;
    for (int64_t i = 0; i < n_items; i++)
        if (!items[i] || !ir_add(size, items[i]->size, &size))
            return NULL;
    ir_node *n = new_node(a, IR_SEQ, off);
    if (n) {
        n->u.seq.n = n_items;
        n->u.seq.items = items;
        n->size = size;
    }
    return n;
}

const ir_node *ir_list(ir_arena *a, int64_t off, int64_t n, const int64_t *offs,
                       const int64_t *lens)
{
    int64_t size = 0;
    for (int64_t i = 0; i < n; i++)
        if (lens[i] < 0 || !ir_add(size, lens[i], &size))
            return NULL;
    ir_node *node = new_node(a, IR_LIST, off);
    if (node) {
        node->u.list.n = n;
        node->u.list.offs = offs;
        node->u.list.lens = lens;
        node->size = size;
    }
    return node;
}

const ir_node *ir_shift(ir_arena *a, const ir_node *node, int64_t delta)
{
    int64_t off;
    if (!node || !ir_add(node->off, delta, &off))
        return NULL;
    if (delta == 0)
        return node;
    ir_node *n = ir_arena_alloc(a, sizeof *n);
    if (n) {
        *n = *node;
        n->off = off;
    }
    return n;
}

bool ir_same_shape(const ir_node *x, const ir_node *y)
{
    if (x == y)
        return true;
    if (x->kind != y->kind || x->size != y->size)
        return false;
    switch (x->kind) {
    case IR_BLOCK:
        return x->u.block.len == y->u.block.len;
    case IR_LOOP:
        return x->u.loop.count == y->u.loop.count && x->u.loop.stride == y->u.loop.stride &&
               x->u.loop.child->off == y->u.loop.child->off &&
               ir_same_shape(x->u.loop.child, y->u.loop.child);
    case IR_SEQ:
        if (x->u.seq.n != y->u.seq.n)
            return false;
        for (int64_t i = 0; i < x->u.seq.n; i++) {
            const ir_node *a = x->u.seq.items[i], *b = y->u.seq.items[i];
            if (a->off != b->off || !ir_same_shape(a, b))
                return false;
        }
        return true;
    case IR_LIST:
        return x->u.list.n == y->u.list.n &&
               !memcmp(x->u.list.offs, y->u.list.offs, sizeof(int64_t) * (size_t)x->u.list.n) &&
               !memcmp(x->u.list.lens, y->u.list.lens, sizeof(int64_t) * (size_t)x->u.list.n);
    }
    return false;
}

static void format_into(text_sink *s, const ir_node *n)
{
    switch (n->kind) {
    case IR_BLOCK:
        text_put(s, "block(%lld)@%lld", (long long)n->u.block.len, (long long)n->off);
        break;
    case IR_LOOP:
        text_put(s, "loop(%lld,%+lld)[", (long long)n->u.loop.count, (long long)n->u.loop.stride);
        format_into(s, n->u.loop.child);
        text_put(s, "]@%lld", (long long)n->off);
        break;
    case IR_SEQ:
        text_put(s, "seq[");
        for (int64_t i = 0; i < n->u.seq.n; i++) {
            if (i)
                text_put(s, ",");
            if (i == 8 && n->u.seq.n > 10) {
                text_put(s, "...%lld more", (long long)(n->u.seq.n - 8));
                break;
            }
            format_into(s, n->u.seq.items[i]);
        }
        text_put(s, "]@%lld", (long long)n->off);
        break;
    case IR_LIST:
        text_put(s, "list[");
        for (int64_t i = 0; i < n->u.list.n; i++) {
            if (i == 8 && n->u.list.n > 10) {
                text_put(s, ",...%lld more", (long long)(n->u.list.n - 8));
                break;
            }
            text_put(s, i ? ",%lld@%lld" : "%lld@%lld", (long long)n->u.list.lens[i],
                (long long)n->u.list.offs[i]);
        }
        text_put(s, "]@%lld", (long long)n->off);
        break;
    }
}

void ir_format(const ir_node *node, char *buf, size_t cap)
{
    if (cap == 0)
        return;
    buf[0] = '\0';
    text_sink s = {buf, cap, 0};
    format_into(&s, node);
    if (s.len >= cap && cap > 4)
        memcpy(buf + cap - 4, "...", 4);
}
