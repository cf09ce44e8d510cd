/* A bounded text buffer that descriptions are appended to (printf-style), silently cut at
 * its capacity: the IR's and the test recipes' one-line descriptions. */
#ifndef MEMCOMM_TEXT_H
#define MEMCOMM_TEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    char *buf;
    size_t cap, len;
} text_sink;

__attribute__((format(printf, 2, 3))) static inline void text_put(text_sink *s,
                                                                  const char *fmt, ...)
{
    if (s->len >= s->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
    va_end(ap);
    if (w > 0)
        s->len += (size_t)w;
}

#endif
