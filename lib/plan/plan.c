#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "../kernel/kernel.h"

/* The loops above the innermost non-loop node; returns that node (NULL if too deep). */
static const ir_node *peel_loops(const ir_node *n, plan_strided *out)
{
    memset(out, 0, sizeof *out);
    int64_t off = 0;
    while (n->kind == IR_LOOP) {
        if (out->ndims == PLAN_MAX_DIMS || !ir_add(off, n->off, &off))
            return NULL;
        out->count[out->ndims] = n->u.loop.count;
        out->stride[out->ndims] = n->u.loop.stride;
        out->ndims++;
        n = n->u.loop.child;
    }
    if (!ir_add(off, n->off, &off))
        return NULL;
    out->off = off;
    return n;
}

bool plan_as_strided(const ir_node *normal, plan_strided *out)
{
    const ir_node *inner = peel_loops(normal, out);
    if (!inner || inner->kind != IR_BLOCK)
        return false;
    out->block = inner->u.block.len;
    return true;
}

/* LOOP^k(LIST) -> dims around the list's (offset, length) arrays. */
static bool plan_as_list(const ir_node *normal, plan_strided *dims, plan_list *list)
{
    const ir_node *inner = peel_loops(normal, dims);
    if (!inner || inner->kind != IR_LIST || inner->u.list.n == 0)
        return false;
    list->n = inner->u.list.n;
    list->offs = inner->u.list.offs; /* relative to dims->off, which includes the list's off */
    list->lens = inner->u.list.lens;
    list->same_len = list->lens[0];
    for (int64_t i = 1; i < list->n && list->same_len; i++)
        if (list->lens[i] != list->same_len)
            list->same_len = 0;
    dims->block = inner->size;
    return true;
}

bool plan_strided_for_count(const plan *p, int64_t count, plan_strided *out)
{
    const plan_strided *one = &p->strided;
    *out = *one;
    if (count == 1)
        return true;
    /* instances that continue the outermost dimension need no new one (the block size
     * stays: kernels are specialized for it) */
    int64_t span;
    if (one->ndims && !__builtin_mul_overflow(one->count[0], one->stride[0], &span) &&
        span == p->extent && !__builtin_mul_overflow(one->count[0], count, &out->count[0]))
        return true;
    if (one->ndims > PLAN_MAX_DIMS)
        return false;
    memmove(out->count + 1, one->count, sizeof(int64_t) * (size_t)one->ndims);
    memmove(out->stride + 1, one->stride, sizeof(int64_t) * (size_t)one->ndims);
    out->count[0] = count;
    out->stride[0] = p->extent;
    out->ndims = one->ndims + 1;
    return true;
}

int64_t plan_pages_touched(int64_t W, int64_t S, int64_t n, int64_t page_size)
{
    if (S < 0)
        S = -S;
    if (page_size >= S && S > 0)
        return n / (page_size / S);
    return n * ((W + page_size - 1) / page_size);
}

bool plan_tiles_for(const plan_strided *s, int64_t page_size, int64_t tlb_entries,
                    int64_t line_size, plan_tiles *out)
{
    memset(out, 0, sizeof *out);
    if (s->ndims < 2)
        return false;
    int64_t n_in = s->count[s->ndims - 1], s_in = llabs(s->stride[s->ndims - 1]);
    int64_t n_out = s->count[s->ndims - 2], s_out = llabs(s->stride[s->ndims - 2]);
    out->pages_touched = plan_pages_touched(s->block, s_in, n_in, page_size);
    if (out->pages_touched < tlb_entries || s_out >= s_in || n_out < 2)
        return false;
    /* half the TLB maps the block rows, the other half the packed buffer and the rest */
    int64_t refs_per_page = page_size >= s_in ? page_size / s_in : 1;
    int64_t pages_per_ref = page_size >= s_in ? 1 : (s->block + page_size - 1) / page_size;
    out->rows = tlb_entries / 2 * refs_per_page / pages_per_ref;
    if (out->rows < 1)
        out->rows = 1;
    out->cols = s_out > 0 && s_out < line_size ? line_size / s_out : 1;
    return true;
}

void plan_build(const ir_node *normal, int64_t size, int64_t extent, const machine *m, plan *out)
{
    memset(out, 0, sizeof *out);
    out->size = size;
    out->extent = extent;
    out->page_size = m->value[MACHINE_PAGE];
    out->tlb_entries = m->value[MACHINE_TLB];
    out->line_size = m->value[MACHINE_LINE];
    if (plan_as_strided(normal, &out->strided)) {
        out->kind = out->strided.ndims == 0 ? PLAN_CONTIG : PLAN_STRIDED;
        out->pack = out->kind == PLAN_CONTIG ? kernel_contig_pack
                                             : kernel_strided_pack_for(out->strided.block);
        out->unpack = out->kind == PLAN_CONTIG ? kernel_contig_unpack
                                               : kernel_strided_unpack_for(out->strided.block);
        out->kernel_name = out->kind == PLAN_CONTIG ? "contiguous" : "strided";
        return;
    }
    if (plan_as_list(normal, &out->strided, &out->list)) {
        out->kind = PLAN_LIST;
        out->pack = kernel_list_pack;
        out->unpack = kernel_list_unpack;
        out->kernel_name = "list";
        return;
    }
    out->kind = PLAN_TREE;
    out->tree = normal;
    out->pack = kernel_tree_pack;
    out->unpack = kernel_tree_unpack;
    out->kernel_name = "tree";
}
