/* explain: the planner's decision for one analysis and count, in words (memcomm_type_explain,
 * MEMCOMM_EXPLAIN=1). */
#ifndef MEMCOMM_EXPLAIN_H
#define MEMCOMM_EXPLAIN_H

#include <stddef.h>

#include "analysis.h"

/* Writes the explanation; returns its length, or -1 when `cap` is too small. */
int explain_analysis(const analysis *a, int64_t count, char *text, size_t cap);

/* MEMCOMM_EXPLAIN=1: the explanation on stderr, each line prefixed "memcomm explain [rank R]
 * <what>: " so that it can be found in a program's output. */
void explain_to_stderr(const analysis *a, int64_t count, const char *what);

/* Lines of `text` (cut apart in place) on stderr with that prefix: how other decisions
 * (lib/core/sendpath.c's choice of path) are explained. */
void explain_lines_to_stderr(const char *what, char *text);

/* The same for a pack or unpack call, once per (type, count) in the process (the count
 * decides the walk: a transpose is a type and a count). Thread-safe. */
void explain_first_call(const analysis *a, int64_t count, const char *what);

#endif
