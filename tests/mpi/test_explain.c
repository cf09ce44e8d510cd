/* memcomm_type_explain says what the planner decided and why, from the TLB model's inputs.
 * Run with a fixed machine model (CTest sets MEMCOMM_PAGE_SIZE=4096, MEMCOMM_TLB_ENTRIES=64,
 * MEMCOMM_STLB_ENTRIES=256, MEMCOMM_TILE_BYTES=2K, MEMCOMM_LINE_SIZE=64) so the expected numbers
 * do not depend on the host. */
#include "../check.h"
#include "memcomm.h"
#include "recipe.h"

static char text[4096];

static const char *explain(MPI_Datatype t, MPI_Count count)
{
    if (memcomm_type_explain(t, count, text, sizeof text) < 0)
        snprintf(text, sizeof text, "(no explanation)");
    return text;
}

#define CHECK_SAYS(text, words)                                                                \
    do {                                                                                       \
        bool found_ = strstr((text), (words)) != NULL;                                         \
        CHECK(found_);                                                                         \
        if (!found_)                                                                           \
            fprintf(stderr, "  expected \"%s\" in:\n%s", (words), (text));                     \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* Byna et al.'s transpose: 1024 columns of a 1024 x 1024 matrix of doubles */
    MPI_Datatype transpose = recipe_transpose_column(1024);
    const char *t = explain(transpose, 1024);
    CHECK_SAYS(t, "canonical: loop(1024,+8192)[block(8)@0]@0");
    CHECK_SAYS(t, "dims [1024 x +8 B, 1024 x +8192 B], block 8 B");
    CHECK_SAYS(t, "access pattern: fixed block 8 B, fixed strides, out of order (transpose-like)");
    CHECK_SAYS(t, "W = 8 B, S = 8192 B, n = 1024, P_s = 4096 B -> R_p = 1024 pages >= T_p = 64");
    /* with SIMD registers, a register transpose; without, the paper's cache-blocked walk */
    char machine[1024];
    CHECK(memcomm_machine_json(machine, sizeof machine) > 0);
    if (strstr(machine, "\"SIMD_BYTES\": {\"value\": 8,")) {
        CHECK_SAYS(t, "kernel: blocked");
        CHECK_SAYS(t, "tiles of 32 rows (half the TLB) x 8 columns (one 64 B line)");
    } else {
        CHECK_SAYS(t, "kernel: transpose");
        /* 2 KiB rows would be bands of 256 doubles: a streamed strip is 8 lines wide (its
         * 64 packed rows, 8 KiB apart, share their page offset), 256 input pages and 64
         * output pages, halved to fit the 256 STLB entries */
        CHECK_SAYS(t, "bands of 128 rows: fewer than the machine's 2048 B tile row allows, so "
                      "that their 192 pages fit the second-level TLB (256 entries), each walked "
                      "in strips 8 input lines wide where the stores are streamed and a few "
                      "lines of both the source and the destination are found out of the caches "
                      "at the call, 4 where either is in, 1 with cached stores (output rows "
                      "that crowd few page offsets: 64 of them streamed at once)");
        CHECK_SAYS(t, "non-temporal stores");
        /* 64 x 64 doubles: one band holds the matrix; a strip of one line reads 64 rows 512 B
         * apart (8 pages) and fills 8 output rows (1 page) */
        MPI_Datatype small = recipe_transpose_column(64);
        CHECK_SAYS(explain(small, 64), "bands of 64 rows: the matrix needs no more (tile row "
                                       "2048 B), touching 9 pages");
        CHECK_SAYS(explain(small, 64), "cached stores: the call moves less than a quarter");
        /* 512 KiB (256 x 256 doubles) and 2 MiB (512 x 512), from a quarter of the 1 MiB L2
         * to the 4 MiB threshold: decided at the call */
        MPI_Datatype quarter = recipe_transpose_column(256), mid = recipe_transpose_column(512);
        const char *probed = "non-temporal stores if a few of the destination's lines are found "
                             "out of the caches at the call, else cached, with the source's "
                             "lines ahead prefetched if a few of them are out";
        CHECK_SAYS(explain(quarter, 256), probed);
        CHECK_SAYS(explain(mid, 512), probed);
        /* 1000 x 1000 floats: packed rows 4000 B apart, half a line off; every transposing
         * kernel composes their lines */
        MPI_Datatype column, floats;
        MPI_Type_vector(1000, 1, 1000, MPI_FLOAT, &column);
        MPI_Type_create_resized(column, 0, sizeof(float), &floats);
        MPI_Type_commit(&floats);
        CHECK_SAYS(explain(floats, 1000), "packed rows 4000 B apart start part way into a line: "
                                          "each line streamed is put together from two "
                                          "micro-tiles");
        CHECK(!strstr(explain(mid, 512), "part way")); /* 4096 B apart: whole lines */
        CHECK(!strstr(explain(floats, 1000), "page offsets")); /* 64 offsets in turn */
        MPI_Type_free(&column);
        MPI_Type_free(&floats);
        MPI_Type_free(&quarter);
        MPI_Type_free(&mid);
        MPI_Type_free(&small);
        /* records of {int, double}: one shuffle each to pack, two copies to unpack; of
         * {char[3], double}: the 3 bytes as two 2-byte copies that overlap in the middle one */
        const struct {
            int first_len;
            MPI_Datatype first;
            const char *says;
        } records[] = {
            {1, MPI_INT, "kernel: records: 12-byte records of 16 bytes' span, one 16 B apart: one "
                         "byte shuffle each to pack, 2 plain copies"},
            {3, MPI_CHAR, "kernel: records: 11-byte records of 16 bytes' span, one 16 B apart: one "
                          "byte shuffle each to pack, 3 plain copies"},
        };
        for (int i = 0; i < 2; i++) {
            int lens[2] = {records[i].first_len, 1};
            MPI_Aint at[2] = {0, 8};
            MPI_Datatype fields[2] = {records[i].first, MPI_DOUBLE}, pair, record;
            MPI_Type_create_struct(2, lens, at, fields, &pair);
            MPI_Type_create_resized(pair, 0, 16, &record);
            MPI_Type_commit(&record);
            CHECK_SAYS(explain(record, 100), records[i].says);
            MPI_Type_free(&pair);
            MPI_Type_free(&record);
        }
    }
    /* one column alone: a single dimension, nothing to reorder; its doubles 8 KiB apart, each
     * on a page of its own, prefetched 128 ahead (3 KiB of them, at most 128) */
    CHECK_SAYS(explain(transpose, 1), "one dimension: walked in memory order; blocks of 8 B "
                                      "8192 B apart, each on a page of its own, prefetched 128 "
                                      "ahead\n");
    /* a column of 1024 doubles 256 B apart: prefetched only into a typed side out of the
     * caches; 16 B apart, never */
    MPI_Datatype near, nearer;
    MPI_Type_vector(1024, 1, 32, MPI_DOUBLE, &near);
    MPI_Type_vector(1024, 1, 2, MPI_DOUBLE, &nearer);
    MPI_Type_commit(&near);
    MPI_Type_commit(&nearer);
    CHECK_SAYS(explain(near, 1), "blocks of 8 B 256 B apart, a line or more, prefetched 128 "
                                 "ahead by an unpack whose typed side is found out of the "
                                 "caches at the call\n");
    CHECK_SAYS(explain(nearer, 1), "one dimension: walked in memory order\n");
    /* 1 KiB runs 2 KiB apart: 8 MiB past the 4 MiB threshold streamed with AVX-512
     * (copy_streamed), 2 MiB not */
    MPI_Datatype runs;
    MPI_Type_vector(8192, 128, 256, MPI_DOUBLE, &runs);
    MPI_Type_commit(&runs);
    const char *streams =
        "a pack stores non-temporally: the call moves more than the streaming threshold";
    if (strstr(machine, "\"SIMD_BYTES\": {\"value\": 64,"))
        CHECK_SAYS(explain(runs, 1), streams);
    CHECK(!strstr(explain(runs, 1), "prefetched"));
    MPI_Datatype quarter_runs;
    MPI_Type_vector(2048, 128, 256, MPI_DOUBLE, &quarter_runs);
    MPI_Type_commit(&quarter_runs);
    CHECK(!strstr(explain(quarter_runs, 1), "non-temporally"));
    MPI_Type_free(&near);
    MPI_Type_free(&nearer);
    MPI_Type_free(&runs);
    MPI_Type_free(&quarter_runs);
    /* rows of a submatrix: already in memory order */
    MPI_Datatype rows;
    MPI_Type_vector(4096, 64, 8192, MPI_DOUBLE, &rows);
    MPI_Type_commit(&rows);
    CHECK_SAYS(explain(rows, 1), "R_p = 4096 pages >= T_p = 64");
    CHECK_SAYS(explain(rows, 1), "one dimension");
    /* irregular and declined types say so */
    int lens[3] = {1, 2, 1}, displs[3] = {0, 5, 11};
    MPI_Datatype irregular;
    MPI_Type_indexed(3, lens, displs, MPI_INT, &irregular);
    MPI_Type_commit(&irregular);
    CHECK_SAYS(explain(irregular, 4), "around a list of 3 blocks");
    CHECK_SAYS(explain(irregular, 4), "kernel: list");
    CHECK_SAYS(explain(irregular, 4), "access pattern: variable block");
    CHECK_SAYS(explain(irregular, 4), "kernel: list: 3 runs of equal blocks; blocks close "
                                      "together, not prefetched; packs store cached: the call "
                                      "moves less than a quarter");
    /* particles: 2048 blocks of 3 doubles in shuffled order, 3072 doubles apart (48 MiB, more
     * than 4 times the 1 MiB L2): prefetched 3 KiB of blocks ahead; 48 KiB of packed bytes
     * per instance, so 100 instances (4.8 MB) pass the 4 MiB streaming threshold, 40 (1.9 MB)
     * are probed, 10 (480 KiB) fit the L2 and 1 is below a quarter of it */
    int far_displs[2048];
    for (int i = 0; i < 2048; i++)
        far_displs[i] = (i * 1031 % 2048) * 3072;
    MPI_Datatype particles;
    MPI_Type_create_indexed_block(2048, 3, far_displs, MPI_DOUBLE, &particles);
    MPI_Type_commit(&particles);
    CHECK_SAYS(explain(particles, 1), "kernel: list: 1 run of equal blocks; blocks spread over "
                                      "more than 4 times the L2, prefetched into it up to 128 "
                                      "blocks ahead (an unpack's packed bytes 4096 B ahead)");
    CHECK_SAYS(explain(particles, 1), "packs store cached: the call moves less than a quarter");
#if defined(__x86_64__) /* streamed stores only there */
    CHECK_SAYS(explain(particles, 100),
               "packs store non-temporally: the call moves more than the streaming threshold");
    CHECK_SAYS(explain(particles, 40), "packs store non-temporally if a few of the packed "
                                       "buffer's lines are found out of the caches at the call");
    CHECK_SAYS(explain(particles, 10), "packs store cached: the packed bytes fit the L2");
#endif
    MPI_Type_free(&particles);
    MPI_Datatype ld;
    MPI_Type_contiguous(2, MPI_LONG_DOUBLE, &ld);
    MPI_Type_commit(&ld);
    CHECK_SAYS(explain(ld, 1), "handed to the MPI: the MPI may leave the padding bytes");
    /* unknown handles and short buffers are refused, not truncated */
    MPI_Datatype uncommitted;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    CHECK(memcomm_type_explain(uncommitted, 1, text, sizeof text) == -1);
    CHECK(memcomm_type_explain(transpose, 1024, text, 10) == -1);

    MPI_Type_free(&transpose);
    MPI_Type_free(&rows);
    MPI_Type_free(&irregular);
    MPI_Type_free(&ld);
    MPI_Type_free(&uncommitted);
    int code = check_summary("test_explain");
    MPI_Finalize();
    return code;
}
