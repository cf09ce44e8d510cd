/* overlap: does unpacking write some byte twice?
 *
 * MPI calls a receive type whose entries overlap erroneous, but the MPI still unpacks it, in
 * its own order, and later entries win (Open MPI's datatype corpus checks exactly that with
 * ddtbench's fft2d type, whose instances interleave and, past some count, land on each
 * other). memcomm's kernels write in their own order (tiles, shuffles, streams), so an unpack
 * that writes a byte twice goes to the MPI. Pack reads only, and any order gives its bytes.
 *
 * Exact where it answers yes: an analytic test for strided walks (dimensions sorted by
 * stride, each stepping past everything inside it), otherwise the blocks enumerated and
 * sorted, within a budget; beyond the budget the answer is "may overlap", which only hands
 * the call to the MPI. */
#ifndef MEMCOMM_OVERLAP_H
#define MEMCOMM_OVERLAP_H

#include <stdbool.h>

#include "plan.h"

/* Enumerated blocks and shift comparisons beyond which the answer is "may overlap". */
enum { OVERLAP_MAX_BLOCKS = 1 << 20 };
#define OVERLAP_MAX_WORK (INT64_C(1) << 26)

/* Whether a strided walk's blocks are pairwise disjoint, by the analytic test alone. */
bool overlap_strided_disjoint(const plan_strided *s);

/* Whether one instance of a normalized tree writes every byte at most once. */
bool overlap_instance_disjoint(const ir_node *normal);

/* For an instance that is disjoint by itself: the largest n for which n instances `extent`
 * apart are pairwise disjoint (INT64_MAX when every count is). Exact within the budgets,
 * otherwise 1. */
int64_t overlap_disjoint_count(const ir_node *normal, int64_t extent);

#endif
