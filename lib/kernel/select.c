/* kernel_select: which kernels run a plan. */
#include "kernel.h"

int64_t kernel_transpose_bytes(const plan *p)
{
    const bool narrower = p->shuffle_bytes > 0 && p->shuffle_bytes < p->simd_bytes;
    const bool shuffled = p->strided.block == 8 || p->strided.block == 4; /* doubles, floats */
    return shuffled && narrower ? p->shuffle_bytes : p->simd_bytes;
}

void kernel_select(plan *p)
{
    switch (p->kind) {
    case PLAN_CONTIG:
        p->pack = kernel_contig_pack;
        p->unpack = kernel_contig_unpack;
        p->kernel_name = "contiguous";
        return;
    case PLAN_STRIDED:
        p->pack = kernel_strided_pack_for(p->strided.block, p->simd_bytes);
        p->unpack = kernel_strided_unpack_for(p->strided.block, p->simd_bytes);
        p->transpose =
            kernel_transpose_for(p->strided.block, p->simd_bytes, kernel_transpose_bytes(p));
        p->kernel_name = "strided";
        return;
    case PLAN_LIST:
        p->pack = kernel_list_pack;
        p->unpack = kernel_list_unpack;
        p->kernel_name = "list";
        if (p->simd_bytes >= MACHINE_SIMD_AVX2 && kernel_records_for(&p->list, &p->records)) {
            p->pack = kernel_records_pack; /* SSSE3, which every AVX2 CPU has */
            p->unpack = kernel_records_unpack;
            p->kernel_name = "records";
        }
        return;
    case PLAN_TREE:
        p->pack = kernel_tree_pack;
        p->unpack = kernel_tree_unpack;
        p->kernel_name = "tree";
        return;
    }
}
