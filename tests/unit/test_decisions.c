/* The decisions of runs before (MEMCOMM_DECISIONS, lib/core/decisions.h), on injected times:
 * the file's lines read and written, a layout's key, a saved decision taken without trials
 * and measured again when it no longer holds, and the file written by rank 0 only. Run with
 * MEMCOMM_DECISIONS naming a file this test writes first (tests/CMakeLists.txt). */
#include <stdio.h>
#include <stdlib.h>

#include "../check.h"
#include "core/decisions.h"
#include "core/sendpath.h"
#include "core/stats.h"

enum { PACKED = 0, BY_MPI = 1, PATHS = 2, BYTES = 1 << 20, CLASS = 20, UNDECIDED = -1 };

static void test_lines(void)
{
    const saved_decision d = {0x0123456789abcdefull, 0xfedcba9876543210ull, USE_NEIGHBOR_ALLTOALLW,
                              17, 3, 1, {12.5e-6, 0}};
    char line[256];
    decisions_format(&d, line, sizeof line);
    CHECK_STR(line, "0123456789abcdef fedcba9876543210 Neighbor_alltoallw 17 3 1 12.500 0.000");
    saved_decision back;
    CHECK(decisions_parse(line, &back));
    CHECK(back.setting == d.setting && back.layout == d.layout && back.use == d.use);
    CHECK(back.size_class == 17 && back.paths == 3 && back.path == 1);
    CHECK(back.usual[TRIAL_SEND] > 12.49e-6 && back.usual[TRIAL_SEND] < 12.51e-6);

    const saved_decision p2p = {1, 2, USE_NONBLOCKING, 3, 2, 0, {1e-6, 2e-6}};
    decisions_format(&p2p, line, sizeof line);
    CHECK(decisions_parse(line, &back) && back.use == USE_NONBLOCKING); /* a name with spaces */

    const char *bad[] = {
        "# memcomm send-path decisions, format 1",
        "",
        "1 2 point-to-point 20 2",                    /* cut short */
        "1 2 sideways 20 2 0 1.0 1.0",                /* no such use */
        "1 2 point-to-point 20 2 2 1.0 1.0",          /* a path beyond the paths */
        "1 2 point-to-point 20 9 0 1.0 1.0",          /* too many paths */
        "1 2 point-to-point -1 2 0 1.0 1.0",          /* no such size class */
        "1 2 point-to-point 20 2 0 -1.0 1.0",         /* a negative time */
        "1 2 point-to-point 20 2 0 nan 1.0",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(!decisions_parse(bad[i], &back));
}

static void test_layout_key(void)
{
    ir_arena arena;
    ir_arena_init(&arena, 1 << 20);
    const decode_bounds bounds = {256, 0, 1024, 0, 1016};
    const ir_node *face = ir_loop(&arena, 0, 32, 32, ir_block(&arena, 0, 8));
    const ir_node *again = ir_loop(&arena, 0, 32, 32, ir_block(&arena, 0, 8));
    const ir_node *wider = ir_loop(&arena, 0, 32, 40, ir_block(&arena, 0, 8));
    CHECK(decisions_layout_key(face, &bounds) == decisions_layout_key(again, &bounds));
    CHECK(decisions_layout_key(face, &bounds) != decisions_layout_key(wider, &bounds));
    const decode_bounds longer = {256, 0, 2048, 0, 1016};
    CHECK(decisions_layout_key(face, &bounds) != decisions_layout_key(face, &longer));
    /* a struct of MPI_Get_address displacements moves with the addresses: not kept */
    const decode_bounds at_addresses = {256, 0x7f1234567000, 1024, 0x7f1234567000, 1016};
    CHECK(decisions_layout_key(face, &at_addresses) == 0);
    saved_decision none;
    CHECK(!decisions_find(0, USE_POINT_TO_POINT, CLASS, &none));
    ir_arena_free(&arena);
}

/* One blocking send on `a` costing `packed` or `own` seconds; the path it took. */
static int one_send(analysis *a, double packed, double own, bool *trial)
{
    const send_choice c = sendpath_choose(a, USE_POINT_TO_POINT, BYTES, PATHS, TRIAL_SEND);
    if (c.timed)
        sendpath_record(a, &c, c.path == PACKED ? packed : own);
    *trial = *trial || c.trial >= 0;
    return c.path;
}

static int decision(analysis *a)
{
    return sendpath_untimed(a, USE_POINT_TO_POINT, BYTES, PATHS, UNDECIDED);
}

static bool file_has(const char *path, const char *text)
{
    FILE *f = fopen(path, "r");
    bool found = false;
    for (char line[512]; f && !found && fgets(line, sizeof line, f);)
        found = strstr(line, text) != NULL;
    if (f)
        fclose(f);
    return found;
}

static double clock_now;
static double injected_clock(void) { return clock_now += 20e-6; }

static void test_saved_decisions(const char *path)
{
    /* the file of a run before: another MPI's setting and decision, a damaged line, and a
     * decision for packing the layout of `saved` on this setting */
    analysis saved = {0}, fresh = {0}, epochs = {0};
    saved.bounds.size = 101;
    fresh.bounds.size = 202;
    epochs.bounds.size = 303;
    const uint64_t setting = decisions_setting();
    const saved_decision before = {setting, decisions_layout_key(NULL, &saved.bounds),
                                   USE_POINT_TO_POINT, CLASS, PATHS, PACKED, {10e-6, 12e-6}};
    char line[256], epoch_line[256];
    decisions_format(&before, line, sizeof line);
    const saved_decision own_epochs = {setting, decisions_layout_key(NULL, &epochs.bounds),
                                       USE_NONBLOCKING, CLASS, PATHS, BY_MPI, {20e-6, 0}};
    decisions_format(&own_epochs, epoch_line, sizeof epoch_line);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fprintf(f, "# memcomm send-path decisions, format 1\n"
               "# setting 0000000000000001: another MPI; another CPU\n"
               "0000000000000001 0000000000000002 point-to-point 20 2 1 5.000 5.000\n"
               "damaged\n%s\n%s\n", line, epoch_line);
    fclose(f);

    /* taken at the first call, no trials; its usual time watches it */
    bool trial = false;
    CHECK(one_send(&saved, 10e-6, 30e-6, &trial) == PACKED);
    CHECK(decision(&saved) == PACKED && !trial);
    CHECK(stats_read().paths_saved == 1);
    for (int n = 0; n < 200; n++)
        one_send(&saved, 10e-6, 30e-6, &trial);
    CHECK(decision(&saved) == PACKED && !trial);

    /* non-blocking calls: the saved MPI's own path from the first epoch, none warming up */
    for (int n = 0; n < 10; n++) {
        CHECK(sendpath_epoch_path(&epochs, BYTES, PACKED, injected_clock) == BY_MPI);
        sendpath_epoch_boundary();
    }
    CHECK(stats_read().paths_saved == 2);

    /* a layout with none is measured, and its decision noted */
    trial = false;
    for (int n = 0; n < 200 && decision(&fresh) == UNDECIDED; n++)
        one_send(&fresh, 4e-6, 9e-6, &trial);
    CHECK(decision(&fresh) == PACKED && trial);
    char fresh_key[40];
    snprintf(fresh_key, sizeof fresh_key, "%016llx",
             (unsigned long long)decisions_layout_key(NULL, &fresh.bounds));

    /* only rank 0 writes: what it read (other settings too, damage dropped) and this run's */
    decisions_save(1);
    CHECK(!file_has(path, fresh_key) && file_has(path, "damaged"));
    decisions_save(0);
    CHECK(file_has(path, fresh_key) && file_has(path, line) && !file_has(path, "damaged"));
    CHECK(file_has(path, "# setting 0000000000000001: another MPI; another CPU"));
    CHECK(file_has(path, "0000000000000001 0000000000000002 point-to-point 20 2 1"));
    CHECK(file_has(path, "# memcomm send-path decisions, format 1"));

    /* a saved path that no longer holds (three samples at three times its usual time) is
     * measured again, and the MPI's own path, now the faster, chosen */
    trial = false;
    for (int n = 0; n < 400 && !(trial && decision(&saved) != UNDECIDED); n++)
        one_send(&saved, 30e-6, 15e-6, &trial);
    CHECK(trial && decision(&saved) == BY_MPI);
    sendpath_free(&saved);
    sendpath_free(&fresh);
    sendpath_free(&epochs);
}

int main(void)
{
    const char *path = getenv("MEMCOMM_DECISIONS");
    if (!path) {
        fprintf(stderr, "test_decisions: set MEMCOMM_DECISIONS to a file it may write\n");
        return 1;
    }
    test_lines();
    test_layout_key();
    test_saved_decisions(path);
    return check_summary("test_decisions");
}
