#include "recipe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/base/text.h"

#if MPI_VERSION >= 4
#define HAVE_LARGE_CTORS 1
#else
#define HAVE_LARGE_CTORS 0
#endif

static const struct {
    const char *name;
    MPI_Datatype type;
} basics[] = {
    {"MPI_BYTE", MPI_BYTE},         {"MPI_CHAR", MPI_CHAR},
    {"MPI_SHORT", MPI_SHORT},       {"MPI_INT", MPI_INT},
    {"MPI_FLOAT", MPI_FLOAT},       {"MPI_DOUBLE", MPI_DOUBLE},
    {"MPI_INT64_T", MPI_INT64_T},   {"MPI_LONG_DOUBLE", MPI_LONG_DOUBLE},
    {"MPI_C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX},
    {"MPI_2INT", MPI_2INT},         {"MPI_SHORT_INT", MPI_SHORT_INT},
    {"MPI_DOUBLE_INT", MPI_DOUBLE_INT}, {"MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT},
};

int recipe_basic_count(void) { return (int)(sizeof basics / sizeof basics[0]); }

bool recipe_span_of(MPI_Datatype t, int count, int64_t guard, int64_t max, recipe_span *e)
{
    MPI_Count size, lb, extent, tlb, textent;
    MPI_Type_size_x(t, &size);
    MPI_Type_get_extent_x(t, &lb, &extent);
    MPI_Type_get_true_extent_x(t, &tlb, &textent);
    if (size <= 0 || size > max || extent < -max || extent > max || tlb < -max || tlb > max ||
        textent < 0 || textent > max)
        return false;
    const int64_t reach = (int64_t)(count - 1) * extent;
    const int64_t lo = tlb + (reach < 0 ? reach : 0), hi = tlb + textent + (reach > 0 ? reach : 0);
    *e = (recipe_span){lo - guard, hi - lo + 2 * guard, size};
    return e->span <= max && size * count <= max;
}

void recipe_fill(unsigned char *p, int64_t n, uint64_t seed)
{
    rng r = {seed};
    for (int64_t k = 0; k < n; k++)
        p[k] = (unsigned char)rng_next(&r);
}

int recipe_error_class(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

uint64_t rng_next(rng *r)
{ /* splitmix64: tiny, good enough, and the same on every machine */
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int64_t rng_range(rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

static int64_t small_count(rng *r)
{ /* mostly tiny, sometimes long enough to exercise the strided loops */
    return rng_range(r, 0, 9) == 0 ? rng_range(r, 5, 48) : rng_range(r, 0, 4);
}

static recipe *new_recipe(recipe_kind kind)
{
    recipe *x = calloc(1, sizeof *x);
    if (!x)
        abort();
    x->kind = kind;
    return x;
}

static void random_darray(rng *r, recipe *x)
{
    x->ndims = (int)rng_range(r, 1, RECIPE_MAX_DIMS);
    x->order = rng_range(r, 0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
    x->nprocs = 1;
    for (int d = 0; d < x->ndims; d++) {
        x->sizes[d] = (int)rng_range(r, 1, 9);
        int kind = (int)rng_range(r, 0, 2);
        x->distribs[d] = kind == 0 ? MPI_DISTRIBUTE_NONE
                         : kind == 1 ? MPI_DISTRIBUTE_BLOCK
                                     : MPI_DISTRIBUTE_CYCLIC;
        x->psizes[d] = kind == 0 ? 1 : (int)rng_range(r, 1, 3);
        x->dargs[d] = MPI_DISTRIBUTE_DFLT_DARG;
        if (kind == 1 && rng_range(r, 0, 1)) {
            int least = (x->sizes[d] + x->psizes[d] - 1) / x->psizes[d];
            x->dargs[d] = least + (int)rng_range(r, 0, 2);
        } else if (kind == 2 && rng_range(r, 0, 1)) {
            x->dargs[d] = (int)rng_range(r, 1, 3);
        }
        x->nprocs *= x->psizes[d];
    }
    x->rank = (int)rng_range(r, 0, x->nprocs - 1);
}

/* A matrix transpose in the usual MPI idiom, contiguous(cols, resized(vector(rows, 1, pitch,
 * elem), 0, sizeof elem)): the layout the transposing kernel is for. Random types would
 * almost never have its shape. `interleaved`: ddtbench's fft2d shape with a pitch close to
 * cols, so that the instances of a count > 1, or the columns of one, land on each other
 * (erroneous for receiving, but the MPI unpacks them, and memcomm must write the same). */
static recipe *random_transpose(rng *r, bool interleaved)
{
    static const int elems[] = {3, 4, 5, 6, 8}; /* int, float, double, int64, double complex */
    recipe *column = new_recipe(R_VECTOR), *leaf = new_recipe(R_BASIC);
    leaf->basic = elems[rng_range(r, 0, interleaved ? 4 : 3)];
    /* the transposing kernel takes 16 x 16 elements and up; it is the one that writes out of
     * typemap order */
    column->count = interleaved ? rng_range(r, 16, 48) : rng_range(r, 12, 40);
    column->blocklen = 1;
    int64_t cols = interleaved ? rng_range(r, 16, 48) : rng_range(r, 12, 40);
    column->stride = (rng_range(r, 0, 3) ? 1 : -1) *
                     (interleaved ? rng_range(r, cols / 2, 2 * cols) : rng_range(r, 16, 48));
    column->kids[0] = leaf;
    recipe *narrow = new_recipe(R_RESIZED);
    narrow->lb = 0;
    narrow->extent = leaf->basic <= 4 ? 4 : leaf->basic == 8 ? 16 : 8; /* the element's size */
    narrow->kids[0] = column;
    recipe *x = new_recipe(R_CONTIGUOUS);
    x->count = cols;
    x->kids[0] = narrow;
    return x;
}

recipe *recipe_random(rng *r, int depth)
{
    if (depth >= 3 && rng_range(r, 0, 40) == 0)
        return random_transpose(r, false);
    if (depth >= 2 && rng_range(r, 0, 40) == 0)
        return random_transpose(r, true);
    if (depth == 0 || rng_range(r, 0, 5) == 0) {
        recipe *x = new_recipe(R_BASIC);
        x->basic = (int)rng_range(r, 0, recipe_basic_count() - 1);
        return x;
    }
    recipe *x = new_recipe((recipe_kind)rng_range(r, R_DUP, R_KINDS - 1));
    x->large = HAVE_LARGE_CTORS && rng_range(r, 0, 3) == 0;
    switch (x->kind) {
    case R_BASIC:
    case R_KINDS:
        break;
    case R_DUP:
        break;
    case R_CONTIGUOUS:
        x->count = small_count(r);
        break;
    case R_VECTOR:
        x->count = small_count(r);
        x->blocklen = rng_range(r, 0, 3);
        x->stride = rng_range(r, -6, 9);
        break;
    case R_HVECTOR:
        x->count = small_count(r);
        x->blocklen = rng_range(r, 0, 3);
        x->stride = rng_range(r, -64, 128);
        break;
    case R_INDEXED:
    case R_INDEXED_BLOCK:
    case R_HINDEXED:
    case R_HINDEXED_BLOCK:
    case R_STRUCT: {
        bool bytes = x->kind == R_HINDEXED || x->kind == R_HINDEXED_BLOCK || x->kind == R_STRUCT;
        x->n = (int)rng_range(r, x->kind == R_STRUCT ? 1 : 0, RECIPE_MAX_N);
        x->blocklen = rng_range(r, 0, 3);
        for (int i = 0; i < x->n; i++) {
            x->lens[i] = rng_range(r, 0, 3);
            x->displs[i] = bytes ? rng_range(r, -48, 160) : rng_range(r, -4, 16);
        }
        break;
    }
    case R_SUBARRAY:
        x->ndims = (int)rng_range(r, 1, RECIPE_MAX_DIMS);
        x->order = rng_range(r, 0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        for (int d = 0; d < x->ndims; d++) {
            x->sizes[d] = (int)rng_range(r, 1, 7);
            x->subsizes[d] = (int)rng_range(r, 1, x->sizes[d]);
            x->starts[d] = (int)rng_range(r, 0, x->sizes[d] - x->subsizes[d]);
        }
        break;
    case R_DARRAY:
        random_darray(r, x);
        break;
    case R_RESIZED:
        x->lb = rng_range(r, -40, 40);
        x->extent = rng_range(r, 0, 7) == 0 ? rng_range(r, -16, 0) : rng_range(r, 1, 96);
        break;
    }
    int kids = x->kind == R_STRUCT ? x->n : 1;
    for (int i = 0; i < kids; i++)
        x->kids[i] = recipe_random(r, depth - 1);
    return x;
}

/* No data at all (size 0), judged from the recipe alone; darrays are not judged. */
static bool is_empty(const recipe *r)
{
    switch (r->kind) {
    case R_DUP:
    case R_RESIZED:
    case R_SUBARRAY: return is_empty(r->kids[0]);
    case R_CONTIGUOUS: return r->count == 0 || is_empty(r->kids[0]);
    case R_VECTOR:
    case R_HVECTOR: return r->count == 0 || r->blocklen == 0 || is_empty(r->kids[0]);
    case R_INDEXED_BLOCK:
    case R_HINDEXED_BLOCK: return r->n == 0 || r->blocklen == 0 || is_empty(r->kids[0]);
    case R_INDEXED:
    case R_HINDEXED:
    case R_STRUCT:
        for (int k = 0; k < r->n; k++)
            if (r->lens[k] && !is_empty(r->kids[r->kind == R_STRUCT ? k : 0]))
                return false;
        return true;
    default: return false;
    }
}

bool recipe_has_empty_derived_block(const recipe *r)
{
    if (r->kind == R_BASIC)
        return false;
    int nkids = r->kind == R_STRUCT ? r->n : 1;
    for (int i = 0; i < nkids; i++) {
        const recipe *kid = r->kids[i];
        bool empty_member = r->kind == R_STRUCT && kid->kind != R_BASIC &&
                            (r->lens[i] == 0 || is_empty(kid));
        if (empty_member || recipe_has_empty_derived_block(kid))
            return true;
    }
    return false;
}

/* Whether `test` holds for `r` or any type under it. */
static bool any_node(const recipe *r, bool (*test)(const recipe *, const void *), const void *arg)
{
    if (test(r, arg))
        return true;
    int nkids = r->kind == R_BASIC ? 0 : r->kind == R_STRUCT ? r->n : 1;
    for (int i = 0; i < nkids; i++)
        if (any_node(r->kids[i], test, arg))
            return true;
    return false;
}

static bool has_own_empty_block(const recipe *r, const void *unused)
{
    (void)unused;
    switch (r->kind) {
    case R_CONTIGUOUS:
        return r->count == 0;
    case R_VECTOR:
    case R_HVECTOR:
    case R_INDEXED_BLOCK:
    case R_HINDEXED_BLOCK:
        return r->blocklen == 0;
    case R_INDEXED:
    case R_HINDEXED:
    case R_STRUCT:
        for (int i = 0; i < r->n; i++)
            if (r->lens[i] == 0)
                return true;
        return false;
    default:
        return false;
    }
}

bool recipe_has_empty_block(const recipe *r) { return any_node(r, has_own_empty_block, NULL); }

static bool is_kind(const recipe *r, const void *kind)
{
    return r->kind == *(const recipe_kind *)kind;
}

bool recipe_uses(const recipe *r, recipe_kind kind) { return any_node(r, is_kind, &kind); }

static bool is_large(const recipe *r, const void *unused)
{
    (void)unused;
    return r->large;
}

bool recipe_uses_large(const recipe *r) { return any_node(r, is_large, NULL); }

static bool is_basic(const recipe *r, const void *basic)
{
    return r->kind == R_BASIC && basics[r->basic].type == *(const MPI_Datatype *)basic;
}

bool recipe_uses_basic(const recipe *r, MPI_Datatype basic)
{
    return any_node(r, is_basic, &basic);
}

static bool has_negative_extent(const recipe *r, const void *unused)
{
    (void)unused;
    return r->kind == R_RESIZED && r->extent < 0;
}

bool recipe_has_inner_negative_extent(const recipe *r)
{
    int nkids = r->kind == R_BASIC ? 0 : r->kind == R_STRUCT ? r->n : 1;
    for (int i = 0; i < nkids; i++)
        if (any_node(r->kids[i], has_negative_extent, NULL))
            return true;
    return false;
}

recipe *recipe_copy(const recipe *r)
{
    recipe *x = new_recipe(r->kind);
    *x = *r;
    for (int i = 0; i < RECIPE_MAX_N; i++)
        if (r->kids[i])
            x->kids[i] = recipe_copy(r->kids[i]);
    return x;
}

void recipe_free(recipe *r)
{
    if (!r)
        return;
    for (int i = 0; i < RECIPE_MAX_N; i++)
        recipe_free(r->kids[i]);
    free(r);
}

static MPI_Datatype build_large(const recipe *r, MPI_Datatype *kid, int *rc)
{
    MPI_Datatype out = MPI_DATATYPE_NULL;
#if HAVE_LARGE_CTORS
    MPI_Count lens[RECIPE_MAX_N], displs[RECIPE_MAX_N], sizes[RECIPE_MAX_DIMS],
        subsizes[RECIPE_MAX_DIMS], starts[RECIPE_MAX_DIMS];
    for (int i = 0; i < r->n; i++) {
        lens[i] = r->lens[i];
        displs[i] = r->displs[i];
    }
    for (int d = 0; d < r->ndims; d++) {
        sizes[d] = r->sizes[d];
        subsizes[d] = r->subsizes[d];
        starts[d] = r->starts[d];
    }
    switch (r->kind) {
    case R_CONTIGUOUS: *rc = MPI_Type_contiguous_c(r->count, kid[0], &out); break;
    case R_VECTOR: *rc = MPI_Type_vector_c(r->count, r->blocklen, r->stride, kid[0], &out); break;
    case R_HVECTOR:
        *rc = MPI_Type_create_hvector_c(r->count, r->blocklen, r->stride, kid[0], &out);
        break;
    case R_INDEXED: *rc = MPI_Type_indexed_c(r->n, lens, displs, kid[0], &out); break;
    case R_HINDEXED: *rc = MPI_Type_create_hindexed_c(r->n, lens, displs, kid[0], &out); break;
    case R_INDEXED_BLOCK:
        *rc = MPI_Type_create_indexed_block_c(r->n, r->blocklen, displs, kid[0], &out);
        break;
    case R_HINDEXED_BLOCK:
        *rc = MPI_Type_create_hindexed_block_c(r->n, r->blocklen, displs, kid[0], &out);
        break;
    case R_STRUCT: *rc = MPI_Type_create_struct_c(r->n, lens, displs, kid, &out); break;
    case R_SUBARRAY:
        *rc = MPI_Type_create_subarray_c(r->ndims, sizes, subsizes, starts, r->order, kid[0], &out);
        break;
    case R_DARRAY:
        *rc = MPI_Type_create_darray_c(r->nprocs, r->rank, r->ndims, sizes, r->distribs, r->dargs,
                                       r->psizes, r->order, kid[0], &out);
        break;
    case R_RESIZED: *rc = MPI_Type_create_resized_c(kid[0], r->lb, r->extent, &out); break;
    default: *rc = MPI_ERR_OTHER; break;
    }
#else
    (void)r;
    (void)kid;
    *rc = MPI_ERR_OTHER;
#endif
    return out;
}

static MPI_Datatype build_small(const recipe *r, MPI_Datatype *kid, int *rc)
{
    MPI_Datatype out = MPI_DATATYPE_NULL;
    int lens[RECIPE_MAX_N], idispls[RECIPE_MAX_N];
    MPI_Aint adispls[RECIPE_MAX_N];
    for (int i = 0; i < r->n; i++) {
        lens[i] = (int)r->lens[i];
        idispls[i] = (int)r->displs[i];
        adispls[i] = (MPI_Aint)r->displs[i];
    }
    switch (r->kind) {
    case R_DUP: *rc = MPI_Type_dup(kid[0], &out); break;
    case R_CONTIGUOUS: *rc = MPI_Type_contiguous((int)r->count, kid[0], &out); break;
    case R_VECTOR:
        *rc = MPI_Type_vector((int)r->count, (int)r->blocklen, (int)r->stride, kid[0], &out);
        break;
    case R_HVECTOR:
        *rc = MPI_Type_create_hvector((int)r->count, (int)r->blocklen, r->stride, kid[0], &out);
        break;
    case R_INDEXED: *rc = MPI_Type_indexed(r->n, lens, idispls, kid[0], &out); break;
    case R_HINDEXED: *rc = MPI_Type_create_hindexed(r->n, lens, adispls, kid[0], &out); break;
    case R_INDEXED_BLOCK:
        *rc = MPI_Type_create_indexed_block(r->n, (int)r->blocklen, idispls, kid[0], &out);
        break;
    case R_HINDEXED_BLOCK:
        *rc = MPI_Type_create_hindexed_block(r->n, (int)r->blocklen, adispls, kid[0], &out);
        break;
    case R_STRUCT: *rc = MPI_Type_create_struct(r->n, lens, adispls, kid, &out); break;
    case R_SUBARRAY:
        *rc = MPI_Type_create_subarray(r->ndims, r->sizes, r->subsizes, r->starts, r->order, kid[0],
                                       &out);
        break;
    case R_DARRAY:
        *rc = MPI_Type_create_darray(r->nprocs, r->rank, r->ndims, r->sizes, r->distribs, r->dargs,
                                     r->psizes, r->order, kid[0], &out);
        break;
    case R_RESIZED: *rc = MPI_Type_create_resized(kid[0], r->lb, r->extent, &out); break;
    default: *rc = MPI_ERR_OTHER; break;
    }
    return out;
}

MPI_Datatype recipe_build(const recipe *r)
{
    if (r->kind == R_BASIC)
        return basics[r->basic].type;
    int nkids = r->kind == R_STRUCT ? r->n : 1;
    MPI_Datatype kid[RECIPE_MAX_N];
    int built = 0;
    bool ok = true;
    for (; built < nkids && ok; built++) {
        kid[built] = recipe_build(r->kids[built]);
        ok = kid[built] != MPI_DATATYPE_NULL;
    }
    MPI_Datatype out = MPI_DATATYPE_NULL;
    if (ok) {
        int rc;
        out = r->large && r->kind != R_DUP ? build_large(r, kid, &rc) : build_small(r, kid, &rc);
        if (rc != MPI_SUCCESS)
            out = MPI_DATATYPE_NULL;
    }
    for (int i = 0; i < built; i++)
        if (kid[i] != MPI_DATATYPE_NULL && r->kids[i]->kind != R_BASIC)
            MPI_Type_free(&kid[i]);
    return out;
}

static void put_list(text_sink *s, const char *name, const int64_t *v, int n)
{
    text_put(s, "%s={", name);
    for (int i = 0; i < n; i++)
        text_put(s, i ? ",%lld" : "%lld", (long long)v[i]);
    text_put(s, "}, ");
}

static void put_ints(text_sink *s, const char *name, const int *v, int n)
{
    text_put(s, "%s={", name);
    for (int i = 0; i < n; i++)
        text_put(s, i ? ",%d" : "%d", v[i]);
    text_put(s, "}, ");
}

static void describe(text_sink *s, const recipe *r)
{
    static const char *names[] = {
        "basic",   "dup",           "contiguous",     "vector",  "hvector",  "indexed",
        "hindexed", "indexed_block", "hindexed_block", "struct",  "subarray", "darray",
        "resized",
    };
    if (r->kind == R_BASIC) {
        text_put(s, "%s", basics[r->basic].name);
        return;
    }
    text_put(s, "%s%s(", names[r->kind], r->large ? "_c" : "");
    switch (r->kind) {
    case R_CONTIGUOUS: text_put(s, "count=%lld, ", (long long)r->count); break;
    case R_VECTOR:
    case R_HVECTOR:
        text_put(s, "count=%lld, blocklen=%lld, stride=%lld, ", (long long)r->count,
            (long long)r->blocklen, (long long)r->stride);
        break;
    case R_INDEXED_BLOCK:
    case R_HINDEXED_BLOCK:
        text_put(s, "blocklen=%lld, ", (long long)r->blocklen);
        put_list(s, "displs", r->displs, r->n);
        break;
    case R_INDEXED:
    case R_HINDEXED:
    case R_STRUCT:
        put_list(s, "lens", r->lens, r->n);
        put_list(s, "displs", r->displs, r->n);
        break;
    case R_SUBARRAY:
        put_ints(s, "sizes", r->sizes, r->ndims);
        put_ints(s, "subsizes", r->subsizes, r->ndims);
        put_ints(s, "starts", r->starts, r->ndims);
        text_put(s, "order=%s, ", r->order == MPI_ORDER_C ? "C" : "FORTRAN");
        break;
    case R_DARRAY:
        text_put(s, "size=%d, rank=%d, ", r->nprocs, r->rank);
        put_ints(s, "gsizes", r->sizes, r->ndims);
        put_ints(s, "distribs", r->distribs, r->ndims);
        put_ints(s, "dargs", r->dargs, r->ndims);
        put_ints(s, "psizes", r->psizes, r->ndims);
        text_put(s, "order=%s, ", r->order == MPI_ORDER_C ? "C" : "FORTRAN");
        break;
    case R_RESIZED: text_put(s, "lb=%lld, extent=%lld, ", (long long)r->lb, (long long)r->extent); break;
    default: break;
    }
    int nkids = r->kind == R_STRUCT ? r->n : 1;
    if (r->kind == R_STRUCT)
        text_put(s, "types={");
    for (int i = 0; i < nkids; i++) {
        if (i)
            text_put(s, ", ");
        describe(s, r->kids[i]);
    }
    text_put(s, r->kind == R_STRUCT ? "})" : ")");
}

void recipe_describe(const recipe *r, char *buf, size_t cap)
{
    text_sink s = {buf, cap, 0};
    buf[0] = '\0';
    describe(&s, r);
}

int recipe_smaller(const recipe *r, recipe **out, int cap)
{
    int n = 0;
#define EMIT(x)                                                                                \
    do {                                                                                       \
        if (n < cap)                                                                           \
            out[n++] = (x);                                                                    \
        else                                                                                   \
            recipe_free(x);                                                                    \
    } while (0)
    if (r->kind == R_BASIC) {
        if (r->basic != 3) { /* MPI_INT is the simplest element */
            recipe *x = recipe_copy(r);
            x->basic = 3;
            EMIT(x);
        }
        return n;
    }
    int nkids = r->kind == R_STRUCT ? r->n : 1;
    for (int i = 0; i < nkids; i++) /* a child alone */
        EMIT(recipe_copy(r->kids[i]));
    if (r->large) {
        recipe *x = recipe_copy(r);
        x->large = false;
        EMIT(x);
    }
    if (r->count > 1) {
        recipe *x = recipe_copy(r);
        x->count--;
        EMIT(x);
    }
    if (r->blocklen > 1) {
        recipe *x = recipe_copy(r);
        x->blocklen--;
        EMIT(x);
    }
    if (r->n > 1 && r->kind != R_STRUCT) { /* drop the last entry */
        recipe *x = recipe_copy(r);
        x->n--;
        EMIT(x);
    }
    for (int i = 0; i < nkids; i++) { /* a simpler child in place */
        recipe *smaller[16];
        int k = recipe_smaller(r->kids[i], smaller, 16);
        for (int j = 0; j < k; j++) {
            recipe *x = recipe_copy(r);
            recipe_free(x->kids[i]);
            x->kids[i] = smaller[j];
            EMIT(x);
        }
    }
#undef EMIT
    return n;
}

bool recipe_unpack_is_defined(MPI_Datatype t, int64_t count, unsigned char *origin,
                              int64_t bytes, unsigned char *scratch)
{
    for (int shift = 0; shift <= 16; shift += 8) {
        unsigned char *stream = scratch, *back = scratch + bytes;
        for (int64_t i = 0; i < bytes; i++)
            stream[i] = (unsigned char)(i >> shift);
        int pos = 0;
        if (PMPI_Unpack(stream, (int)bytes, &pos, origin, (int)count, t, MPI_COMM_WORLD) != MPI_SUCCESS)
            return false;
        pos = 0;
        if (PMPI_Pack(origin, (int)count, t, back, (int)bytes, &pos, MPI_COMM_WORLD) != MPI_SUCCESS ||
            memcmp(stream, back, (size_t)bytes) != 0)
            return false;
    }
    return true;
}

/* Whether the MPI's library version holds `text` (at its start: `at_start`); `known` caches
 * the answer (0: not asked yet, 1: yes, 2: no). */
static bool library_is(int *known, const char *text, bool at_start)
{
    if (!*known) {
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int length;
        MPI_Get_library_version(version, &length);
        const char *found = strstr(version, text);
        *known = found && (!at_start || found == version) ? 1 : 2;
    }
    return *known == 1;
}

bool recipe_mpi_is_mpich(void)
{
    static int mpich, intel;
    return library_is(&mpich, "MPICH", false) || library_is(&intel, "Intel(R) MPI", false);
}

bool recipe_mpi_is_intel_2021(void)
{
    static int known;
    return library_is(&known, "Intel(R) MPI Library 2021", true);
}

bool recipe_mpi_is_mpich_4_0(void)
{
    static int known;
    return library_is(&known, "MPICH Version:\t4.0", true);
}

bool recipe_mpi_is_open_mpi_4(void)
{
    static int known;
    return library_is(&known, "Open MPI v4.", true);
}

bool recipe_is_empty(const recipe *r)
{
    MPI_Datatype t = recipe_build(r);
    MPI_Count size = -1;
    if (t != MPI_DATATYPE_NULL) {
        MPI_Type_size_x(t, &size);
        if (r->kind != R_BASIC) /* built for this question */
            MPI_Type_free(&t);
    }
    return size == 0;
}

bool recipe_has_indexed_over_zero_extent(const recipe *r)
{
    int nkids = r->kind == R_BASIC ? 0 : r->kind == R_STRUCT ? r->n : 1;
    if (r->kind == R_INDEXED) { /* the kid's extent as the MPI reports it */
        MPI_Datatype kid = recipe_build(r->kids[0]);
        MPI_Aint lb, extent = 1;
        if (kid != MPI_DATATYPE_NULL) {
            MPI_Type_get_extent(kid, &lb, &extent);
            if (r->kids[0]->kind != R_BASIC) /* predefined types are not freed */
                MPI_Type_free(&kid);
        }
        if (extent == 0)
            return true;
    }
    for (int i = 0; i < nkids; i++)
        if (recipe_has_indexed_over_zero_extent(r->kids[i]))
            return true;
    return false;
}

bool recipe_has_explicit_cyclic_darray(const recipe *r)
{
    for (int d = 0; r->kind == R_DARRAY && d < r->ndims; d++)
        if (r->distribs[d] == MPI_DISTRIBUTE_CYCLIC && r->dargs[d] != MPI_DISTRIBUTE_DFLT_DARG)
            return true;
    int nkids = r->kind == R_BASIC ? 0 : r->kind == R_STRUCT ? r->n : 1;
    for (int i = 0; i < nkids; i++)
        if (recipe_has_explicit_cyclic_darray(r->kids[i]))
            return true;
    return false;
}

bool recipe_mpi_takes(const recipe *r)
{
    if (recipe_mpi_is_mpich_4_0() && recipe_is_empty(r))
        return false;
    if (recipe_mpi_is_intel_2021() &&
        (recipe_has_indexed_over_zero_extent(r) || recipe_has_explicit_cyclic_darray(r)))
        return false;
    return !(recipe_mpi_is_mpich() &&
             (recipe_has_empty_derived_block(r) || recipe_has_inner_negative_extent(r)));
}

void recipe_options(int argc, char **argv, long long *cases, uint64_t *seed)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--cases"))
            *cases = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            *seed = strtoull(argv[i + 1], NULL, 10);
    }
}

MPI_Datatype recipe_transpose_column(int n)
{
    MPI_Datatype column, resized;
    MPI_Type_vector(n, 1, n, MPI_DOUBLE, &column);
    MPI_Type_create_resized(column, 0, sizeof(double), &resized);
    MPI_Type_free(&column);
    MPI_Type_commit(&resized);
    return resized;
}
