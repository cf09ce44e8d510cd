/* The measurement suite's experiments (bench/suite.c runs one by name). Each takes the
 * timing method, the --sizes list (NULL for its default) and its own remaining options, and
 * returns 0, or 2 for bad options (after a one-line message). */
#ifndef MEMCOMM_BENCH_EXPERIMENTS_H
#define MEMCOMM_BENCH_EXPERIMENTS_H

#include "harness.h"

typedef int (*experiment_fn)(const timing *t, const char *sizes, int argc, char **argv);

int experiment_noncontig(const timing *t, const char *sizes, int argc, char **argv);
int experiment_blocking(const timing *t, const char *sizes, int argc, char **argv);
int experiment_ddt_vs_pack(const timing *t, const char *sizes, int argc, char **argv);
int experiment_decompose(const timing *t, const char *sizes, int argc, char **argv);
int experiment_cache_state(const timing *t, const char *sizes, int argc, char **argv);
int experiment_pollution(const timing *t, const char *sizes, int argc, char **argv);
int experiment_eager(const timing *t, const char *sizes, int argc, char **argv);
int experiment_latency(const timing *t, const char *sizes, int argc, char **argv);
int experiment_tlb(const timing *t, const char *sizes, int argc, char **argv);
int experiment_copy(const timing *t, const char *sizes, int argc, char **argv);
int experiment_logp(const timing *t, const char *sizes, int argc, char **argv);
int experiment_layouts(const timing *t, const char *sizes, int argc, char **argv);
int experiment_simulate(const timing *t, const char *sizes, int argc, char **argv);
int experiment_calls(const timing *t, const char *sizes, int argc, char **argv);

#endif
