#include "decode.h"
#include "contents.h"
#include "verify.h"
#include "../base/mpiutil.h"
#include "../normalize/normalize.h"

#include <float.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


enum { MAX_DEPTH = 64, PROBE_MAX_EXTENT = 255 };

typedef struct {
    ir_arena *arena;
    bool verify; /* check each constructed (sub-)type against the MPI's pack (verify.h) */
    char *why;
    size_t why_cap;
} decoder;

static const ir_node *decode_rec(decoder *d, MPI_Datatype type, int depth);

static const ir_node *fail(decoder *d, const char *msg)
{
    if (d->why && d->why[0] == '\0')
        snprintf(d->why, d->why_cap, "%s", msg);
    return NULL;
}

const char *decode_combiner_name(int combiner)
{
    static const struct {
        int value;
        const char *name;
    } names[] = {
        {MPI_COMBINER_NAMED, "named"},
        {MPI_COMBINER_DUP, "dup"},
        {MPI_COMBINER_CONTIGUOUS, "contiguous"},
        {MPI_COMBINER_VECTOR, "vector"},
        {MPI_COMBINER_HVECTOR, "hvector"},
        {MPI_COMBINER_INDEXED, "indexed"},
        {MPI_COMBINER_HINDEXED, "hindexed"},
        {MPI_COMBINER_INDEXED_BLOCK, "indexed_block"},
        {MPI_COMBINER_HINDEXED_BLOCK, "hindexed_block"},
        {MPI_COMBINER_STRUCT, "struct"},
        {MPI_COMBINER_SUBARRAY, "subarray"},
        {MPI_COMBINER_DARRAY, "darray"},
        {MPI_COMBINER_RESIZED, "resized"},
#if MEMCOMM_HAVE_INTEGER_COMBINERS
        {MPI_COMBINER_HVECTOR_INTEGER, "hvector_integer"},
        {MPI_COMBINER_HINDEXED_INTEGER, "hindexed_integer"},
        {MPI_COMBINER_STRUCT_INTEGER, "struct_integer"},
#endif
        {MPI_COMBINER_F90_REAL, "f90_real"},
        {MPI_COMBINER_F90_COMPLEX, "f90_complex"},
        {MPI_COMBINER_F90_INTEGER, "f90_integer"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].value == combiner)
            return names[i].name;
    return "unknown";
}

int decode_bounds_of(MPI_Datatype type, decode_bounds *out)
{
    MPI_Count size, lb, extent, true_lb, true_extent;
    int rc = PMPI_Type_size_x(type, &size);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_get_extent_x(type, &lb, &extent);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_get_true_extent_x(type, &true_lb, &true_extent);
    if (rc == MPI_SUCCESS) {
        out->size = size;
        out->lb = lb;
        out->extent = extent;
        out->true_lb = true_lb;
        out->true_extent = true_extent;
    }
    return rc;
}

/* Does the MPI place types built from negative-extent types where their reported extent
 * says? MPICH 5.0.2 does not: contiguous(2, resized(x, lb=-11, extent=-9)) reports extent 0
 * (ub - lb, as the standard defines it) but is repeated 18 bytes apart, so the extent of any
 * type above a negative-extent one cannot be read from the MPI. Asked once, by a probe. */
static bool negative_extents_repeat_at_extent(void)
{
    static atomic_int answer = -1;
    int known = atomic_load(&answer);
    if (known >= 0)
        return known;
    MPI_Datatype shifted, element, pair;
    PMPI_Type_create_resized(MPI_BYTE, 0, 4, &shifted);
    PMPI_Type_create_resized(shifted, -8, -3, &element); /* extent -3 */
    PMPI_Type_contiguous(2, element, &pair);
    PMPI_Type_free(&shifted);
    MPI_Datatype twice;
    PMPI_Type_contiguous(2, pair, &twice);
    PMPI_Type_commit(&twice);
    MPI_Count lb, pair_extent;
    PMPI_Type_get_extent_x(pair, &lb, &pair_extent);
    unsigned char src[64], packed[4] = {0};
    for (int i = 0; i < 64; i++)
        src[i] = (unsigned char)i;
    int pos = 0;
    PMPI_Pack(src + 32, 1, twice, packed, (int)sizeof packed, &pos, MPI_COMM_SELF);
    /* bytes at 0, -3, then the second pair at pair_extent, pair_extent - 3 */
    int consistent = pos == 4 && packed[2] == 32 + pair_extent && packed[3] == 32 + pair_extent - 3;
    PMPI_Type_free(&element);
    PMPI_Type_free(&pair);
    PMPI_Type_free(&twice);
    atomic_store(&answer, consistent);
    return consistent;
}

/* Does the MPI pack a byte stride of -1 as written? Open MPI 5.0.11 packs
 * hvector(3, 1, -1 byte, MPI_CHAR) as three consecutive bytes going up (0, 1, 2), not
 * (0, -1, -2); other negative strides are fine. Asked once, by a probe. */
static bool minus_one_stride_packs_as_written(void)
{
    static atomic_int answer = -1;
    int known = atomic_load(&answer);
    if (known >= 0)
        return known;
    MPI_Datatype probe;
    PMPI_Type_create_hvector(3, 1, -1, MPI_CHAR, &probe);
    PMPI_Type_commit(&probe);
    unsigned char src[8] = {0, 1, 2, 3, 4, 5, 6, 7}, packed[3] = {0};
    int pos = 0;
    PMPI_Pack(src + 4, 1, probe, packed, (int)sizeof packed, &pos, MPI_COMM_SELF);
    PMPI_Type_free(&probe);
    int as_written = pos == 3 && packed[0] == 4 && packed[1] == 3 && packed[2] == 2;
    atomic_store(&answer, as_written);
    return as_written;
}

/* A child type's extent as the MPI uses it, or false when memcomm cannot know it. */
static bool extent_of(decoder *d, MPI_Datatype type, int64_t *extent)
{
    MPI_Count lb, ext;
    if (PMPI_Type_get_extent_x(type, &lb, &ext) != MPI_SUCCESS)
        return false;
    *extent = ext;
    if (ext >= 0 || negative_extents_repeat_at_extent())
        return true;
    fail(d, "the MPI does not place types above a negative-extent type at their extent");
    return false;
}

/* `count` instances of `child` (extent `extent`) placed back to back at `off`. */
static const ir_node *repeat(decoder *d, int64_t off, int64_t count, int64_t extent,
                             const ir_node *child)
{
    return ir_loop(d->arena, off, count, extent, child);
}

/* The byte map of `count` instances of a predefined type in a probe layout, as one PMPI_Pack
 * shows it: read from a buffer whose bytes hold their offsets (shifted by `src_shift`),
 * packed at `out_shift` over an output filled with `fill`. False if the pack fails. */
static bool probe_pack(MPI_Datatype layout, int64_t bytes, int src_shift, int out_shift,
                       int fill, unsigned char *map)
{
    unsigned char src[PROBE_MAX_EXTENT + 1 + 16], out[PROBE_MAX_EXTENT + 1 + 16];
    for (int i = 0; i <= PROBE_MAX_EXTENT; i++)
        src[src_shift + i] = (unsigned char)i;
    memset(out, fill, sizeof out);
    int pos = out_shift;
    if (PMPI_Pack(src + src_shift, 1, layout, out, (int)sizeof out, &pos, MPI_COMM_SELF) !=
            MPI_SUCCESS ||
        pos != out_shift + bytes)
        return false;
    memcpy(map, out + out_shift, (size_t)bytes);
    return true;
}

/* Does the MPI pack `count` instances `stride` apart the same way at every alignment of
 * source and output, writing every byte? The first instance's map goes to `map`. */
static bool layout_is_faithful(MPI_Datatype type, int64_t size, int count, int64_t stride,
                               unsigned char *map)
{
    MPI_Datatype layout;
    if (PMPI_Type_create_hvector(count, 1, (MPI_Aint)stride, type, &layout) != MPI_SUCCESS)
        return false;
    PMPI_Type_commit(&layout);
    int64_t bytes = count * size;
    unsigned char first[PROBE_MAX_EXTENT + 1], other[PROBE_MAX_EXTENT + 1];
    bool faithful = probe_pack(layout, bytes, 0, 0, 0x00, first);
    for (int src_shift = 0; src_shift < 16 && faithful; src_shift++)
        for (int out_shift = 0; out_shift < 16 && faithful; out_shift++)
            for (int fill = 0x00; fill <= 0xFF && faithful; fill += 0xFF)
                faithful = probe_pack(layout, bytes, src_shift, out_shift, fill, other) &&
                           memcmp(first, other, (size_t)bytes) == 0;
    PMPI_Type_free(&layout);
    memcpy(map, first, (size_t)size);
    return faithful;
}

/* Does the MPI pack this predefined type the same way in strided layouts at every alignment
 * of source and output, writing every byte? Open MPI 5.0.11 swaps the halves of
 * MPI_C_DOUBLE_COMPLEX in hvector(3, 1, 24 bytes) at odd output positions; MPICH leaves
 * bytes of x87 long double unwritten. Probed once per type (the answer holds for the run):
 * two instances with a gap, and three 8 bytes apart beyond their size. */
static bool leaf_is_faithful(MPI_Datatype type, const decode_bounds *b, unsigned char *map)
{
    enum { KNOWN = 64 };
    static struct {
        uint64_t key;
        int faithful; /* 0 unknown, 1 yes, 2 no */
        unsigned char map[PROBE_MAX_EXTENT + 1];
    } known[KNOWN];
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    const uint64_t key = handle_key(type);
    pthread_mutex_lock(&lock);
    int verdict = 0, slot = -1;
    for (int i = 0; i < KNOWN && !verdict; i++) {
        if (known[i].faithful && known[i].key == key) {
            verdict = known[i].faithful;
            memcpy(map, known[i].map, (size_t)b->size);
        } else if (!known[i].faithful && slot < 0) {
            slot = i;
        }
    }
    pthread_mutex_unlock(&lock);
    if (verdict)
        return verdict == 1;
    int64_t span = b->true_lb + b->true_extent;
    unsigned char second[PROBE_MAX_EXTENT + 1];
    bool faithful = layout_is_faithful(type, b->size, 2, 2 * span, map) &&
                    layout_is_faithful(type, b->size, 3, b->size + 8, second) &&
                    memcmp(map, second, (size_t)b->size) == 0;
    if (slot >= 0) {
        pthread_mutex_lock(&lock);
        known[slot].key = key;
        memcpy(known[slot].map, map, (size_t)b->size);
        known[slot].faithful = faithful ? 1 : 2;
        pthread_mutex_unlock(&lock);
    }
    return faithful;
}

/* A type whose layout the MPI does not describe through contents (named types, pair types
 * such as MPI_DOUBLE_INT, f90 types). Its byte map is read back from PMPI_Pack: see
 * leaf_is_faithful for what makes memcomm hand such a type to the MPI instead. */
static const ir_node *decode_leaf(decoder *d, MPI_Datatype type)
{
#if LDBL_MANT_DIG == 64
    /* x87 extended precision: 10 value bytes in 16. Which layouts an MPI copies by value
     * (skipping the padding) depends on its internal code paths, so no probe can settle it. */
    if (type == MPI_LONG_DOUBLE || type == MPI_LONG_DOUBLE_INT || type == MPI_C_LONG_DOUBLE_COMPLEX)
        return fail(d, "the MPI may leave the padding bytes of x87 long double unwritten");
#endif
    decode_bounds b;
    if (decode_bounds_of(type, &b) != MPI_SUCCESS)
        return fail(d, "size/extent query failed");
    if (b.size == 0)
        return ir_seq(d->arena, 0, 0, NULL);
    int64_t span = b.true_lb + b.true_extent;
    if (b.true_lb < 0 || b.extent <= 0 || 3 * span + 16 > PROBE_MAX_EXTENT)
        return b.size == b.true_extent ? ir_block(d->arena, b.true_lb, b.size)
                                       : fail(d, "non-contiguous predefined type too large to probe");
    unsigned char map[PROBE_MAX_EXTENT + 1];
    if (!leaf_is_faithful(type, &b, map))
        return fail(d, "the MPI packs this predefined type differently at different alignments "
                       "or leaves bytes unwritten");

    const ir_node **items = ir_arena_alloc(d->arena, sizeof *items * (size_t)b.size);
    if (!items)
        return fail(d, "out of analysis memory");
    int64_t n = 0;
    for (int i = 0; i < b.size;) {
        int start = map[i], len = 1;
        while (i + len < b.size && map[i + len] == start + len)
            len++;
        items[n++] = ir_block(d->arena, start, len);
        i += len;
    }
    return ir_seq(d->arena, 0, n, (const ir_node **)items);
}

/* SEQ of items, item i being `lens[i]` copies of a child at byte displacement `displs[i]`. */
typedef struct {
    int64_t n;
    int64_t (*len)(const contents *, int64_t i);
    int64_t (*displ)(const contents *, int64_t i);
    int64_t displ_unit; /* 1 for byte displacements, the child's extent for element ones */
} indexed_form;

/* The compact form for an indexed type whose element is one contiguous block (the common
 * case, and the one with up to millions of entries): a LIST of 16 bytes per block instead
 * of a node per entry. Element runs merge into one block when elements are back to back. */
static const ir_node *build_indexed_list(decoder *d, const contents *c, const indexed_form *form,
                                         const ir_node *block, int64_t extent)
{
    const int64_t len = block->u.block.len;
    const bool back_to_back = len == extent;
    int64_t total = 0;
    for (int64_t i = 0; i < form->n; i++) {
        int64_t count = form->len(c, i);
        if (count < 0 || !ir_add(total, back_to_back ? (count > 0) : count, &total))
            return fail(d, "malformed contents");
    }
    int64_t *offs = ir_arena_alloc(d->arena, sizeof *offs * (size_t)(total + 1));
    int64_t *lens = ir_arena_alloc(d->arena, sizeof *lens * (size_t)(total + 1));
    if (!offs || !lens)
        return fail(d, "out of analysis memory");
    int64_t k = 0;
    for (int64_t i = 0; i < form->n; i++) {
        int64_t count = form->len(c, i), base;
        if (count == 0)
            continue;
        if (!ir_mul(form->displ(c, i), form->displ_unit ? extent : 1, &base) ||
            !ir_add(base, block->off, &base))
            return fail(d, "displacement overflows 64 bits");
        if (back_to_back) {
            offs[k] = base;
            if (!ir_mul(count, len, &lens[k++]))
                return fail(d, "block overflows 64 bits");
            continue;
        }
        for (int64_t e = 0; e < count; e++, k++) {
            int64_t step;
            if (!ir_mul(e, extent, &step) || !ir_add(base, step, &offs[k]))
                return fail(d, "displacement overflows 64 bits");
            lens[k] = len;
        }
    }
    return ir_list(d->arena, 0, total, offs, lens);
}

static const ir_node *build_indexed(decoder *d, const contents *c, const indexed_form *form,
                                    int depth)
{
    if (form->n < 0 || !contents_flat_has(c, 1))
        return fail(d, "malformed contents");
    const ir_node **items = ir_arena_alloc(d->arena, sizeof *items * (size_t)(form->n + 1));
    if (!items)
        return fail(d, "out of analysis memory");
    bool is_struct = c->combiner == MPI_COMBINER_STRUCT;
#if MEMCOMM_HAVE_INTEGER_COMBINERS
    is_struct |= c->combiner == MPI_COMBINER_STRUCT_INTEGER;
#endif
    const ir_node *shared = NULL;
    int64_t shared_extent = 0;
    if (!is_struct) {
        shared = decode_rec(d, c->types[0], depth + 1);
        if (!shared || !extent_of(d, c->types[0], &shared_extent))
            return fail(d, "child type");
        /* an element that is one block (after normalizing it alone) gives the compact form */
        const ir_node *element = norm_tree(d->arena, shared);
        if (element && element->kind == IR_BLOCK)
            return build_indexed_list(d, c, form, element, shared_extent);
    }
    for (int64_t i = 0; i < form->n; i++) {
        const ir_node *child = shared;
        int64_t extent = shared_extent;
        if (is_struct) {
            child = decode_rec(d, c->types[i], depth + 1);
            if (!child || !extent_of(d, c->types[i], &extent))
                return fail(d, "struct member type");
        }
        int64_t off;
        int64_t unit = form->displ_unit ? extent : 1;
        if (!ir_mul(form->displ(c, i), unit, &off))
            return fail(d, "displacement overflows 64 bits");
        items[i] = repeat(d, off, form->len(c, i), extent, child);
        if (!items[i])
            return fail(d, "block overflows 64 bits");
    }
    return ir_seq(d->arena, 0, form->n, items);
}

/* Argument layouts of the indexed family, as positions in `flat`. */
static int64_t len_list(const contents *c, int64_t i) { return contents_flat(c, 1 + i); }
static int64_t displ_after_lens(const contents *c, int64_t i) { return contents_flat(c, 1 + contents_flat(c, 0) + i); }
static int64_t len_single(const contents *c, int64_t i) { (void)i; return contents_flat(c, 1); }
static int64_t displ_after_single(const contents *c, int64_t i) { return contents_flat(c, 2 + i); }

/* One dimension of a subarray or darray: the indices this process owns, as blocks of
 * `block` consecutive indices, the k-th starting at first + k*period, the last cut at
 * `limit`. Nested around `inner` (one element), with `stride` bytes between indices. */
typedef struct {
    int64_t first, block, period, limit, stride;
} dim_cover;

static const ir_node *cover_dim(decoder *d, const dim_cover *dc, const ir_node *inner)
{
    const ir_node *parts[2];
    int64_t n = 0, span = dc->limit - dc->first;
    if (span <= 0 || dc->block <= 0)
        return ir_seq(d->arena, 0, 0, parts);
    int64_t full = span / dc->period, rest = span % dc->period;
    int64_t tail = rest < dc->block ? rest : dc->block;
    int64_t off, step, tail_off;
    if (!ir_mul(dc->first, dc->stride, &off) || !ir_mul(dc->period, dc->stride, &step) ||
        !ir_mul(full, step, &tail_off) || !ir_add(tail_off, off, &tail_off))
        return fail(d, "array dimension overflows 64 bits");
    if (full > 0) {
        const ir_node *run = ir_loop(d->arena, 0, dc->block, dc->stride, inner);
        parts[n++] = ir_loop(d->arena, off, full, step, run);
    }
    if (tail > 0)
        parts[n++] = ir_loop(d->arena, tail_off, tail, dc->stride, inner);
    for (int64_t i = 0; i < n; i++)
        if (!parts[i])
            return fail(d, "out of analysis memory");
    const ir_node **items = ir_arena_alloc(d->arena, sizeof *items * 2);
    if (!items)
        return fail(d, "out of analysis memory");
    memcpy(items, parts, sizeof parts);
    return ir_seq(d->arena, 0, n, items);
}

/* Nest dims so that the fastest-varying (last in C order, first in Fortran) is innermost. */
static const ir_node *nest_dims(decoder *d, int64_t ndims, const dim_cover *dims, int order,
                                const ir_node *element)
{
    const ir_node *node = element;
    for (int64_t k = 0; k < ndims && node; k++) {
        int64_t dim = order == MPI_ORDER_FORTRAN ? k : ndims - 1 - k;
        node = cover_dim(d, &dims[dim], node);
    }
    return node;
}

/* Byte stride between consecutive indices of each dimension of a full array. */
static bool array_strides(int64_t ndims, const int64_t *sizes, int order, int64_t extent,
                          dim_cover *dims)
{
    int64_t stride = extent;
    for (int64_t k = 0; k < ndims; k++) {
        int64_t dim = order == MPI_ORDER_FORTRAN ? k : ndims - 1 - k;
        dims[dim].stride = stride;
        if (!ir_mul(stride, sizes[dim], &stride))
            return false;
    }
    return true;
}

static const ir_node *decode_subarray(decoder *d, const contents *c, int depth)
{
    int64_t ndims = c->ints[0];
    bool large = c->nc > 0;
    if (ndims <= 0 || ndims > 64)
        return fail(d, "subarray dimensions");
    int order = large ? c->ints[1] : c->ints[1 + 3 * ndims];
    int64_t sizes[64], subsizes[64], starts[64];
    for (int64_t i = 0; i < ndims; i++) {
        sizes[i] = large ? c->counts[i] : c->ints[1 + i];
        subsizes[i] = large ? c->counts[ndims + i] : c->ints[1 + ndims + i];
        starts[i] = large ? c->counts[2 * ndims + i] : c->ints[1 + 2 * ndims + i];
    }
    int64_t extent;
    const ir_node *element = decode_rec(d, c->types[0], depth + 1);
    if (!element || !extent_of(d, c->types[0], &extent))
        return fail(d, "subarray element type");
    dim_cover dims[64];
    if (!array_strides(ndims, sizes, order, extent, dims))
        return fail(d, "subarray overflows 64 bits");
    for (int64_t i = 0; i < ndims; i++) {
        dims[i].first = starts[i];
        dims[i].block = subsizes[i];
        dims[i].period = subsizes[i] > 0 ? subsizes[i] : 1;
        dims[i].limit = starts[i] + subsizes[i];
    }
    return nest_dims(d, ndims, dims, order, element);
}

/* darray per the MPI standard: the process grid is row-major whatever the array order;
 * BLOCK is one block of darg (default ceil(gsize/psize)) indices, CYCLIC(darg) deals
 * blocks of darg indices round-robin, NONE keeps the whole dimension. */
static const ir_node *decode_darray(decoder *d, const contents *c, int depth)
{
    bool large = c->nc > 0;
    int64_t nprocs = c->ints[0], rank = c->ints[1], ndims = c->ints[2];
    if (ndims <= 0 || ndims > 64 || nprocs <= 0)
        return fail(d, "darray dimensions");
    /* non-large ints: size rank ndims gsizes[] distribs[] dargs[] psizes[] order
     * large ints:     size rank ndims distribs[] dargs[] psizes[] order; counts: gsizes[] */
    int64_t base = large ? 3 : 3 + ndims;
    int order = c->ints[base + 3 * ndims];
    int64_t gsizes[64], coords[64];
    int64_t rest = rank;
    for (int64_t i = ndims - 1; i >= 0; i--) {
        int64_t psize = c->ints[base + 2 * ndims + i];
        if (psize <= 0)
            return fail(d, "darray process grid");
        coords[i] = rest % psize;
        rest /= psize;
    }
    for (int64_t i = 0; i < ndims; i++)
        gsizes[i] = large ? c->counts[i] : c->ints[3 + i];
    int64_t extent;
    const ir_node *element = decode_rec(d, c->types[0], depth + 1);
    if (!element || !extent_of(d, c->types[0], &extent))
        return fail(d, "darray element type");
    dim_cover dims[64];
    if (!array_strides(ndims, gsizes, order, extent, dims))
        return fail(d, "darray overflows 64 bits");
    for (int64_t i = 0; i < ndims; i++) {
        int distrib = c->ints[base + i];
        int64_t darg = c->ints[base + ndims + i];
        int64_t psize = c->ints[base + 2 * ndims + i];
        int64_t block;
        if (distrib == MPI_DISTRIBUTE_NONE) {
            block = gsizes[i];
            psize = 1;
            coords[i] = 0;
        } else if (distrib == MPI_DISTRIBUTE_BLOCK) {
            block = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsizes[i] + psize - 1) / psize : darg;
        } else if (distrib == MPI_DISTRIBUTE_CYCLIC) {
            block = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        } else {
            return fail(d, "darray distribution");
        }
        int64_t first, period;
        if (!ir_mul(coords[i], block, &first) || !ir_mul(block, psize, &period))
            return fail(d, "darray overflows 64 bits");
        dims[i].first = first;
        dims[i].block = block;
        dims[i].period = period > 0 ? period : 1;
        dims[i].limit = gsizes[i];
    }
    return nest_dims(d, ndims, dims, order, element);
}

static const ir_node *decode_contents(decoder *d, const contents *c, int depth)
{
    int64_t extent = 0;
    switch (c->combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: /* lb/extent only matter to parents, which ask the MPI */
        return decode_rec(d, c->types[0], depth + 1);
    case MPI_COMBINER_CONTIGUOUS: {
        const ir_node *child = decode_rec(d, c->types[0], depth + 1);
        if (!child || !extent_of(d, c->types[0], &extent) || !contents_flat_has(c, 1))
            return fail(d, "contiguous child");
        return repeat(d, 0, contents_flat(c, 0), extent, child);
    }
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
#if MEMCOMM_HAVE_INTEGER_COMBINERS
    case MPI_COMBINER_HVECTOR_INTEGER:
#endif
    {
        const ir_node *child = decode_rec(d, c->types[0], depth + 1);
        if (!child || !extent_of(d, c->types[0], &extent) || !contents_flat_has(c, 3))
            return fail(d, "vector child");
        int64_t stride = contents_flat(c, 2);
        if (c->combiner == MPI_COMBINER_VECTOR && !ir_mul(stride, extent, &stride))
            return fail(d, "vector stride overflows 64 bits");
        if (stride == -1 && contents_flat(c, 0) > 1 && !minus_one_stride_packs_as_written())
            return fail(d, "the MPI packs a byte stride of -1 differently from the standard");
        const ir_node *block = repeat(d, 0, contents_flat(c, 1), extent, child);
        return block ? ir_loop(d->arena, 0, contents_flat(c, 0), stride, block) : fail(d, "vector block");
    }
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_STRUCT:
#if MEMCOMM_HAVE_INTEGER_COMBINERS
    case MPI_COMBINER_HINDEXED_INTEGER:
    case MPI_COMBINER_STRUCT_INTEGER:
#endif
    {
        indexed_form form = {contents_flat(c, 0), len_list, displ_after_lens,
                             c->combiner == MPI_COMBINER_INDEXED};
        return build_indexed(d, c, &form, depth);
    }
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK: {
        indexed_form form = {contents_flat(c, 0), len_single, displ_after_single,
                             c->combiner == MPI_COMBINER_INDEXED_BLOCK};
        return build_indexed(d, c, &form, depth);
    }
    case MPI_COMBINER_SUBARRAY:
        return decode_subarray(d, c, depth);
    case MPI_COMBINER_DARRAY:
        return decode_darray(d, c, depth);
    default:
        if (d->why && d->why[0] == '\0')
            snprintf(d->why, d->why_cap, "combiner %d is not supported", c->combiner);
        return NULL;
    }
}

static const ir_node *decode_rec(decoder *d, MPI_Datatype type, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(d, "type nested too deeply");
    int combiner;
    if (contents_combiner(type, &combiner) != MPI_SUCCESS)
        return fail(d, "envelope query failed");
    switch (combiner) {
    case MPI_COMBINER_NAMED:
    case MPI_COMBINER_F90_REAL:
    case MPI_COMBINER_F90_COMPLEX:
    case MPI_COMBINER_F90_INTEGER:
        return decode_leaf(d, type);
    default:
        break;
    }
    if (!contents_is_constructed(combiner)) {
        if (d->why && d->why[0] == '\0')
            snprintf(d->why, d->why_cap, "combiner %d is not supported", combiner);
        return NULL;
    }
    contents c;
    if (!contents_fetch(type, &c))
        return fail(d, "contents query failed");
    const ir_node *node = decode_contents(d, &c, depth);
    contents_release(&c);
    if (!node)
        return fail(d, "out of analysis memory");
    /* the top type is the committed one; sub-types may not be */
    return !d->verify || verify_against_mpi(type, depth == 0, node, d->why, d->why_cap) ? node
                                                                                        : NULL;
}

const ir_node *decode_type(MPI_Datatype type, ir_arena *arena, bool verify, char *why,
                           size_t why_cap)
{
    if (why && why_cap)
        why[0] = '\0';
    decoder d = {arena, verify, why, why_cap};
    return decode_rec(&d, type, 0);
}
