/* Minimal checks for the C tests: they work with NDEBUG, count, and end with the
 * 'N passed, N failed' line CI reads. */
#ifndef MEMCOMM_TEST_CHECK_H
#define MEMCOMM_TEST_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (cond) {                                                                            \
            check_passed++;                                                                    \
        } else {                                                                               \
            check_failed++;                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);           \
        }                                                                                      \
    } while (0)

#define CHECK_STR(got, want)                                                                   \
    do {                                                                                       \
        const char *got_ = (got), *want_ = (want);                                             \
        if (strcmp(got_, want_) == 0) {                                                        \
            check_passed++;                                                                    \
        } else {                                                                               \
            check_failed++;                                                                    \
            fprintf(stderr, "%s:%d: got %s\n%*swant %s\n", __FILE__, __LINE__, got_,           \
                    (int)strlen(__FILE__) + 8, "", want_);                                     \
        }                                                                                      \
    } while (0)

static inline int check_summary(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif
