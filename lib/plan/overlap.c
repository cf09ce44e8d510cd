#include "overlap.h"

#include <stdlib.h>

#include "../base/alloc.h"

typedef struct {
    int64_t lo, hi;
} span;

typedef struct {
    span *at;
    int64_t n, cap;
} spans;

static int64_t magnitude(int64_t x) { return x < 0 ? -x : x; }

/* [*lo, *hi) widened to take in [l, h); `*any`: it held something already. */
static void widen(int64_t l, int64_t h, bool *any, int64_t *lo, int64_t *hi)
{
    *lo = *any && *lo < l ? *lo : l;
    *hi = *any && *hi > h ? *hi : h;
    *any = true;
}

/* The bytes [lo, hi) one instance touches, relative to its origin; false if it has none. */
static bool extent_of(const ir_node *n, int64_t base, int64_t *lo, int64_t *hi)
{
    base += n->off;
    switch (n->kind) {
    case IR_BLOCK:
        if (n->u.block.len <= 0)
            return false;
        *lo = base;
        *hi = base + n->u.block.len;
        return true;
    case IR_LOOP: {
        if (n->u.loop.count <= 0 || !extent_of(n->u.loop.child, base, lo, hi))
            return false;
        int64_t reach = (n->u.loop.count - 1) * n->u.loop.stride;
        *lo += reach < 0 ? reach : 0;
        *hi += reach > 0 ? reach : 0;
        return true;
    }
    case IR_SEQ: {
        bool any = false;
        for (int64_t i = 0; i < n->u.seq.n; i++) {
            int64_t l, h;
            if (extent_of(n->u.seq.items[i], base, &l, &h))
                widen(l, h, &any, lo, hi);
        }
        return any;
    }
    case IR_LIST: {
        bool any = false;
        for (int64_t i = 0; i < n->u.list.n; i++)
            if (n->u.list.lens[i] > 0)
                widen(base + n->u.list.offs[i], base + n->u.list.offs[i] + n->u.list.lens[i],
                      &any, lo, hi);
        return any;
    }
    }
    return false;
}

/* Blocks of one instance, saturating at `limit`. */
static int64_t blocks_of(const ir_node *n, int64_t limit)
{
    int64_t total = 0;
    switch (n->kind) {
    case IR_BLOCK:
        return 1;
    case IR_LOOP: {
        int64_t inner = blocks_of(n->u.loop.child, limit);
        return inner > 0 && n->u.loop.count > limit / inner ? limit : n->u.loop.count * inner;
    }
    case IR_SEQ:
        for (int64_t i = 0; i < n->u.seq.n && total < limit; i++)
            total += blocks_of(n->u.seq.items[i], limit);
        return total < limit ? total : limit;
    case IR_LIST:
        return n->u.list.n < limit ? n->u.list.n : limit;
    }
    return limit;
}

static bool push(spans *v, int64_t lo, int64_t len)
{
    if (len <= 0)
        return true;
    if (v->n == v->cap)
        return false;
    v->at[v->n++] = (span){lo, lo + len};
    return true;
}

/* Every block of one instance, in typemap order; false beyond the list's capacity. */
static bool collect(const ir_node *n, int64_t base, spans *v)
{
    base += n->off;
    switch (n->kind) {
    case IR_BLOCK:
        return push(v, base, n->u.block.len);
    case IR_LOOP:
        for (int64_t i = 0; i < n->u.loop.count; i++)
            if (!collect(n->u.loop.child, base + i * n->u.loop.stride, v))
                return false;
        return true;
    case IR_SEQ:
        for (int64_t i = 0; i < n->u.seq.n; i++)
            if (!collect(n->u.seq.items[i], base, v))
                return false;
        return true;
    case IR_LIST:
        for (int64_t i = 0; i < n->u.list.n; i++)
            if (!push(v, base + n->u.list.offs[i], n->u.list.lens[i]))
                return false;
        return true;
    }
    return false;
}

static int by_start(const void *x, const void *y)
{
    const span *a = x, *b = y;
    return (a->lo > b->lo) - (a->lo < b->lo);
}

/* The blocks of one instance sorted, touching ones merged; false if two overlap or the
 * budget is exceeded (the caller frees v->at either way). */
static bool sorted_disjoint_blocks(const ir_node *n, spans *v)
{
    v->n = 0;
    v->cap = blocks_of(n, OVERLAP_MAX_BLOCKS + 1);
    v->at = v->cap <= OVERLAP_MAX_BLOCKS ? mc_malloc(sizeof *v->at * (size_t)(v->cap + 1)) : NULL;
    if (!v->at || !collect(n, 0, v))
        return false;
    qsort(v->at, (size_t)v->n, sizeof *v->at, by_start);
    int64_t kept = 0;
    for (int64_t i = 0; i < v->n; i++) {
        if (kept && v->at[i].lo < v->at[kept - 1].hi)
            return false;
        if (kept && v->at[i].lo == v->at[kept - 1].hi)
            v->at[kept - 1].hi = v->at[i].hi;
        else
            v->at[kept++] = v->at[i];
    }
    v->n = kept;
    return true;
}

bool overlap_strided_disjoint(const plan_strided *s)
{
    /* sorted by |stride|, each dimension must step past all the ones inside it (mixed radix:
     * then every index vector lands on its own bytes) */
    int64_t strides[PLAN_MAX_DIMS + 1], counts[PLAN_MAX_DIMS + 1];
    int dims = 0;
    for (int d = 0; d < s->ndims; d++)
        if (s->count[d] > 1) {
            int at = dims++;
            while (at > 0 && magnitude(strides[at - 1]) > magnitude(s->stride[d])) {
                strides[at] = strides[at - 1];
                counts[at] = counts[at - 1];
                at--;
            }
            strides[at] = s->stride[d];
            counts[at] = s->count[d];
        }
    int64_t reach = s->block;
    for (int d = 0; d < dims; d++) {
        int64_t step = magnitude(strides[d]), more;
        if (step < reach || !ir_mul(counts[d] - 1, step, &more) || !ir_add(reach, more, &reach))
            return false;
    }
    return true;
}

/* A loop nest around a part that is disjoint by itself, with the analytic test taking that
 * part as one block of its width. */
static bool nest_disjoint(const ir_node *n)
{
    plan_strided s = {0};
    while (n->kind == IR_LOOP && s.ndims < PLAN_MAX_DIMS) {
        s.count[s.ndims] = n->u.loop.count;
        s.stride[s.ndims++] = n->u.loop.stride;
        n = n->u.loop.child;
    }
    int64_t lo, hi;
    if (!extent_of(n, 0, &lo, &hi))
        return true; /* nothing written */
    s.block = hi - lo;
    return n->kind != IR_LOOP && overlap_strided_disjoint(&s) &&
           (n->kind == IR_BLOCK || overlap_instance_disjoint(n));
}

bool overlap_instance_disjoint(const ir_node *normal)
{
    if (normal->kind == IR_BLOCK || (normal->kind == IR_LOOP && nest_disjoint(normal)))
        return true;
    spans v;
    bool disjoint = sorted_disjoint_blocks(normal, &v);
    free(v.at);
    return disjoint;
}

/* Does a sorted disjoint list meet itself moved `shift` bytes up? */
static bool meets_shifted(const spans *v, int64_t shift)
{
    int64_t i = 0, j = 0;
    while (i < v->n && j < v->n) {
        int64_t lo = v->at[j].lo + shift, hi = v->at[j].hi + shift;
        if (v->at[i].hi <= lo)
            i++;
        else if (hi <= v->at[i].lo)
            j++;
        else
            return true;
    }
    return false;
}

int64_t overlap_disjoint_count(const ir_node *normal, int64_t extent)
{
    int64_t lo, hi;
    if (!extent_of(normal, 0, &lo, &hi))
        return INT64_MAX;
    const int64_t width = hi - lo, step = magnitude(extent);
    if (step >= width)
        return INT64_MAX;
    if (step == 0)
        return 1;
    /* instances k apart meet iff the instance meets itself moved k * |extent| (either sign:
     * the relation is symmetric), and only k * |extent| < width can */
    const int64_t shifts = (width - 1) / step;
    spans v;
    int64_t answer = 1;
    if (sorted_disjoint_blocks(normal, &v) && v.n <= OVERLAP_MAX_WORK / shifts) {
        answer = INT64_MAX;
        for (int64_t k = 1; k <= shifts && answer == INT64_MAX; k++)
            if (meets_shifted(&v, k * step))
                answer = k;
    }
    free(v.at);
    return answer;
}
