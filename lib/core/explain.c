#include "explain.h"

#include "../kernel/kernel.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    char *buf;
    size_t cap, len;
    bool overflow;
} sink;

static void put(sink *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(s->buf + s->len, s->len < s->cap ? s->cap - s->len : 0, fmt, ap);
    va_end(ap);
    if (w < 0 || s->len + (size_t)w >= s->cap)
        s->overflow = true;
    else
        s->len += (size_t)w;
}

static void put_dims(sink *s, const plan_strided *d)
{
    put(s, "offset %lld, dims [", (long long)d->off);
    for (int k = 0; k < d->ndims; k++)
        put(s, "%s%lld x %+lld B", k ? ", " : "", (long long)d->count[k], (long long)d->stride[k]);
    put(s, "], block %lld B", (long long)d->block);
}

/* Byna et al.'s classification (their sec. 5.2): fixed or variable block and stride, and
 * whether the walk is in memory order or out of order (an outer dimension stepping more
 * finely than an inner one: transpose-like). */
static void put_pattern(sink *s, const plan *p, const plan_strided *d)
{
    if (p->kind == PLAN_CONTIG || d->ndims == 0) {
        put(s, "access pattern: %s\n", p->kind == PLAN_LIST ? "one list" : "contiguous");
        return;
    }
    bool in_order = true;
    for (int k = 0; k + 1 < d->ndims; k++)
        for (int j = k + 1; j < d->ndims; j++)
            if (llabs(d->stride[k]) < llabs(d->stride[j]))
                in_order = false;
    if (p->kind == PLAN_LIST)
        put(s, "access pattern: %s block (%lld B per instance in %lld pieces), variable stride, %s\n",
            p->list.same_len ? "fixed" : "variable", (long long)p->size, (long long)p->list.n,
            in_order ? "in memory order" : "out of order");
    else
        put(s, "access pattern: fixed block %lld B, fixed strides, %s\n", (long long)d->block,
            in_order ? "in memory order" : "out of order (transpose-like)");
}

/* The list kernel's choices (kernel/list.c): which runs it prefetches and how far ahead, and
 * how a pack of `bytes` stores (plan_list_stores_for). */
static void put_list(sink *s, const plan *p, int64_t bytes)
{
    const plan_list *l = &p->list;
    bool streamable = false;
    int64_t ahead = l->runs ? 0 : l->ahead;
    for (int r = 0; r < l->runs; r++) {
        streamable = streamable || l->run[r].len % 4 == 0;
        ahead = l->run[r].ahead > ahead ? l->run[r].ahead : ahead;
    }
    put(s, "kernel: list: ");
    if (l->runs)
        put(s, "%d run%s of equal blocks; ", l->runs, l->runs == 1 ? "" : "s");
    if (ahead)
        put(s, "blocks spread over more than %d times the L2, prefetched into it up to %lld "
               "blocks ahead (an unpack's packed bytes %d B ahead); ",
            (int)PLAN_PREFETCH_L2S, (long long)ahead, (int)KERNEL_PACKED_AHEAD_BYTES);
    else
        put(s, "blocks close together, not prefetched; ");
    const plan_stores stores = plan_list_stores_for(p, bytes);
    const char *unstreamable = streamable ? "" : ": no run of blocks a multiple of 4 bytes long";
    const char *cached_because =
        stores != STORES_CACHED ? unstreamable
        : plan_probes(p, bytes) ? ": the packed bytes fit the L2, where the next call finds them"
                                : ": the call moves less than a quarter of what the L2 holds";
    if (!streamable || !MEMCOMM_X86 || stores == STORES_CACHED)
        put(s, "packs store cached%s\n", cached_because);
    else if (stores == STORES_STREAMED)
        put(s, "packs store non-temporally: the call moves more than the streaming threshold\n");
    else
        put(s, "packs store non-temporally if a few of the packed buffer's lines are found out "
               "of the caches at the call, else cached\n");
}

int explain_analysis(const analysis *a, int64_t count, char *text, size_t cap)
{
    sink s = {text, cap, 0, false};
    if (cap)
        text[0] = '\0';
    put(&s, "size %lld B, extent %lld B (lb %lld); count %lld = %lld B\n",
        (long long)a->bounds.size, (long long)a->bounds.extent, (long long)a->bounds.lb,
        (long long)count, (long long)(a->bounds.size * count));
    if (!a->supported) {
        put(&s, "handed to the MPI: %s\n", a->why);
        return s.overflow ? -1 : (int)s.len;
    }
    char canonical[512];
    ir_format(a->normal, canonical, sizeof canonical);
    put(&s, "canonical: %s\n", canonical);
    const plan *p = &a->plan;
    if (p->kind == PLAN_TREE) {
        put(&s, "access pattern: irregular nesting\n");
        put(&s, "kernel: tree (an irregular nesting, interpreted node by node)\n");
        return s.overflow ? -1 : (int)s.len;
    }
    plan_strided d;
    plan_strided_for_count(p, count, &d);
    put(&s, "strided form for this count: ");
    put_dims(&s, &d);
    if (p->kind == PLAN_LIST)
        put(&s, " around a list of %lld blocks", (long long)p->list.n);
    put(&s, "\n");
    put_pattern(&s, p, &d);
    if (p->kind == PLAN_LIST && p->pack == kernel_records_pack) {
        plan_strided walk;
        if (plan_records_walk(p, count, &walk))
            put(&s, "kernel: records: %lld-byte records of %lld bytes' span, one %lld B apart: one "
                    "byte shuffle each to pack, %lld plain copies each to unpack\n",
                (long long)p->records.size, (long long)p->records.span, (long long)walk.stride[0],
                (long long)p->records.npieces);
        else
            put(&s, "kernel: list: these records are not one ascending dimension for this count\n");
        return s.overflow ? -1 : (int)s.len;
    }
    if (p->kind == PLAN_LIST) {
        put_list(&s, p, p->size * count);
        return s.overflow ? -1 : (int)s.len;
    }
    if (p->kind != PLAN_STRIDED) {
        put(&s, "kernel: %s\n", p->kernel_name);
        return s.overflow ? -1 : (int)s.len;
    }
    plan_tiles t;
    plan_transpose tr;
    bool transposed = plan_transpose_for(p, &d, &tr);
    bool blocked = !transposed && plan_tiles_for(&d, p->page_size, p->tlb_entries, p->line_size, &t);
    /* a strided plan has at least one dim (none is the contiguous kernel) */
    int64_t n = d.count[d.ndims - 1], stride = d.stride[d.ndims - 1];
    int64_t pages = plan_pages_touched(d.block, stride, n, p->page_size);
    put(&s, "TLB model: W = %lld B, S = %lld B, n = %lld, P_s = %lld B -> R_p = %lld pages "
            "%s T_p = %lld entries\n",
        (long long)d.block, (long long)(stride < 0 ? -stride : stride), (long long)n,
        (long long)p->page_size, (long long)pages, pages >= p->tlb_entries ? ">=" : "<",
        (long long)p->tlb_entries);
    if (transposed) {
        char bands[256];
        const long long row = (long long)p->tile_bytes, band_pages = (long long)tr.tile_pages,
                        stlb = (long long)p->stlb_entries;
        const char *why = tr.bound == TILE_MATRIX ? "the matrix needs no more"
                                                  : "as many as the machine's tile row holds elements";
        if (tr.bound == TILE_STLB)
            snprintf(bands, sizeof bands,
                     "fewer than the machine's %lld B tile row allows, so that their %lld pages "
                     "fit the second-level TLB (%lld entries)",
                     row, band_pages, stlb);
        else
            snprintf(bands, sizeof bands,
                     "%s (tile row %lld B), touching %lld pages (second-level TLB %lld entries)",
                     why, row, band_pages, stlb);
        char strips[320];
        const long long out_pitch = (long long)(n * d.block);
        const long long cached = (long long)plan_transpose_strip_lines(TRANSPOSE_WARM, d.block,
                                                                       out_pitch),
                        cold = (long long)plan_transpose_strip_lines(TRANSPOSE_STREAM_COLD,
                                                                     d.block, out_pitch),
                        warm = (long long)plan_transpose_strip_lines(TRANSPOSE_STREAM, d.block,
                                                                     out_pitch);
        char shared_note[96] = "";
        if (cold < plan_transpose_strip_widest(TRANSPOSE_STREAM_COLD))
            snprintf(shared_note, sizeof shared_note,
                     " (output rows that crowd few page offsets: %d of them streamed at once)",
                     (int)(cold * p->line_size / d.block));
        if (tr.stream || tr.probe)
            snprintf(strips, sizeof strips,
                     "%lld input lines wide where the stores are streamed and a few lines of both "
                     "the source and the destination are found out of the caches at the call, "
                     "%lld where either is in, %lld with cached stores%s",
                     cold, warm, cached, shared_note);
        else
            snprintf(strips, sizeof strips, "%lld input line%s wide", cached,
                     cached == 1 ? "" : "s");
        /* where the stores stream, how the packed rows (n elements) meet the lines */
        char rows_text[256] = "";
        if ((tr.stream || tr.probe) && out_pitch % 64 != 0)
            snprintf(rows_text, sizeof rows_text,
                     kernel_transpose_composes(d.block, kernel_transpose_bytes(p), out_pitch)
                         ? "; packed rows %lld B apart start part way into a line: each line "
                           "streamed is put together from two micro-tiles (at a packing "
                           "position that is a multiple of 4 B), a band's first and last "
                           "stored cached"
                         : "; packed rows %lld B apart start part way into a line and share "
                           "lines: stored cached",
                     out_pitch);
        put(&s, "kernel: transpose: the outer dim steps by one %lld B element and the inner one "
                "by a %lld B row, so %lld-byte SIMD registers transpose whole lines; bands of "
                "%lld rows: %s, each walked in strips %s; %s%s\n",
            (long long)d.block, (long long)(stride < 0 ? -stride : stride),
            (long long)kernel_transpose_bytes(p), (long long)tr.tile, bands,
            strips,
            tr.stream ? "non-temporal stores: the call moves more than the streaming threshold"
            : tr.probe
                ? "non-temporal stores if a few of the destination's lines are found out of "
                  "the caches at the call, else cached, with the source's lines ahead prefetched "
                  "if a few of them are out: the call moves at least a quarter of what the L2 "
                  "holds and less than the streaming threshold"
                : "cached stores: the call moves less than a quarter of what the L2 holds",
            rows_text);
    }
    else if (blocked)
        put(&s, "kernel: blocked: the walk is out of order (outer steps finer than "
                "inner) and overflows the TLB; tiles of %lld rows (half the TLB) x %lld columns "
                "(one %lld B line)\n",
            (long long)t.rows, (long long)t.cols, (long long)p->line_size);
    else {
        put(&s, "kernel: strided: %s",
            d.ndims < 2 ? "one dimension: walked in memory order"
                        : "not blocked: the walk fits the TLB or is already in memory order");
        const long long block = (long long)d.block, apart = (long long)llabs(stride),
                        ahead = (long long)plan_prefetch_distance(d.block, n, false);
        switch (kernel_strided_prefetch_for(d.block, stride)) {
        case STRIDED_PREFETCHED:
            put(&s, "; blocks of %lld B %lld B apart, each on a page of its own, prefetched %lld "
                    "ahead",
                block, apart, ahead);
            break;
        case STRIDED_PREFETCHED_COLD_UNPACK:
            put(&s, "; blocks of %lld B %lld B apart, a line or more, prefetched %lld ahead by "
                    "an unpack whose typed side is found out of the caches at the call",
                block, apart, ahead);
            break;
        case STRIDED_NOT_PREFETCHED: break;
        }
        if (kernel_strided_streams(p, p->size * count))
            put(&s, "; a pack stores non-temporally: the call moves more than the streaming "
                    "threshold");
        put(&s, "\n");
    }
    return s.overflow ? -1 : (int)s.len;
}

void explain_to_stderr(const analysis *a, int64_t count, const char *what)
{
    char text[4096];
    if (explain_analysis(a, count, text, sizeof text) >= 0)
        explain_lines_to_stderr(what, text);
}

void explain_lines_to_stderr(const char *what, char *text)
{
    int rank = -1, initialized = 0, finalized = 0;
    PMPI_Initialized(&initialized);
    PMPI_Finalized(&finalized);
    if (initialized && !finalized)
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* one write, so that the ranks' explanations do not interleave line by line */
    char out[8192];
    size_t len = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        const int w = snprintf(out + len, sizeof out - len, "memcomm explain [rank %d] %s: %s\n",
                               rank, what, line);
        if (w < 0 || (size_t)w >= sizeof out - len)
            break;
        len += (size_t)w;
    }
    fflush(stderr);
    if (len && write(STDERR_FILENO, out, len) < 0)
        return; /* nowhere to say it */
}

void explain_first_call(const analysis *a, int64_t count, const char *what)
{
    /* the (type, count) pairs already explained; once full, no more explanations */
    enum { SEEN = 256 };
    static struct {
        const analysis *a;
        int64_t count;
    } seen[SEEN];
    static int n_seen;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    bool first = n_seen < SEEN;
    for (int i = 0; i < n_seen && first; i++)
        first = !(seen[i].a == a && seen[i].count == count);
    if (first && n_seen < SEEN)
        seen[n_seen++] = (typeof(seen[0])){a, count};
    pthread_mutex_unlock(&lock);
    if (first) {
        char context[64];
        snprintf(context, sizeof context, "%s count %lld", what, (long long)count);
        explain_to_stderr(a, count, context);
    }
}
