/* The measurement suite: `bench_suite <experiment> [options]`, launched by `memcomm bench`.
 *
 * Prints JSON lines on stdout: one {"kind": "counters"} record saying which hardware counters
 * this machine gives, then one {"kind": "result"} record per measurement and reported rank
 * with every sample (bench/harness.h, docs/timing.md). Progress goes to stderr. */
#include <stdio.h>
#include <string.h>

#include "experiments.h"

static const struct {
    const char *name;
    experiment_fn run;
    int ranks;
    bool counted; /* run under a simulator or counter, not timed: no counters record */
} experiments[] = {
    {"noncontig", experiment_noncontig, 2, false},
    {"blocking", experiment_blocking, 2, false},
    {"ddt-vs-pack", experiment_ddt_vs_pack, 2, false},
    {"decompose", experiment_decompose, 2, false},
    {"cache-state", experiment_cache_state, 2, false},
    {"pollution", experiment_pollution, 2, false},
    {"eager", experiment_eager, 2, false},
    {"latency", experiment_latency, 1, false},
    {"copy", experiment_copy, 1, false},
    {"simulate", experiment_simulate, 1, true},
    {"logp", experiment_logp, 2, false},
    {"tlb", experiment_tlb, 1, false},
    {"layouts", experiment_layouts, 1, false},
    {"calls", experiment_calls, 2, true},
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks, code = 2;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const size_t count = sizeof experiments / sizeof experiments[0];
    size_t e = 0;
    while (argc > 1 && e < count && strcmp(argv[1], experiments[e].name))
        e++;
    timing t = timing_defaults();
    const char *sizes = NULL;
    int rest;
    if (argc < 2 || e == count) {
        if (rank == 0) {
            fprintf(stderr, "bench_suite: unknown experiment %s; one of:", argc > 1 ? argv[1] : "(none)");
            for (size_t i = 0; i < count; i++)
                fprintf(stderr, " %s", experiments[i].name);
            fprintf(stderr, "\n");
        }
    } else if (nranks != experiments[e].ranks) {
        if (rank == 0)
            fprintf(stderr, "bench_suite: %s runs on %d rank(s), not %d\n", experiments[e].name,
                    experiments[e].ranks, nranks);
    } else if ((rest = harness_options(argc, argv, &t, &sizes)) >= 0) {
        if (rank == 0 && !experiments[e].counted)
            harness_counters_record();
        code = experiments[e].run(&t, sizes, argc - rest, argv + rest);
    }
    MPI_Finalize();
    return code;
}
