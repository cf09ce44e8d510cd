#include <string.h>

#include "kernel.h"

/* Walks the normalized tree in typemap order; `at` is the origin the node is placed at.
 * Recursive, so not forced inline; the compiler clones it per constant `pack`. */
static void visit(const ir_node *n, char *at, char **packed, bool pack)
{
    switch (n->kind) {
    case IR_BLOCK:
        if (pack)
            memcpy(*packed, at + n->off, (size_t)n->u.block.len);
        else
            memcpy(at + n->off, *packed, (size_t)n->u.block.len);
        *packed += n->u.block.len;
        return;
    case IR_LOOP: {
        const ir_node *child = n->u.loop.child;
        char *p = at + n->off;
        if (child->kind == IR_BLOCK) { /* the common leaf loop, without recursion */
            const int64_t len = child->u.block.len;
            p += child->off;
            for (int64_t i = 0; i < n->u.loop.count; i++, p += n->u.loop.stride) {
                if (pack)
                    memcpy(*packed, p, (size_t)len);
                else
                    memcpy(p, *packed, (size_t)len);
                *packed += len;
            }
            return;
        }
        for (int64_t i = 0; i < n->u.loop.count; i++, p += n->u.loop.stride)
            visit(child, p, packed, pack);
        return;
    }
    case IR_SEQ:
        for (int64_t i = 0; i < n->u.seq.n; i++)
            visit(n->u.seq.items[i], at + n->off, packed, pack);
        return;
    case IR_LIST:
        for (int64_t i = 0; i < n->u.list.n; i++) {
            char *p = at + n->off + n->u.list.offs[i];
            if (pack)
                memcpy(*packed, p, (size_t)n->u.list.lens[i]);
            else
                memcpy(p, *packed, (size_t)n->u.list.lens[i]);
            *packed += n->u.list.lens[i];
        }
        return;
    }
}

static void visit_pack(const ir_node *n, char *at, char **packed) { visit(n, at, packed, true); }
static void visit_unpack(const ir_node *n, char *at, char **packed) { visit(n, at, packed, false); }

void kernel_tree_pack(const plan *p, char *typed, int64_t count, char *packed)
{
    for (int64_t i = 0; i < count; i++, typed += p->extent)
        visit_pack(p->tree, typed, &packed);
}

void kernel_tree_unpack(const plan *p, char *typed, int64_t count, char *packed)
{
    for (int64_t i = 0; i < count; i++, typed += p->extent)
        visit_unpack(p->tree, typed, &packed);
}

/* Like visit() for unpack, stopping after `*budget` bytes, inside a block if need be. */
static void visit_prefix(const ir_node *n, char *at, const char **packed, int64_t *budget)
{
    switch (n->kind) {
    case IR_BLOCK: {
        int64_t len = n->u.block.len < *budget ? n->u.block.len : *budget;
        memcpy(at + n->off, *packed, (size_t)len);
        *packed += len;
        *budget -= len;
        return;
    }
    case IR_LOOP:
        for (int64_t i = 0; i < n->u.loop.count && *budget > 0; i++)
            visit_prefix(n->u.loop.child, at + n->off + i * n->u.loop.stride, packed, budget);
        return;
    case IR_SEQ:
        for (int64_t i = 0; i < n->u.seq.n && *budget > 0; i++)
            visit_prefix(n->u.seq.items[i], at + n->off, packed, budget);
        return;
    case IR_LIST:
        for (int64_t i = 0; i < n->u.list.n && *budget > 0; i++) {
            int64_t len = n->u.list.lens[i] < *budget ? n->u.list.lens[i] : *budget;
            memcpy(at + n->off + n->u.list.offs[i], *packed, (size_t)len);
            *packed += len;
            *budget -= len;
        }
        return;
    }
}

void kernel_tree_unpack_prefix(const ir_node *normal, char *typed, const char *packed,
                               int64_t bytes)
{
    visit_prefix(normal, typed, &packed, &bytes);
}
