/* Each normalization pass on hand-built trees: what it rewrites, and what it must leave. */
#include "../check.h"
#include "base/ir.h"
#include "normalize/normalize.h"

static ir_arena A;

static const char *fmt(const ir_node *n)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    ir_format(n, buf[k], sizeof buf[k]);
    return buf[k];
}

static const ir_node *B(int64_t off, int64_t len) { return ir_block(&A, off, len); }
static const ir_node *L(int64_t off, int64_t n, int64_t s, const ir_node *c) { return ir_loop(&A, off, n, s, c); }
static const ir_node *S(int64_t off, int n, const ir_node *a, const ir_node *b, const ir_node *c,
                        const ir_node *d)
{
    const ir_node **items = ir_arena_alloc(&A, sizeof *items * 4);
    const ir_node *all[4] = {a, b, c, d};
    for (int i = 0; i < 4; i++)
        items[i] = all[i];
    return ir_seq(&A, off, n, items);
}

/* Run one pass; return the result's rendering and whether the pass claimed a change. */
static const char *apply(norm_pass pass, const ir_node *n, bool *changed)
{
    *changed = pass(&A, &n);
    return fmt(n);
}

static void test_drop_empty(void)
{
    bool ch;
    CHECK_STR(apply(norm_drop_empty, B(4, 0), &ch), "seq[]@0");
    CHECK(ch);
    CHECK_STR(apply(norm_drop_empty, L(0, 3, 8, B(0, 0)), &ch), "seq[]@0");
    CHECK_STR(apply(norm_drop_empty, L(0, 0, 8, B(0, 4)), &ch), "seq[]@0");
    CHECK_STR(apply(norm_drop_empty, S(0, 3, B(0, 4), B(8, 0), B(16, 4), NULL), &ch),
              "seq[block(4)@0,block(4)@16]@0");
    CHECK_STR(apply(norm_drop_empty, B(0, 4), &ch), "block(4)@0");
    CHECK(!ch);
}

static void test_unit_loop(void)
{
    bool ch;
    CHECK_STR(apply(norm_unit_loop, L(10, 1, 100, B(4, 8)), &ch), "block(8)@14");
    CHECK(ch);
    CHECK_STR(apply(norm_unit_loop, L(10, 2, 100, B(4, 8)), &ch), "loop(2,+100)[block(8)@4]@10");
    CHECK(!ch);
}

static void test_fold_contiguous(void)
{
    bool ch;
    CHECK_STR(apply(norm_fold_contiguous, L(16, 4, 8, B(2, 8)), &ch), "block(32)@18");
    CHECK(ch);
    CHECK_STR(apply(norm_fold_contiguous, L(0, 4, 16, B(0, 8)), &ch), "loop(4,+16)[block(8)@0]@0");
    CHECK(!ch);
    /* a negative stride walks backwards: never contiguous in packed order */
    CHECK_STR(apply(norm_fold_contiguous, L(0, 2, -8, B(0, 8)), &ch), "loop(2,-8)[block(8)@0]@0");
    CHECK(!ch);
}

static void test_merge_loops(void)
{
    bool ch;
    CHECK_STR(apply(norm_merge_loops, L(8, 3, 64, L(4, 4, 16, B(0, 8))), &ch),
              "loop(12,+16)[block(8)@0]@12");
    CHECK(ch);
    CHECK_STR(apply(norm_merge_loops, L(0, 3, 80, L(0, 4, 16, B(0, 8))), &ch),
              "loop(3,+80)[loop(4,+16)[block(8)@0]@0]@0");
    CHECK(!ch);
}

static void test_seq_single_and_splice(void)
{
    bool ch;
    CHECK_STR(apply(norm_seq_single, S(4, 1, B(8, 2), NULL, NULL, NULL), &ch), "block(2)@12");
    CHECK(ch);
    CHECK_STR(apply(norm_seq_splice, S(0, 2, B(0, 1), S(20, 2, B(0, 2), B(10, 3), NULL, NULL), NULL, NULL), &ch),
              "seq[block(1)@0,block(2)@20,block(3)@30]@0");
    CHECK(ch);
}

static void test_merge_blocks(void)
{
    bool ch;
    CHECK_STR(apply(norm_seq_merge_blocks, S(0, 3, B(0, 4), B(4, 4), B(16, 8), NULL), &ch),
              "seq[block(8)@0,block(8)@16]@0");
    CHECK(ch);
    /* out of order blocks are not adjacent in packed order */
    CHECK_STR(apply(norm_seq_merge_blocks, S(0, 2, B(4, 4), B(0, 4), NULL, NULL), &ch),
              "seq[block(4)@4,block(4)@0]@0");
    CHECK(!ch);
}

static void test_seq_to_loop(void)
{
    bool ch;
    CHECK_STR(apply(norm_seq_to_loop, S(0, 3, B(0, 4), B(12, 4), B(24, 4), NULL), &ch),
              "loop(3,+12)[block(4)@0]@0");
    CHECK(ch);
    /* order is the packed order: a descending run becomes a negative stride */
    CHECK_STR(apply(norm_seq_to_loop, S(0, 2, B(8, 4), B(0, 4), NULL, NULL), &ch),
              "loop(2,-8)[block(4)@0]@8");
    CHECK_STR(apply(norm_seq_to_loop, S(0, 3, B(0, 4), B(12, 4), B(24, 8), NULL), &ch),
              "seq[block(4)@0,block(4)@12,block(8)@24]@0");
    CHECK(!ch);
    /* a long run inside a mixed SEQ becomes a loop item, short runs stay items */
    const ir_node **items = ir_arena_alloc(&A, sizeof *items * 6);
    items[0] = L(100, 2, 50, B(0, 2));
    for (int i = 0; i < 4; i++)
        items[1 + i] = B(i * 10, 2);
    items[5] = B(200, 2);
    CHECK_STR(apply(norm_seq_to_loop, ir_seq(&A, 0, 6, items), &ch),
              "seq[loop(2,+50)[block(2)@0]@100,loop(4,+10)[block(2)@0]@0,block(2)@200]@0");
    /* among plain blocks partial runs are left alone: a list is faster */
    items[0] = B(100, 2);
    CHECK_STR(apply(norm_seq_to_loop, ir_seq(&A, 0, 6, items), &ch),
              "seq[block(2)@100,block(2)@0,block(2)@10,block(2)@20,block(2)@30,block(2)@200]@0");
    CHECK(!ch);
}

static const ir_node *LST(int64_t off, int n, const int64_t *offs, const int64_t *lens)
{
    int64_t *o = ir_arena_alloc(&A, sizeof *o * (size_t)n), *l = ir_arena_alloc(&A, sizeof *l * (size_t)n);
    memcpy(o, offs, sizeof *o * (size_t)n);
    memcpy(l, lens, sizeof *l * (size_t)n);
    return ir_list(&A, off, n, o, l);
}

static void test_lists(void)
{
    bool ch;
    /* blocks and lists in a SEQ become one list, in order */
    const ir_node *inner = LST(100, 2, (int64_t[]){0, 8}, (int64_t[]){4, 4});
    CHECK_STR(apply(norm_seq_to_list, S(0, 2, B(40, 2), inner, NULL, NULL), &ch),
              "list[2@40,4@100,4@108]@0");
    CHECK(ch);
    CHECK_STR(apply(norm_seq_to_list, S(0, 2, B(0, 2), L(8, 2, 8, B(0, 4)), NULL, NULL), &ch),
              "seq[block(2)@0,loop(2,+8)[block(4)@0]@8]@0");
    CHECK(!ch);
    /* empty entries go, back-to-back entries merge, out-of-order ones do not */
    CHECK_STR(apply(norm_list_merge, LST(0, 5, (int64_t[]){0, 4, 9, 20, 16}, (int64_t[]){4, 4, 0, 4, 4}), &ch),
              "list[8@0,4@20,4@16]@0");
    CHECK(ch);
    CHECK_STR(apply(norm_list_merge, LST(0, 2, (int64_t[]){8, 0}, (int64_t[]){8, 8}), &ch),
              "list[8@8,8@0]@0");
    CHECK(!ch);
    /* regular lists are loops; one entry is a block */
    CHECK_STR(apply(norm_list_to_loop, LST(4, 3, (int64_t[]){0, 24, 48}, (int64_t[]){8, 8, 8}), &ch),
              "loop(3,+24)[block(8)@0]@4");
    CHECK_STR(apply(norm_list_to_loop, LST(4, 1, (int64_t[]){10}, (int64_t[]){3}), &ch), "block(3)@14");
    CHECK_STR(apply(norm_list_to_loop, LST(0, 3, (int64_t[]){0, 24, 40}, (int64_t[]){8, 8, 8}), &ch),
              "list[8@0,8@24,8@40]@0");
    CHECK(!ch);
}

static void test_tree(void)
{
    /* MPI_Type_vector(3, 2, 4, MPI_INT) */
    const ir_node *vec = L(0, 3, 16, L(0, 2, 4, B(0, 4)));
    CHECK_STR(fmt(norm_tree(&A, vec)), "loop(3,+16)[block(8)@0]@0");
    /* contiguous(4, contiguous(2, int)) is one block */
    CHECK_STR(fmt(norm_tree(&A, L(0, 4, 8, L(0, 2, 4, B(0, 4))))), "block(32)@0");
    /* struct {int @0, int @4, double @8} is one block; regular blocks are a vector; irregular
     * blocks a list */
    CHECK_STR(fmt(norm_tree(&A, S(0, 3, B(0, 4), B(4, 4), L(8, 1, 8, B(0, 8)), NULL))), "block(16)@0");
    CHECK_STR(fmt(norm_tree(&A, S(0, 4, B(0, 8), B(32, 8), B(64, 8), B(96, 8)))),
              "loop(4,+32)[block(8)@0]@0");
    CHECK_STR(fmt(norm_tree(&A, S(0, 3, B(0, 8), B(40, 8), B(56, 4), NULL))),
              "list[8@0,8@40,4@56]@0");
    /* a shared child is normalized once and stays correct under both parents */
    const ir_node *shared = L(0, 2, 4, B(0, 4));
    const ir_node *two = S(0, 2, L(0, 1, 0, shared), L(100, 1, 0, shared), NULL, NULL);
    CHECK_STR(fmt(norm_tree(&A, two)), "loop(2,+100)[block(8)@0]@0");
}

int main(void)
{
    ir_arena_init(&A, 1 << 24);
    test_drop_empty();
    test_unit_loop();
    test_fold_contiguous();
    test_merge_loops();
    test_seq_single_and_splice();
    test_merge_blocks();
    test_seq_to_loop();
    test_lists();
    test_tree();
    ir_arena_free(&A);
    return check_summary("test_normalize");
}
