/* The benchmark programs' command lines: `--name value` pairs, in any order. */
#ifndef MEMCOMM_BENCH_OPTIONS_H
#define MEMCOMM_BENCH_OPTIONS_H

#include <string.h>

/* The value given for `name` ("--reps"), the last one if repeated, or `fallback`. */
static inline const char *bench_option(int argc, char **argv, const char *name,
                                       const char *fallback)
{
    const char *value = fallback;
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], name))
            value = argv[i + 1];
    return value;
}

/* Whether every option is one of the NULL-terminated `known` names. */
static inline int bench_options_known(int argc, char **argv, const char *const *known)
{
    for (int i = 1; i < argc; i += 2) {
        int found = 0;
        for (const char *const *k = known; *k; k++)
            found |= !strcmp(argv[i], *k);
        if (!found || i + 1 >= argc)
            return 0;
    }
    return 1;
}

#endif
