/* Property test without MPI: for random IR trees, normalize + plan + kernel pack exactly
 * the bytes a naive walk of the raw tree packs, and unpack writes exactly those places. This
 * checks that every pass keeps the typemap order and that every kernel honours it. */
#include <stdlib.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "../check.h"
#include "base/ir.h"
#include "kernel/kernel.h"
#include "normalize/normalize.h"
#include "plan/plan.h"

/* In one trial of four, `bytes` at `at` out of the caches, just before a kernel runs: on the
 * tiny machine (L2 16 bytes) that is where the kernels that look at the destination or the
 * typed side take their other branch (residency.c; strided.c's forward copy of blocks of any
 * size). */
static void flush_some(int trial, const char *at, int64_t bytes)
{
#if defined(__x86_64__)
    if (trial % 4 != 1)
        return;
    for (int64_t i = 0; i < bytes; i += 64)
        _mm_clflush(at + i);
    _mm_mfence();
#else
    (void)trial, (void)at, (void)bytes;
#endif
}

static uint64_t state;
static int64_t pick(int64_t lo, int64_t hi)
{
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (int64_t)((state >> 33) % (uint64_t)(hi - lo + 1));
}

static const ir_node *random_tree(ir_arena *a, int depth)
{
    int64_t off = pick(-16, 32);
    int kind = depth == 0 ? (pick(0, 3) ? 0 : 3) : (int)pick(0, 3);
    if (kind == 0)
        return ir_block(a, off, pick(0, 3) ? (int64_t[]){1, 2, 4, 8, 16, 3, 24, 40, 48, 64}[pick(0, 9)] : pick(0, 70));
    if (kind == 1 && pick(0, 5) == 0) { /* small blocks pages apart (NAS LU, MILC), or a
                                          * line or more (columns: prefetched where cold) */
        const int64_t b = (int64_t[]){8, 16, 24, 40, 48, 64, 5, 100}[pick(0, 7)];
        const int64_t far = pick(0, 1) ? pick(2048, 3500) : pick(128, 2047);
        return ir_loop(a, off, pick(5, 9), pick(0, 3) ? far : -far, ir_block(a, 0, b));
    }
    if (kind == 1 && pick(0, 7) == 0) { /* runs of whole lines and others, a gap between:
                                          * streamed where a pack is past the threshold */
        const int64_t b = (int64_t[]){128, 192, 320, 1024, 130, 200}[pick(0, 5)];
        return ir_loop(a, off, pick(3, 9), b + 64 * pick(0, 3) + pick(0, 1) * pick(1, 63),
                       ir_block(a, 0, b));
    }
    if (kind == 1 && pick(0, 1) == 0) { /* transpose-like: fine outer steps, long inner ones */
        int64_t b = (int64_t[]){1, 4, 8, 16, 3, 4, 8}[pick(0, 6)];
        const ir_node *rows = ir_loop(a, 0, pick(4, 40), pick(0, 3) ? pick(64, 400) : -pick(64, 400),
                                      ir_block(a, 0, b));
        return ir_loop(a, off, pick(2, 40), b * pick(1, 2), rows);
    }
    if (kind == 1) {
        const ir_node *child = random_tree(a, depth - 1);
        int64_t stride = pick(0, 2) ? child->size : pick(-64, 96); /* often back to back */
        return ir_loop(a, off, pick(0, 6), stride, child);
    }
    if (kind == 3) { /* a list: sometimes regular, sometimes with adjacent or empty entries */
        int shape = (int)pick(0, 2); /* irregular, regular, or a record of small fields */
        /* regular lists are sometimes long with a few neighbours back to back, which the
         * normalizer merges and the planner cuts again into equal blocks */
        int64_t n = shape == 1 ? pick(0, 16) : pick(0, 6), at = pick(-8, 8), len = pick(1, 8);
        int64_t *offs = ir_arena_alloc(a, sizeof *offs * 16), *lens = ir_arena_alloc(a, sizeof *lens * 16);
        for (int64_t i = 0; i < n; i++) {
            lens[i] = shape == 1 ? len : shape == 2 ? (int64_t[]){1, 2, 4, 8, 0}[pick(0, 4)] : pick(0, 12);
            offs[i] = at;
            at += shape == 1   ? len + (pick(0, 7) ? 4 : 0)
                  : shape == 2 ? lens[i] + pick(0, 3) - (pick(0, 5) ? 0 : 2 * lens[i]) /* some unordered */
                               : pick(-20, 30) + (pick(0, 1) ? lens[i] : 0);
        }
        return ir_list(a, off, n, offs, lens);
    }
    int64_t n = pick(0, 5);
    const ir_node **items = ir_arena_alloc(a, sizeof *items * 6);
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        const ir_node *item = random_tree(a, depth - 1);
        /* sometimes adjacent or evenly spaced items, which the passes merge */
        items[i] = pick(0, 1) ? ir_shift(a, item, at - item->off) : item;
        at += item->size + (pick(0, 1) ? 0 : 4);
    }
    return ir_seq(a, off, n, items);
}

/* The reference: walk the raw tree, copying block by block in typemap order. */
static void reference(const ir_node *n, const char *at, char **out)
{
    switch (n->kind) {
    case IR_BLOCK:
        memcpy(*out, at + n->off, (size_t)n->u.block.len);
        *out += n->u.block.len;
        break;
    case IR_LOOP:
        for (int64_t i = 0; i < n->u.loop.count; i++)
            reference(n->u.loop.child, at + n->off + i * n->u.loop.stride, out);
        break;
    case IR_SEQ:
        for (int64_t i = 0; i < n->u.seq.n; i++)
            reference(n->u.seq.items[i], at + n->off, out);
        break;
    case IR_LIST:
        for (int64_t i = 0; i < n->u.list.n; i++) {
            memcpy(*out, at + n->off + n->u.list.offs[i], (size_t)n->u.list.lens[i]);
            *out += n->u.list.lens[i];
        }
        break;
    }
}

/* The lowest and one past the highest byte the raw tree covers, from its origin `at`. */
static void reach(const ir_node *n, int64_t at, int64_t *lo, int64_t *hi)
{
    at += n->off;
    switch (n->kind) {
    case IR_BLOCK:
        if (n->u.block.len > 0) {
            *lo = at < *lo ? at : *lo;
            *hi = at + n->u.block.len > *hi ? at + n->u.block.len : *hi;
        }
        break;
    case IR_LOOP: /* the first and last instances bound the rest */
        if (n->u.loop.count > 0) {
            reach(n->u.loop.child, at, lo, hi);
            reach(n->u.loop.child, at + (n->u.loop.count - 1) * n->u.loop.stride, lo, hi);
        }
        break;
    case IR_SEQ:
        for (int64_t i = 0; i < n->u.seq.n; i++)
            reach(n->u.seq.items[i], at, lo, hi);
        break;
    case IR_LIST:
        for (int64_t i = 0; i < n->u.list.n; i++)
            if (n->u.list.lens[i] > 0) {
                const int64_t start = at + n->u.list.offs[i], end = start + n->u.list.lens[i];
                *lo = start < *lo ? start : *lo;
                *hi = end > *hi ? end : *hi;
            }
        break;
    }
}

/* Marks every byte the raw tree covers (for unpack: untouched bytes must stay). */
static void mark(const ir_node *n, char *at)
{
    switch (n->kind) {
    case IR_BLOCK:
        memset(at + n->off, 1, (size_t)n->u.block.len);
        break;
    case IR_LOOP:
        for (int64_t i = 0; i < n->u.loop.count; i++)
            mark(n->u.loop.child, at + n->off + i * n->u.loop.stride);
        break;
    case IR_SEQ:
        for (int64_t i = 0; i < n->u.seq.n; i++)
            mark(n->u.seq.items[i], at + n->off);
        break;
    case IR_LIST:
        for (int64_t i = 0; i < n->u.list.n; i++)
            memset(at + n->off + n->u.list.offs[i], 1, (size_t)n->u.list.lens[i]);
        break;
    }
}

enum { SPAN = 1 << 16, ORIGIN = SPAN / 2 };

/* Every transposing kernel (kernel_transpose_for) this CPU runs, in every mode, called
 * directly: the plans above reach the streamed micro-tiles only where the packed pitch and
 * position happen to be line multiples. Rows and columns of 16-80 elements (micro-tiles and
 * edges), pitches of whole lines (every row aligned, so streamed stores run), of 16-byte
 * multiples that are not whole lines, or of a few elements more than whole lines (both
 * composed by the AVX2 kernels: line_out in kernel/transpose.c), output columns going up or
 * down in memory, and a destination at or off a line boundary, or off an element boundary by
 * a byte (not composed); each element
 * of the output checked, and nothing written between the output's rows. Returns how many
 * calls streamed; `composed`: how many streamed AVX2 calls composed their lines, `pieces`: how
 * many of those at pitches that are no multiple of 16 bytes. */
static int check_transpose_kernels(int *composed, int *pieces)
{
    enum { BYTES = 1 << 20 };
    static _Alignas(64) char src[BYTES], dst[BYTES];
    const int64_t simd = machine_get()->value[MACHINE_SIMD];
    const plan_transpose_mode modes[] = {TRANSPOSE_WARM, TRANSPOSE_COLD, TRANSPOSE_STREAM,
                                         TRANSPOSE_STREAM_COLD};
    int streamed = 0;
    for (int trial = 0; trial < 600; trial++) {
        state = (uint64_t)trial * 0xD1B54A32D192ED03ull + 7;
        const int64_t elem = (int64_t[]){4, 8, 16}[trial % 3];
        /* shuffles of 32 bytes with AVX2 alone and with AVX-512's instructions (floats: the
         * AVX-512VL walk), and of 64 */
        const int64_t combo = trial / 3 % 3;
        const int64_t width = combo < 2 ? MACHINE_SIMD_AVX2 : MACHINE_SIMD_AVX512;
        const int64_t isa = combo == 0 ? MACHINE_SIMD_AVX2 : MACHINE_SIMD_AVX512;
        plan_transpose_fn transpose = isa <= simd ? kernel_transpose_for(elem, isa, width) : NULL;
        if (!transpose)
            continue;
        const plan_transpose_mode mode = modes[trial / 6 % 4];
        const int64_t rows = pick(16, 80), cols = pick(16, 80), lined = pick(0, 3);
        /* source rows of `cols` elements, output rows of `rows`; whole lines, quarter lines
         * more (lined == 3), or a few elements more */
        const int64_t more = lined == 3 ? 16 * pick(1, 3) : lined ? 0 : elem * pick(1, 5);
        const int64_t sp = (cols * elem + 63) / 64 * 64 + (lined ? 0 : elem * pick(1, 5));
        const int64_t dp = (rows * elem + 63) / 64 * 64 + more;
        const int64_t shift = lined == 3 ? 16 * pick(0, 3)
                              : lined || pick(0, 1) ? 0
                                                    : elem * pick(1, 3) + (pick(0, 7) == 0);
        if (rows * sp > BYTES || cols * dp + shift > BYTES)
            continue;
        /* one call in four writes its output columns going down (an unpack into a layout of
         * negative stride): the last column first in memory */
        const bool reversed = pick(0, 3) == 0;
        char *const base = dst + shift + (reversed ? (cols - 1) * dp : 0);
        const int64_t pitch = reversed ? -dp : dp;
        for (int64_t i = 0; i < rows * sp; i++)
            src[i] = (char)(i * 7 + trial);
        memset(dst, 0x3C, (size_t)(cols * dp + shift));
        transpose(src, sp, base, pitch, rows, cols, pick(0, 1) ? 16 : 64, mode);
        const bool streaming = mode == TRANSPOSE_STREAM || mode == TRANSPOSE_STREAM_COLD;
        streamed += streaming && dp % 64 == 0 && shift == 0;
        const bool composing = streaming && width == MACHINE_SIMD_AVX2 && dp % 64 != 0 &&
                               dp % 4 == 0 && shift % 4 == 0;
        *composed += composing;
        *pieces += composing && dp % 16 != 0;
        bool right = true, fenced = true;
        for (int64_t c = 0; c < cols && right && fenced; c++) {
            const char *out = base + c * pitch;
            for (int64_t r = 0; r < rows && right; r++)
                right = memcmp(out + r * elem, src + r * sp + c * elem, (size_t)elem) == 0;
            for (int64_t b = rows * elem; b < dp && fenced; b++)
                fenced = out[b] == 0x3C;
        }
        CHECK(right);
        CHECK(fenced);
        if (!right || !fenced)
            fprintf(stderr, "  transpose of %lld-byte elements, %lld-byte shuffles (SIMD %lld), "
                            "mode %d: %lld x %lld, pitches %lld and %lld, destination +%lld\n",
                    (long long)elem, (long long)width, (long long)isa, (int)mode, (long long)rows,
                    (long long)cols, (long long)sp, (long long)pitch, (long long)shift);
    }
    return streamed;
}


/* Strided packs of blocks of 65 bytes to a few KiB past the streaming threshold, from a typed
 * side out of the caches (every other call) or in them: blocks of 128 bytes and more store
 * the lines they cover whole non-temporally (strided.c's copy_streamed), at any alignment of
 * the packed buffer, the others are copied forward (or by memcpy from the caches); the plans
 * of main() reach that combination only now and then.
 * Each packed byte checked, and nothing written past the end. Returns how many calls had
 * blocks of 128 bytes or more past the threshold. */
static int check_strided_streamed(void)
{
    enum { BYTES = 1 << 20 };
    static _Alignas(64) char typed[BYTES], got[BYTES + 64], want[BYTES];
    machine m = *machine_get();
    m.value[MACHINE_STREAM] = 4096;
    m.value[MACHINE_L2] = 1024; /* probed from 256 bytes */
    int streamable = 0;
    for (int trial = 0; trial < 120; trial++) {
        state = (uint64_t)trial * 0xA0761D6478BD642Full + 3;
        const int64_t block = (int64_t[]){128, 192, 1024, 2048, 130, 200, 65, 100}[trial % 8];
        const int64_t stride = block + (trial / 8 % 2 ? 4096 : 64 * pick(1, 3)) + pick(0, 1) * 8;
        const int64_t n = pick(8, 60), shift = trial / 16 % 2 ? 0 : pick(1, 63);
        if (n * stride > BYTES)
            continue;
        ir_arena a;
        ir_arena_init(&a, 1 << 16);
        const ir_node *raw = ir_loop(&a, 0, n, stride, ir_block(&a, 0, block));
        plan p;
        plan_build(norm_tree(&a, raw), raw->size, raw->size, &m, &a, &p);
        kernel_select(&p);
        for (int64_t i = 0; i < n * stride; i++)
            typed[i] = (char)(i * 13 + trial);
        for (int64_t i = 0; i < n; i++)
            memcpy(want + i * block, typed + i * stride, (size_t)block);
        memset(got, 0x3C, sizeof got);
        flush_some(trial % 2, typed, n * stride); /* flushes when given 1 */
        p.pack(&p, typed, 1, got + shift);
        streamable += block >= 128 && n * block > m.value[MACHINE_STREAM];
        const bool right = memcmp(want, got + shift, (size_t)(n * block)) == 0;
        bool fenced = true;
        for (int64_t b = 0; b < 64 && fenced; b++)
            fenced = got[shift + n * block + b] == 0x3C && (b >= shift || got[b] == 0x3C);
        CHECK(right);
        CHECK(fenced);
        if (!right || !fenced)
            fprintf(stderr, "  strided pack of %lld blocks of %lld bytes %lld apart, +%lld: %s\n",
                    (long long)n, (long long)block, (long long)stride, (long long)shift,
                    p.kernel_name);
        ir_arena_free(&a);
    }
    return streamable;
}

int main(void)
{
    static _Alignas(64) char typed[SPAN], want[SPAN], got[SPAN], covered[SPAN], restored[SPAN];
    int kinds[4] = {0}, blocked = 0, transposed = 0, streamed = 0, records = 0, cut = 0;
    int far_apart = 0; /* plain strided walks of small blocks at least 2 KiB apart */
    int grouped = 0;   /* plain strided packs into 32-byte stores, with blocks left over */
    int lists_runs = 0, lists_prefetched = 0; /* lists of several runs; with runs prefetched */
    int lists_streamed = 0; /* list packs past the streaming threshold with a run it can stream */
    const int64_t simd = machine_get()->value[MACHINE_SIMD];
    machine tiny = *machine_get();
    tiny.value[MACHINE_PAGE] = 64;
    tiny.value[MACHINE_TLB] = 4;
    tiny.value[MACHINE_LINE] = 16;
    tiny.value[MACHINE_STREAM] = 1024; /* small outputs are streamed too */
    tiny.value[MACHINE_L2] = 16;       /* lists spread over 64 bytes are prefetched */
    for (int trial = 0; trial < 20000; trial++) {
        state = (uint64_t)trial * 0x9E3779B97F4A7C15ull + 1;
        ir_arena a;
        ir_arena_init(&a, 1 << 22);
        const ir_node *raw = random_tree(&a, (int)pick(1, 4));
        int64_t extent = pick(0, 3) ? raw->size : pick(-32, 160);
        int64_t count = pick(0, 3) ? pick(1, 3) : pick(4, 40); /* sometimes many records */
        int64_t lo = 0, hi = 0; /* every instance inside the buffers */
        reach(raw, 0, &lo, &hi);
        reach(raw, (count - 1) * extent, &lo, &hi);
        if (raw->size * count > SPAN / 4 || ORIGIN + lo < 0 || ORIGIN + hi > SPAN) {
            ir_arena_free(&a);
            continue;
        }
        const ir_node *normal = norm_tree(&a, raw);
        CHECK(normal && normal->size == raw->size);
        /* a tiny machine (64-byte pages, 4 TLB entries) so that small layouts reach the
         * cache-blocked walk as well */
        /* each SIMD width this CPU runs, down to scalar */
        machine m = trial % 2 ? tiny : *machine_get();
        int64_t widths[] = {MACHINE_SIMD_SCALAR, MACHINE_SIMD_AVX2, MACHINE_SIMD_AVX512};
        m.value[MACHINE_SIMD] = widths[trial / 2 % 3] <= simd ? widths[trial / 2 % 3] : simd;
        /* transposes of doubles and floats in every register width up to it (the machine's may
         * be narrower) */
        m.value[MACHINE_SHUFFLE] = trial % 7 ? m.value[MACHINE_SIMD] : MACHINE_SIMD_AVX2;
        plan p;
        plan_build(normal, raw->size, extent, &m, &a, &p);
        if (trial % 3 == 0) /* the 64-bit offsets, as when they do not fit an int32 */
            p.list.offs32 = NULL;
        kernel_select(&p);
        plan_strided s_count;
        plan_tiles tiles;
        plan_transpose tr;
        if (p.pack == kernel_records_pack && plan_records_walk(&p, count, &s_count))
            records++;
        plan_strided peeled;
        if (p.kind == PLAN_LIST && plan_strided_for_count(&p, 1, &peeled)) {
            const ir_node *inner = normal;
            while (inner->kind == IR_LOOP)
                inner = inner->u.loop.child;
            cut += inner->kind == IR_LIST && inner->u.list.n != p.list.n; /* cut into equal blocks */
        }
        if (p.kind == PLAN_STRIDED && plan_strided_for_count(&p, count, &s_count)) {
            if (plan_transpose_for(&p, &s_count, &tr)) {
                transposed++;
                streamed += tr.stream;
            } else if (plan_tiles_for(&s_count, p.page_size, p.tlb_entries, p.line_size, &tiles))
                blocked++;
            else if (s_count.ndims > 0) {
                const int64_t n = s_count.count[s_count.ndims - 1];
                far_apart += s_count.block <= 256 &&
                             llabs(s_count.stride[s_count.ndims - 1]) >= 2048 && n > 4;
                grouped += p.pack != kernel_strided_pack_for(s_count.block, MACHINE_SIMD_SCALAR) &&
                           n > 8 && n % 8 != 0;
            }
        }
        kinds[p.kind]++;
        if (p.kind == PLAN_LIST) {
            lists_runs += p.list.runs > 1;
            bool prefetched = p.list.runs == 0 && p.list.ahead > 0;
            for (int r = 0; r < p.list.runs; r++)
                prefetched = prefetched || p.list.run[r].ahead > 0;
            lists_prefetched += prefetched;
            bool streamable = false;
            for (int r = 0; r < p.list.runs; r++)
                streamable = streamable || p.list.run[r].len % 4 == 0;
            lists_streamed += p.pack == kernel_list_pack && streamable &&
                              raw->size * count > p.stream_bytes;
        }

        for (int i = 0; i < SPAN; i++)
            typed[i] = (char)(i * 131 + trial);
        char *out = want;
        for (int64_t i = 0; i < count; i++)
            reference(raw, typed + ORIGIN + i * extent, &out);
        /* packed buffers at any alignment, and line-aligned in a quarter of the trials
         * (streamed stores need aligned lines: there the transposes of 16-byte elements
         * stream too) */
        char *packed = got + (pick(0, 3) ? pick(0, 15) : 0);
        memset(got, 0x77, SPAN); /* not 0: shuffles write zeros where they have no byte */
        flush_some(trial, typed, SPAN);
        flush_some(trial, got, SPAN);
        p.pack(&p, typed + ORIGIN, count, packed);
        const int64_t bytes = raw->size * count;
        bool same = memcmp(want, packed, (size_t)bytes) == 0;
        CHECK(same);
        /* nothing written around the packed bytes (wide stores must stop at the end) */
        bool fenced = true;
        for (char *at = got; at < packed + bytes + 64 && fenced; at++)
            fenced = (at >= packed && at < packed + bytes) || *at == 0x77;
        CHECK(fenced);
        if (!same) {
            char text[512];
            ir_format(raw, text, sizeof text);
            fprintf(stderr, "  trial %d count %lld extent %lld raw %s\n", trial, (long long)count,
                    (long long)extent, text);
            ir_format(normal, text, sizeof text);
            fprintf(stderr, "  normal %s kernel %s\n", text, p.kernel_name);
        }

        /* unpack into a fresh buffer: covered bytes come back, the rest stays as it was.
         * (Only for layouts without overlap, where unpack is defined.) */
        memset(covered, 0, SPAN);
        for (int64_t i = 0; i < count; i++)
            mark(raw, covered + ORIGIN + i * extent);
        int64_t covered_bytes = 0;
        for (int i = 0; i < SPAN; i++)
            covered_bytes += covered[i];
        if (covered_bytes == raw->size * count) {
            /* from a buffer of exactly the packed bytes: in sanitizer builds, a wide load
             * past the end is an error */
            char *exact_packed = malloc((size_t)bytes + 1);
            memcpy(exact_packed, packed, (size_t)bytes);
            memset(restored, 0x5A, SPAN);
            flush_some(trial, restored, SPAN);
            p.unpack(&p, restored + ORIGIN, count, exact_packed);
            free(exact_packed);
            bool exact = true;
            for (int i = 0; i < SPAN && exact; i++)
                exact = restored[i] == (covered[i] ? typed[i] : 0x5A);
            CHECK(exact);
        }
        ir_arena_free(&a);
    }
    int transposes_composed = 0, composed_in_pieces = 0;
    const int transposes_streamed =
        check_transpose_kernels(&transposes_composed, &composed_in_pieces);
    printf("test_kernels: %d direct calls of the transposing kernels streamed, %d more into "
           "rows part way into a line (composed by the AVX2 kernels; %d at pitches no multiple "
           "of 16 B)\n",
           transposes_streamed, transposes_composed, composed_in_pieces);
    /* without AVX-512 the trials of its kernels (two in three) do not run: the AVX2 kernel's
     * composed rows come from one combination in three instead of two */
    if (simd >= MACHINE_SIMD_AVX512)
        CHECK(transposes_streamed > 30 && transposes_composed > 40 && composed_in_pieces > 8);
    else if (simd >= MACHINE_SIMD_AVX2)
        CHECK(transposes_streamed > 30 && transposes_composed > 20 && composed_in_pieces > 3);
    printf("test_kernels: plans contiguous %d, strided %d (%d cache-blocked, %d SIMD-transposed, "
           "%d of them streamed, %d far apart, %d grouped), list %d (%d as records, %d cut into equal blocks, "
           "%d of several runs, %d prefetched, %d streamed), tree %d; SIMD up to %lld bytes\n",
           kinds[PLAN_CONTIG], kinds[PLAN_STRIDED], blocked, transposed, streamed, far_apart,
           grouped, kinds[PLAN_LIST], records, cut, lists_runs, lists_prefetched, lists_streamed,
           kinds[PLAN_TREE],
           (long long)simd);
    CHECK(blocked > 100 && cut > 20 && far_apart > 100 && lists_runs > 100 &&
          lists_prefetched > 100);
#if defined(__x86_64__) /* streamed stores only there */
    CHECK(lists_streamed > 50);
    const int strided_streamed = check_strided_streamed();
    printf("test_kernels: %d strided packs of blocks of 128 B or more past the streaming "
           "threshold\n", strided_streamed);
    if (simd >= MACHINE_SIMD_AVX512) /* copy_streamed is AVX-512 */
        CHECK(strided_streamed > 20);
#endif
    if (simd >= MACHINE_SIMD_AVX2) /* no transposing kernel without SIMD */
        CHECK(transposed > 100 && streamed > 20 && records > 100 && grouped > 100);
    /* every kernel is reached, so every kernel is checked */
    CHECK(kinds[PLAN_CONTIG] > 100 && kinds[PLAN_STRIDED] > 100 && kinds[PLAN_LIST] > 100 &&
          kinds[PLAN_TREE] > 100);
    return check_summary("test_kernels");
}
