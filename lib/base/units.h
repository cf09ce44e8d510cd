/* Sizes as the environment and sysfs write them: "64", "48K", "2M", "1G" (powers of 1024, either
 * case). One parser for every size memcomm reads. */
#ifndef MEMCOMM_UNITS_H
#define MEMCOMM_UNITS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* False, leaving *out alone, for text that is not a non-negative size or overflows. */
static inline bool units_parse_size(const char *text, int64_t *out)
{
    if (!text || *text < '0' || *text > '9')
        return false;
    char *end;
    long long v = strtoll(text, &end, 10);
    int shift = 0;
    switch (*end) {
    case 'K': case 'k': shift = 10; end++; break;
    case 'M': case 'm': shift = 20; end++; break;
    case 'G': case 'g': shift = 30; end++; break;
    default: break;
    }
    while (*end == ' ' || *end == '\n' || *end == 'B' || *end == 'b')
        end++;
    if (*end != '\0' || v < 0 || v > (INT64_MAX >> shift))
        return false;
    *out = (int64_t)v << shift;
    return true;
}

#endif
