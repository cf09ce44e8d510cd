/* Differential test: for random datatypes of every constructor, memcomm's pack equals the
 * MPI's own PMPI_Pack byte for byte (and final position), and memcomm's unpack writes
 * exactly the bytes PMPI_Unpack writes, gaps untouched. Both memcomm entry points are
 * checked: the interposed MPI_Pack/MPI_Unpack and the public memcomm_pack/memcomm_unpack.
 *
 *   difftest [--types N] [--seed S] [--first G] [--depth D] [--verbose 1] [--inject-fault 1]
 *
 * --inject-fault flips one byte of memcomm's packed output for every type that uses a
 * vector: a self-test that the comparison catches it and the shrinker reduces it.
 *
 * Type G of seed S is the same on every machine and rank count, so a failure reproduces
 * with `difftest --seed S --first G --types 1`; it is also shrunk to a minimal recipe.
 * Rank r checks types [G0 + r*N, G0 + (r+1)*N) where G0 is --first (default 0). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "memcomm.h"
#include "recipe.h"

/* GUARD: bytes around every buffer. The user buffer has GUARD plus the packed size on each
 * side: an MPI that packs a type inconsistently with its reported bounds (docs/errors.md)
 * reads and writes outside them, as far as a contiguous run of every packed byte (Open MPI
 * 5.0.11 on overlapping instances of long double structs) */
enum { MAX_SPAN = 4 << 20, GUARD = 4096, FILL = 0xA5, SHRINK_ROUNDS = 200 };

typedef enum { CASE_PASS, CASE_FAIL, CASE_SKIP } outcome;

/* Why a generated type was not compared. */
typedef enum { SKIP_MPI_BUG, SKIP_REFUSED, SKIP_TOO_LARGE, SKIP_NO_REFERENCE, SKIP_REASONS } skip_reason;
static long long skips[SKIP_REASONS];

typedef struct {
    int64_t count, position;
    uint64_t data_seed;
    char detail[512];
    bool unpack_checked, overlapping, fault;
    memcomm_type_info info;
    char call_kernel[16]; /* the walk chosen for this count (memcomm_type_explain) */
} trial;

/* The kernel memcomm_type_explain names for `count` instances: "kernel: <name>: ...". */
static void call_kernel(MPI_Datatype t, int64_t count, char *name, size_t cap)
{
    static char text[8192];
    snprintf(name, cap, "-");
    if (memcomm_type_explain(t, count, text, sizeof text) < 0)
        return;
    const char *at = strstr(text, "kernel: ");
    if (!at)
        return;
    at += strlen("kernel: ");
    size_t len = strcspn(at, ": (\n");
    snprintf(name, cap, "%.*s", (int)len, at);
}

/* The walks a call can take, as memcomm_type_explain names them. */
static const char *kernel_names[] = {"contiguous", "strided", "blocked", "transpose",
                                     "records",    "list",    "tree"};
enum { KERNELS = sizeof kernel_names / sizeof kernel_names[0] };

static int kernel_index(const char *name)
{
    for (int k = 0; k < KERNELS; k++)
        if (!strcmp(name, kernel_names[k]))
            return k;
    return KERNELS - 1;
}

static bool machine_has_simd(void)
{
    char json[1024];
    return memcomm_machine_json(json, sizeof json) > 0 &&
           !strstr(json, "\"SIMD_BYTES\": {\"value\": 8,");
}

static uint64_t mix(uint64_t seed, uint64_t index)
{
    rng r = {seed ^ (index * 0xD1B54A32D192ED03ull)};
    return rng_next(&r);
}

static void fill_random(unsigned char *p, size_t n, uint64_t seed)
{
    rng r = {seed};
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)rng_next(&r);
}

static bool first_difference(const unsigned char *a, const unsigned char *b, size_t n, size_t *at)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) {
            *at = i;
            return true;
        }
    return false;
}

static void invert(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)~p[i];
}

/* buf holds the user data: `margin` bytes, the type's bounds, `margin` bytes. */
static outcome compare_pack(MPI_Datatype t, trial *tr, unsigned char *buf, size_t span, size_t margin,
                            unsigned char *origin, int64_t bytes, unsigned char *ref, unsigned char *mine,
                            unsigned char *api)
{
    size_t n = (size_t)(tr->position + bytes + GUARD);
    /* the reference, twice, the second time with every byte outside the bounds changed:
     * where the MPI's output varies from call to call (padding left unwritten on some paths)
     * or reads outside the bounds, there is no reference; memcomm must have declined */
    memset(mine, FILL, n);
    int again_pos = (int)tr->position;
    invert(buf, margin);
    invert(buf + span - margin, margin);
    PMPI_Pack(origin, (int)tr->count, t, mine, (int)n, &again_pos, MPI_COMM_WORLD);
    invert(buf, margin);
    invert(buf + span - margin, margin);
    memset(ref, FILL, n);
    memset(api, FILL, n);
    int ref_pos = (int)tr->position, mine_pos = (int)tr->position;
    MPI_Count api_pos = tr->position;
    int rc_ref = PMPI_Pack(origin, (int)tr->count, t, ref, (int)n, &ref_pos, MPI_COMM_WORLD);
    if (rc_ref == MPI_SUCCESS && memcmp(ref, mine, n) != 0) {
        if (tr->info.handled) {
            snprintf(tr->detail, sizeof tr->detail,
                     "pack: the MPI's output varies between calls or reads outside the bounds, yet "
                     "memcomm handles the type");
            return CASE_FAIL;
        }
        skips[SKIP_NO_REFERENCE]++;
        return CASE_SKIP;
    }
    memset(mine, FILL, n);
    int rc_mine = MPI_Pack(origin, (int)tr->count, t, mine, (int)n, &mine_pos, MPI_COMM_WORLD);
    int rc_api = memcomm_pack(origin, tr->count, t, api, (MPI_Count)n, &api_pos);
    if (tr->fault && bytes > 0)
        mine[tr->position] ^= 1;
    size_t at;
    if (rc_ref != MPI_SUCCESS) {
        skips[SKIP_REFUSED]++;
        return CASE_SKIP;
    }
    if (rc_mine != MPI_SUCCESS || rc_api != MPI_SUCCESS || mine_pos != ref_pos || api_pos != ref_pos) {
        snprintf(tr->detail, sizeof tr->detail,
                 "pack: rc mpi=%d interposed=%d api=%d, position mpi=%d interposed=%d api=%lld",
                 rc_ref, rc_mine, rc_api, ref_pos, mine_pos, (long long)api_pos);
        return CASE_FAIL;
    }
    if (first_difference(ref, mine, n, &at) || first_difference(ref, api, n, &at)) {
        snprintf(tr->detail, sizeof tr->detail,
                 "pack: packed byte %zu differs: mpi 0x%02x, interposed 0x%02x, api 0x%02x", at,
                 ref[at], mine[at], api[at]);
        return CASE_FAIL;
    }
    return CASE_PASS;
}

static outcome compare_unpack(MPI_Datatype t, trial *tr, unsigned char *buf, size_t span,
                              unsigned char *origin_of_buf, int64_t bytes, const unsigned char *packed,
                              unsigned char *ref, unsigned char *mine, unsigned char *api)
{
    ptrdiff_t origin = origin_of_buf - buf;
    fill_random(ref, span, tr->data_seed ^ 0x5555);
    memcpy(mine, ref, span);
    memcpy(api, ref, span);
    int insize = (int)(tr->position + bytes);
    int ref_pos = (int)tr->position, mine_pos = (int)tr->position;
    MPI_Count api_pos = tr->position;
    int rc_ref = PMPI_Unpack(packed, insize, &ref_pos, ref + origin, (int)tr->count, t, MPI_COMM_WORLD);
    int rc_mine = MPI_Unpack(packed, insize, &mine_pos, mine + origin, (int)tr->count, t, MPI_COMM_WORLD);
    int rc_api = memcomm_unpack(packed, insize, &api_pos, api + origin, tr->count, t);
    size_t at;
    if (rc_ref != MPI_SUCCESS)
        return CASE_SKIP;
    if (rc_mine != MPI_SUCCESS || rc_api != MPI_SUCCESS || mine_pos != ref_pos || api_pos != ref_pos) {
        snprintf(tr->detail, sizeof tr->detail,
                 "unpack: rc mpi=%d interposed=%d api=%d, position mpi=%d interposed=%d api=%lld",
                 rc_ref, rc_mine, rc_api, ref_pos, mine_pos, (long long)api_pos);
        return CASE_FAIL;
    }
    if (first_difference(ref, mine, span, &at) || first_difference(ref, api, span, &at)) {
        snprintf(tr->detail, sizeof tr->detail,
                 "unpack: buffer byte %td (from origin) differs: mpi 0x%02x, interposed 0x%02x, "
                 "api 0x%02x",
                 (ptrdiff_t)at - origin, ref[at], mine[at], api[at]);
        return CASE_FAIL;
    }
    return CASE_PASS;
}

static bool inject_fault;

static outcome run_trial(const recipe *r, trial *tr)
{
    if (!recipe_mpi_takes(r)) {
        skips[SKIP_MPI_BUG]++; /* the MPI's own pack may crash on these: see recipe.h */
        return CASE_SKIP;
    }
    tr->fault = inject_fault && recipe_uses(r, R_VECTOR);
    MPI_Datatype t = recipe_build(r);
    if (t == MPI_DATATYPE_NULL || MPI_Type_commit(&t) != MPI_SUCCESS) {
        if (t != MPI_DATATYPE_NULL)
            MPI_Type_free(&t);
        skips[SKIP_REFUSED]++;
        return CASE_SKIP;
    }
    MPI_Count size, lb, extent, tlb, textent;
    MPI_Type_size_x(t, &size);
    MPI_Type_get_extent_x(t, &lb, &extent);
    MPI_Type_get_true_extent_x(t, &tlb, &textent);
    memcomm_type_info_get(t, &tr->info);
    call_kernel(t, tr->count, tr->call_kernel, sizeof tr->call_kernel);
    int64_t reach = (tr->count - 1) * extent;
    int64_t lo = tlb + (reach < 0 ? reach : 0), hi = tlb + textent + (reach > 0 ? reach : 0);
    if (size == 0) /* an empty type touches nothing; its true bounds are not meaningful */
        lo = hi = 0;
    int64_t bytes = size * tr->count;
    outcome result = CASE_SKIP;
    if (hi - lo > MAX_SPAN || bytes > MAX_SPAN) {
        MPI_Type_free(&t);
        skips[SKIP_TOO_LARGE]++;
        return CASE_SKIP;
    }
    size_t margin = GUARD + (size_t)bytes, span = (size_t)(hi - lo) + 2 * margin;
    size_t packed_cap = (size_t)(tr->position + bytes) + GUARD;
    size_t big = span > packed_cap ? span : packed_cap;
    unsigned char *buf = malloc(span), *ref = malloc(big), *mine = malloc(big), *api = malloc(big),
                  *scratch = malloc((size_t)(2 * bytes) + 1);
    if (!buf || !ref || !mine || !api || !scratch) {
        fprintf(stderr, "difftest: out of memory\n");
        exit(2);
    }
    unsigned char *origin = buf + margin - lo;
    fill_random(buf, span, tr->data_seed);
    result = compare_pack(t, tr, buf, span, margin, origin, bytes, ref, mine, api);
    if (result == CASE_PASS) {
        /* an independent stream, not the one just packed: where entries overlap, a packed
         * stream holds equal bytes for them, and no order of writes would show */
        unsigned char *packed = malloc(packed_cap);
        fill_random(packed, packed_cap, tr->data_seed ^ 0xAAAA);
        unsigned char *probe = malloc(span);
        memcpy(probe, buf, span);
        /* where the MPI packs inconsistently with its bounds, its own unpack writes outside
         * them (Open MPI 5.0.11, complex types in strided layouts): no reference to use */
        bool mpi_consistent = tr->info.handled || !strstr(tr->info.reason, "differently");
        /* also where entries overlap (erroneous for receiving, yet the MPI unpacks them in
         * its own order, and memcomm must write the same) */
        tr->unpack_checked = mpi_consistent;
        tr->overlapping =
            mpi_consistent && !recipe_unpack_is_defined(t, tr->count, probe + margin - lo, bytes, scratch);
        if (tr->unpack_checked) {
            outcome u = compare_unpack(t, tr, buf, span, origin, bytes, packed, ref, mine, api);
            if (u == CASE_FAIL)
                result = CASE_FAIL;
        }
        free(probe);
        free(packed);
    }
    free(buf);
    free(ref);
    free(mine);
    free(api);
    free(scratch);
    MPI_Type_free(&t);
    return result;
}

static recipe *shrink(recipe *r, trial *tr)
{
    trial base = *tr;
    for (int round = 0; round < SHRINK_ROUNDS; round++) {
        bool smaller_found = false;
        trial simpler = base;
        simpler.count = 1;
        simpler.position = 0;
        if ((base.count != 1 || base.position != 0) && run_trial(r, &simpler) == CASE_FAIL) {
            base = simpler;
            smaller_found = true;
        }
        recipe *variants[64];
        int n = recipe_smaller(r, variants, 64);
        for (int i = 0; i < n; i++) {
            trial t = base;
            if (!smaller_found && run_trial(variants[i], &t) == CASE_FAIL) {
                recipe_free(r);
                r = variants[i];
                base = t;
                smaller_found = true;
            } else {
                recipe_free(variants[i]);
            }
        }
        if (!smaller_found)
            break;
    }
    *tr = base;
    return r;
}

static void report_failure(uint64_t seed, int64_t g, const recipe *r, const trial *tr)
{
    static char text[8192];
    recipe_describe(r, text, sizeof text);
    fprintf(stderr, "difftest: FAIL seed=%" PRIu64 " type=%lld count=%lld position=%lld\n  %s\n  type: %s\n",
            seed, (long long)g, (long long)tr->count, (long long)tr->position, tr->detail, text);
    recipe *small = recipe_copy(r);
    trial min = *tr;
    small = shrink(small, &min);
    recipe_describe(small, text, sizeof text);
    fprintf(stderr, "  minimal: %s  (count=%lld position=%lld)\n  %s\n", text, (long long)min.count,
            (long long)min.position, min.detail);
    MPI_Datatype t = recipe_build(small);
    if (t != MPI_DATATYPE_NULL && MPI_Type_commit(&t) == MPI_SUCCESS) {
        memcomm_type_info info;
        memcomm_type_info_get(t, &info);
        fprintf(stderr, "  memcomm: kernel=%s canonical=%s %s\n", info.kernel, info.canonical,
                info.reason);
        MPI_Type_free(&t);
    }
    fprintf(stderr, "  reproduce: difftest --seed %" PRIu64 " --first %lld --types 1\n", seed,
            (long long)g);
    recipe_free(small);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    long long types = 1000, first = -1;
    int depth = 4, verbose = 0;
    const char *required = ""; /* kernels that must be reached, e.g. "list,tree" */
    uint64_t seed = (uint64_t)time(NULL);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--types"))
            types = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--first"))
            first = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--depth"))
            depth = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--verbose"))
            verbose = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--inject-fault"))
            inject_fault = atoi(argv[i + 1]) != 0;
        else if (!strcmp(argv[i], "--require-kernels"))
            required = argv[i + 1];
        else {
            if (rank == 0)
                fprintf(stderr, "usage: difftest [--types N] [--seed S] [--first G] [--depth D] [--verbose 1] "
                                "[--inject-fault 1] [--require-kernels a,b,...]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("difftest: seed %" PRIu64 ", %lld types per rank on %d ranks, depth %d\n", seed,
               types, nranks, depth);

    enum { PASSED, FAILED, SKIPPED, HANDLED, UNPACKED, OVERLAPPING, DECLINED_KNOWN, DECLINED_OTHER, K_BASE,
           SKIP_BASE = K_BASE + KERNELS, TALLIES = SKIP_BASE + SKIP_REASONS };
    long long tally[TALLIES] = {0};
    /* rank r checks types [first + r*types, first + (r+1)*types) */
    int64_t base = (first >= 0 ? first : 0) + (int64_t)rank * types;
    for (int64_t g = base; g < base + types; g++) {
        rng r = {mix(seed, (uint64_t)g)};
        recipe *rec = recipe_random(&r, (int)rng_range(&r, 1, depth));
        trial tr = {.count = rng_range(&r, 1, 5),
                    .position = rng_range(&r, 0, 3) ? rng_range(&r, 0, 17) : 0,
                    .data_seed = rng_next(&r)};
        if (verbose) { /* before running: the MPI itself may crash on it */
            char text[4096];
            recipe_describe(rec, text, sizeof text);
            printf("type %lld count %lld position %lld: %s\n", (long long)g, (long long)tr.count,
                   (long long)tr.position, text);
            fflush(stdout);
        }
        outcome o = run_trial(rec, &tr);
        if (verbose)
            printf("  -> %s, memcomm %s %s\n", o == CASE_PASS ? "pass" : o == CASE_FAIL ? "FAIL" : "skip",
                   tr.info.kernel ? tr.info.kernel : "-", tr.info.reason);
        if (o == CASE_SKIP) {
            tally[SKIPPED]++;
        } else {
            tally[o == CASE_PASS ? PASSED : FAILED]++;
            tally[UNPACKED] += tr.unpack_checked;
            tally[OVERLAPPING] += tr.overlapping;
            if (tr.info.handled) {
                tally[HANDLED]++;
                tally[K_BASE + kernel_index(tr.call_kernel)]++;
            } else if (strncmp(tr.info.reason, "the MPI ", 8) == 0) {
                /* a documented behaviour of this MPI that memcomm cannot reproduce (decode.c):
                 * handed to the MPI, and still compared above */
                tally[DECLINED_KNOWN]++;
            } else {
                tally[DECLINED_OTHER]++;
                char text[2048];
                recipe_describe(rec, text, sizeof text);
                fprintf(stderr, "difftest: type %lld not handled by memcomm (%s): %s\n",
                        (long long)g, tr.info.reason, text);
            }
            if (o == CASE_FAIL)
                report_failure(seed, g, rec, &tr);
        }
        recipe_free(rec);
    }

    memcomm_stats stats;
    memcomm_stats_get(&stats);
    for (int k = 0; k < SKIP_REASONS; k++)
        tally[SKIP_BASE + k] = skips[k];
    long long total[TALLIES];
    MPI_Reduce(tally, total, TALLIES, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int exit_code = 0;
    if (rank == 0) {
        long long tested = total[PASSED] + total[FAILED];
        printf("difftest: %lld types compared (%lld also unpacked, %lld of them with overlapping "
               "entries); skipped %lld: %lld refused by "
               "the MPI, %lld too large, %lld that crash the MPI's own pack, %lld whose MPI "
               "output varies between calls or reads outside the bounds (handed to the MPI)\n",
               tested, total[UNPACKED], total[OVERLAPPING], total[SKIPPED], total[SKIP_BASE + SKIP_REFUSED],
               total[SKIP_BASE + SKIP_TOO_LARGE], total[SKIP_BASE + SKIP_MPI_BUG],
               total[SKIP_BASE + SKIP_NO_REFERENCE]);
        printf("difftest: memcomm packed %lld itself (", total[HANDLED]);
        for (int k = 0; k < KERNELS; k++)
            printf("%s%s %lld", k ? ", " : "", kernel_names[k], total[K_BASE + k]);
        printf("), handed %lld to the MPI for its documented behaviours, %lld for other reasons\n",
               total[DECLINED_KNOWN], total[DECLINED_OTHER]);
        /* each kernel asked for must have been compared at least once */
        for (int k = 0; k < KERNELS; k++)
            if (strstr(required, kernel_names[k]) && total[K_BASE + k] == 0) {
                if ((!strcmp(kernel_names[k], "transpose") || !strcmp(kernel_names[k], "records")) &&
                    !machine_has_simd()) {
                    printf("difftest: note: no SIMD on this machine, so no %s kernel\n", kernel_names[k]);
                    continue;
                }
                printf("difftest: no type reached the %s kernel\n", kernel_names[k]);
                exit_code = 1;
            }
        printf("difftest: %lld passed, %lld failed\n", total[PASSED], total[FAILED]);
        /* a run where memcomm declined many types, or compared few, proves little (on Open MPI
         * 5.0.11 about 28% go to the MPI for its documented behaviours, mostly complex and
         * long double leaves) */
        bool vacuous = total[HANDLED] < tested * 3 / 5 || tested < types * nranks / 2;
        if (vacuous)
            printf("difftest: too few types compared or handled by memcomm to prove anything\n");
        if (total[FAILED] || total[DECLINED_OTHER] || vacuous)
            exit_code = 1;
    }
    if (stats.fallback_calls && rank == 0)
        printf("difftest: note: %llu calls were handed to the MPI\n", stats.fallback_calls);
    MPI_Bcast(&exit_code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return exit_code;
}
