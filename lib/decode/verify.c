#include "verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "decode.h"

enum { GUARD = 4096 };

typedef struct {
    const unsigned char *lo, *hi; /* readable source range */
    unsigned char *out;
    bool in_bounds;
} walk_state;

/* The reference reading of the IR: block by block, in typemap order. */
static void walk(const ir_node *n, const unsigned char *at, walk_state *w)
{
    switch (n->kind) {
    case IR_BLOCK: {
        const unsigned char *p = at + n->off;
        if (p < w->lo || p + n->u.block.len > w->hi) {
            w->in_bounds = false;
            return;
        }
        memcpy(w->out, p, (size_t)n->u.block.len);
        w->out += n->u.block.len;
        return;
    }
    case IR_LOOP:
        for (int64_t i = 0; i < n->u.loop.count && w->in_bounds; i++)
            walk(n->u.loop.child, at + n->off + i * n->u.loop.stride, w);
        return;
    case IR_SEQ:
        for (int64_t i = 0; i < n->u.seq.n && w->in_bounds; i++)
            walk(n->u.seq.items[i], at + n->off, w);
        return;
    case IR_LIST:
        for (int64_t i = 0; i < n->u.list.n && w->in_bounds; i++) {
            const unsigned char *p = at + n->off + n->u.list.offs[i];
            if (p < w->lo || p + n->u.list.lens[i] > w->hi) {
                w->in_bounds = false;
                return;
            }
            memcpy(w->out, p, (size_t)n->u.list.lens[i]);
            w->out += n->u.list.lens[i];
        }
        return;
    }
}

bool verify_against_mpi(MPI_Datatype type, bool committed, const ir_node *raw, char *why,
                        size_t why_cap)
{
    decode_bounds b;
    if (decode_bounds_of(type, &b) != MPI_SUCCESS || b.size == 0)
        return true;
    int64_t lo = b.true_lb + (b.extent < 0 ? b.extent : 0);
    int64_t hi = b.true_lb + b.true_extent + (b.extent > 0 ? b.extent : 0);
    if (b.size > VERIFY_MAX_SPAN || hi - lo > VERIFY_MAX_SPAN || raw->size != b.size)
        return raw->size == b.size;
    size_t span = (size_t)(hi - lo) + 2 * GUARD, packed = (size_t)(2 * b.size);
    unsigned char *src = mc_malloc(span), *want = mc_malloc(packed), *got = mc_malloc(packed);
    bool same = false;
    if (src && want && got) {
        uint64_t x = 0x9E3779B97F4A7C15ull;
        for (size_t i = 0; i < span; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            src[i] = (unsigned char)x;
        }
        const unsigned char *origin = src + GUARD - lo;
        int pos = 0;
        walk_state w = {src, src + span, got, true};
        walk(raw, origin, &w);
        walk(raw, origin + b.extent, &w);
        /* a sub-type need not be committed: pack a committed one-element contiguous type of
         * it (not a dup, which would call the user's attribute copy and delete callbacks);
         * twice, over differently filled outputs, so that a byte the MPI leaves unwritten
         * shows */
        MPI_Datatype packer = type;
        if (w.in_bounds && (committed || (PMPI_Type_contiguous(1, type, &packer) == MPI_SUCCESS &&
                                          PMPI_Type_commit(&packer) == MPI_SUCCESS))) {
            same = true;
            for (int fill = 0; fill < 2 && same; fill++) {
                memset(want, fill ? 0xFF : 0x00, packed);
                pos = 0;
                same = PMPI_Pack(origin, 2, packer, want, (int)packed, &pos, MPI_COMM_SELF) ==
                           MPI_SUCCESS &&
                       pos == (int)packed && memcmp(want, got, packed) == 0;
            }
        }
        if (packer != type && packer != MPI_DATATYPE_NULL)
            PMPI_Type_free(&packer);
    }
    if (!same && why && why[0] == '\0')
        snprintf(why, why_cap, "the MPI packs this type differently from the layout it reports");
    free(src);
    free(want);
    free(got);
    return same;
}
