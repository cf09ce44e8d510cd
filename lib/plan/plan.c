#include "plan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>


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
    int64_t bytes = 0;
    for (int64_t i = 0; i < list->n; i++) {
        bytes += list->lens[i];
        if (list->lens[i] != list->same_len)
            list->same_len = 0;
    }
    list->mean_len = bytes / list->n;
    dims->block = inner->size;
    return true;
}

/* A list whose blocks are all whole multiples of its shortest block, as in particles where
 * the normalizer merged two neighbouring atoms into one block, is cut back into blocks of
 * that length when that adds at most one block in eight: the kernel then moves each with a
 * few fixed moves instead of reading a length per block (measured on random 24-byte
 * particles: 0.78 ms with lengths, 0.60 ms fixed). Without memory for the new arrays the
 * list stays as it is. */
static void plan_list_uniform(ir_arena *arena, plan_list *l)
{
    if (!arena || l->same_len || l->n == 0)
        return;
    int64_t unit = INT64_MAX, pieces = 0;
    for (int64_t i = 0; i < l->n; i++)
        unit = l->lens[i] < unit ? l->lens[i] : unit;
    if (unit <= 0)
        return;
    for (int64_t i = 0; i < l->n; i++) {
        if (l->lens[i] % unit != 0)
            return;
        pieces += l->lens[i] / unit;
        if (pieces > l->n + l->n / 8)
            return;
    }
    int64_t *offs = ir_arena_alloc(arena, sizeof *offs * (size_t)pieces);
    int64_t *lens = ir_arena_alloc(arena, sizeof *lens * (size_t)pieces);
    if (!offs || !lens)
        return;
    int64_t k = 0;
    for (int64_t i = 0; i < l->n; i++)
        for (int64_t at = 0; at < l->lens[i]; at += unit, k++) {
            offs[k] = l->offs[i] + at;
            lens[k] = unit;
        }
    l->n = pieces;
    l->offs = offs;
    l->lens = lens;
    l->same_len = l->mean_len = unit;
}

/* How many blocks ahead the list kernel prefetches blocks first .. first + n - 1 of
 * `len` bytes each (the mean where they differ): 0 where they lie within PLAN_PREFETCH_L2S
 * times the L2, else plan_prefetch_distance, deeper where their pages fit the STLB. */
static int64_t list_ahead(const plan_list *l, int64_t first, int64_t n, int64_t len,
                          const machine *m)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t i = first; i < first + n; i++) {
        lo = l->offs[i] < lo ? l->offs[i] : lo;
        hi = l->offs[i] + l->lens[i] > hi ? l->offs[i] + l->lens[i] : hi;
    }
    if (n <= 0 || hi - lo <= PLAN_PREFETCH_L2S * m->value[MACHINE_L2])
        return 0;
    /* the most pages `hi - lo` bytes can touch, whatever their alignment */
    const int64_t page = m->value[MACHINE_PAGE], pages = (hi - lo) / page + 2;
    return plan_prefetch_distance(len, n, pages <= m->value[MACHINE_STLB]);
}

/* The compact forms the kernel reads (plan_list): runs of equal blocks, if there are few,
 * and the offsets as int32, if they fit (and there is memory for them); how far ahead each
 * part is prefetched. */
static void plan_list_compact(ir_arena *arena, const machine *m, plan_list *l)
{
    l->ahead = list_ahead(l, 0, l->n, l->mean_len, m);
    l->runs = 0;
    for (int64_t i = 0; i < l->n; i++) {
        if (l->runs > 0 && l->run[l->runs - 1].len == l->lens[i]) {
            l->run[l->runs - 1].n++;
        } else if (l->runs == PLAN_LIST_RUNS) {
            l->runs = 0;
            break;
        } else {
            l->run[l->runs++] = (plan_run){i, 1, l->lens[i], 0};
        }
    }
    for (int r = 0; r < l->runs; r++)
        l->run[r].ahead = list_ahead(l, l->run[r].first, l->run[r].n, l->run[r].len, m);
    l->offs32 = NULL;
    for (int64_t i = 0; i < l->n; i++)
        if (l->offs[i] < INT32_MIN || l->offs[i] > INT32_MAX)
            return;
    int32_t *narrow = arena ? ir_arena_alloc(arena, sizeof *narrow * (size_t)l->n) : NULL;
    if (!narrow)
        return;
    for (int64_t i = 0; i < l->n; i++)
        narrow[i] = (int32_t)l->offs[i];
    l->offs32 = narrow;
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

/* Pages a tile side of `n` rows `pitch` bytes apart, each `row_bytes` long, touches. */
static int64_t tile_pages(int64_t n, int64_t pitch, int64_t row_bytes, int64_t page_size)
{
    pitch = llabs(pitch);
    if (pitch >= page_size)
        return n * ((row_bytes + page_size - 1) / page_size);
    return ((n - 1) * pitch + row_bytes + page_size - 1) / page_size;
}

/* Pages one strip of a band touches: `band` input rows, `strip` elements of each, and the
 * `strip` output rows they fill, `band` elements of each. */
static int64_t band_strip_pages(int64_t band, int64_t strip, int64_t elem, int64_t in_pitch,
                                int64_t out_pitch, int64_t page_size)
{
    return tile_pages(band, in_pitch, strip * elem, page_size) +
           tile_pages(strip, out_pitch, band * elem, page_size);
}

bool plan_transpose_for(const plan *p, const plan_strided *s, plan_transpose *out)
{
    memset(out, 0, sizeof *out);
    if (!p->transpose || s->ndims < 2)
        return false;
    const int k = s->ndims;
    const int64_t elem = s->block, n_o = s->count[k - 2], n_i = s->count[k - 1];
    const int64_t s_i = s->stride[k - 1];
    /* rows on lines of their own, and at least one whole micro-tile each way */
    if (s->stride[k - 2] != elem || llabs(s_i) < p->line_size || n_o < 16 || n_i < 16)
        return false;
    int64_t bytes = elem;
    for (int d = 0; d < k; d++)
        if (__builtin_mul_overflow(bytes, s->count[d], &bytes))
            bytes = INT64_MAX;
    const plan_stores stores = plan_stores_for(p, bytes);
    out->stream = stores == STORES_STREAMED;
    out->probe = stores == STORES_PROBED;
    /* the band of as many rows as the machine's tile row holds elements, halved while one
     * strip's input and output pages overflow the second-level TLB, and no larger than the
     * matrix needs (a multiple of 16 rows: whole micro-tiles) */
    const int64_t out_pitch = n_i * elem;
    /* the widest strip a call may take, for the TLB */
    const plan_transpose_mode widest =
        out->stream || out->probe ? TRANSPOSE_STREAM_COLD : TRANSPOSE_WARM;
    const int64_t strip =
        plan_transpose_strip_lines(widest, elem, out_pitch) * p->line_size / elem;
    int64_t tile = 16;
    while (tile * 2 * elem <= p->tile_bytes && tile * 2 <= 1024)
        tile *= 2;
    out->bound = TILE_ROW_BYTES;
    while (tile > 16 && band_strip_pages(tile, strip, elem, s_i, out_pitch, p->page_size) >
                            p->stlb_entries) {
        tile /= 2;
        out->bound = TILE_STLB;
    }
    while (tile > 16 && tile / 2 >= n_o && tile / 2 >= n_i) {
        tile /= 2;
        out->bound = TILE_MATRIX;
    }
    out->tile = tile;
    out->tile_pages = band_strip_pages(tile, strip, elem, s_i, out_pitch, p->page_size);
    return true;
}

bool plan_records_walk(const plan *p, int64_t count, plan_strided *s)
{
    return p->records.size > 0 && plan_strided_for_count(p, count, s) && s->ndims == 1 &&
           s->stride[0] >= p->records.span;
}

void plan_build(const ir_node *normal, int64_t size, int64_t extent, const machine *m,
                ir_arena *arena, plan *out)
{
    memset(out, 0, sizeof *out);
    out->size = size;
    out->extent = extent;
    out->page_size = m->value[MACHINE_PAGE];
    out->tlb_entries = m->value[MACHINE_TLB];
    out->stlb_entries = m->value[MACHINE_STLB];
    out->tile_bytes = m->value[MACHINE_TILE];
    out->line_size = m->value[MACHINE_LINE];
    out->stream_bytes = m->value[MACHINE_STREAM];
    out->l2_bytes = m->value[MACHINE_L2];
    out->simd_bytes = m->value[MACHINE_SIMD];
    out->shuffle_bytes = m->value[MACHINE_SHUFFLE];
    if (plan_as_strided(normal, &out->strided)) {
        out->kind = out->strided.ndims == 0 ? PLAN_CONTIG : PLAN_STRIDED;
    } else if (plan_as_list(normal, &out->strided, &out->list)) {
        out->kind = PLAN_LIST;
        plan_list_uniform(arena, &out->list);
        plan_list_compact(arena, m, &out->list);
    } else {
        out->kind = PLAN_TREE;
        out->tree = normal;
    }
}

bool plan_long_blocks(const plan *p)
{
    int64_t pieces = 1;
    if (p->kind == PLAN_LIST)
        pieces = p->list.n;
    else if (p->kind == PLAN_STRIDED || p->kind == PLAN_CONTIG)
        for (int d = 0; d < p->strided.ndims; d++)
            pieces *= p->strided.count[d];
    else
        return false;
    return pieces > 0 && p->size / pieces >= PLAN_LONG_BLOCK_BYTES;
}
