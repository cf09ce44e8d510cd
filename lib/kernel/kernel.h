/* kernel: the loops that move bytes, chosen by the planner.
 *
 * All kernels have the plan_copy_fn shape: (plan, typed buffer, count, packed buffer); the
 * pack variant reads the typed buffer, the unpack variant writes it. */
#ifndef MEMCOMM_KERNEL_H
#define MEMCOMM_KERNEL_H

#include "../plan/plan.h"

/* Bind the kernels that run a built plan (plan_build): pack, unpack, the transposing copy and
 * the records shuffles where the machine's SIMD has them, and the kernel's name. */
void kernel_select(plan *p);

/* The register width the plan's transposes use: for 8-byte elements the machine's shuffle
 * width (machine.h), never wider than its SIMD width; for others the SIMD width. */
int64_t kernel_transpose_bytes(const plan *p);

/* The records kernel's shuffles for a list, if its fields fit. */
bool kernel_records_for(const plan_list *l, plan_records *out);

/* Steps an odometer over dims [0, last] of a strided form, moving `*base` with it; false once
 * it wraps around (the walk is done). Shared by the strided and list walks. */
static inline __attribute__((always_inline)) bool kernel_next_outer(const plan_strided *s, int last,
                                                                    int64_t *idx, char **base)
{
    for (int d = last; d >= 0; d--) {
        *base += s->stride[d];
        if (++idx[d] < s->count[d])
            return true;
        *base -= s->stride[d] * s->count[d];
        idx[d] = 0;
    }
    return false;
}

/* One block per instance: a single memcpy when instances are back to back. */
void kernel_contig_pack(const plan *p, char *typed, int64_t count, char *packed);
void kernel_contig_unpack(const plan *p, char *typed, int64_t count, char *packed);

/* Strided form; the innermost copy is specialized for blocks of 1, 2, 4, 8 and 16 bytes. */
plan_copy_fn kernel_strided_pack_for(int64_t block);
plan_copy_fn kernel_strided_unpack_for(int64_t block);

/* The SIMD transposing copy for `elem`-byte elements (plan_transpose_fn), NULL when the
 * machine's SIMD width has none. */
plan_transpose_fn kernel_transpose_for(int64_t elem, int64_t simd_bytes);

/* Flattened list of blocks inside strided dims (the call's count outermost). */
void kernel_list_pack(const plan *p, char *typed, int64_t count, char *packed);
void kernel_list_unpack(const plan *p, char *typed, int64_t count, char *packed);

/* Records of at most 16 bytes through one byte shuffle each (pack: SSSE3; unpack:
 * AVX-512BW masked stores); other walks go to the list kernel. */
void kernel_records_pack(const plan *p, char *typed, int64_t count, char *packed);
void kernel_records_unpack(const plan *p, char *typed, int64_t count, char *packed);

/* Tree interpreter for any normalized tree. */
void kernel_tree_pack(const plan *p, char *typed, int64_t count, char *packed);
void kernel_tree_unpack(const plan *p, char *typed, int64_t count, char *packed);

/* The first `bytes` (fewer than one instance holds) of one instance at `typed`, in typemap
 * order: how a receive that ends inside an element fills it. */
void kernel_tree_unpack_prefix(const ir_node *normal, char *typed, const char *packed,
                               int64_t bytes);

#endif
