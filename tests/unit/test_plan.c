/* The planner's TLB model (Byna et al. 2003, sec. 5.3) on captured machines: golden inputs, expected plans. */
#include "../check.h"
#include "base/units.h"
#include "plan/overlap.h"
#include "plan/plan.h"

/* Byna et al.'s Origin2000: 16 KiB pages, 64 fully-associative TLB entries, 128-byte L2
 * lines. */
static const int64_t PAGE = 16384, TLB = 64, LINE = 128;

/* the pack walk of an N x N transpose of doubles: columns outer (stride 8), rows inner */
static plan_strided transpose(int64_t n)
{
    plan_strided s = {.ndims = 2, .block = 8};
    s.count[0] = n, s.stride[0] = 8;
    s.count[1] = n, s.stride[1] = 8 * n;
    return s;
}

static void test_pages_touched(void)
{
    /* P_s >= S: n / floor(P_s / S) */
    CHECK(plan_pages_touched(8, 4096, 512, PAGE) == 128);
    CHECK(plan_pages_touched(8, 2048, 256, PAGE) == 32);
    CHECK(plan_pages_touched(8, -4096, 512, PAGE) == 128); /* direction does not matter */
    /* P_s < S: n * ceil(W / P_s) */
    CHECK(plan_pages_touched(8, 32768, 100, PAGE) == 100);
    CHECK(plan_pages_touched(20000, 32768, 10, PAGE) == 20);
}

static void test_transpose_threshold(void)
{
    plan_tiles t;
    /* The paper: the transpose needs more pages than TLB entries "for arrays of size larger
     * than 512*512". The formula puts the threshold near 340^2 (R_p = N / floor(2048 / N)
     * reaches 64 at N = 342); at the sizes the paper names it agrees: 256^2 fits, 512^2 does
     * not. */
    plan_strided small = transpose(256), large = transpose(512);
    CHECK(!plan_tiles_for(&small, PAGE, TLB, LINE, &t) && t.pages_touched == 32);
    CHECK(plan_tiles_for(&large, PAGE, TLB, LINE, &t) && t.pages_touched == 128);
    /* half the TLB for the block: 32 pages of 4 rows each; columns to fill a 128-byte line */
    CHECK(t.rows == 32 * 4 && t.cols == 16);
    /* 4 KiB pages, 64 entries, 64-byte lines (this kind of VM): 1024^2 blocks 32 rows x 8 */
    plan_strided x86 = transpose(1024);
    CHECK(plan_tiles_for(&x86, 4096, 64, 64, &t) && t.rows == 32 && t.cols == 8);
}

/* Streamed strips: at most 4 output rows per line offset the rows take in turn, never fewer
 * than 64 rows. */
static void test_strip_lines(void)
{
    CHECK(plan_transpose_strip_lines(TRANSPOSE_STREAM_COLD, 4, 4096) == 4);  /* 1024 floats */
    CHECK(plan_transpose_strip_lines(TRANSPOSE_STREAM_COLD, 8, 8192) == 8);  /* 1024 doubles */
    CHECK(plan_transpose_strip_lines(TRANSPOSE_STREAM_COLD, 16, 16384) == 16); /* complex */
    CHECK(plan_transpose_strip_lines(TRANSPOSE_STREAM_COLD, 4, 2048) == 4);  /* 2 offsets */
    CHECK(plan_transpose_strip_lines(TRANSPOSE_STREAM_COLD, 4, 1536) == 4);  /* 8 */
    CHECK(plan_transpose_strip_lines(TRANSPOSE_STREAM_COLD, 4, 256 * 17) == 4); /* 16 */
    CHECK(plan_transpose_strip_lines(TRANSPOSE_STREAM_COLD, 4, 128 * 33) == 8); /* 32 */
    CHECK(plan_transpose_strip_lines(TRANSPOSE_STREAM_COLD, 8, 8064) == 16); /* 1008 doubles */
    CHECK(plan_transpose_strip_lines(TRANSPOSE_STREAM_COLD, 4, 4032) == 16); /* 1008 floats */
    CHECK(plan_transpose_strip_lines(TRANSPOSE_STREAM_COLD, 4, 4000) == 16); /* part lines */
    CHECK(plan_transpose_strip_lines(TRANSPOSE_STREAM_COLD, 4, -4096) == 4);
    CHECK(plan_transpose_strip_lines(TRANSPOSE_STREAM_COLD, 4, 0) == 4);
    CHECK(plan_transpose_strip_lines(TRANSPOSE_STREAM, 4, 4096) == 4);
    CHECK(plan_transpose_strip_lines(TRANSPOSE_STREAM, 8, 4032) == 4);
    CHECK(plan_transpose_strip_lines(TRANSPOSE_WARM, 4, 4096) == 1);
    CHECK(plan_transpose_strip_lines(TRANSPOSE_COLD, 8, 8192) == 1);
}

static void no_transpose(const char *src, int64_t sp, char *dst, int64_t dp, int64_t rows,
                         int64_t cols, int64_t tile, plan_transpose_mode mode)
{
    (void)src, (void)sp, (void)dst, (void)dp, (void)rows, (void)cols, (void)tile, (void)mode;
}

static void test_transpose_tiles(void)
{
    /* 4 KiB pages, 1536 second-level TLB entries, 2 KiB tile rows (the AMD EPYC VM) */
    plan p = {.page_size = 4096, .tlb_entries = 72, .stlb_entries = 1536, .line_size = 64,
              .stream_bytes = 2 << 20, .l2_bytes = 1 << 20, .tile_bytes = 2048,
              .transpose = no_transpose};
    plan_transpose t;
    plan_strided doubles = transpose(4096);
    CHECK(plan_transpose_for(&p, &doubles, &t) && t.tile == 256 && t.bound == TILE_ROW_BYTES);
    /* streamed: strips of 8 lines, 64 doubles (the packed rows, 32 KiB apart, share their page
     * offset); a strip's band rows are a page each, and so are its 64 output rows */
    CHECK(t.tile_pages == 256 + 64 && t.stream && !t.probe);
    plan_strided floats = transpose(4096);
    floats.block = floats.stride[0] = 4, floats.stride[1] = 4 * 4096;
    CHECK(plan_transpose_for(&p, &floats, &t) && t.tile == 512 && t.bound == TILE_ROW_BYTES);
    /* a small second-level TLB halves the band until a strip's pages fit: 32 rows in, 64
     * out */
    p.stlb_entries = 96;
    CHECK(plan_transpose_for(&p, &doubles, &t) && t.tile == 32 && t.bound == TILE_STLB);
    CHECK(t.tile_pages == 96);
    /* a 48 x 48 matrix needs no band past 64 rows; below the streaming threshold */
    p.stlb_entries = 1536;
    plan_strided small = transpose(48);
    CHECK(plan_transpose_for(&p, &small, &t) && t.tile == 64 && t.bound == TILE_MATRIX);
    CHECK(!t.stream && !t.probe);
    /* from a quarter of the L2 to the streaming threshold, the destination and the source
     * decide at the call: 384^2 doubles (1.2 MB) and 256^2 (0.5 MB) probe them, 181^2
     * (262,088 B) is below a quarter and stores cached */
    plan_strided mid = transpose(384), fits = transpose(256), quarter = transpose(181);
    CHECK(plan_transpose_for(&p, &mid, &t) && !t.stream && t.probe);
    CHECK(plan_transpose_for(&p, &fits, &t) && !t.stream && t.probe);
    CHECK(plan_transpose_for(&p, &quarter, &t) && !t.stream && !t.probe);
    CHECK(plan_transpose_for(&p, &doubles, &t) && t.stream && !t.probe);
    /* rows of 1 KiB: 128 doubles */
    p.tile_bytes = 1024;
    CHECK(plan_transpose_for(&p, &doubles, &t) && t.tile == 128);
}

static void test_no_blocking_in_order(void)
{
    plan_tiles t;
    /* row-major copy of a submatrix: inner steps are the fine ones, memory order already */
    plan_strided rows = {.ndims = 2, .block = 8};
    rows.count[0] = 4096, rows.stride[0] = 8 * 8192;
    rows.count[1] = 64, rows.stride[1] = 8;
    CHECK(!plan_tiles_for(&rows, 4096, 64, 64, &t));
    /* one dimension: nothing to reorder */
    plan_strided column = {.ndims = 1, .block = 8};
    column.count[0] = 1 << 20, column.stride[0] = 8192;
    CHECK(!plan_tiles_for(&column, 4096, 64, 64, &t));
}

/* ddtbench's fft2d type: c columns of c elements of `elem` bytes in rows of `dim` elements,
 * one instance c elements wide */
static const ir_node *fft2d(ir_arena *a, int64_t dim, int64_t c, int64_t elem)
{
    return ir_loop(a, 0, c, elem, ir_loop(a, 0, c, dim * elem, ir_block(a, 0, elem)));
}

static void test_overlap(void)
{
    ir_arena a;
    ir_arena_init(&a, 1 << 20);
    /* the transpose and its count: instances c elements apart meet once c * k reaches a row
     * (dim), k being the count of instances that stay apart */
    CHECK(overlap_instance_disjoint(fft2d(&a, 256, 128, 16)));
    CHECK(overlap_disjoint_count(fft2d(&a, 256, 128, 16), 128 * 16) == 2);
    CHECK(overlap_disjoint_count(fft2d(&a, 256, 64, 8), 64 * 8) == 4);
    CHECK(overlap_disjoint_count(fft2d(&a, 250, 64, 8), 64 * 8) == 3);
    CHECK(overlap_disjoint_count(fft2d(&a, 256, 64, 8), -64 * 8) == 4); /* either direction */
    /* wider than a row: columns wrap onto the next row inside one instance */
    CHECK(!overlap_instance_disjoint(fft2d(&a, 100, 128, 8)));
    /* an instance that fits its extent never meets the next; a zero extent always does */
    const ir_node *row = ir_loop(&a, 0, 4, 32, ir_block(&a, 0, 8));
    CHECK(overlap_disjoint_count(row, 128) == INT64_MAX);
    CHECK(overlap_disjoint_count(row, 0) == 1);
    /* interleaved without meeting: 4 doubles every 32 bytes, instances 8 bytes apart */
    CHECK(overlap_disjoint_count(row, 8) == 4);
    /* a vector whose stride is shorter than its block; a list naming bytes twice */
    CHECK(!overlap_instance_disjoint(ir_loop(&a, 0, 6, 12, ir_block(&a, 0, 16))));
    int64_t offs[3] = {0, 40, 8}, lens[3] = {16, 8, 8};
    CHECK(!overlap_instance_disjoint(ir_list(&a, 0, 3, offs, lens)));
    offs[2] = 16;
    CHECK(overlap_instance_disjoint(ir_list(&a, 0, 3, offs, lens)));
    /* the analytic test on a strided walk: dims sorted by stride, each past the inner ones */
    plan_strided s = transpose(1024);
    CHECK(overlap_strided_disjoint(&s));
    s.count[0] = 1025; /* one column too many: wraps onto the next row */
    CHECK(!overlap_strided_disjoint(&s));
    ir_arena_free(&a);
}

/* Particles whose neighbours were merged into one longer block are cut back into equal
 * blocks (one more block in eight at most), so that the list kernel runs with a fixed length. */
static void test_list_uniform(void)
{
    ir_arena a;
    ir_arena_init(&a, 1 << 20);
    machine m = *machine_get();
    int64_t offs[9] = {480, 24, 960, 120, 0, 720, 2400, 48 * 20, 4800};
    int64_t lens[9] = {24, 24, 24, 48, 24, 24, 24, 24, 24};
    offs[7] = 1200;
    plan p;
    plan_build(ir_list(&a, 0, 9, offs, lens), 9 * 24 + 24, 4824, &m, &a, &p);
    CHECK(p.kind == PLAN_LIST && p.list.same_len == 24 && p.list.n == 10);
    CHECK(p.list.offs[3] == 120 && p.list.offs[4] == 144 && p.list.offs[5] == 0);
    /* two blocks in nine twice as long: too many more blocks, the lengths stay */
    lens[5] = 48;
    plan_build(ir_list(&a, 0, 9, offs, lens), 9 * 24 + 48, 4824, &m, &a, &p);
    CHECK(p.kind == PLAN_LIST && p.list.same_len == 0 && p.list.n == 9 && p.list.mean_len == 29);
    /* a length that is no multiple of the shortest */
    lens[5] = 36;
    plan_build(ir_list(&a, 0, 9, offs, lens), 9 * 24 + 36, 4824, &m, &a, &p);
    CHECK(p.list.same_len == 0 && p.list.n == 9);
    /* without an arena the plan keeps the list */
    lens[5] = 24;
    plan_build(ir_list(&a, 0, 9, offs, lens), 9 * 24 + 24, 4824, &m, NULL, &p);
    CHECK(p.list.same_len == 0 && p.list.n == 9);
    ir_arena_free(&a);
}

/* How far the list kernel prefetches (plan_prefetch_distance): not at all within 4 L2s, 3 KiB
 * of blocks (128 at most) past them, twice that where the blocks' pages fit the STLB. */
static void test_list_prefetch(void)
{
    enum { N = 2048 };
    ir_arena a;
    ir_arena_init(&a, 1 << 20);
    machine m = *machine_get();
    m.value[MACHINE_PAGE] = 4096;
    m.value[MACHINE_L2] = 1 << 20;
    static int64_t offs[N], lens[N];
    for (int64_t len = 24; len <= 40; len += 16) {
        for (int i = 0; i < N; i++) { /* shuffled, 3 KiB apart: 6 MiB, 1537 pages */
            offs[i] = (int64_t)(i * 1031 % N) * 3072;
            lens[i] = len;
        }
        const int64_t deep = len == 24 ? 256 : 6144 / 40, shallow = len == 24 ? 128 : 3072 / 40;
        plan p;
        m.value[MACHINE_STLB] = 1537;
        plan_build(ir_list(&a, 0, N, offs, lens), N * len, N * 3072, &m, &a, &p);
        CHECK(p.kind == PLAN_LIST && p.list.runs == 1 && p.list.run[0].ahead == deep &&
              p.list.ahead == deep);
        m.value[MACHINE_STLB] = 1536;
        plan_build(ir_list(&a, 0, N, offs, lens), N * len, N * 3072, &m, &a, &p);
        CHECK(p.list.run[0].ahead == shallow && p.list.ahead == shallow);
        /* within 4 L2s: not prefetched */
        m.value[MACHINE_L2] = 2 << 20;
        plan_build(ir_list(&a, 0, N, offs, lens), N * len, N * 3072, &m, &a, &p);
        CHECK(p.list.run[0].ahead == 0 && p.list.ahead == 0);
        m.value[MACHINE_L2] = 1 << 20;
    }
    /* a short list looks at most half of itself ahead */
    CHECK(plan_prefetch_distance(24, 100, true) == 50 && plan_prefetch_distance(24, 4, true) == 4);
    ir_arena_free(&a);
}

static void test_sizes(void)
{
    int64_t v = -1;
    CHECK(units_parse_size("64", &v) && v == 64);
    CHECK(units_parse_size("48K\n", &v) && v == 48 << 10); /* as sysfs writes it */
    CHECK(units_parse_size("256M", &v) && v == 256 << 20);
    CHECK(units_parse_size("2g", &v) && v == INT64_C(2) << 30);
    v = 7;
    CHECK(!units_parse_size("lots", &v) && v == 7);
    CHECK(!units_parse_size("-1", &v) && !units_parse_size("1T", &v) && !units_parse_size("", &v));
    CHECK(!units_parse_size("9223372036854775807K", &v) && v == 7);
}

/* AMD's extended cpuid leaves as machine.c decodes them, from register values */
static void test_amd_tlb_leaves(void)
{
    int64_t tlb = -1, stlb = -1;
    /* an AMD EPYC (Zen 3) VM: 64 entries, fully associative; 2048, associativity code 6 */
    machine_amd_tlb_entries(0xff40ff40u, 0x68004200u, 0x19, &tlb, &stlb);
    CHECK(tlb == 64 && stlb == 2048);
    /* Intel leaves both EBX reserved, 0 */
    machine_amd_tlb_entries(0, 0, 0x6, &tlb, &stlb);
    CHECK(tlb == 0 && stlb == 0);
    /* sizes given with an associativity of 0: no such TLB */
    machine_amd_tlb_entries(0x00400000u, 0x08004200u, 0x19, &tlb, &stlb);
    CHECK(tlb == 0 && stlb == 0);
    /* the whole 12-bit second-level size field */
    machine_amd_tlb_entries(0xff40ff40u, 0x6c00a200u, 0x19, &tlb, &stlb);
    CHECK(tlb == 64 && stlb == 3072);
    /* the AMD EPYC Zen 5 VM: 96 entries, and a second level of 128, which no Zen core has:
     * Zen 5's 4096 instead; the same figures on another family leave the default */
    machine_amd_tlb_entries(0xff60ff40u, 0x60804040u, 0x1a, &tlb, &stlb);
    CHECK(tlb == 96 && stlb == 4096);
    machine_amd_tlb_entries(0xff60ff40u, 0x60804040u, 0x19, &tlb, &stlb);
    CHECK(tlb == 96 && stlb == 0);
    /* 4 times the first level is believed */
    machine_amd_tlb_entries(0xff60ff40u, 0x61804040u, 0x1a, &tlb, &stlb);
    CHECK(tlb == 96 && stlb == 384);
}

int main(void)
{
    test_amd_tlb_leaves();
    test_list_prefetch();
    test_sizes();
    test_overlap();
    test_list_uniform();
    test_pages_touched();
    test_transpose_threshold();
    test_transpose_tiles();
    test_strip_lines();
    test_no_blocking_in_order();
    return check_summary("test_plan");
}
