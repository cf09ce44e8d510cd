/* explain: the planner's decision for one analysis and count, in words (memcomm_type_explain,
 * MEMCOMM_EXPLAIN=1). */
#ifndef MEMCOMM_EXPLAIN_H
#define MEMCOMM_EXPLAIN_H

#include <stddef.h>

#include "analysis.h"

/* Writes the explanation; returns its length, or -1 when `cap` is too small. */
int explain_analysis(const analysis *a, int64_t count, char *text, size_t cap);

#endif
