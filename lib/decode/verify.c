#include "verify.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "decode.h"

enum { GUARD = 4096 };

/* Addresses are integers here: a type of absolute addresses (MPI_Get_address, moved from
 * MPI_BOTTOM) puts the walk's origin far outside the source buffer, where pointer arithmetic
 * would be undefined (UBSan: "pointer index expression overflowed"); unsigned arithmetic
 * wraps, and only an address inside the buffer is turned into a pointer. */
typedef struct {
    uintptr_t lo, hi; /* readable source range */
    unsigned char *out;
    bool in_bounds;
} walk_state;

/* Whether [p, p + len) is inside the source; then copy it out. */
static void take(uintptr_t p, int64_t len, walk_state *w)
{
    if (p < w->lo || p > w->hi || (uint64_t)len > w->hi - p) {
        w->in_bounds = false;
        return;
    }
    memcpy(w->out, (const unsigned char *)p, (size_t)len);
    w->out += len;
}

/* The reference reading of the IR: block by block, in typemap order. */
static void walk(const ir_node *n, uintptr_t at, walk_state *w)
{
    switch (n->kind) {
    case IR_BLOCK:
        take(at + (uintptr_t)n->off, n->u.block.len, w);
        return;
    case IR_LOOP:
        for (int64_t i = 0; i < n->u.loop.count && w->in_bounds; i++)
            walk(n->u.loop.child, at + (uintptr_t)n->off + (uintptr_t)(i * n->u.loop.stride),
                 w);
        return;
    case IR_SEQ:
        for (int64_t i = 0; i < n->u.seq.n && w->in_bounds; i++)
            walk(n->u.seq.items[i], at + (uintptr_t)n->off, w);
        return;
    case IR_LIST:
        for (int64_t i = 0; i < n->u.list.n && w->in_bounds; i++)
            take(at + (uintptr_t)n->off + (uintptr_t)n->u.list.offs[i], n->u.list.lens[i], w);
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
        const uintptr_t origin = (uintptr_t)src + GUARD - (uintptr_t)lo;
        int pos = 0;
        walk_state w = {(uintptr_t)src, (uintptr_t)src + span, got, true};
        walk(raw, origin, &w);
        walk(raw, origin + (uintptr_t)b.extent, &w);
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
                same = PMPI_Pack((const void *)origin, 2, packer, want, (int)packed, &pos,
                                 MPI_COMM_SELF) ==
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
